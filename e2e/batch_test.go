package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/api/sandbox"
)

// service is a sandbox on loopback and the environment that points the
// paydash binary at it.
type service struct {
	srv    *sandbox.Server
	client *api.Client
	env    []string
}

func startService(t *testing.T) *service {
	t.Helper()
	key, err := api.GenerateSigningKey()
	if err != nil {
		t.Fatal(err)
	}
	pemKey, err := api.EncodePrivateKeyPEM(key)
	if err != nil {
		t.Fatal(err)
	}
	keyFile := filepath.Join(t.TempDir(), "signing-key.pem")
	if err := os.WriteFile(keyFile, pemKey, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	srv, err := sandbox.Listen(ctx, "127.0.0.1:0", sandbox.Options{
		MerchantKey: &key.PublicKey, MerchantKeyID: "e2e-key",
		InitialFunds: map[string]int64{"GBP": 10_000_000, "EUR": 10_000_000},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	info := srv.Info()
	client, err := api.NewClient(api.Config{AuthURL: info.AuthURL, BaseURL: info.BaseURL, PayoutsURL: info.PayoutsURL,
		ClientID: info.ClientID, ClientSecret: info.ClientSecret, SigningKeyID: "e2e-key", SigningKey: key})
	if err != nil {
		t.Fatal(err)
	}
	env := isolatedEnv(t,
		"PAYDASH_AUTH_URL="+info.AuthURL, "PAYDASH_BASE_URL="+info.BaseURL, "PAYDASH_PAYOUTS_URL="+info.PayoutsURL,
		"PAYDASH_CLIENT_ID="+info.ClientID, "PAYDASH_CLIENT_SECRET="+info.ClientSecret,
		"PAYDASH_SIGNING_KEY_ID=e2e-key", "PAYDASH_SIGNING_KEY_FILE="+keyFile,
	)
	return &service{srv: srv, client: client, env: env}
}

// payoutsByReference counts the service's payout records per reference
// with the given prefix, from the transaction report.
func (s *service) payoutsByReference(t *testing.T, prefix string) map[string]int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	txs, err := s.client.Transactions(ctx, api.TransactionQuery{Type: api.TransactionPayout})
	if err != nil {
		t.Fatal(err)
	}
	n := map[string]int{}
	for _, tx := range txs {
		if strings.HasPrefix(tx.BeneficiaryReference, prefix) {
			n[tx.BeneficiaryReference]++
		}
	}
	return n
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestBatchWithBadRowsIsRefusedWhole(t *testing.T) {
	svc := startService(t)
	file := writeFile(t, "mixed.csv", "name,iban,reference,amount,currency\n"+
		"Good One,GB33BUKB20201555555555,E2E-MIX-1,10.00,GBP\n"+ // 2
		"Bad Iban,GB33BUKB20201555555556,E2E-MIX-2,10.00,GBP\n"+ // 3
		"Good Two,DE89370400440532013000,E2E-MIX-3,3.50,EUR\n"+ // 4
		"Bad Amount,GB33BUKB20201555555555,E2E-MIX-4,1.234,GBP\n"+ // 5
		",GB33BUKB20201555555555,E2E-MIX-5,1.00,GBP\n") // 6
	_, stderr, code := runCLI(t, svc.env, 30*time.Second, "payout", "batch", file, "--yes", "--wait", "0")
	if code == 0 {
		t.Fatalf("a file with bad rows was accepted; stderr:\n%s", stderr)
	}
	for _, l := range []string{"line 3:", "line 5:", "line 6:"} {
		if !strings.Contains(stderr, l) {
			t.Errorf("stderr does not report %q:\n%s", l, stderr)
		}
	}
	for _, l := range []string{"line 2:", "line 4:"} {
		if strings.Contains(stderr, l) {
			t.Errorf("stderr blames a good row (%q):\n%s", l, stderr)
		}
	}
	if got := svc.payoutsByReference(t, "E2E-MIX-"); len(got) != 0 {
		t.Errorf("the service got payouts from a refused file: %v", got)
	}
	if _, err := os.Stat(file + ".journal"); err == nil {
		t.Error("a refused file left a journal")
	}
}

func TestBatchKilledHalfwayPaysEveryRowOnce(t *testing.T) {
	svc := startService(t)
	const rows = 30
	var b strings.Builder
	b.WriteString("name,iban,reference,amount,currency\n")
	for i := range rows {
		fmt.Fprintf(&b, "Payee %02d,GB33BUKB20201555555555,E2E-KILL-%02d,%d.%02d,GBP\n", i, i, 1+i, i)
	}
	file := writeFile(t, "payroll.csv", b.String())
	journal := file + ".journal"

	// First run, slowed to 10 payouts a second, killed without warning
	// once about a third of the rows are recorded.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "payout", "batch", file, "--yes", "--wait", "0", "--rate", "10")
	cmd.Env = svc.env
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		data, _ := os.ReadFile(journal)
		if sent := strings.Count(string(data), `"kind":"sent"`); sent >= 8 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("the first run recorded too little within 20s; journal:\n%s", data)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	paidBefore := svc.payoutsByReference(t, "E2E-KILL-")
	if len(paidBefore) == 0 || len(paidBefore) >= rows {
		t.Fatalf("after the kill the service holds %d of %d payouts; the kill did not land half-way", len(paidBefore), rows)
	}

	// The re-run resumes and finishes.
	stdout, stderr, code := runCLI(t, svc.env, 30*time.Second, "payout", "batch", file, "--yes", "--wait", "0")
	if code != 0 {
		t.Fatalf("re-run exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, fmt.Sprintf("accepted by the service: %d", rows)) || !strings.Contains(stdout, "in an earlier run, not sent again") {
		t.Errorf("re-run summary does not say it resumed:\n%s", stdout)
	}
	paid := svc.payoutsByReference(t, "E2E-KILL-")
	for i := range rows {
		ref := fmt.Sprintf("E2E-KILL-%02d", i)
		if paid[ref] != 1 {
			t.Errorf("%s paid %d times, want exactly once", ref, paid[ref])
		}
	}
	// A third run pays nothing more.
	if _, stderr, code := runCLI(t, svc.env, 30*time.Second, "payout", "batch", file, "--yes", "--wait", "0"); code != 0 {
		t.Fatalf("third run exit %d: %s", code, stderr)
	}
	if again := svc.payoutsByReference(t, "E2E-KILL-"); len(again) != rows {
		t.Errorf("third run changed the report: %d references", len(again))
	} else {
		for ref, n := range again {
			if n != 1 {
				t.Errorf("%s paid %d times after a third run", ref, n)
			}
		}
	}
}

// TestBatchSummaryFollowsWebhooks runs the headless demo (sandbox + relay)
// and a batch against its profile: the summary reports each row's final
// state from the relay's webhooks, and the demo stops cleanly on SIGINT.
func TestBatchSummaryFollowsWebhooks(t *testing.T) {
	env := isolatedEnv(t)
	demo := startHeadlessDemo(t, env)
	cfg := demo.cfg
	file := writeFile(t, "mixed-outcomes.csv", "name,iban,reference,amount,currency\n"+
		"Ada Lovelace,GB33BUKB20201555555555,E2E-W-1,10.00,GBP\n"+
		"AML Test Person,GB33BUKB20201555555555,E2E-W-2,10.00,GBP\n"+ // the sandbox's AML rule rejects it
		"Grace Hopper,GB33BUKB20201555555555,FAIL:account closed,10.00,GBP\n"+ // the sandbox fails it
		"Müller GmbH,DE89370400440532013000,E2E-W-4,3.00,EUR\n")
	stdout, stderr, code := runCLI(t, env, 40*time.Second, "--config", cfg, "payout", "batch", file, "--yes", "--wait", "20s")
	if code != 3 {
		t.Errorf("exit %d, want 3 (rows rejected or failed)\n%s\n%s", code, stdout, stderr)
	}
	for _, want := range []string{"accepted by the service: 4", "settled 2, pending 0, rejected 1, failed 1, not sent 0", "aml_check_failed", "account_closed"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("summary lacks %q:\n%s", want, stdout)
		}
	}
	demo.stop(t)
}

// headlessDemo is `paydash demo --headless` (sandbox + relay, no
// dashboard) running as a child process.
type headlessDemo struct {
	cmd    *exec.Cmd
	out    *strings.Builder
	cancel context.CancelFunc
	cfg    string // the demo profile's config file
	addrs  struct{ Sandbox, Relay string }
}

func startHeadlessDemo(t *testing.T, env []string) *headlessDemo {
	t.Helper()
	ports := filepath.Join(t.TempDir(), "ports.json")
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	d := &headlessDemo{out: &strings.Builder{}, cancel: cancel,
		cfg: filepath.Join(envValue(env, "XDG_STATE_HOME"), "paydash", "demo", "config.toml")}
	d.cmd = exec.CommandContext(ctx, bin, "demo", "--headless", "--activity=false", "--history", "20", "--step-delay", "100ms", "--ports-file", ports)
	d.cmd.Env = env
	d.cmd.Stdout = d.out
	if err := d.cmd.Start(); err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = d.cmd.Process.Kill()
		cancel()
	})
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if b, err := os.ReadFile(ports); err == nil && json.Unmarshal(b, &d.addrs) == nil {
			return d
		}
		if time.Now().After(deadline) {
			t.Fatal("the headless demo did not come up within 20s")
		}
	}
}

// stop sends ctrl+c and checks the demo exits cleanly, said how to attach,
// and left nothing listening.
func (d *headlessDemo) stop(t *testing.T) {
	t.Helper()
	if err := d.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if err := d.cmd.Wait(); err != nil {
		t.Errorf("headless demo after ctrl+c: %v", err)
	}
	if !strings.Contains(d.out.String(), "paydash --config "+d.cfg) {
		t.Errorf("the headless demo does not say how to attach:\n%s", d.out.String())
	}
	notListening(t, d.addrs.Sandbox)
	notListening(t, d.addrs.Relay)
}
