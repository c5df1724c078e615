package config_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paydash/paydash/config"
)

// writeFile writes content to name in dir with mode and returns its path.
func writeFile(t *testing.T, dir, name, content string, mode os.FileMode) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	// WriteFile's mode is filtered by the umask; tests need it exact.
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
	return path
}

// envFunc is a Getenv over a map, with HOME pointed away from the real
// home so no test reads the developer's own config.
// loadSetting loads a one-profile file (profile sandbox, a base URL)
// with file's lines added to the profile, under env: a single setting's
// default, file value, environment value and refusals.
func loadSetting(t *testing.T, file string, env map[string]string) (*config.Profile, error) {
	t.Helper()
	path := writeFile(t, t.TempDir(), "config.toml", "[profiles.sandbox]\nbase_url = \"https://api.file.example\"\n"+file, 0o600)
	p, _, err := config.Load(config.LoadOptions{Path: path, Getenv: envFunc(t, env)})
	return p, err
}

func envFunc(t *testing.T, env map[string]string) func(string) string {
	home := t.TempDir()
	return func(k string) string {
		if v, ok := env[k]; ok {
			return v
		}
		if k == "HOME" {
			return home
		}
		return ""
	}
}

const baseProfile = `
default_profile = "sandbox"

[profiles.sandbox]
auth_url = "https://auth.file.example"
base_url = "https://api.file.example/"
payouts_url = "https://payouts.file.example"
client_id = "file-client"
client_secret = "file-secret"
production = false
balance_refresh = "15s"

[profiles.sandbox.low_balance]
GBP = "1000.00"
EUR = "50"

[profiles.live]
base_url = "https://api.live.example"
production = true
`

func TestLoadPrecedence(t *testing.T) {
	type want struct {
		profile, baseURL, clientSecret, secretFile string
		production                                 bool
		balanceRefresh                             time.Duration
		lowGBP, lowEUR                             int64
	}
	fileWant := want{"sandbox", "https://api.file.example", "file-secret", "", false, 15 * time.Second, 100000, 5000}
	tests := []struct {
		name      string
		env       map[string]string
		overrides map[string]string
		profile   string
		want      want
	}{
		{name: "file only", want: fileWant},
		{
			name: "environment over file",
			env: map[string]string{
				"PAYDASH_BASE_URL": "https://api.env.example", "PAYDASH_CLIENT_SECRET": "env-secret",
				"PAYDASH_PRODUCTION": "true", "PAYDASH_BALANCE_REFRESH": "20s", "PAYDASH_LOW_BALANCE": "GBP=1,500.00",
			},
			want: want{"sandbox", "https://api.env.example", "env-secret", "", true, 20 * time.Second, 150000, 5000},
		},
		{
			name: "flags over environment over file",
			env:  map[string]string{"PAYDASH_BASE_URL": "https://api.env.example", "PAYDASH_PRODUCTION": "true", "PAYDASH_BALANCE_REFRESH": "20s"},
			overrides: map[string]string{
				"base_url": "https://api.flag.example", "production": "false", "balance_refresh": "1m",
				"low_balance.eur": "7.50", "client_secret": "flag-secret",
			},
			want: want{"sandbox", "https://api.flag.example", "flag-secret", "", false, time.Minute, 100000, 750},
		},
		{
			name: "empty environment variable counts as unset",
			env:  map[string]string{"PAYDASH_BASE_URL": ""},
			want: fileWant,
		},
		{
			name:    "profile flag over PAYDASH_PROFILE over default_profile",
			env:     map[string]string{"PAYDASH_PROFILE": "nosuch"},
			profile: "live",
			want:    want{"live", "https://api.live.example", "", "", true, config.DefaultBalanceRefresh, 0, 0},
		},
		{
			name: "PAYDASH_PROFILE over default_profile",
			env:  map[string]string{"PAYDASH_PROFILE": "live"},
			want: want{"live", "https://api.live.example", "", "", true, config.DefaultBalanceRefresh, 0, 0},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeFile(t, t.TempDir(), "config.toml", baseProfile, 0o600)
			p, warnings, err := config.Load(config.LoadOptions{Path: path, Profile: tt.profile, Getenv: envFunc(t, tt.env), Overrides: tt.overrides})
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if len(warnings) != 0 {
				t.Errorf("warnings = %v, want none", warnings)
			}
			got := want{p.Name, p.BaseURL, p.ClientSecret.Reveal(), p.ClientSecretFile, p.Production, p.BalanceRefresh, p.LowBalance["GBP"], p.LowBalance["EUR"]}
			if got != tt.want {
				t.Errorf("Load =\n %+v\nwant\n %+v", got, tt.want)
			}
			if p.File != path {
				t.Errorf("File = %q, want %q", p.File, path)
			}
		})
	}
}

