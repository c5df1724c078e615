package headless

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paydash/paydash/internal/cli/cmdutil"
	"github.com/paydash/paydash/internal/payout"
)

// `payouts log --since 7d` reads periods as `transactions --since` does.
func TestPayoutsLogSinceTakesDays(t *testing.T) {
	at := time.Now().Add(-10 * 24 * time.Hour)
	log, err := payout.Open(filepath.Join(t.TempDir(), "audit.jsonl"), "test", func() time.Time { return at })
	if err != nil {
		t.Fatal(err)
	}
	for _, ref := range []string{"OLD-10D", "NEW-1D"} {
		if _, err := log.Reserve(context.Background(), payout.Entry{Source: payout.SourceCreate, TransactionID: ref + "-id", Name: "Ada",
			IBAN: "GB33BUKB20201555555555", Reference: ref, AmountInMinor: 100, Currency: "GBP"}, payout.DefaultWindow, true); err != nil {
			t.Fatal(err)
		}
		at = time.Now().Add(-24 * time.Hour)
	}
	s, out, errb := testStreams("")
	if err := PayoutsLog(s, log, &PayoutsLogOptions{Since: "7d"}); err != nil {
		t.Fatalf("--since 7d: %v\n%s", err, errb)
	}
	if !strings.Contains(out.String(), "NEW-1D") || strings.Contains(out.String(), "OLD-10D") {
		t.Errorf("--since 7d shows the wrong attempts:\n%s", out)
	}
	s, out, _ = testStreams("")
	if err := PayoutsLog(s, log, &PayoutsLogOptions{Since: "2w"}); err != nil || !strings.Contains(out.String(), "OLD-10D") {
		t.Errorf("--since 2w: %v\n%s", err, out)
	}
	// Nothing in the period is not "nothing recorded".
	s, out, errb = testStreams("")
	if err := PayoutsLog(s, log, &PayoutsLogOptions{Since: "1h"}); err != nil || out.Len() != 0 || !strings.Contains(errb.String(), "2 recorded for profile \"test\", all earlier") {
		t.Errorf("--since 1h: %v, stdout %q, stderr %q", err, out, errb)
	}
	s, _, _ = testStreams("")
	if err := PayoutsLog(s, log, &PayoutsLogOptions{Since: "7x"}); cmdutil.ExitCode(err) != cmdutil.ExitUsage {
		t.Errorf("--since 7x: exit %d (%v), want 2", cmdutil.ExitCode(err), err)
	}
}
