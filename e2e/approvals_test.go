package e2e

import (
	"bufio"
	"encoding/json"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/paydash/paydash/webhookrelay/hub/hubtest"
	"github.com/paydash/paydash/webhookrelay/hub/users"
)

// TestApprovalInOneDashboardIsSentInTheOthers is team mode as two people
// live it, each in their own dashboard: the sandbox, the real binary's
// `paydash relay --users` as the team's hub (it holds the only signing
// key, and takes the sandbox's webhooks), ada asking for a payout above
// the threshold from the command line, then from her dashboard's payout
// form, bob approving each in his dashboard's Approvals view, and ada
// seeing each paid in her dashboard's Payouts tracker. Each payout is
// counted once in the sandbox's report.
func TestApprovalInOneDashboardIsSentInTheOthers(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a hub and two dashboards in real terminals: left to the full run")
	}
	ht := hubtest.New(t, hubtest.Options{Webhooks: true, People: []hubtest.Person{
		{Name: "ada", Roles: []string{users.RoleRequest}}, {Name: "bob", Roles: []string{users.RoleRequest, users.RoleApprove}}}})
	hubAddr, usersFile, dir, info := ht.HubAddr, ht.UsersFile, ht.Dir, ht.Info
	cfgFile := ht.WriteConfig(t, "")
	env := isolatedEnv(t)

	startTeamHub(t, env, "--config", cfgFile, "--profile", "hub", "relay", "--json", "--listen", hubAddr,
		"--users", usersFile, "--approve-over", "GBP=1000.00", "--send-profile", "hub",
		"--approvals-store", filepath.Join(dir, "approvals.db"), "--jku-allow", info.JWKSURL)

	ada := startScreen(t, env, "--config", cfgFile, "--profile", "ada")
	ada.waitText(30*time.Second, "profile ada", "relay: live")
	bob := startScreen(t, env, "--config", cfgFile, "--profile", "bob")
	bob.waitText(30*time.Second, "profile bob", "relay: live", "8 Approvals")
	bob.press("8")
	bob.waitText(15*time.Second, "nothing awaits your approval", "you are bob")

	// ada asks: above the threshold, it waits for someone else (exit 5).
	out, errOut, code := runCLI(t, env, 60*time.Second, "--config", cfgFile, "--profile", "ada", "payout", "create",
		"--name", "Harbour Supplies Ltd", "--iban", "GB33BUKB20201555555555", "--reference", "E2E-FOUR-EYES",
		"--amount", "2500.00", "--currency", "GBP", "--yes", "--json")
	if code != 5 {
		t.Fatalf("payout create above the threshold: exit %d, want 5\n%s\n%s", code, out, errOut)
	}
	var res struct {
		Status     string `json:"status"`
		ApprovalID string `json:"approval_id"`
		TxID       string `json:"transaction_id"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.Status != "awaiting_approval" || res.ApprovalID == "" || res.TxID == "" {
		t.Fatalf("payout create --json: %v\n%s", err, out)
	}
	if n := ht.CountPayouts(t, "E2E-FOUR-EYES"); n != 0 {
		t.Fatalf("%d payouts sent before approval", n)
	}

	// bob's dashboard shows it live, counted in his header, and he
	// approves it there.
	bob.waitText(15*time.Second, "1 await your approval", "Harbour Supplies Ltd", "£2,500.00", "ada")
	approveInDashboard(bob, "Harbour Supplies Ltd", "£2,500.00", "E2E-FOUR-EYES")
	bob.waitText(30*time.Second, "nothing awaits your approval")

	// ada sees it paid in her tracker, through the hub's relay.
	ada.press("3")
	waitPaid(ada, "the approved payout paid in the requester's tracker", res.TxID[:13])
	if n := ht.CountPayouts(t, "E2E-FOUR-EYES"); n != 1 {
		t.Fatalf("%d payouts in the sandbox's report, want 1", n)
	}

	// ada asks again, from her dashboard's payout form: it goes through
	// the hub, her form says it awaits bob's approval and her tracker
	// shows it pending, bob approves it in his dashboard, and her
	// tracker follows it to its final state. Sent once.
	ada.press("5")
	fillPayoutFields(ada, "Quay Stores", "GB94BARC10201530093459", "E2E-FORM-FOUR-EYES", "1,750.00")
	ada.press("y")
	ada.waitText(30*time.Second, "Awaiting approval: apr-", "Nothing is sent until 1 of bob approve", "approval id")
	if n := ht.CountPayouts(t, "E2E-FORM-FOUR-EYES"); n != 0 {
		t.Fatalf("%d payouts sent from the form before approval", n)
	}
	ada.press("3")
	ada.waitFor("the form's request pending in the requester's tracker", 15*time.Second, func(txt string) bool {
		_, ok := line(txt, "Quay Stores", "£1,750.00", "awaiting approval")
		return ok
	})
	approveInDashboard(bob, "Quay Stores", "£1,750.00", "E2E-FORM-FOUR-EYES")
	waitPaid(ada, "the form's payout, approved by bob, paid in the requester's tracker", "Quay Stores", "£1,750.00")
	if n := ht.CountPayouts(t, "E2E-FORM-FOUR-EYES"); n != 1 {
		t.Fatalf("%d payouts from the form in the sandbox's report, want 1", n)
	}

	for _, s := range []*screen{ada, bob} {
		s.press("q")
		if code := s.wait(20 * time.Second); code != 0 {
			t.Fatalf("dashboard exit %d; screen:\n%s", code, s.text())
		}
	}
}

// approveInDashboard approves, in the approver's Approvals view, the one
// request pending for payee: shown live and counted in the header,
// checked without warnings, confirmed with y, sent.
func approveInDashboard(s *screen, payee, amount, ref string) {
	s.t.Helper()
	s.waitText(15*time.Second, "1 await your approval", payee, amount)
	s.waitFor("the request checked, without warnings", 15*time.Second, func(txt string) bool {
		_, ok := line(txt, payee, "pending 0/1", "none")
		return ok
	})
	s.press("a")
	s.waitText(10*time.Second, "Approve "+amount+" to "+payee+" (ref "+ref+")?")
	s.press("y")
	s.waitText(30*time.Second, "sent: "+amount+" to "+payee)
}

// waitPaid waits for the tracker's line showing all of want to reach a
// paid final state (settled, executed).
func waitPaid(s *screen, what string, want ...string) {
	s.t.Helper()
	s.waitFor(what, 60*time.Second, func(txt string) bool {
		l, ok := line(txt, want...)
		return ok && (strings.Contains(l, "settled") || strings.Contains(l, "executed"))
	})
}

// startTeamHub runs the binary's relay as the team's hub until the test
// ends, waiting for its start-up line (which names the hub's URL).
func startTeamHub(t *testing.T, env []string, args ...string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(done)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGINT)
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	first := make(chan string, 1)
	go func() {
		r := bufio.NewReader(stdout)
		l, _ := r.ReadString('\n')
		first <- l
		_, _ = io.Copy(io.Discard, r)
	}()
	select {
	case l := <-first:
		if !strings.Contains(l, `"hub_url"`) {
			t.Fatalf("the hub's start-up line names no hub: %q\nstderr: %s", l, stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("the hub did not start; stderr: %s", stderr.String())
	}
}

// lockedBuffer is a child's stderr, read while the child still writes.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