func TestLoadSecretSpellingsReplaceAcrossLayers(t *testing.T) {
	dir := t.TempDir()
	secretPath := writeFile(t, dir, "client-secret", "from-file\n", 0o600)
	path := writeFile(t, dir, "config.toml", `
[profiles.sandbox]
client_secret_file = "client-secret"
relay_token = "file-relay-token"
`, 0o600)
	tests := []struct {
		name                   string
		env                    map[string]string
		wantSecret, wantFile   string
		wantToken, wantTokenEn string
	}{
		{"file spelling, relative to the config file", nil, "from-file", secretPath, "file-relay-token", ""},
		{"env inline replaces the file's client_secret_file", map[string]string{"PAYDASH_CLIENT_SECRET": "from-env"}, "from-env", "", "file-relay-token", ""},
		{
			"env names the variables that hold the secrets",
			map[string]string{"PAYDASH_CLIENT_SECRET_ENV": "MY_SECRET", "MY_SECRET": "from-named-var", "PAYDASH_RELAY_TOKEN_ENV": "MY_TOKEN", "MY_TOKEN": "token-var-0123456789"},
			"from-named-var", "", "token-var-0123456789", "MY_TOKEN",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, _, err := config.Load(config.LoadOptions{Path: path, Getenv: envFunc(t, tt.env)})
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if p.ClientSecret.Reveal() != tt.wantSecret || p.ClientSecretFile != tt.wantFile {
				t.Errorf("client secret = %q from file %q, want %q from %q", p.ClientSecret.Reveal(), p.ClientSecretFile, tt.wantSecret, tt.wantFile)
			}
			if p.RelayToken.Reveal() != tt.wantToken || p.RelayTokenEnv != tt.wantTokenEn {
				t.Errorf("relay token = %q from env %q, want %q from %q", p.RelayToken.Reveal(), p.RelayTokenEnv, tt.wantToken, tt.wantTokenEn)
			}
		})
	}
}

func TestLoadDefaultsAndDerivedValues(t *testing.T) {
	tests := []struct {
		name                  string
		profile               string
		wantListen, wantRelay string
	}{
		{"defaults", "[profiles.a]\n", config.DefaultRelayListen, "ws://127.0.0.1:8787/ws"},
		{"relay_url follows relay_listen", "[profiles.a]\nrelay_listen = \"127.0.0.1:9000\"\n", "127.0.0.1:9000", "ws://127.0.0.1:9000/ws"},
		{"all-interfaces listen is dialled on loopback", "[profiles.a]\nrelay_listen = \"0.0.0.0:9000\"\n", "0.0.0.0:9000", "ws://127.0.0.1:9000/ws"},
		{"explicit relay_url wins", "[profiles.a]\nrelay_url = \"wss://relay.example/ws\"\n", config.DefaultRelayListen, "wss://relay.example/ws"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeFile(t, t.TempDir(), "config.toml", tt.profile, 0o600)
			p, _, err := config.Load(config.LoadOptions{Path: path, Getenv: envFunc(t, nil)})
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if p.Name != "a" {
				t.Errorf("Name = %q, want the only profile, a", p.Name)
			}
			if p.RelayListen != tt.wantListen || p.RelayURL != tt.wantRelay {
				t.Errorf("relay = %q, %q; want %q, %q", p.RelayListen, p.RelayURL, tt.wantListen, tt.wantRelay)
			}
			if p.BalanceRefresh != config.DefaultBalanceRefresh || p.ReportRefresh != config.DefaultReportRefresh {
				t.Errorf("refresh = %v, %v; want the defaults", p.BalanceRefresh, p.ReportRefresh)
			}
		})
	}
}

