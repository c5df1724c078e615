package config

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/google/uuid"

	"github.com/paydash/paydash/api"
)

// layer orders where a value came from; a higher layer wins.
type layer int

const (
	layerDefault layer = iota
	layerFile
	layerEnv
	layerFlag
)

// flagSource is how errors name a value that came from Overrides.
const flagSource = "command-line flag"

// setting is one raw value and where it came from.
type setting struct {
	value  string
	layer  layer
	source string // environment variable or flagSource; "" for file and defaults
}

// loader accumulates the layers of one profile, then checks and types them.
type loader struct {
	getenv    func(string) string
	overrides map[string]string
	file      string // config file read; "" when none
	missing   string // default path looked at and not found
	profile   string
	values    map[string]setting // by key; table members as "low_balance.GBP"
	// custom is the profile's own [profiles.NAME.keys] and
	// [profiles.NAME.theme], laid over the file's (custom.go).
	custom   Custom
	warnings []Warning
	errs     []error
	viewSet  viewSettings // the profile's views, start_view, start_tab (views.go)
}

func (l *loader) fail(key string, s setting, format string, args ...any) {
	l.errs = append(l.errs, &Error{File: l.file, Profile: l.profile, Key: key, Source: s.source, Problem: fmt.Sprintf(format, args...)})
}

func (l *loader) warn(format string, args ...any) {
	file := l.file
	if file == "" {
		file = "environment"
	}
	l.warnings = append(l.warnings, Warning{File: file, Message: fmt.Sprintf(format, args...)})
}

// specByName finds the spec of a key exactly as written (no table member).
func specByName(name string) (keySpec, bool) {
	spec, ok := lookupKey(name)
	return spec, ok && spec.name == name
}

// set records a value. The spellings of one secret replace each other
// across layers; two spellings in one layer are an error, since which one
// was meant is unclear.
func (l *loader) set(spec keySpec, key string, s setting) {
	if spec.group != "" {
		for _, other := range sortedKeys(l.values) {
			otherSpec, _ := lookupKey(other)
			if other == key || otherSpec.group != spec.group {
				continue
			}
			if prev := l.values[other]; prev.layer == s.layer {
				also := other
				if prev.source != "" {
					also = prev.source
				}
				l.fail(key, s, "set only one of %s (%s is also set)", strings.Join(groupKeys(spec.group), ", "), also)
				continue
			}
			delete(l.values, other)
		}
	}
	l.values[key] = s
}

func groupKeys(group string) []string {
	var keys []string
	for _, k := range keySpecs() {
		if k.group == group {
			keys = append(keys, k.name)
		}
	}
	return keys
}

func (l *loader) applyDefaults() {
	for key, v := range map[string]string{
		"relay_listen":       DefaultRelayListen,
		"balance_refresh":    DefaultBalanceRefresh.String(),
		"report_refresh":     DefaultReportRefresh.String(),
		"tz":                 "local",
		"tracker_keep_final": strconv.Itoa(DefaultTrackerKeepFinal),
		"report_cache":       "true",
	} {
		l.values[key] = setting{value: v, layer: layerDefault}
	}
}

