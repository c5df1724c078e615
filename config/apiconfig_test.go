package config_test

import (
	"github.com/paydash/paydash/api/testkey"

	"crypto/elliptic"
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paydash/paydash/config"
)

// testKeyFile is the fixed P-521 test key of the repository.
var testKeyFile = testkey.Path()

func fullProfile() *config.Profile {
	return &config.Profile{
		Name: "sandbox", File: "/etc/paydash.toml",
		AuthURL: "https://auth.example", BaseURL: "https://api.example", PayoutsURL: "https://payouts.example",
		ClientID: "client", ClientSecret: "the-secret",
		SigningKeyID: "kid-1", SigningKeyFile: testKeyFile,
	}
}

func TestAPIConfig(t *testing.T) {
	cfg, err := fullProfile().APIConfig()
	if err != nil {
		t.Fatalf("APIConfig: %v", err)
	}
	if cfg.AuthURL != "https://auth.example" || cfg.BaseURL != "https://api.example" || cfg.PayoutsURL != "https://payouts.example" {
		t.Errorf("URLs = %q %q %q", cfg.AuthURL, cfg.BaseURL, cfg.PayoutsURL)
	}
	if cfg.ClientID != "client" || cfg.ClientSecret != "the-secret" || cfg.SigningKeyID != "kid-1" {
		t.Errorf("credentials = %q, secret revealed=%t, kid %q", cfg.ClientID, cfg.ClientSecret == "the-secret", cfg.SigningKeyID)
	}
	if cfg.SigningKey == nil || cfg.SigningKey.Curve != elliptic.P521() {
		t.Errorf("SigningKey = %v, want the P-521 test key", cfg.SigningKey)
	}

	readOnly := fullProfile()
	readOnly.SigningKeyID, readOnly.SigningKeyFile = "", ""
	cfg, err = readOnly.APIConfig()
	if err != nil || cfg.SigningKey != nil {
		t.Errorf("APIConfig without a signing key = key %v, err %v; want a read-only config", cfg.SigningKey, err)
	}
}

func TestAPIConfigErrors(t *testing.T) {
	dir := t.TempDir()
	garbage := writeFile(t, dir, "garbage.pem", "not a key", 0o600)
	tests := []struct {
		name   string
		modify func(p *config.Profile)
		want   []string
		isErr  error
	}{
		{"missing required values", func(p *config.Profile) { p.BaseURL, p.ClientSecret = "", "" },
			[]string{"base_url", "client_secret", "PAYDASH_BASE_URL", "[profiles.sandbox]"}, nil},
		{"key file without key id", func(p *config.Profile) { p.SigningKeyID = "" },
			[]string{"key signing_key_id", "signing_key_file"}, nil},
		{"key id without key file", func(p *config.Profile) { p.SigningKeyFile = "" },
			[]string{"key signing_key_file", "not set"}, nil},
		{"key file missing", func(p *config.Profile) { p.SigningKeyFile = filepath.Join(dir, "nope.pem") },
			[]string{filepath.Join(dir, "nope.pem"), "cannot read"}, fs.ErrNotExist},
		{"key file not a key", func(p *config.Profile) { p.SigningKeyFile = garbage },
			[]string{garbage, "not a usable signing key"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := fullProfile()
			tt.modify(p)
			_, err := p.APIConfig()
			if err == nil {
				t.Fatal("APIConfig succeeded, want an error")
			}
			for _, s := range append([]string{"/etc/paydash.toml", `profile "sandbox"`}, tt.want...) {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not contain %q", err, s)
				}
			}
			if strings.Contains(err.Error(), "the-secret") {
				t.Errorf("error %q shows the client secret", err)
			}
			if tt.isErr != nil && !errors.Is(err, tt.isErr) {
				t.Errorf("error %v does not wrap %v", err, tt.isErr)
			}
		})
	}
}