func TestLoadPathSelection(t *testing.T) {
	dir := t.TempDir()
	envPath := writeFile(t, dir, "env.toml", "[profiles.fromenv]\n", 0o600)
	flagPath := writeFile(t, dir, "flag.toml", "[profiles.fromflag]\n", 0o600)
	xdg := filepath.Join(dir, "xdg")
	if err := os.MkdirAll(filepath.Join(xdg, "paydash"), 0o700); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(xdg, "paydash"), "config.toml", "[profiles.fromxdg]\n", 0o600)
	tests := []struct {
		name, path  string
		env         map[string]string
		wantProfile string
	}{
		{"XDG_CONFIG_HOME default", "", map[string]string{"XDG_CONFIG_HOME": xdg}, "fromxdg"},
		{"PAYDASH_CONFIG over default", "", map[string]string{"XDG_CONFIG_HOME": xdg, "PAYDASH_CONFIG": envPath}, "fromenv"},
		{"--config over PAYDASH_CONFIG", flagPath, map[string]string{"XDG_CONFIG_HOME": xdg, "PAYDASH_CONFIG": envPath}, "fromflag"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, _, err := config.Load(config.LoadOptions{Path: tt.path, Getenv: envFunc(t, tt.env)})
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if p.Name != tt.wantProfile {
				t.Errorf("loaded profile %q, want %q", p.Name, tt.wantProfile)
			}
		})
	}
}

func TestDefaultPathAndStateDir(t *testing.T) {
	tests := []struct {
		name                string
		env                 map[string]string
		wantConfig, wantDir string
	}{
		{"XDG variables", map[string]string{"HOME": "/home/u", "XDG_CONFIG_HOME": "/cfg", "XDG_STATE_HOME": "/state"}, "/cfg/paydash/config.toml", "/state/paydash"},
		{"home fallback", map[string]string{"HOME": "/home/u"}, "/home/u/.config/paydash/config.toml", "/home/u/.local/state/paydash"},
		{"relative XDG values are ignored", map[string]string{"HOME": "/home/u", "XDG_CONFIG_HOME": "cfg", "XDG_STATE_HOME": "st"}, "/home/u/.config/paydash/config.toml", "/home/u/.local/state/paydash"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			getenv := func(k string) string { return tt.env[k] }
			if got := config.DefaultPath(getenv); got != filepath.FromSlash(tt.wantConfig) {
				t.Errorf("DefaultPath = %q, want %q", got, tt.wantConfig)
			}
			if got := config.StateDir(getenv); got != filepath.FromSlash(tt.wantDir) {
				t.Errorf("StateDir = %q, want %q", got, tt.wantDir)
			}
		})
	}
}

func TestLoadWithoutFile(t *testing.T) {
	t.Run("nothing configured is ErrNoConfig", func(t *testing.T) {
		_, _, err := config.Load(config.LoadOptions{Getenv: envFunc(t, nil)})
		if !errors.Is(err, config.ErrNoConfig) {
			t.Fatalf("err = %v, want ErrNoConfig", err)
		}
		for _, hint := range []string{"paydash demo", "paydash config init"} {
			if !strings.Contains(err.Error(), hint) {
				t.Errorf("error %q does not mention %s", err, hint)
			}
		}
	})
	t.Run("an explicit path that does not exist is ErrNoConfig naming it", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "missing.toml")
		_, _, err := config.Load(config.LoadOptions{Path: path, Getenv: envFunc(t, nil)})
		if !errors.Is(err, config.ErrNoConfig) || !strings.Contains(err.Error(), path) {
			t.Fatalf("err = %v, want ErrNoConfig naming %s", err, path)
		}
	})
	t.Run("a file without profiles is ErrNoConfig", func(t *testing.T) {
		path := writeFile(t, t.TempDir(), "config.toml", "# empty\n", 0o600)
		_, _, err := config.Load(config.LoadOptions{Path: path, Getenv: envFunc(t, nil)})
		if !errors.Is(err, config.ErrNoConfig) {
			t.Fatalf("err = %v, want ErrNoConfig", err)
		}
	})
	t.Run("environment and flags alone configure a profile", func(t *testing.T) {
		p, _, err := config.Load(config.LoadOptions{
			Getenv:    envFunc(t, map[string]string{"PAYDASH_BASE_URL": "https://api.env.example"}),
			Overrides: map[string]string{"client_id": "flag-client"},
		})
		if err != nil {
			t.Fatalf("Load: %v", err)
		}
		if p.BaseURL != "https://api.env.example" || p.ClientID != "flag-client" || p.File != "" {
			t.Errorf("profile = %+v, want base_url from env, client_id from flag, no file", p)
		}
	})
}

