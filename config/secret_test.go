package config_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	"github.com/paydash/paydash/config"
)

func TestSecretFormats(t *testing.T) {
	s := config.Secret("hunter2-abc")
	tests := []struct {
		format string
		want   string
	}{
		{"%v", "[redacted]"},
		{"%+v", "[redacted]"},
		{"%#v", `"[redacted]"`},
		{"%s", "[redacted]"},
		{"%q", `"[redacted]"`},
		{"%x", "[redacted]"},
		{"%X", "[redacted]"},
		{"%d", "[redacted]"},
		{"%12s|", "  [redacted]|"},
		{"%-12v|", "[redacted]  |"},
	}
	for _, tt := range tests {
		if got := fmt.Sprintf(tt.format, s); got != tt.want {
			t.Errorf("Sprintf(%q, secret) = %q, want %q", tt.format, got, tt.want)
		}
	}
	for _, f := range []string{"%v", "%s", "%x", "%+v"} {
		if got := fmt.Sprintf(f, config.Secret("")); got != "" {
			t.Errorf("Sprintf(%q, empty secret) = %q, want empty so unset reads as unset", f, got)
		}
	}
	if got := s.Reveal(); got != "hunter2-abc" {
		t.Errorf("Reveal() = %q, want the secret", got)
	}
	if b, _ := json.Marshal(s); string(b) != `"[redacted]"` {
		t.Errorf("json = %s, want \"[redacted]\"", b)
	}
	if b, _ := s.MarshalText(); string(b) != "[redacted]" {
		t.Errorf("text = %s, want [redacted]", b)
	}
}

// TestSecretNeverPrinted loads profiles holding secrets and checks every
// printed form of them: fmt with every verb, JSON, TOML, Redacted, slog,
// and the errors and warnings Load returns for bad values near a secret.
func TestSecretNeverPrinted(t *testing.T) {
	const clientSecret = "CLIENT-SECRET-7f3a9"
	const relayToken = "RELAY-TOKEN-b81c2"
	// nameShaped could pass for an environment variable's name.
	const nameShaped = "Zq8x_Kp2Lm9w"
	secrets := []string{clientSecret, relayToken, "7f3a9", "b81c2", nameShaped}

	var forms []string
	add := func(what string, s string) { forms = append(forms, what+": "+s) }

	dir := t.TempDir()
	path := writeFile(t, dir, "config.toml", `
[profiles.sandbox]
base_url = "https://api.example"
client_id = "client"
client_secret = "`+clientSecret+`"
`, 0o644) // group/world-readable on purpose: the warning must not leak it
	p, warnings, err := config.Load(config.LoadOptions{
		Path:   path,
		Getenv: envFunc(t, map[string]string{"PAYDASH_RELAY_TOKEN": relayToken}),
	})
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if p.ClientSecret.Reveal() != clientSecret || p.RelayToken.Reveal() != relayToken {
		t.Fatal("the secrets were not loaded, so this test would prove nothing")
	}
	for _, w := range warnings {
		add("warning", w.String())
	}

	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d", "%T %v"} {
		add("pointer "+verb, fmt.Sprintf(verb, p))
		add("value "+verb, fmt.Sprintf(verb, *p))
		add("secret field "+verb, fmt.Sprintf(verb, p.ClientSecret))
		add("in a slice "+verb, fmt.Sprintf(verb, []config.Profile{*p}))
		add("in a map "+verb, fmt.Sprintf(verb, map[string]*config.Profile{"p": p}))
	}
	add("Sprint", fmt.Sprint(p, *p, p.RelayToken))
	add("String", p.String())
	add("Redacted", p.Redacted())

	for _, v := range []any{p, *p, p.ClientSecret, map[string]any{"p": p}} {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("json.Marshal(%T): %v", v, err)
		}
		add(fmt.Sprintf("json %T", v), string(b))
	}
	var tomlOut bytes.Buffer
	if err := toml.NewEncoder(&tomlOut).Encode(p); err != nil {
		t.Fatalf("toml encode: %v", err)
	}
	add("toml", tomlOut.String())

	for name, h := range map[string]func(*bytes.Buffer) slog.Handler{
		"text": func(b *bytes.Buffer) slog.Handler { return slog.NewTextHandler(b, nil) },
		"json": func(b *bytes.Buffer) slog.Handler { return slog.NewJSONHandler(b, nil) },
	} {
		var b bytes.Buffer
		log := slog.New(h(&b))
		log.Info("loaded", "profile", p, "value", *p, "secret", p.ClientSecret, "token", p.RelayToken)
		log.Info("group", slog.Group("g", slog.Any("p", p)))
		add("slog "+name, b.String())
	}

	// Errors for bad values next to a secret, from each layer.
	for _, bad := range []struct {
		name, file string
		env        map[string]string
		overrides  map[string]string
	}{
		{name: "bad neighbours", file: `client_secret = "` + clientSecret + `"` + "\nbase_url = \"ftp://x\"\nbalance_refresh = \"soon\"\nclient_secrt = \"" + relayToken + "\""},
		{name: "unterminated secret", file: `client_secret = "` + clientSecret},
		{name: "unquoted secret", file: `client_secret = ` + clientSecret},
		{name: "secret of the wrong type", file: `client_secret = ["` + clientSecret + `"]`},
		{name: "secret inside a multi-line string", file: "relay_token = '''\n" + relayToken + "\n"},
		{name: "password in a URL", file: `base_url = "https://user:` + clientSecret + `@api.example"`},
		{name: "unparseable URL holding a secret", file: `base_url = "https://user:` + clientSecret + `@exa mple:x"`},
		{name: "two spellings", file: `client_secret = "` + clientSecret + `"` + "\nclient_secret_env = \"X\""},
		{name: "secret from env next to bad env", env: map[string]string{"PAYDASH_CLIENT_SECRET": clientSecret, "PAYDASH_CLIENT_SECRET_FILE": "/nope", "PAYDASH_PRODUCTION": "maybe"}},
		{name: "secret from flags next to bad flags", overrides: map[string]string{"relay_token": relayToken, "relay_token_env": "NOPE", "balance_refresh": "x"}},
		{name: "secret where its variable's name belongs", file: "client_secret_env = \"" + relayToken + "\""},
		{name: "name-shaped secret where its variable's name belongs", file: "relay_token_env = \"" + nameShaped + "\""},
	} {
		path := writeFile(t, t.TempDir(), "config.toml", "[profiles.sandbox]\n"+bad.file+"\n", 0o644)
		_, warnings, err := config.Load(config.LoadOptions{Path: path, Getenv: envFunc(t, bad.env), Overrides: bad.overrides})
		if err == nil {
			t.Errorf("%s: Load succeeded, want an error", bad.name)
			continue
		}
		add("error "+bad.name, err.Error())
		add("error %+v "+bad.name, fmt.Sprintf("%+v", err))
		for _, w := range warnings {
			add("warning "+bad.name, w.String())
		}
	}

	for _, form := range forms {
		for _, s := range secrets {
			if strings.Contains(form, s) {
				t.Errorf("secret %q printed in %s", s, form)
			}
		}
	}
	// The forms must still say a secret is there, not silently drop it.
	for _, form := range []string{"Redacted", "json *config.Profile", "slog json"} {
		found := false
		for _, f := range forms {
			if strings.HasPrefix(f, form+": ") && strings.Contains(f, "[redacted]") {
				found = true
			}
		}
		if !found {
			t.Errorf("%s does not show [redacted] for the set secrets", form)
		}
	}
}
