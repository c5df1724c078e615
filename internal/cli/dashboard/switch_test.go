package dashboard

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paydash/paydash/internal/cli/cmdutil"
)

const twoProfiles = `
default_profile = "sandbox"

[profiles.sandbox]
auth_url = "https://auth.example"
base_url = "https://api.example"
payouts_url = "https://payouts.example"
client_id = "client"
client_secret = "secret"

[profiles.live-eu]
auth_url = "https://auth.live.example"
base_url = "https://api.live.example"
payouts_url = "https://payouts.live.example"
client_id = "client"
client_secret = "secret"
production = true
`

// :profile NAME asks the command whether the profile opens and whether
// it moves real money (the dashboard then gives the production warning),
// and an unknown name is refused before anything switches.
func TestProfileCheckerReadsTheConfig(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(path, []byte(twoProfiles), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"HOME": dir}
	s := &cmdutil.Streams{Err: &strings.Builder{}, Getenv: func(k string) string { return env[k] }}
	check := profileChecker(s, &cmdutil.Global{ConfigPath: path})
	info, err := check("live-eu")
	if err != nil || info.Name != "live-eu" || !info.Production {
		t.Fatalf("live-eu: %+v, %v; want a production profile", info, err)
	}
	if info, err := check("sandbox"); err != nil || info.Production {
		t.Fatalf("sandbox: %+v, %v", info, err)
	}
	if _, err := check("nope"); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Fatalf("an unknown profile: %v", err)
	}
	if got := s.Err.(*strings.Builder).String(); got != "" {
		t.Fatalf("the check wrote on the dashboard's screen: %q", got)
	}
}

// A team profile opens on its hub too (the Approvals view): one without
// the person's own hub token is refused before anything switches, with
// what it lacks; one with it opens.
func TestProfileCheckerRefusesATeamProfileWithoutItsHub(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config.toml")
	team := `
[profiles.team-bob]
auth_url = "https://auth.example"
base_url = "https://api.example"
payouts_url = "https://payouts.example"
client_id = "client"
client_secret = "secret"
payouts_via_relay = true
relay_url = "ws://127.0.0.1:8787/ws"
relay_token = "bob-token-0123456789abcdef"

[profiles.team-notoken]
auth_url = "https://auth.example"
base_url = "https://api.example"
payouts_url = "https://payouts.example"
client_id = "client"
client_secret = "secret"
payouts_via_relay = true
relay_url = "ws://127.0.0.1:8787/ws"
`
	if err := os.WriteFile(path, []byte(team), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"HOME": dir}
	s := &cmdutil.Streams{Err: &strings.Builder{}, Getenv: func(k string) string { return env[k] }}
	check := profileChecker(s, &cmdutil.Global{ConfigPath: path})
	if info, err := check("team-bob"); err != nil || info.Name != "team-bob" {
		t.Fatalf("team-bob: %+v, %v", info, err)
	}
	if _, err := check("team-notoken"); err == nil || !strings.Contains(err.Error(), "relay_token") {
		t.Fatalf("a team profile without its token: %v", err)
	}
}