// TestLoadErrors checks that every bad setting is reported with the file,
// the profile, the key, where an override came from, and what is wrong.
func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name      string
		profile   string // body of [profiles.sandbox]
		env       map[string]string
		overrides map[string]string
		key       string
		want      []string // further substrings of the message
	}{
		{name: "unknown key with a suggestion", profile: `bse_url = "https://x.example"`, key: "bse_url", want: []string{"unknown key", "did you mean base_url"}},
		{name: "unknown key without a near miss", profile: `colour = "blue"`, key: "colour", want: []string{"unknown key", "auth_url"}},
		{name: "bool given as string", profile: `production = "yes"`, key: "production", want: []string{"true or false", "got a string"}},
		{name: "string given as integer", profile: `client_id = 42`, key: "client_id", want: []string{"string", "got an integer"}},
		{name: "duration given as integer", profile: `balance_refresh = 10`, key: "balance_refresh", want: []string{`"10s"`, "got an integer"}},
		{name: "low_balance not a table", profile: `low_balance = "1000"`, key: "low_balance", want: []string{"table"}},
		{name: "amount given as number", profile: "[profiles.sandbox.low_balance]\nGBP = 1000", key: "low_balance.GBP", want: []string{"in quotes", "got an integer"}},
		{name: "bad URL scheme", profile: `base_url = "ftp://api.example"`, key: "base_url", want: []string{`"ftp://api.example"`, "http or https"}},
		{name: "relative URL", profile: `auth_url = "api.example/token"`, key: "auth_url", want: []string{"absolute"}},
		{name: "unparseable URL", profile: `payouts_url = "https://exa mple.com:x"`, key: "payouts_url", want: []string{"not a valid URL"}},
		{name: "URL with a query", profile: `base_url = "https://api.example?x=1"`, key: "base_url", want: []string{"query"}},
		{name: "relay_url must be a websocket URL", profile: `relay_url = "http://127.0.0.1:8787/ws"`, key: "relay_url", want: []string{"ws or wss"}},
		{name: "bad duration", profile: `report_refresh = "ten seconds"`, key: "report_refresh", want: []string{`"ten seconds"`, "not a duration"}},
		{name: "too short a duration", profile: `balance_refresh = "10ms"`, key: "balance_refresh", want: []string{"too short"}},
		{name: "bad amount", profile: "[profiles.sandbox.low_balance]\nGBP = \"lots\"", key: "low_balance.GBP", want: []string{"lots", "not an amount of GBP"}},
		{name: "too many decimals", profile: "[profiles.sandbox.low_balance]\nGBP = \"1.234\"", key: "low_balance.GBP", want: []string{"not an amount of GBP"}},
		{name: "unknown currency", profile: "[profiles.sandbox.low_balance]\nXXQ = \"10\"", key: "low_balance.XXQ", want: []string{"currency"}},
		{name: "bad listen address", profile: `relay_listen = "8787"`, key: "relay_listen", want: []string{"host:port"}},
		{name: "two spellings of the client secret", profile: "client_secret = \"a\"\nclient_secret_env = \"X\"", key: "client_secret_env", want: []string{"only one of", "client_secret is also set"}},
		{name: "secret file unreadable", profile: `client_secret_file = "no-such-file"`, key: "client_secret_file", want: []string{"no-such-file", "cannot read"}},
		{name: "secret variable unset", profile: `client_secret_env = "PAYDASH_TEST_UNSET"`, key: "client_secret_env", want: []string{"PAYDASH_TEST_UNSET", "not set"}},
		{name: "bad environment variable name", profile: `relay_token_env = "not a name"`, key: "relay_token_env", want: []string{"environment variable name"}},
		{name: "relay token of spaces", profile: `relay_token = "                    "`, key: "relay_token", want: []string{"relay token is unusable", "whitespace"}},
		{name: "one-character relay token", profile: `relay_token = "x"`, key: "relay_token", want: []string{"fewer than 16"}},
		{name: "short relay token from its variable", profile: `relay_token_env = "MY_RELAY_TOKEN"`, env: map[string]string{"MY_RELAY_TOKEN": "short"}, key: "relay_token_env", want: []string{"fewer than 16"}},
		{name: "bad bool from the environment names the variable", env: map[string]string{"PAYDASH_PRODUCTION": "maybe"}, key: "production", want: []string{"set by PAYDASH_PRODUCTION", `"maybe"`}},
		{name: "bad URL from a flag says so", overrides: map[string]string{"base_url": "nope"}, key: "base_url", want: []string{"set by command-line flag"}},
		{name: "unknown override key", overrides: map[string]string{"bse_url": "https://x"}, key: "bse_url", want: []string{"unknown key"}},
		{name: "unknown time zone", profile: `tz = "Mars/Olympus"`, key: "tz", want: []string{"Mars/Olympus", "not a time zone"}},
		{name: "malformed low_balance list", env: map[string]string{"PAYDASH_LOW_BALANCE": "GBP"}, key: "low_balance", want: []string{"CURRENCY=AMOUNT"}},
		{name: "merchant account not a UUID", profile: `merchant_accounts = { GBP = "acct-1" }`, key: "merchant_accounts.GBP", want: []string{"acct-1", "not a merchant account id", "UUID"}},
		{name: "merchant account unknown currency", profile: `merchant_accounts = { XXQ = "6f2f3c2e-0b9d-4c47-9b1e-5a1f00000826" }`, key: "merchant_accounts.XXQ", want: []string{"currency"}},
		{name: "merchant accounts not a table", profile: `merchant_accounts = "6f2f3c2e-0b9d-4c47-9b1e-5a1f00000826"`, key: "merchant_accounts", want: []string{"table", "merchant_accounts"}},
		{name: "malformed merchant_accounts list", env: map[string]string{"PAYDASH_MERCHANT_ACCOUNTS": "GBP"}, key: "merchant_accounts", want: []string{"CURRENCY=ID"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeFile(t, t.TempDir(), "config.toml", "[profiles.sandbox]\n"+tt.profile+"\n", 0o600)
			_, _, err := config.Load(config.LoadOptions{Path: path, Getenv: envFunc(t, tt.env), Overrides: tt.overrides})
			if err == nil {
				t.Fatal("Load succeeded, want an error")
			}
			var ce *config.Error
			if !errors.As(err, &ce) {
				t.Fatalf("err %v is not a *config.Error", err)
			}
			if ce.File != path || ce.Profile != "sandbox" || ce.Key != tt.key {
				t.Errorf("Error{File: %q, Profile: %q, Key: %q}, want %q, sandbox, %q", ce.File, ce.Profile, ce.Key, path, tt.key)
			}
			msg := err.Error()
			for _, s := range append([]string{path, `profile "sandbox"`, "key " + tt.key}, tt.want...) {
				if !strings.Contains(msg, s) {
					t.Errorf("error %q does not contain %q", msg, s)
				}
			}
		})
	}
}

