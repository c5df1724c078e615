package e2e

import (
	"regexp"
	"slices"
	"syscall"
	"testing"
	"time"
)

var (
	wouldSend = regexp.MustCompile(`(?m)^\s+would send\s+line \d+ .*ref "([^"]+)"`)
	wouldSkip = regexp.MustCompile(`(?m)^\s+would skip\s+line \d+ .*ref "([^"]+)"`)
)

func refs(re *regexp.Regexp, out string) []string {
	var r []string
	for _, m := range re.FindAllStringSubmatch(out, -1) {
		r = append(r, m[1])
	}
	slices.Sort(r)
	return r
}

// TestBatchDryRunAfterKill9: `payout batch --dry-run` run while a batch
// sends (it holds the journal) and again after that batch was killed
// with kill -9 answers at once, and lists each row as one a re-run would
// send or skip; the re-run sends exactly the rows listed to send, and
// every row is paid once.
func TestBatchDryRunAfterKill9(t *testing.T) {
	svc := startService(t)
	const rows = 20
	file := writeFile(t, "payroll.csv", payrollCSV("E2E-DR", rows, amountOf))
	first, _ := startBatch(t, svc.env, file, "--yes", "--wait", "0", "--rate", "4")
	waitSent(t, file+".journal", 3)
	out, errOut, code := runCLI(t, svc.env, 20*time.Second, "payout", "batch", file, "--dry-run")
	if code != 0 || len(refs(wouldSend, out))+len(refs(wouldSkip, out)) != rows {
		t.Fatalf("dry run while another run holds the journal: exit %d\n%s%s", code, out, errOut)
	}
	_ = first.Process.Signal(syscall.SIGKILL)
	_ = first.Wait()
	out, errOut, code = runCLI(t, svc.env, 20*time.Second, "payout", "batch", file, "--dry-run")
	send, skip := refs(wouldSend, out), refs(wouldSkip, out)
	if code != 0 || len(send)+len(skip) != rows || len(skip) == 0 || len(send) == 0 {
		t.Fatalf("dry run after kill -9: exit %d, send %v skip %v\n%s%s", code, send, skip, out, errOut)
	}
	var held []string
	for ref := range svc.payoutsByReference(t, "E2E-DR") {
		held = append(held, ref)
	}
	slices.Sort(held)
	if !slices.Equal(held, skip) {
		t.Errorf("the dry run would skip %v; the service holds %v", skip, held)
	}
	if _, errOut, code := runCLI(t, svc.env, 60*time.Second, "payout", "batch", file, "--yes", "--wait", "0"); code != 0 {
		t.Fatalf("the re-run: exit %d\n%s", code, errOut)
	}
	wantEachOnce(t, svc, "E2E-DR", rowKeys("E2E-DR", rows, amountOf))
}
