package e2e

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestDemoLateWebhookMarkedAndCleared walks the workbench on the demo in
// a real terminal: T triggers payout_authorised for a new payout, whose
// final webhook does not come; after the demo's webhook_late (20s) the
// Events view marks it late and `events missing` lists it (exit 3); T on
// its event sends payout_settled for it, which clears the mark and says
// how late it came, and `events missing` then exits 0.
func TestDemoLateWebhookMarkedAndCleared(t *testing.T) {
	if testing.Short() {
		t.Skip("waits out the demo's 20 s webhook_late in a real terminal: left to the full run")
	}
	env := isolatedEnv(t)
	s := startScreen(t, env, "demo", "--activity=false", "--step-delay", "300ms")
	cfg := filepath.Join(envValue(env, "XDG_STATE_HOME"), "paydash", "demo", "config.toml")
	s.waitText(30*time.Second, "Balances", "relay: live")

	s.press("4", "T")
	s.waitText(5*time.Second, "Trigger a sandbox webhook for a new payout id", "payout_authorised", "external_payment_received")
	s.press(keyEnter)
	s.waitText(10*time.Second, "sandbox sent payout_authorised", "1 of 1 events")

	s.waitText(40*time.Second, "webhook LATE", "expects settled/failed/rejected")
	out, _, code := runCLI(t, env, 30*time.Second, "--config", cfg, "events", "missing")
	if code != 3 || !strings.Contains(out, "authorised") {
		t.Fatalf("events missing while late: exit %d\n%s", code, out)
	}

	s.press("T")
	s.waitText(5*time.Second, "Trigger a sandbox webhook for payout ")
	s.press(keyDown, keyDown, keyEnter) // payout_settled
	s.waitText(10*time.Second, "payout_settled came", "late (late mark cleared)")
	if txt := s.text(); strings.Contains(txt, "webhook LATE") {
		t.Fatalf("the late banner stayed:\n%s", txt)
	}
	_, errOut, code := runCLI(t, env, 30*time.Second, "--config", cfg, "events", "missing")
	if code != 0 || !strings.Contains(errOut, "payout_settled came") {
		t.Fatalf("events missing once settled: exit %d\n%s", code, errOut)
	}
	s.press("q")
	if code := s.wait(20 * time.Second); code != 0 {
		t.Fatalf("paydash demo exit status %d", code)
	}
}