func TestLoadReportsEveryProblemAtOnce(t *testing.T) {
	path := writeFile(t, t.TempDir(), "config.toml", `
[profiles.sandbox]
base_url = "ftp://x"
balance_refresh = "soon"
production = "yes"
`, 0o600)
	_, _, err := config.Load(config.LoadOptions{Path: path, Getenv: envFunc(t, nil)})
	if err == nil {
		t.Fatal("Load succeeded, want errors")
	}
	for _, key := range []string{"key base_url", "key balance_refresh", "key production"} {
		if !strings.Contains(err.Error(), key) {
			t.Errorf("error %q does not report %s", err, key)
		}
	}
}

func TestLoadFileLevelErrors(t *testing.T) {
	tests := []struct {
		name, content, profile string
		want                   []string
	}{
		{"profile not found lists the profiles", "[profiles.sandbox]\n[profiles.production]\n", "staging", []string{`profile "staging"`, "not found", "production, sandbox"}},
		{"several profiles and none selected", "[profiles.sandbox]\n[profiles.production]\n", "", []string{"no profile selected", "default_profile"}},
		{"default_profile names a missing profile", "default_profile = \"gone\"\n[profiles.sandbox]\n", "", []string{`profile "gone"`, "not found", "sandbox"}},
		{"unknown top-level key", "default_profle = \"sandbox\"\n[profiles.sandbox]\n", "", []string{"key default_profle", "did you mean default_profile"}},
		{"profile key outside a profile", "base_url = \"https://x\"\n[profiles.sandbox]\n", "", []string{"key base_url", "outside any profile"}},
		{"profile that is not a table", "[profiles]\nsandbox = 1\n", "", []string{`profile "sandbox"`, "must be a table"}},
		{"default_profile of the wrong type", "default_profile = 1\n[profiles.sandbox]\n", "", []string{"key default_profile", "string"}},
		{"TOML syntax error", "[profiles.sandbox]\nbase_url = https://x\n", "", []string{"line 2", "not valid TOML"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeFile(t, t.TempDir(), "config.toml", tt.content, 0o600)
			_, _, err := config.Load(config.LoadOptions{Path: path, Profile: tt.profile, Getenv: envFunc(t, nil)})
			if err == nil {
				t.Fatal("Load succeeded, want an error")
			}
			if errors.Is(err, config.ErrNoConfig) {
				t.Errorf("err %v is ErrNoConfig; a broken file is not a missing one", err)
			}
			for _, s := range append([]string{path}, tt.want...) {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not contain %q", err, s)
				}
			}
		})
	}
}

