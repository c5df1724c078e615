package approvals_test

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/paydash/paydash/internal/cli/approvals"
	"github.com/paydash/paydash/internal/cli/cmdutil"
)

// complete asks cobra's completion (what the shell scripts call) for
// `paydash approvals ARGS…` as who.
func (tm *team) complete(who string, args ...string) string {
	tm.t.Helper()
	s, out, _ := tm.streams("")
	c := approvals.Command(s, &cmdutil.Global{ConfigPath: tm.cfg, Profile: who})
	var shell bytes.Buffer
	c.SetOut(&shell)
	c.SetErr(io.Discard)
	c.SetArgs(append([]string{"__complete"}, args...))
	if err := c.ExecuteContext(context.Background()); err != nil {
		tm.t.Fatalf("__complete %v: %v", args, err)
	}
	return shell.String() + out.String()
}

// approve, reject and show complete the request id from the hub, each
// with what it pays; approve and reject offer only what is pending.
func TestApprovalIDsComplete(t *testing.T) {
	tm := startTeam(t)
	res, code := tm.create("ada", "DONE-1", payee, "10.00", "GBP", nil)
	if code != 0 || res["status"] != "sent" {
		t.Fatalf("small payout: exit %d %v", code, res)
	}
	res, code = tm.create("ada", "BIG-1", payee2, "1500.00", "GBP", nil)
	if code != cmdutil.ExitAwaitingApproval {
		t.Fatalf("big payout: exit %d %v", code, res)
	}
	pending := res["approval_id"].(string)

	for _, cmd := range []string{"approve", "reject"} {
		got := tm.complete("bob", cmd, "")
		if !strings.Contains(got, pending+"\tpending: ") || !strings.Contains(got, "1,500.00") {
			t.Errorf("approvals %s <TAB> does not offer the pending %s with what it pays:\n%s", cmd, pending, got)
		}
		if strings.Count(got, "apr-") != 1 {
			t.Errorf("approvals %s <TAB> offers more than the one pending request:\n%s", cmd, got)
		}
	}
	if got := tm.complete("bob", "show", ""); strings.Count(got, "apr-") < 2 {
		t.Errorf("approvals show <TAB> does not offer every request:\n%s", got)
	}
	// A second id is never offered; the hub is not asked.
	if got := tm.complete("bob", "approve", pending, ""); strings.Contains(got, "apr-") {
		t.Errorf("a second argument was completed:\n%s", got)
	}
}