// applyFile reads the selected profile's table, checking each key's TOML
// type; a value's meaning is checked later, whatever layer it came from.
func (l *loader) applyFile(doc *configFile, table map[string]toml.Primitive) {
	for _, key := range sortedKeys(table) {
		if l.applyCustom(doc, key, table[key]) {
			continue
		}
		if fileOnlyKey(key) {
			continue // applyViews reads them
		}
		s := setting{layer: layerFile}
		spec, ok := specByName(key)
		if !ok {
			if hint := suggestKey(key, keyNames()); hint != "" {
				l.fail(key, s, "unknown key (did you mean %s?)", hint)
			} else {
				l.fail(key, s, "unknown key; a profile may hold: %s", strings.Join(keyNames(), ", "))
			}
			continue
		}
		path := []string{"profiles", l.profile, key}
		switch spec.kind {
		case kindBool:
			var b bool
			if err := doc.md.PrimitiveDecode(table[key], &b); err != nil {
				l.fail(key, s, "must be true or false (without quotes), got %s", tomlType(doc.md, path...))
				continue
			}
			s.value = strconv.FormatBool(b)
		case kindCount:
			var n int64
			if err := doc.md.PrimitiveDecode(table[key], &n); err != nil {
				l.fail(key, s, "must be a whole number (without quotes), got %s", tomlType(doc.md, path...))
				continue
			}
			s.value = strconv.FormatInt(n, 10)
		case kindDurations:
			// One duration for every currency, or a table per currency.
			if doc.md.PrimitiveDecode(table[key], &s.value) == nil {
				l.set(spec, key, s)
				continue
			}
			var members map[string]toml.Primitive
			if err := decodeTable(doc.md, table[key], &members); err != nil {
				l.fail(key, s, `must be a duration in quotes ("15m") or a table of currency = duration ([profiles.%s.webhook_late] GBP = "15m"), got %s`, l.profile, tomlType(doc.md, path...))
				continue
			}
			for _, cur := range sortedKeys(members) {
				var v string
				if err := doc.md.PrimitiveDecode(members[cur], &v); err != nil {
					l.fail(key+"."+cur, s, `must be a duration in quotes, e.g. "15m", got %s`, tomlType(doc.md, append(path, cur)...))
					continue
				}
				l.set(spec, key+"."+strings.ToUpper(cur), setting{value: v, layer: layerFile})
			}
			continue
		case kindAmounts, kindAccounts:
			example, member := `[profiles.%s.low_balance] GBP = "1000.00"`, `an amount in quotes, e.g. "1000.00"`
			if spec.kind == kindAccounts {
				example, member = `[profiles.%s.merchant_accounts] GBP = "6f2f3c2e-0b9d-4c47-9b1e-5a1f00000826"`, "a merchant account id (UUID) in quotes"
			}
			var members map[string]toml.Primitive
			if err := decodeTable(doc.md, table[key], &members); err != nil {
				l.fail(key, s, "must be a table of currency = value (e.g. "+example+"), got %s", l.profile, tomlType(doc.md, path...))
				continue
			}
			for _, cur := range sortedKeys(members) {
				var v string
				if err := doc.md.PrimitiveDecode(members[cur], &v); err != nil {
					l.fail(key+"."+cur, s, "must be %s, got %s", member, tomlType(doc.md, append(path, cur)...))
					continue
				}
				l.set(spec, key+"."+strings.ToUpper(cur), setting{value: v, layer: layerFile})
			}
			continue
		default:
			if err := doc.md.PrimitiveDecode(table[key], &s.value); err != nil {
				want := "a string in quotes"
				if spec.kind == kindDuration {
					want = `a duration in quotes, e.g. "10s"`
				}
				l.fail(key, s, "must be %s, got %s", want, tomlType(doc.md, path...))
				continue
			}
			if spec.kind == kindPath {
				s.value = l.resolvePath(s.value, true)
			}
		}
		l.set(spec, key, s)
	}
}

// applyEnv applies PAYDASH_<KEY> variables; empty means unset.
// PAYDASH_RELAY_TOKEN is the exception: it is also the relay's shared
// token (paydash relay --token-env's default, exported as the README's
// hub command does), so a profile's own relay_token or relay_token_env
// wins over it and a warning says so; otherwise an operator's profile
// would silently send with the shared token, which the hub refuses.
func (l *loader) applyEnv() {
	for _, spec := range keySpecs() {
		name := envName(spec.name)
		if v := l.getenv(name); v != "" {
			if spec.name == "relay_token" {
				if own := l.fileSpelling(spec.group); own != "" {
					l.warn("%s is set, but profile %q has its own %s, which is used (%s is the relay's shared token; unset it here, or remove %s from the profile to use it)",
						name, l.profile, own, name, own)
					continue
				}
			}
			l.applyString(spec, spec.name, setting{value: v, layer: layerEnv, source: name})
		}
	}
}

// fileSpelling is the key of group the profile's file sets ("" when
// none).
func (l *loader) fileSpelling(group string) string {
	for _, key := range groupKeys(group) {
		if v, ok := l.values[key]; ok && v.layer == layerFile {
			return key
		}
	}
	return ""
}