func TestLoadPermissionWarning(t *testing.T) {
	tests := []struct {
		name    string
		content string
		mode    os.FileMode
		warn    bool
	}{
		{"inline client secret readable by others", "[profiles.a]\nclient_secret = \"s\"\n", 0o644, true},
		{"inline relay token readable by group", "[profiles.a]\nrelay_token = \"tok_0123456789abcdef\"\n", 0o640, true},
		{"inline secret in another profile", "default_profile = \"a\"\n[profiles.a]\n[profiles.b]\nclient_secret = \"s\"\n", 0o604, true},
		{"inline secret, owner only", "[profiles.a]\nclient_secret = \"s\"\n", 0o600, false},
		{"no inline secret", "[profiles.a]\nclient_secret_env = \"HOME\"\n", 0o644, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeFile(t, t.TempDir(), "config.toml", tt.content, tt.mode)
			_, warnings, err := config.Load(config.LoadOptions{Path: path, Getenv: envFunc(t, nil)})
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if !tt.warn {
				if len(warnings) != 0 {
					t.Errorf("warnings = %v, want none", warnings)
				}
				return
			}
			if len(warnings) != 1 {
				t.Fatalf("warnings = %v, want one", warnings)
			}
			w := warnings[0]
			if w.File != path || !strings.Contains(w.String(), "chmod 600 "+path) || !strings.Contains(w.String(), "other users") {
				t.Errorf("warning %q should name %s, say others can read it, and how to fix it", w, path)
			}
		})
	}
	t.Run("signing key readable by others", func(t *testing.T) {
		dir := t.TempDir()
		key := writeFile(t, dir, "signing-key.pem", "-----BEGIN EC PRIVATE KEY-----\n", 0o644)
		path := writeFile(t, dir, "config.toml", "[profiles.a]\nsigning_key_id = \"k1\"\nsigning_key_file = \"signing-key.pem\"\n", 0o600)
		_, warnings, err := config.Load(config.LoadOptions{Path: path, Getenv: envFunc(t, nil)})
		if err != nil {
			t.Fatalf("Load: %v", err)
		}
		if len(warnings) != 1 || !strings.Contains(warnings[0].Message, "chmod 600 "+key) || !strings.Contains(warnings[0].Message, "other users") {
			t.Errorf("warnings = %v, want one telling to chmod 600 %s", warnings, key)
		}
		if err := os.Chmod(key, 0o600); err != nil {
			t.Fatal(err)
		}
		if _, warnings, _ := config.Load(config.LoadOptions{Path: path, Getenv: envFunc(t, nil)}); len(warnings) != 0 {
			t.Errorf("owner-only key: warnings = %v, want none", warnings)
		}
	})
	t.Run("secret file readable by others", func(t *testing.T) {
		dir := t.TempDir()
		secret := writeFile(t, dir, "secret", "s\n", 0o644)
		path := writeFile(t, dir, "config.toml", "[profiles.a]\nclient_secret_file = \"secret\"\n", 0o600)
		_, warnings, err := config.Load(config.LoadOptions{Path: path, Getenv: envFunc(t, nil)})
		if err != nil {
			t.Fatalf("Load: %v", err)
		}
		if len(warnings) != 1 || !strings.Contains(warnings[0].Message, "chmod 600 "+secret) {
			t.Errorf("warnings = %v, want one telling to chmod 600 %s", warnings, secret)
		}
	})
}

