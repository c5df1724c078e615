package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/paydash/paydash/api"
)

// These tests drive the built binary as an operator under pressure
// would: kill -9 half-way, then edit the file or lose the journal, two
// terminals at once, a pipe instead of a terminal. Each follows the
// advice paydash prints, word for word, and counts payouts in the
// service's report.

// payrollCSV is n rows with references PREFIX-00...; amount(i) gives the
// amount of row i.
func payrollCSV(prefix string, n int, amount func(int) string) string {
	var b strings.Builder
	b.WriteString("name,iban,reference,amount,currency\n")
	for i := range n {
		fmt.Fprintf(&b, "Payee %02d,GB33BUKB20201555555555,%s-%02d,%s,GBP\n", i, prefix, i, amount(i))
	}
	return b.String()
}

func amountOf(i int) string { return fmt.Sprintf("%d.%02d", 1+i, i) }

// startBatch starts `paydash payout batch` in the background.
func startBatch(t *testing.T, env []string, args ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, bin, append([]string{"payout", "batch"}, args...)...)
	cmd.Env = env
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return cmd, &errb
}

// waitSent waits until the journal records at least n sends.
func waitSent(t *testing.T, journal string, n int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		data, _ := os.ReadFile(journal)
		if strings.Count(string(data), `"kind":"sent"`) >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("fewer than %d sends recorded within 20s; journal:\n%s", n, data)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// killHalfway runs the batch at 20 rows a second and kills it (SIGKILL)
// once 5 rows are recorded.
func killHalfway(t *testing.T, svc *service, file, prefix string, rows int) {
	t.Helper()
	cmd, _ := startBatch(t, svc.env, file, "--yes", "--wait", "0", "--rate", "20")
	waitSent(t, file+".journal", 5)
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if n := len(svc.payoutsByReference(t, prefix)); n == 0 || n >= rows {
		t.Fatalf("after the kill the service holds %d of %d rows; the kill did not land half-way", n, rows)
	}
}

// wantEachOnce checks the report holds exactly the given "reference
// amount" pairs, once each.
func wantEachOnce(t *testing.T, svc *service, prefix string, want []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	txs, err := svc.client.Transactions(ctx, api.TransactionQuery{Type: api.TransactionPayout})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, tx := range txs {
		if strings.HasPrefix(tx.BeneficiaryReference, prefix) {
			got[fmt.Sprintf("%s %d", tx.BeneficiaryReference, tx.AmountInMinor)]++
		}
	}
	wantN := map[string]int{}
	for _, w := range want {
		wantN[w]++
	}
	for k, n := range got {
		if n != wantN[k] {
			t.Errorf("%s paid %d time(s), want %d", k, n, wantN[k])
		}
	}
	for k := range wantN {
		if got[k] == 0 {
			t.Errorf("%s never paid (lost)", k)
		}
	}
}

func minor(s string) int64 {
	var a, b int64
	fmt.Sscanf(s, "%d.%d", &a, &b)
	return a*100 + b
}

func rowKeys(prefix string, n int, amount func(int) string) []string {
	var out []string
	for i := range n {
		out = append(out, fmt.Sprintf("%s-%02d %d", prefix, i, minor(amount(i))))
	}
	return out
}

func TestBatchKilledThenJournalDeletedPaysEveryRowOnce(t *testing.T) {
	svc := startService(t)
	const rows = 20
	file := writeFile(t, "payroll.csv", payrollCSV("E2E-KD", rows, amountOf))
	killHalfway(t, svc, file, "E2E-KD", rows)
	if err := os.Remove(file + ".journal"); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := runCLI(t, svc.env, 30*time.Second, "payout", "batch", file, "--yes", "--wait", "0")
	if code != 0 {
		t.Fatalf("re-run without the journal: exit %d\n%s\n%s", code, stdout, stderr)
	}
	wantEachOnce(t, svc, "E2E-KD", rowKeys("E2E-KD", rows, amountOf))
}

func TestBatchKilledThenFileEditedFollowsTheAdvice(t *testing.T) {
	svc := startService(t)
	const rows = 20
	dir := t.TempDir()
	file := filepath.Join(dir, "payroll.csv")
	if err := os.WriteFile(file, []byte(payrollCSV("E2E-KE", rows, amountOf)), 0o600); err != nil {
		t.Fatal(err)
	}
	killHalfway(t, svc, file, "E2E-KE", rows)
	// The operator edits the first row (already paid) and the last (not
	// yet sent), then runs again.
	edited := func(i int) string {
		if i == 0 || i == rows-1 {
			return "500.00"
		}
		return amountOf(i)
	}
	if err := os.WriteFile(file, []byte(payrollCSV("E2E-KE", rows, edited)), 0o600); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := runCLI(t, svc.env, 30*time.Second, "payout", "batch", file, "--yes", "--wait", "0")
	if code == 0 || !strings.Contains(stderr, "pass --journal NEWPATH") {
		t.Fatalf("re-run of the edited file: exit %d, want the --journal NEWPATH advice\n%s", code, stderr)
	}
	// Word for word. Row 0 was paid before the kill: edited, it is
	// CHANGED and held back (exit 3); the last row was never sent, so its
	// new amount goes out.
	journal := filepath.Join(dir, "payroll-v2.journal")
	stdout, stderr, code := runCLI(t, svc.env, 30*time.Second, "payout", "batch", file, "--yes", "--wait", "0", "--journal", journal)
	if code != 3 || !strings.Contains(stderr, "CHANGED  line 2  £500.00") || !strings.Contains(stdout, "run the same command with --allow-duplicate") {
		t.Fatalf("with --journal NEWPATH: exit %d, want 3 with line 2 held back as CHANGED\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, fmt.Sprintf("send  line %d  £500.00", rows+1)) {
		t.Errorf("the edited unsent row is not listed before sending:\n%s", stderr)
	}
	want := rowKeys("E2E-KE", rows, amountOf)
	want[rows-1] = fmt.Sprintf("E2E-KE-%02d 50000", rows-1)
	wantEachOnce(t, svc, "E2E-KE", want)
	// "run the same command with --allow-duplicate", word for word: row 0
	// at its new amount, as a second payout the operator asked for.
	stdout, stderr, code = runCLI(t, svc.env, 30*time.Second, "payout", "batch", file, "--yes", "--wait", "0", "--journal", journal, "--allow-duplicate")
	if code != 0 || !strings.Contains(stderr, "send  line 2  £500.00") {
		t.Fatalf("with --allow-duplicate: exit %d\n%s\n%s", code, stdout, stderr)
	}
	// Every unchanged row once; row 0 at its old amount (paid before the
	// kill) and at its new one; the last row at its new amount only.
	want = append(want, "E2E-KE-00 50000")
	wantEachOnce(t, svc, "E2E-KE", want)
}

func TestBatchTwoTerminalsAtOnce(t *testing.T) {
	svc := startService(t)
	const rows = 15
	file := writeFile(t, "payroll.csv", payrollCSV("E2E-TT", rows, amountOf))
	first, firstErr := startBatch(t, svc.env, file, "--yes", "--wait", "0", "--rate", "20")
	waitSent(t, file+".journal", 2)
	_, stderr, code := runCLI(t, svc.env, 30*time.Second, "payout", "batch", file, "--yes", "--wait", "0")
	if code == 0 || !strings.Contains(stderr, fmt.Sprintf("locked by pid %d", first.Process.Pid)) {
		t.Fatalf("second terminal: exit %d, want a refusal naming pid %d\n%s", code, first.Process.Pid, stderr)
	}
	if err := first.Wait(); err != nil {
		t.Fatalf("first terminal: %v\n%s", err, firstErr)
	}
	// "run the same command again"
	if _, stderr, code := runCLI(t, svc.env, 30*time.Second, "payout", "batch", file, "--yes", "--wait", "0"); code != 0 {
		t.Fatalf("the same command again: exit %d\n%s", code, stderr)
	}
	wantEachOnce(t, svc, "E2E-TT", rowKeys("E2E-TT", rows, amountOf))

	// The audit record lists every row once, with its outcome.
	out, _, code := runCLI(t, svc.env, 10*time.Second, "payouts", "log", "--json")
	if code != 0 {
		t.Fatalf("payouts log: exit %d", code)
	}
	var log []struct {
		TransactionID string `json:"transaction_id"`
		Reference     string `json:"beneficiary_reference"`
		Outcome       string `json:"outcome"`
		Profile       string `json:"profile"`
	}
	if err := json.Unmarshal([]byte(out), &log); err != nil {
		t.Fatalf("payouts log --json: %v\n%s", err, out)
	}
	refs := map[string]int{}
	for _, e := range log {
		refs[e.Reference]++
		// payouts log learns final states, so a row the sandbox has
		// settled since reads settled; either way it was paid once.
		if (e.Outcome != "accepted" && e.Outcome != "settled") || e.TransactionID == "" {
			t.Errorf("log entry %+v: want outcome accepted or settled and an id", e)
		}
	}
	if len(refs) != rows {
		t.Errorf("payouts log names %d references, want %d", len(refs), rows)
	}
	matches, _ := filepath.Glob(filepath.Join(envValue(svc.env, "XDG_STATE_HOME"), "paydash", "audit", "*.jsonl"))
	if len(matches) != 1 {
		t.Fatalf("audit record files: %v", matches)
	}
	if st, err := os.Stat(matches[0]); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("audit record mode %v (%v), want 0600", st.Mode().Perm(), err)
	}
}

func TestBatchThroughAPipeNeedsYes(t *testing.T) {
	svc := startService(t)
	file := writeFile(t, "payroll.csv", payrollCSV("E2E-PIPE", 3, amountOf))
	cmd := exec.Command(bin, "payout", "batch", file)
	cmd.Env = svc.env
	cmd.Stdin = strings.NewReader("n\n") // echo n | paydash payout batch payroll.csv
	var errb bytes.Buffer
	cmd.Stderr = &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 || !regexp.MustCompile(`pass --yes`).MatchString(errb.String()) {
		t.Fatalf("echo n | paydash payout batch: %v, want exit 2 asking for --yes\n%s", err, errb.String())
	}
	if got := svc.payoutsByReference(t, "E2E-PIPE"); len(got) != 0 {
		t.Fatalf("sent unconfirmed: %v", got)
	}
}

// TestPayoutCreateWaitSeesARejectionFromTheRelay: --wait follows the
// payout over the demo's relay and exits 3 on rejection.
func TestPayoutCreateWaitSeesARejectionFromTheRelay(t *testing.T) {
	env := isolatedEnv(t)
	demo := startHeadlessDemo(t, env)
	stdout, stderr, code := runCLI(t, env, 40*time.Second, "--config", demo.cfg, "payout", "create", "--name", "AML Test Person",
		"--iban", "GB33BUKB20201555555555", "--reference", "E2E-WAIT-1", "--amount", "1.00", "--currency", "GBP", "--yes", "--wait", "20s")
	if code != 3 || !strings.Contains(stderr, "rejected") || !strings.Contains(stderr, "aml_check_failed") || !strings.Contains(stderr, "state from the relay") {
		t.Errorf("--wait on a rejected payout: exit %d, want 3\n%s\n%s", code, stdout, stderr)
	}
	demo.stop(t)
}

// TestDashboardFormRefusesADuplicateUntilConfirmed: a payout sent with
// `payout create` from one terminal, then typed again into the
// dashboard's form in another, is stopped with the first one's id; only
// the explicit second confirmation sends it, and `payouts log` shows
// both, the second marked as an allowed duplicate.
func TestDashboardFormRefusesADuplicateUntilConfirmed(t *testing.T) {
	env := isolatedEnv(t)
	demo := startHeadlessDemo(t, env)
	const iban, ref = "GB33BUKB20201555555555", "E2E-DUPFORM"
	out, errOut, code := runCLI(t, env, 30*time.Second, "--config", demo.cfg, "payout", "create",
		"--name", "Other Terminal", "--iban", iban, "--reference", ref, "--amount", "7.00", "--currency", "GBP", "--yes")
	if code != 0 {
		t.Fatalf("payout create: exit %d\n%s\n%s", code, out, errOut)
	}
	first := strings.TrimSpace(out)

	s := startScreen(t, env, "--config", demo.cfg)
	s.waitText(30*time.Second, "profile demo", "Faster Payments", "relay: live")
	s.press("5")
	s.waitText(10*time.Second, "Source account")
	for i := 0; ; i++ {
		if _, ok := line(s.text(), "> GBP"); ok {
			break
		}
		if i == 3 {
			t.Fatalf("the GBP account is not in the source list:\n%s", s.text())
		}
		s.press(keyDown)
	}
	s.press(keyEnter)
	enterField(s, "Beneficiary name", "Same Payee Typed Again")
	enterField(s, "Beneficiary IBAN", iban)
	enterField(s, "Reference", ref)
	enterField(s, "Amount", "7.00")
	enterField(s, "Context code", "")
	s.waitText(5*time.Second, "Send this payout?", ref)
	s.press("y")
	s.waitText(10*time.Second, "Possible duplicate: nothing was sent", first)
	if n := svcCount(t, env, demo.cfg, ref); n != 1 {
		t.Fatalf("the report holds %d payouts with %s after the refusal, want 1", n, ref)
	}
	s.press("a")
	s.waitText(10*time.Second, "Payout accepted")
	if n := svcCount(t, env, demo.cfg, ref); n != 2 {
		t.Fatalf("the report holds %d payouts with %s after the second confirmation, want 2", n, ref)
	}
	logOut, _, code := runCLI(t, env, 10*time.Second, "--config", demo.cfg, "payouts", "log", "--json")
	if code != 0 {
		t.Fatalf("payouts log: exit %d", code)
	}
	var log []struct {
		Source           string `json:"source"`
		Reference        string `json:"beneficiary_reference"`
		AllowedDuplicate bool   `json:"allowed_duplicate"`
		Outcome          string `json:"outcome"`
	}
	if err := json.Unmarshal([]byte(logOut), &log); err != nil || len(log) != 2 {
		t.Fatalf("payouts log --json: %v\n%s", err, logOut)
	}
	if log[0].Source != "create" || log[1].Source != "form" || !log[1].AllowedDuplicate || (log[1].Outcome != "accepted" && log[1].Outcome != "settled") {
		t.Errorf("payouts log: %+v", log)
	}
	s.press("q")
	if code := s.wait(20 * time.Second); code != 0 {
		t.Fatalf("paydash exit status %d, want 0; screen:\n%s", code, s.text())
	}
	demo.stop(t)
}

// svcCount counts the report's payouts with the reference, through the
// CLI of the profile.
func svcCount(t *testing.T, env []string, cfg, ref string) int {
	t.Helper()
	out, errOut, code := runCLI(t, env, 20*time.Second, "--config", cfg, "transactions", "--type", "payout", "--search", ref, "--json")
	if code != 0 {
		t.Fatalf("transactions: exit %d: %s", code, errOut)
	}
	var rows []struct {
		Reference string `json:"beneficiary_reference"`
	}
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatalf("transactions --json: %v\n%s", err, out)
	}
	n := 0
	for _, r := range rows {
		if r.Reference == ref {
			n++
		}
	}
	return n
}
