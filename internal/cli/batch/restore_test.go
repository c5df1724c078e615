package batch

import (
	"context"
	"os"
	"strings"
	"testing"
)

// TestChangedFileRestoreAdviceIsSafeToFollow: a batch stopped part way
// (ctrl+c), its file edited, is refused with the advice to restore the
// original file to resume; doing that and running the same command
// again pays every row of the original exactly once, and the edited
// amount never.
func TestChangedFileRestoreAdviceIsSafeToFollow(t *testing.T) {
	x := startSvc(t, nil)
	file, keys := csvRows(t, t.TempDir(), "RST", 10, plainAmount)
	original, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if r := x.interrupted(t, file, "RST", 3); r.code == 0 {
		t.Fatalf("the interrupted run says it finished:\n%s", r.all())
	}
	// The operator edits the last row's amount and runs again.
	edited := strings.Replace(string(original), "RST-09,19.09", "RST-09,99.00", 1)
	if edited == string(original) {
		t.Fatal("the test's edit changed nothing")
	}
	if err := os.WriteFile(file, []byte(edited), 0o600); err != nil {
		t.Fatal(err)
	}
	r := x.batch(t, context.Background(), file, "", yes())
	if r.code == 0 || !strings.Contains(r.all(), "Restore the original file to resume that batch") {
		t.Fatalf("re-run of the edited file: exit %d, want a refusal advising to restore it\n%s", r.code, r.all())
	}
	if got := x.paid(t, "RST"); got["RST-09 99.00 GBP"] != 0 {
		t.Fatalf("the edited row was paid: %v", got)
	}
	// Follow it: the original file back, the same command again.
	if err := os.WriteFile(file, original, 0o600); err != nil {
		t.Fatal(err)
	}
	if r := x.batch(t, context.Background(), file, "", yes()); r.code != 0 {
		t.Fatalf("the same command on the restored file: exit %d\n%s", r.code, r.all())
	}
	x.wantPaidOnce(t, "RST", keys)
}