// BenchmarkLoad measures resolving a profile from file, environment and
// flags, which paydash does once per command.
func BenchmarkLoad(b *testing.B) {
	dir := b.TempDir()
	path := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(path, []byte(baseProfile), 0o600); err != nil {
		b.Fatal(err)
	}
	getenv := func(k string) string {
		if k == "PAYDASH_BASE_URL" {
			return "https://api.env.example"
		}
		return ""
	}
	opts := config.LoadOptions{Path: path, Getenv: getenv, Overrides: map[string]string{"production": "false"}}
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := config.Load(opts); err != nil {
			b.Fatal(err)
		}
	}
}

// tz: local by default, UTC or an IANA name; the dashboard shows times in
// it (the CLI and exports stay UTC).
func TestLoadTimeZone(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{"", "Local"},
		{`tz = "UTC"`, "UTC"},
		{`tz = "utc"`, "UTC"},
		{`tz = "America/New_York"`, "America/New_York"},
	} {
		path := writeFile(t, t.TempDir(), "config.toml", "[profiles.sandbox]\n"+tc.body+"\n", 0o600)
		p, _, err := config.Load(config.LoadOptions{Path: path, Getenv: envFunc(t, nil)})
		if err != nil {
			t.Fatalf("%s: %v", tc.body, err)
		}
		if p.Location == nil || p.Location.String() != tc.want {
			t.Errorf("%q: location %v, want %s", tc.body, p.Location, tc.want)
		}
	}
}

// merchant_accounts is read from the file as a table and from the
// environment as CURRENCY=ID pairs, ids in lower case; a profile without it
// lists none.
func TestLoadMerchantAccounts(t *testing.T) {
	const gbp, eur = "6f2f3c2e-0b9d-4c47-9b1e-5a1f00000826", "6f2f3c2e-0b9d-4c47-9b1e-5a1f00000978"
	path := writeFile(t, t.TempDir(), "config.toml", "[profiles.sandbox]\nmerchant_accounts = { gbp = \""+strings.ToUpper(gbp)+"\" }\n", 0o600)
	p, _, err := config.Load(config.LoadOptions{Path: path, Getenv: envFunc(t, nil)})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.MerchantAccounts) != 1 || p.MerchantAccounts["GBP"] != gbp {
		t.Errorf("from the file: %v, want GBP %s", p.MerchantAccounts, gbp)
	}
	p, _, err = config.Load(config.LoadOptions{Path: path, Getenv: envFunc(t, map[string]string{"PAYDASH_MERCHANT_ACCOUNTS": "EUR=" + eur})})
	if err != nil {
		t.Fatal(err)
	}
	if p.MerchantAccounts["GBP"] != gbp || p.MerchantAccounts["EUR"] != eur {
		t.Errorf("file and environment merged: %v", p.MerchantAccounts)
	}
	// config show prints them.
	if out, err := json.Marshal(p); err != nil || !strings.Contains(string(out), `"merchant_accounts":{"EUR":"`+eur+`","GBP":"`+gbp+`"}`) {
		t.Errorf("config show: %s (%v)", out, err)
	}
	none := writeFile(t, t.TempDir(), "config.toml", "[profiles.sandbox]\n", 0o600)
	if p, _, err = config.Load(config.LoadOptions{Path: none, Getenv: envFunc(t, nil)}); err != nil || len(p.MerchantAccounts) != 0 {
		t.Errorf("no merchant_accounts: %v, %v", p.MerchantAccounts, err)
	}
}
