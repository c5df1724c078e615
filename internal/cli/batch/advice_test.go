package batch

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paydash/paydash/internal/payout/batch"
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

// TestBadRowsAdviceIsSafeToFollow: a file with bad rows is refused whole
// ("Fix every line below and run again"), nothing sent and no journal
// left; the lines fixed and the same command run again, every row is
// paid once.
func TestBadRowsAdviceIsSafeToFollow(t *testing.T) {
	x := startSvc(t, nil)
	const header = "name,iban,reference,amount,currency\n"
	bad := header + "Good One," + ibanGB + ",FIX-1,10.00,GBP\n" +
		"Bad Amount," + ibanGB + ",FIX-2,1.234,GBP\n" +
		"," + ibanGB + ",FIX-3,1.00,GBP\n"
	file := writeFileIn(t, bad)
	r := x.batch(t, context.Background(), file, "", yes())
	if r.code == 0 || !strings.Contains(r.all(), "Fix every line below and run again") ||
		!strings.Contains(r.all(), "line 3") || !strings.Contains(r.all(), "line 4") {
		t.Fatalf("a file with bad rows: exit %d\n%s", r.code, r.all())
	}
	if got := x.paid(t, "FIX"); len(got) != 0 {
		t.Fatalf("a refused file sent %v", got)
	}
	if _, err := os.Stat(batch.DefaultJournalPath(file)); err == nil {
		t.Fatal("a refused file left a journal")
	}
	// Follow it: fix lines 3 and 4 in place, the same command again.
	fixed := strings.Replace(strings.Replace(bad, "FIX-2,1.234,", "FIX-2,1.23,", 1), "\n,"+ibanGB, "\nCy Fixed,"+ibanGB, 1)
	if err := os.WriteFile(file, []byte(fixed), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := x.batch(t, context.Background(), file, "", yes()); r.code != 0 {
		t.Fatalf("the fixed file: exit %d\n%s", r.code, r.all())
	}
	x.wantPaidOnce(t, "FIX", []string{"FIX-1 10.00 GBP", "FIX-2 1.23 GBP", "FIX-3 1.00 GBP"})
}

// TestJournalElsewhereAdviceIsSafeToFollow: when the journal cannot be
// made beside the file (here its names would pass the file system's
// 255-byte limit: a long file name, which a person can well have), the
// batch stops before sending anything and says to pass --journal PATH;
// run again with --journal in another folder, every row is paid once,
// and a second run with the same --journal sends nothing more.
func TestJournalElsewhereAdviceIsSafeToFollow(t *testing.T) {
	for _, c := range []struct {
		name string
		base int // the CSV file name's length in bytes
	}{
		// FILE.journal.lock is already too long.
		{"lock", 244},
		// FILE.journal.lock and its .owner fit; the journal's temporary
		// file (FILE.journal.tmp-NNNNNNNN) does not.
		{"journal", 236},
	} {
		t.Run(c.name, func(t *testing.T) {
			x := startSvc(t, nil)
			dir := t.TempDir()
			short, keys := csvRows(t, dir, "JRN", 4, plainAmount)
			file := filepath.Join(dir, strings.Repeat("p", c.base-len(".csv"))+".csv")
			if err := os.Rename(short, file); err != nil {
				t.Fatal(err)
			}
			r := x.batch(t, context.Background(), file, "", yes())
			if r.code == 0 || !strings.Contains(r.all(), "pass --journal PATH to put it elsewhere") {
				t.Fatalf("a journal that cannot be made: exit %d, want the --journal advice\n%s", r.code, r.all())
			}
			if got := x.paid(t, "JRN"); len(got) != 0 {
				t.Fatalf("the batch sent %v before it had a journal", got)
			}
			// Follow it: the same command with --journal PATH elsewhere.
			o := yes()
			o.Journal = filepath.Join(t.TempDir(), "payouts.journal")
			if r := x.batch(t, context.Background(), file, "", o); r.code != 0 {
				t.Fatalf("with --journal %s: exit %d\n%s", o.Journal, r.code, r.all())
			}
			x.wantPaidOnce(t, "JRN", keys)
			if r := x.batch(t, context.Background(), file, "", o); r.code != 0 {
				t.Fatalf("the same command again: exit %d\n%s", r.code, r.all())
			}
			x.wantPaidOnce(t, "JRN", keys)
		})
	}
}
