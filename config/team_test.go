package config_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/paydash/paydash/config"
)

func TestPayoutsViaRelayRefusesASigningKey(t *testing.T) {
	dir := t.TempDir()
	key := writeFile(t, dir, "key.pem", "not read here", 0o600)
	const head = `
[profiles.op]
auth_url = "https://auth.example"
base_url = "https://api.example"
payouts_url = "https://payouts.example"
client_id = "c"
client_secret = "s"
payouts_via_relay = true
relay_url = "ws://hub.example:8787/ws"
relay_token = "ada-own-token-0123456789abcdef"
`
	withKey := writeFile(t, dir, "with.toml", head+"signing_key_id = \"k1\"\nsigning_key_file = \""+filepath.ToSlash(key)+"\"\n", 0o600)
	_, _, err := config.Load(config.LoadOptions{Path: withKey, Profile: "op", Getenv: envFunc(t, nil)})
	if err == nil || !strings.Contains(err.Error(), "must not hold a signing key") || !strings.Contains(err.Error(), "signing_key_file") {
		t.Fatalf("payouts_via_relay with a signing key: %v", err)
	}
	without := writeFile(t, dir, "without.toml", head, 0o600)
	p, _, err := config.Load(config.LoadOptions{Path: without, Profile: "op", Getenv: envFunc(t, nil)})
	if err != nil || !p.PayoutsViaRelay {
		t.Fatalf("payouts_via_relay without a key: %+v, %v", p, err)
	}
}

// A profile's own relay token wins over PAYDASH_RELAY_TOKEN, the relay's
// shared token the README's hub command exports, and a warning says so:
// the profile's person, not the shared token, requests payouts.
func TestAProfilesOwnRelayTokenWinsOverTheSharedVariable(t *testing.T) {
	dir := t.TempDir()
	const shared = "the-relays-shared-token-0123456789"
	own := writeFile(t, dir, "own.toml", "[profiles.op]\nrelay_url = \"ws://hub.example:8787/ws\"\nrelay_token_env = \"ADA_TOKEN\"\n", 0o600)
	p, warnings, err := config.Load(config.LoadOptions{Path: own, Profile: "op",
		Getenv: envFunc(t, map[string]string{"PAYDASH_RELAY_TOKEN": shared, "ADA_TOKEN": "ada-own-token-0123456789abcdef"})})
	if err != nil {
		t.Fatal(err)
	}
	if p.RelayToken.Reveal() != "ada-own-token-0123456789abcdef" || p.RelayTokenEnv != "ADA_TOKEN" {
		t.Fatalf("relay token %q from %q: want the profile's own from ADA_TOKEN", p.RelayToken.Reveal(), p.RelayTokenEnv)
	}
	said := false
	for _, w := range warnings {
		if strings.Contains(w.String(), "PAYDASH_RELAY_TOKEN is set") && strings.Contains(w.String(), "relay_token_env") {
			said = true
		}
		if strings.Contains(w.String(), shared) {
			t.Fatalf("the warning carries the token: %s", w)
		}
	}
	if !said {
		t.Fatalf("no warning that PAYDASH_RELAY_TOKEN was passed over: %v", warnings)
	}
	inline := writeFile(t, dir, "inline.toml", "[profiles.op]\nrelay_token = \"ada-inline-token-0123456789abc\"\n", 0o600)
	if p, _, err := config.Load(config.LoadOptions{Path: inline, Profile: "op", Getenv: envFunc(t, map[string]string{"PAYDASH_RELAY_TOKEN": shared})}); err != nil || p.RelayToken.Reveal() != "ada-inline-token-0123456789abc" {
		t.Fatalf("inline relay_token beside PAYDASH_RELAY_TOKEN: %v", err)
	}
	// A profile without a token of its own still takes the variable.
	none := writeFile(t, dir, "none.toml", "[profiles.op]\nrelay_url = \"ws://hub.example:8787/ws\"\n", 0o600)
	if p, _, err := config.Load(config.LoadOptions{Path: none, Profile: "op", Getenv: envFunc(t, map[string]string{"PAYDASH_RELAY_TOKEN": shared})}); err != nil || p.RelayToken.Reveal() != shared {
		t.Fatalf("no token in the profile: %v", err)
	}
}
