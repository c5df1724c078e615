package approvals_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/spf13/cobra"

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

// payment create and mandate create on a team profile, over the hub's
// rule: exit 5 awaiting approval, nothing created; another person
// approves with approvals approve and the hub creates it, once. Counted
// in the sandbox's own records.
func TestTeamPaymentsAndMandatesOverTheRuleAwaitApproval(t *testing.T) {
	tm := startTeam(t)
	gbp := ""
	for _, a := range tm.ht.Sandbox.MerchantAccounts() {
		if a.Currency == "GBP" {
			gbp = a.ID
		}
	}
	runCmd := func(c *cobra.Command, args ...string) (map[string]any, string, int) {
		c.SetArgs(args)
		c.SetOut(io.Discard)
		c.SetErr(io.Discard)
		c.SilenceUsage, c.SilenceErrors = true, true
		err := c.ExecuteContext(context.Background())
		return nil, err2s(err), cmdutil.ExitCode(err)
	}
	s, out, _ := tm.streams("")
	_, msg, code := runCmd(headless.PaymentCommand(s, &cmdutil.Global{ConfigPath: tm.cfg, Profile: "ada"}), "create", "--amount", "2000.00", "--currency", "GBP",
		"--reference", "ORDER-BIG", "--merchant-account-id", gbp, "--user-name", "Ada Lovelace", "--user-email", "ada@example.com",
		"--metadata", "case=CLI-PAY", "--json", "--yes")
	var held headless.Held
	if err := json.Unmarshal(out.Bytes(), &held); err != nil || code != cmdutil.ExitAwaitingApproval || held.Status != "awaiting_approval" || held.ApprovalID == "" {
		t.Fatalf("payment create over the rule: exit %d %s %s (%v)", code, out, msg, err)
	}
	s, out, _ = tm.streams("")
	_, msg, code = runCmd(headless.MandateCommand(s, &cmdutil.Global{ConfigPath: tm.cfg, Profile: "ada"}), "create", "--type", "sweeping", "--currency", "GBP",
		"--max-individual", "100.00", "--limit", "month=5000.00", "--merchant-account-id", gbp, "--user-name", "Ada Lovelace", "--user-email", "ada@example.com",
		"--metadata", "case=CLI-MAN", "--yes")
	if code != cmdutil.ExitAwaitingApproval || !strings.Contains(out.String(), "Awaiting approval: apr-") || !strings.Contains(out.String(), "month limit") {
		t.Fatalf("mandate create over the rule: exit %d %s %s", code, out, msg)
	}
	mandateID := strings.Fields(strings.TrimPrefix(out.String(), "Awaiting approval: "))[0]
	if n := tm.ht.Sandbox.CountPayments("case", "CLI-PAY") + tm.ht.Sandbox.CountMandates("case", "CLI-MAN"); n != 0 {
		t.Fatalf("%d created before approval", n)
	}
	// Listed for the approvers, as what it is.
	list, _, _ := tm.run("vic", "list")
	if !strings.Contains(list, "payment into") || !strings.Contains(list, "£2,000.00") || !strings.Contains(list, "mandate into") {
		t.Fatalf("approvals list:\n%s", list)
	}
	for _, id := range []string{held.ApprovalID, mandateID} {
		if out, code, err := tm.run("bob", "approve", id, "--yes"); code != 0 || !strings.Contains(out, "Created:") {
			t.Fatalf("bob approves %s: exit %d %v %s", id, code, err, out)
		}
		// Approving again (an answer lost) creates nothing more.
		if _, code, err := tm.run("bob", "approve", id, "--yes"); code != 0 {
			t.Fatalf("approving %s again: exit %d %v", id, code, err)
		}
	}
	if n := tm.ht.Sandbox.CountPayments("case", "CLI-PAY"); n != 1 {
		t.Fatalf("%d payments created, want 1", n)
	}
	if n := tm.ht.Sandbox.CountMandates("case", "CLI-MAN"); n != 1 {
		t.Fatalf("%d mandates created, want 1", n)
	}
}

func err2s(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// On the team's relay a resend's answer is written into the attempt log
// only with a token holding the request role: vic's view token and the
// relay's shared token are refused (403) before anything is read, ada's
// token reaches the event lookup (404: no such event).
func TestTeamRelayResendReportsNeedTheRequestRole(t *testing.T) {
	tm := startTeam(t)
	for tok, want := range map[string]int{tm.tokens["vic"]: http.StatusForbidden, shared: http.StatusForbidden, tm.tokens["ada"]: http.StatusNotFound} {
		req, _ := http.NewRequest(http.MethodPost, "http://"+tm.addr+"/events/evt-none/resends", strings.NewReader(`{"status":200}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("resend report with %s's token: %d, want %d", map[bool]string{true: "a user", false: "the shared"}[tok != shared], resp.StatusCode, want)
		}
	}
}