// applyOverrides applies the flag values, keyed by TOML key name.
func (l *loader) applyOverrides() {
	for _, key := range sortedKeys(l.overrides) {
		s := setting{value: l.overrides[key], layer: layerFlag, source: flagSource}
		spec, ok := lookupKey(key)
		if !ok || (spec.name != key && !spec.kind.isTable()) {
			l.fail(key, s, "unknown key")
			continue
		}
		l.applyString(spec, key, s)
	}
}

// applyString records a value given as text (environment or flag). A whole
// low_balance is written "GBP=1000.00,EUR=250" and merges per currency.
func (l *loader) applyString(spec keySpec, key string, s setting) {
	switch {
	case spec.kind == kindDurations && key == spec.name && !strings.Contains(s.value, "="):
		l.set(spec, key, s) // one duration for every currency
	case spec.kind.isTable() && key == spec.name:
		for _, item := range splitAmounts(s.value) {
			cur, amount, ok := strings.Cut(item, "=")
			if !ok {
				if spec.kind == kindAccounts {
					l.fail(key, s, "%q is not CURRENCY=ID; write e.g. GBP=<uuid>,EUR=<uuid>", item)
				} else {
					l.fail(key, s, "%q is not CURRENCY=AMOUNT; write e.g. GBP=1000.00,EUR=250", item)
				}
				continue
			}
			member := setting{value: strings.TrimSpace(amount), layer: s.layer, source: s.source}
			l.set(spec, key+"."+strings.ToUpper(strings.TrimSpace(cur)), member)
		}
	case spec.kind.isTable():
		cur := strings.TrimPrefix(key, spec.name+".")
		l.set(spec, spec.name+"."+strings.ToUpper(cur), s)
	case spec.kind == kindPath:
		s.value = l.resolvePath(s.value, false)
		l.set(spec, key, s)
	default:
		l.set(spec, key, s)
	}
}

// splitAmounts splits "GBP=1,000.00,EUR=250" at the commas that start a
// new CURRENCY=, so thousands separators survive.
func splitAmounts(s string) []string {
	var items []string
	for _, part := range strings.Split(s, ",") {
		if len(items) > 0 && !strings.Contains(part, "=") {
			items[len(items)-1] += "," + part
			continue
		}
		if strings.TrimSpace(part) != "" {
			items = append(items, strings.TrimSpace(part))
		}
	}
	return items
}

// resolvePath expands "~/" and, for paths written in the config file,
// resolves relative paths against the file's directory so the file works
// from any working directory.
func (l *loader) resolvePath(p string, fromFile bool) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		return filepath.Join(homeDir(l.getenv), rest)
	}
	if fromFile && p != "" && !filepath.IsAbs(p) {
		return filepath.Join(filepath.Dir(l.file), p)
	}
	return p
}

// checkTimeZone reads tz: "local" (the machine's zone), "UTC", or an IANA
// zone name such as Europe/London.
func (l *loader) checkTimeZone(key string, s setting) *time.Location {
	switch strings.ToLower(strings.TrimSpace(s.value)) {
	case "", "local":
		return time.Local
	case "utc":
		return time.UTC
	}
	loc, err := time.LoadLocation(strings.TrimSpace(s.value))
	if err != nil {
		l.fail(key, s, "%q is not a time zone; use local, UTC or a name like Europe/London", s.value)
		return time.Local
	}
	return loc
}

