package batch

import (
	"context"
	"strings"
	"testing"

	"github.com/paydash/paydash/internal/cli/cmdutil"
)

// TestHostileCSVCellsAreShownEscaped: a payee name in the CSV holding a
// terminal escape (clear screen) and a bidi override reaches the
// operator's terminal escaped in the dry run, the sending run's summary
// and the duplicate line of a later run (which prints the payout it
// matched from the audit record), never as the raw bytes.
func TestHostileCSVCellsAreShownEscaped(t *testing.T) {
	x := startSvc(t, nil)
	const hostile = "Ada\x1b[2J\u202eevil"
	row := "name,iban,reference,amount,currency\n" + hostile + "," + ibanGB + ",ESC-1,1.00,GBP\n"
	check := func(what string, r runResult) {
		t.Helper()
		if strings.ContainsAny(r.all(), "\x1b\u202e") {
			t.Errorf("%s printed a raw escape: %q", what, r.all())
		}
		if !strings.Contains(r.out+r.err, `Ada\x1b[2J`) {
			t.Errorf("%s does not show the name escaped: %q", what, r.out+r.err)
		}
	}
	dry := x.batch(t, context.Background(), writeFileIn(t, row), "", CommandOptions{DryRun: true})
	if dry.code != 0 {
		t.Fatalf("dry run: exit %d\n%s", dry.code, dry.all())
	}
	check("the dry run", dry)
	sent := x.batch(t, context.Background(), writeFileIn(t, row), "", yes())
	if sent.code != 0 {
		t.Fatalf("the run: exit %d\n%s", sent.code, sent.all())
	}
	again := x.batch(t, context.Background(), writeFileIn(t, row), "", yes())
	if !strings.Contains(again.all(), "DUPLICATE") || again.code == cmdutil.ExitUsage {
		t.Fatalf("the same row in a new file: exit %d\n%s", again.code, again.all())
	}
	check("the duplicate", again)
	if got := x.paid(t, "ESC"); len(got) != 1 || got["ESC-1 1.00 GBP"] != 1 {
		t.Errorf("paid %v, want ESC-1 once", got)
	}
}
