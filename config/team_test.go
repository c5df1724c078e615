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