// build checks every value and produces the typed profile.
func (l *loader) build() *Profile {
	p := &Profile{Name: l.profile, File: l.file, LowBalance: map[string]int64{}, MerchantAccounts: map[string]string{},
		WebhookLate: WebhookLate{ByCurrency: map[string]time.Duration{}}}
	strs := map[string]*string{
		"auth_url": &p.AuthURL, "base_url": &p.BaseURL, "payouts_url": &p.PayoutsURL,
		"client_id": &p.ClientID, "signing_key_id": &p.SigningKeyID, "signing_key_file": &p.SigningKeyFile,
		"client_secret_file": &p.ClientSecretFile, "client_secret_env": &p.ClientSecretEnv,
		"relay_listen": &p.RelayListen, "relay_url": &p.RelayURL, "relay_public_url": &p.RelayPublicURL,
		"relay_token_env": &p.RelayTokenEnv,
	}
	secrets := map[string]*Secret{"client_secret": &p.ClientSecret, "relay_token": &p.RelayToken}
	durations := map[string]*time.Duration{"balance_refresh": &p.BalanceRefresh, "report_refresh": &p.ReportRefresh}
	bools := map[string]*bool{"production": &p.Production, "regulated": &p.Regulated, "payouts_via_relay": &p.PayoutsViaRelay, "read_only": &p.ReadOnly, "report_cache": &p.ReportCache}

	// Each check records its failure and returns the zero value, so all
	// problems are reported together.
	for _, key := range sortedKeys(l.values) {
		s := l.values[key]
		spec, _ := lookupKey(key)
		switch spec.kind {
		case kindString, kindPath:
			*strs[key] = s.value
		case kindHTTPURL:
			*strs[key] = l.checkURL(key, s, "https://api.example.com", "http", "https")
		case kindWSURL:
			*strs[key] = l.checkURL(key, s, "ws://127.0.0.1:8787/ws", "ws", "wss")
		case kindAddr:
			*strs[key] = l.checkAddr(key, s)
		case kindEnvName:
			*strs[key] = l.checkEnvName(key, s)
		case kindSecret:
			*secrets[key] = Secret(s.value)
		case kindDuration:
			*durations[key] = l.checkDuration(key, s)
		case kindBool:
			b, err := strconv.ParseBool(s.value)
			if err != nil {
				l.fail(key, s, "%q is not a boolean; use true or false", s.value)
			}
			*bools[key] = b
		case kindCount:
			p.TrackerKeepFinal = l.checkCount(key, s)
		case kindTimeZone:
			p.TZ, p.Location = s.value, l.checkTimeZone(key, s)
		case kindAmounts:
			cur := strings.TrimPrefix(key, spec.name+".")
			p.LowBalance[cur] = l.checkAmount(key, cur, s)
		case kindDurations:
			if key == spec.name {
				p.WebhookLate.All = l.checkWebhookLate(key, s)
			} else {
				p.WebhookLate.ByCurrency[strings.TrimPrefix(key, spec.name+".")] = l.checkWebhookLate(key, s)
			}
		case kindAccounts:
			cur := strings.TrimPrefix(key, spec.name+".")
			if id, ok := l.checkMerchantAccount(key, cur, s); ok {
				p.MerchantAccounts[cur] = id
			}
		}
	}

	p.ClientSecret = l.resolveSecret(p.ClientSecret, "client_secret", &p.ClientSecretFile, p.ClientSecretEnv)
	p.RelayToken = l.resolveSecret(p.RelayToken, "relay_token", nil, p.RelayTokenEnv)
	l.checkRelayToken(p)
	l.checkPayoutsViaRelay(p)
	l.checkSigningKeyMode(p.SigningKeyFile)
	if p.RelayURL == "" {
		p.RelayURL = deriveRelayURL(p.RelayListen)
	}
	if p.Production {
		for _, u := range []struct{ key, val string }{{"auth_url", p.AuthURL}, {"base_url", p.BaseURL}, {"payouts_url", p.PayoutsURL}} {
			if strings.HasPrefix(u.val, "http://") {
				l.warn("profile %q is marked production but %s uses plain http; use https", l.profile, u.key)
			}
		}
	}
	return p
}

