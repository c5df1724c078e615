package config

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestWebhookLateOneDurationOrPerCurrency: webhook_late is one duration
// for every currency or a table per currency, days allowed; a currency
// without its own takes the one duration, else the rail's default.
func TestWebhookLateOneDurationOrPerCurrency(t *testing.T) {
	load := func(t *testing.T, body string, env map[string]string) (*Profile, error) {
		path := filepath.Join(t.TempDir(), "config.toml")
		if err := os.WriteFile(path, []byte("default_profile = \"p\"\n[profiles.p]\nbase_url = \"http://127.0.0.1:1\"\n"+body), 0o600); err != nil {
			t.Fatal(err)
		}
		p, _, err := Load(LoadOptions{Path: path, Getenv: func(k string) string { return env[k] }})
		return p, err
	}
	p, err := load(t, "", nil)
	if err != nil || p.WebhookLate.For("GBP") != 15*time.Minute || p.WebhookLate.For("EUR") != 48*time.Hour {
		t.Fatalf("defaults: %+v %v", p, err)
	}
	p, err = load(t, "webhook_late = \"20s\"\n", nil)
	if err != nil || p.WebhookLate.For("GBP") != 20*time.Second || p.WebhookLate.For("EUR") != 20*time.Second {
		t.Fatalf("one duration: %+v %v", p.WebhookLate, err)
	}
	p, err = load(t, "[profiles.p.webhook_late]\ngbp = \"10m\"\nEUR = \"3d\"\n", nil)
	if err != nil || p.WebhookLate.For("GBP") != 10*time.Minute || p.WebhookLate.For("EUR") != 72*time.Hour || p.WebhookLate.For("USD") != 48*time.Hour {
		t.Fatalf("per currency: %+v %v", p.WebhookLate, err)
	}
	p, err = load(t, "webhook_late = \"1h\"\n", map[string]string{"PAYDASH_WEBHOOK_LATE": "GBP=5s"})
	if err != nil || p.WebhookLate.For("GBP") != 5*time.Second || p.WebhookLate.For("EUR") != time.Hour {
		t.Fatalf("env per currency over the file's one duration: %+v %v", p.WebhookLate, err)
	}
	if _, err := load(t, "webhook_late = \"soon\"\n", nil); err == nil {
		t.Fatal("a bad duration was taken")
	}
}
