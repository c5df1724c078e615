package config

import (
	"strings"

	"github.com/paydash/paydash/internal/platform/suggest"
)

// kind says how a key's value is read and checked.
type kind int

const (
	kindString    kind = iota
	kindHTTPURL        // absolute http(s) URL
	kindWSURL          // absolute ws(s) URL
	kindSecret         // inline secret, never echoed
	kindPath           // file path, relative to the config file's directory
	kindEnvName        // name of an environment variable holding a secret
	kindAddr           // host:port to listen on
	kindDuration       // Go duration string, at least minRefresh
	kindBool           // TOML boolean; "true"/"false"/"1"/"0" from env and flags
	kindAmounts        // table currency -> amount in major units, as strings
	kindTimeZone       // "local", "UTC" or an IANA zone name
	kindAccounts       // table currency -> merchant account id (UUID)
	kindDurations      // one duration, or a table currency -> duration
	kindCount          // positive integer (TOML integer; digits from env and flags)
)

// isTable is whether a kind's value is a table keyed by currency, whose
// members are addressed as "key.CUR".
func (k kind) isTable() bool { return k == kindAmounts || k == kindAccounts || k == kindDurations }

// keySpec describes one key of a profile.
type keySpec struct {
	name string
	kind kind
	// group names the logical setting a key is one spelling of (the
	// client secret can be inline, in a file, or in an environment
	// variable); a higher layer setting any spelling replaces the lower
	// layers' spellings, and one layer may use only one.
	group string
}

// keySpecs lists every key a profile may hold, in the order the config
// file and `paydash config show` present them.
func keySpecs() []keySpec {
	return []keySpec{
		{name: "auth_url", kind: kindHTTPURL},
		{name: "base_url", kind: kindHTTPURL},
		{name: "payouts_url", kind: kindHTTPURL},
		{name: "client_id", kind: kindString},
		{name: "client_secret", kind: kindSecret, group: "client_secret"},
		{name: "client_secret_file", kind: kindPath, group: "client_secret"},
		{name: "client_secret_env", kind: kindEnvName, group: "client_secret"},
		{name: "signing_key_id", kind: kindString},
		{name: "signing_key_file", kind: kindPath},
		{name: "relay_listen", kind: kindAddr},
		{name: "relay_url", kind: kindWSURL},
		{name: "relay_public_url", kind: kindHTTPURL},
		{name: "relay_token", kind: kindSecret, group: "relay_token"},
		{name: "relay_token_env", kind: kindEnvName, group: "relay_token"},
		{name: "balance_refresh", kind: kindDuration},
		{name: "report_refresh", kind: kindDuration},
		{name: "tracker_keep_final", kind: kindCount},
		{name: "report_cache", kind: kindBool},
		{name: "tz", kind: kindTimeZone},
		{name: "low_balance", kind: kindAmounts},
		{name: "merchant_accounts", kind: kindAccounts},
		{name: "webhook_late", kind: kindDurations},
		{name: "production", kind: kindBool},
		{name: "regulated", kind: kindBool},
		{name: "payouts_via_relay", kind: kindBool},
		{name: "read_only", kind: kindBool},
	}
}

// lookupKey finds a key's spec; "low_balance.GBP" resolves to low_balance.
func lookupKey(name string) (keySpec, bool) {
	base, _, _ := strings.Cut(name, ".")
	for _, k := range keySpecs() {
		if k.name == base {
			return k, true
		}
	}
	return keySpec{}, false
}

// envName is the environment variable that overrides a key.
func envName(key string) string { return "PAYDASH_" + strings.ToUpper(key) }

// suggestKey returns the known key closest to a misspelt one (two edits
// at most), or "".
func suggestKey(name string, candidates []string) string {
	return suggest.Nearest(name, candidates, 2)
}

// keyNames lists the profile keys.
func keyNames() []string {
	specs := keySpecs()
	names := make([]string, len(specs))
	for i, k := range specs {
		names[i] = k.name
	}
	return names
}