// checkURL accepts an absolute URL with one of the schemes and no
// credentials, query or fragment. A trailing slash is dropped so paths can
// be appended. The raw value is echoed only once it is known to parse and
// carry no password.
func (l *loader) checkURL(key string, s setting, example string, schemes ...string) string {
	u, err := url.Parse(s.value)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		l.fail(key, s, "not a valid URL (%v); write it like %s", err, example)
		return ""
	}
	switch {
	case u.User != nil:
		l.fail(key, s, "%s must not carry a user name or password; credentials belong in client_id and client_secret", u.Redacted())
	case !slices.Contains(schemes, u.Scheme) || u.Host == "":
		l.fail(key, s, "%q is not an absolute %s URL; write it like %s", u.Redacted(), strings.Join(schemes, " or "), example)
	case u.RawQuery != "" || u.Fragment != "":
		l.fail(key, s, "%q must not have a query or fragment; write it like %s", u.Redacted(), example)
	default:
		if schemes[0] == "http" {
			return strings.TrimRight(s.value, "/")
		}
		return s.value
	}
	return ""
}

func (l *loader) checkAddr(key string, s setting) string {
	_, port, err := net.SplitHostPort(s.value)
	if n, perr := strconv.Atoi(port); err != nil || perr != nil || n < 1 || n > 65535 {
		l.fail(key, s, "%q is not a host:port to listen on; write it like %s", s.value, DefaultRelayListen)
		return ""
	}
	return s.value
}

var (
	envNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	// conventionalEnvNameRE is the upper-case style variable names use;
	// only such a name is echoed in messages, since a person may have
	// pasted the secret itself where its variable's name belongs.
	conventionalEnvNameRE = regexp.MustCompile(`^[A-Z_][A-Z0-9_]*$`)
)

func (l *loader) checkEnvName(key string, s setting) string {
	if !envNameRE.MatchString(s.value) {
		l.fail(key, s, "is not an environment variable name (value not shown: it may be a secret); write the variable's name, like PAYDASH_SANDBOX_SECRET")
		return ""
	}
	return s.value
}

func (l *loader) checkCount(key string, s setting) int {
	n, err := strconv.Atoi(s.value)
	if err != nil || n < 1 {
		l.fail(key, s, "%q is not a positive whole number; write it like %d", s.value, DefaultTrackerKeepFinal)
		return 0
	}
	return n
}

func (l *loader) checkDuration(key string, s setting) time.Duration {
	d, err := time.ParseDuration(s.value)
	switch {
	case err != nil:
		l.fail(key, s, "%q is not a duration; write it like \"10s\" or \"1m30s\"", s.value)
	case d < minRefresh:
		l.fail(key, s, "%s is too short; use at least %s", s.value, minRefresh)
	default:
		return d
	}
	return 0
}

func (l *loader) checkAmount(key, cur string, s setting) int64 {
	if _, known := api.CurrencyDigits(cur); !known || len(cur) != 3 {
		l.fail(key, s, "%q is not a currency paydash knows; use an ISO 4217 code like GBP or EUR", cur)
		return 0
	}
	minor, err := api.ParseAmount(s.value, cur, true)
	if err != nil {
		l.fail(key, s, "not an amount of %s: %v", cur, err)
		return 0
	}
	return minor
}

// checkMerchantAccount reads one merchant_accounts member: a known
// currency and the account's id, a UUID (written in lower case, as the
// service returns it).
func (l *loader) checkMerchantAccount(key, cur string, s setting) (string, bool) {
	if _, known := api.CurrencyDigits(cur); !known || len(cur) != 3 {
		l.fail(key, s, "%q is not a currency paydash knows; use an ISO 4217 code like GBP or EUR", cur)
		return "", false
	}
	id := strings.ToLower(strings.TrimSpace(s.value))
	if _, err := uuid.Parse(id); err != nil || len(id) != 36 {
		l.fail(key, s, "%q is not a merchant account id; give its UUID, e.g. 6f2f3c2e-0b9d-4c47-9b1e-5a1f00000826", s.value)
		return "", false
	}
	return id, true
}

