package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/api/sandbox"
	"github.com/paydash/paydash/hub/users"
)

// TestApprovalInOneDashboardIsSentInTheOthers is team mode as two people
// live it, each in their own dashboard: the sandbox, the real binary's
// `paydash relay --users` as the team's hub (it holds the only signing
// key, and takes the sandbox's webhooks), ada asking for a payout above
// the threshold from the command line, bob approving it in his
// dashboard's Approvals view, and ada seeing it paid in her dashboard's
// Payouts tracker. The payout is counted once in the sandbox's report.
func TestApprovalInOneDashboardIsSentInTheOthers(t *testing.T) {
	hubAddr := freeLoopbackAddr(t)
	key, err := api.GenerateSigningKey()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	sb, err := sandbox.Listen(ctx, "127.0.0.1:0", sandbox.Options{MerchantKey: &key.PublicKey, MerchantKeyID: "hub-key",
		InitialFunds: map[string]int64{"GBP": 100_000_00, "EUR": 100_000_00}, WebhookURI: "http://" + hubAddr + "/webhooks"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	info := sb.Info()
	svc, err := api.NewClient(api.Config{AuthURL: info.AuthURL, BaseURL: info.BaseURL, PayoutsURL: info.PayoutsURL,
		ClientID: info.ClientID, ClientSecret: info.ClientSecret})
	if err != nil {
		t.Fatal(err)
	}

	dir := t.TempDir()
	pemKey, err := api.EncodePrivateKeyPEM(key)
	if err != nil {
		t.Fatal(err)
	}
	keyFile := filepath.Join(dir, "hub-key.pem")
	if err := os.WriteFile(keyFile, pemKey, 0o600); err != nil {
		t.Fatal(err)
	}
	usersFile := filepath.Join(dir, "team.toml")
	tokens := map[string]string{}
	for _, u := range []struct {
		name  string
		roles []string
	}{{"ada", []string{users.RoleRequest}}, {"bob", []string{users.RoleRequest, users.RoleApprove}}} {
		if tokens[u.name], err = users.Add(usersFile, u.name, u.roles); err != nil {
			t.Fatal(err)
		}
	}
	service := fmt.Sprintf("auth_url = %q\nbase_url = %q\npayouts_url = %q\nclient_id = %q\nclient_secret = %q\n",
		info.AuthURL, info.BaseURL, info.PayoutsURL, info.ClientID, info.ClientSecret)
	var cfg strings.Builder
	fmt.Fprintf(&cfg, "[profiles.hub]\n%ssigning_key_id = \"hub-key\"\nsigning_key_file = %q\n\n", service, filepath.ToSlash(keyFile))
	for _, n := range []string{"ada", "bob"} {
		fmt.Fprintf(&cfg, "[profiles.%s]\n%spayouts_via_relay = true\nrelay_url = \"ws://%s/ws\"\nrelay_token = %q\n\n", n, service, hubAddr, tokens[n])
	}
	cfgFile := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(cfgFile, []byte(cfg.String()), 0o600); err != nil {
		t.Fatal(err)
	}
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
	if n := countPayouts(t, svc, "E2E-FOUR-EYES"); n != 0 {
		t.Fatalf("%d payouts sent before approval", n)
	}

	// bob's dashboard shows it live, counted in his header, and he
	// approves it there.
	txt := bob.waitText(15*time.Second, "1 await your approval", "Harbour Supplies Ltd", "£2,500.00", "ada")
	if _, ok := line(txt, "Harbour Supplies Ltd", "pending 0/1", "none"); !ok {
		bob.waitFor("the request checked, without warnings", 15*time.Second, func(txt string) bool {
			_, ok := line(txt, "Harbour Supplies Ltd", "pending 0/1", "none")
			return ok
		})
	}
	bob.press("a")
	bob.waitText(10*time.Second, "Approve £2,500.00 to Harbour Supplies Ltd (ref E2E-FOUR-EYES)?")
	bob.press("y")
	bob.waitText(30*time.Second, "sent: £2,500.00 to Harbour Supplies Ltd", "nothing awaits your approval")

	// ada sees it paid in her tracker, through the hub's relay.
	ada.press("3")
	ada.waitFor("the approved payout paid in the requester's tracker", 60*time.Second, func(txt string) bool {
		l, ok := line(txt, res.TxID[:13])
		return ok && (strings.Contains(l, "settled") || strings.Contains(l, "executed"))
	})
	if n := countPayouts(t, svc, "E2E-FOUR-EYES"); n != 1 {
		t.Fatalf("%d payouts in the sandbox's report, want 1", n)
	}

	for _, s := range []*screen{ada, bob} {
		s.press("q")
		if code := s.wait(20 * time.Second); code != 0 {
			t.Fatalf("dashboard exit %d; screen:\n%s", code, s.text())
		}
	}
}

// freeLoopbackAddr is a loopback address nothing listens on now.
func freeLoopbackAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
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

// countPayouts counts the sandbox's payout records with this reference.
func countPayouts(t *testing.T, svc *api.Client, ref string) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	txs, err := svc.Transactions(ctx, api.TransactionQuery{Type: api.TransactionPayout})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, tx := range txs {
		if tx.BeneficiaryReference == ref {
			n++
		}
	}
	return n
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
