package config_test

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	"github.com/paydash/paydash/config"
)

func TestTemplateLoadsAsSandboxProfile(t *testing.T) {
	var doc map[string]any
	if _, err := toml.Decode(string(config.Template()), &doc); err != nil {
		t.Fatalf("template is not valid TOML: %v", err)
	}
	path := writeFile(t, t.TempDir(), "config.toml", string(config.Template()), 0o600)
	p, warnings, err := config.Load(config.LoadOptions{Path: path, Getenv: envFunc(t, nil)})
	if err != nil {
		t.Fatalf("Load(template): %v", err)
	}
	if len(warnings) != 0 {
		t.Errorf("template gives warnings: %v", warnings)
	}
	if p.Name != "sandbox" || p.Production {
		t.Errorf("template profile = %q production=%t, want the sandbox profile, not production", p.Name, p.Production)
	}
	for name, u := range map[string]string{"auth_url": p.AuthURL, "base_url": p.BaseURL, "payouts_url": p.PayoutsURL} {
		if !strings.HasPrefix(u, "https://") {
			t.Errorf("template %s = %q, want an https URL to replace", name, u)
		}
	}
	if p.LowBalance["GBP"] != 100000 {
		t.Errorf("template low_balance GBP = %d minor units, want 100000", p.LowBalance["GBP"])
	}
	// The template leaves the secret for the user to fill in, and the
	// api config says exactly that.
	if _, err := p.APIConfig(); err == nil || !strings.Contains(err.Error(), "client_secret") {
		t.Errorf("APIConfig of the bare template = %v, want an error naming client_secret", err)
	}
}

func TestWriteTemplate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "new", "paydash")
	path := filepath.Join(dir, "config.toml")
	if err := config.WriteTemplate(path); err != nil {
		t.Fatalf("WriteTemplate: %v", err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, config.Template()) {
		t.Error("written file differs from Template()")
	}
	for p, want := range map[string]os.FileMode{dir: 0o700, path: 0o600} {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		// The umask may only take permissions away.
		if perm := st.Mode().Perm(); perm&^want != 0 {
			t.Errorf("%s mode %04o, want at most %04o", p, perm, want)
		}
	}

	const edited = "# my edits\n[profiles.mine]\n"
	if err := os.WriteFile(path, []byte(edited), 0o600); err != nil {
		t.Fatal(err)
	}
	err = config.WriteTemplate(path)
	if err == nil || !errors.Is(err, fs.ErrExist) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("WriteTemplate over an existing file = %v, want an error saying %s already exists", err, path)
	}
	if got, _ := os.ReadFile(path); string(got) != edited {
		t.Error("WriteTemplate changed an existing file")
	}
}