// resolveSecret fills a secret from the file or environment variable that
// holds it. Problems name the file or variable, never the secret.
func (l *loader) resolveSecret(inline Secret, key string, file *string, env string) Secret {
	if file != nil && *file != "" {
		fileKey := key + "_file"
		s := l.values[fileKey]
		data, err := os.ReadFile(*file)
		if err != nil {
			l.fail(fileKey, s, "cannot read the secret file %s: %v; check the path and that you may read it", *file, pathErrCause(err))
			return ""
		}
		secret := strings.TrimSpace(string(data))
		if secret == "" {
			l.fail(fileKey, s, "the secret file %s is empty", *file)
			return ""
		}
		if st, err := os.Stat(*file); err == nil && runtime.GOOS != "windows" && st.Mode().Perm()&0o077 != 0 {
			l.warn("secret file %s (%s of profile %q) can be read by other users (mode %04o); run: chmod 600 %s", *file, fileKey, l.profile, st.Mode().Perm(), *file)
		}
		return Secret(secret)
	}
	if env != "" {
		envKey := key + "_env"
		if v := l.getenv(env); v != "" {
			return Secret(v)
		}
		name := "the environment variable it names"
		if conventionalEnvNameRE.MatchString(env) {
			name = "environment variable " + env
		}
		l.fail(envKey, l.values[envKey], "%s is not set or empty; export it, or set %s another way", name, key)
		return ""
	}
	return inline
}

// checkRelayToken applies CheckToken to the relay token, naming the
// spelling it came from, so a weak token stops every command at start
// rather than guarding the relay badly.
func (l *loader) checkRelayToken(p *Profile) {
	if p.RelayToken == "" {
		return
	}
	err := CheckToken(p.RelayToken.Reveal())
	if err == nil {
		return
	}
	key := "relay_token"
	if p.RelayTokenEnv != "" {
		key = "relay_token_env"
	}
	l.fail(key, l.values[key], "the relay token is unusable: %v", err)
	p.RelayToken = ""
}

// checkPayoutsViaRelay refuses a signing key in a profile that sends
// through the team's hub: whoever holds the key can send without anyone's
// approval, so in team mode only the hub holds it.
func (l *loader) checkPayoutsViaRelay(p *Profile) {
	if !p.PayoutsViaRelay {
		return
	}
	if p.SigningKeyFile != "" {
		l.fail("signing_key_file", l.values["signing_key_file"],
			"a profile with payouts_via_relay = true must not hold a signing key: the team's hub signs every payout, and a key here could send without approval; remove signing_key_file (register only the hub's key with the service)")
	}
	if p.RelayURL == "" {
		l.fail("payouts_via_relay", l.values["payouts_via_relay"], "payouts_via_relay = true needs relay_url, the hub's ws://host:port/ws")
	}
}

// checkSigningKeyMode warns when the signing key file can be read by
// other users, as for a client secret file: whoever reads it can sign
// payouts. A missing file is reported when the key is used.
func (l *loader) checkSigningKeyMode(path string) {
	if path == "" || runtime.GOOS == "windows" {
		return
	}
	if st, err := os.Stat(path); err == nil && st.Mode().Perm()&0o077 != 0 {
		l.warn("signing key %s (signing_key_file of profile %q) can be read by other users (mode %04o), and whoever reads it can sign payouts; run: chmod 600 %s",
			path, l.profile, st.Mode().Perm(), path)
	}
}

// pathErrCause drops the path from an *fs.PathError, which the message
// already names.
func pathErrCause(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// deriveRelayURL is where the dashboard subscribes when relay_url is unset:
// the relay's own listen address, with an all-interfaces host replaced by
// loopback (a client cannot dial 0.0.0.0).
func deriveRelayURL(listen string) string {
	host, port, err := net.SplitHostPort(listen)
	if err != nil {
		return ""
	}
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "127.0.0.1"
	}
	return "ws://" + net.JoinHostPort(host, port) + "/ws"
}

// applyCustom reads a profile's own keys and theme tables (the
// dashboard's, laid over the file's [keys] and [theme]); false for any
// other key.
func (l *loader) applyCustom(doc *configFile, key string, prim toml.Primitive) bool {
	var errs []error
	switch key {
	case "keys":
		l.custom.Keys, errs = readKeys(doc.path, doc.md, prim, "profiles", l.profile, "keys")
	case "theme":
		l.custom.Theme, errs = readTheme(doc.path, doc.md, prim, "profiles", l.profile, "theme")
	default:
		return false
	}
	l.errs = append(l.errs, errs...)
	return true
}
