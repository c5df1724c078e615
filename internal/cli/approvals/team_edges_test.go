package approvals_test

import (
	"context"
	"strings"
	"testing"

	"github.com/paydash/paydash/internal/cli/cmdutil"
	"github.com/paydash/paydash/internal/cli/headless"
)

// config check on a hub profile (payouts_via_relay, no signing key) asks
// the hub who its token is and says so, instead of warning that nothing
// can be sent for lack of a key.
func TestConfigCheckOnATeamProfileAsksTheHub(t *testing.T) {
	tm := startTeam(t)
	s, out, _ := tm.streams("")
	if err := headless.ConfigCheck(context.Background(), s, &cmdutil.Global{ConfigPath: tm.cfg, Profile: "ada"}, false); err != nil {
		t.Fatalf("config check: %v\n%s", err, out)
	}
	got := out.String()
	if !strings.Contains(got, "ok    team hub http://"+tm.addr+": you are ada (roles: request)") {
		t.Errorf("config check does not say who the hub knows:\n%s", got)
	}
	if strings.Contains(got, "signing key") {
		t.Errorf("config check on a hub profile speaks of a signing key:\n%s", got)
	}
	// A token the hub does not know fails the check, saying why.
	tm.cfg = tm.ht.WriteConfig(t, "[profiles.stranger]\n"+tm.ht.ServiceTOML()+"payouts_via_relay = true\nrelay_url = \"ws://"+tm.addr+"/ws\"\nrelay_token = \"not-anyones-token-0123456789ab\"\n")
	s, out, _ = tm.streams("")
	err := headless.ConfigCheck(context.Background(), s, &cmdutil.Global{ConfigPath: tm.cfg, Profile: "stranger"}, false)
	if cmdutil.ExitCode(err) != cmdutil.ExitFailure || !strings.Contains(out.String(), "FAIL  team hub") || !strings.Contains(out.String(), "not in the hub's users file") {
		t.Errorf("an unknown token: %v\n%s", err, out)
	}
}
