package batch

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/payout"
	"github.com/paydash/paydash/internal/payout/payouttest"
)

// TestJournalThatCannotBeWrittenStopsTheBatch: each row's answer goes to
// the journal before the audit record. When the journal cannot take a
// row's answer, the batch stops at that row (nothing more is sent), the
// audit record keeps the row's attempt without an outcome, and the
// re-run sends it again under the same id only: every row is paid once.
func TestJournalThatCannotBeWrittenStopsTheBatch(t *testing.T) {
	f, _ := writeBatch(t, 4)
	svc := newFakeService()
	log, attempts := payouttest.Audit(t)
	opt := Options{Guard: &Guard{Log: log, Window: payout.DefaultWindow}}
	ctx := context.Background()
	p, err := Prepare(ctx, f, opt)
	if err != nil {
		t.Fatal(err)
	}
	svc.hook = func(n int, _ *api.PayoutRequest) error {
		if n == 2 {
			p.j.Close() // the service creates it; the journal can no longer be written
		}
		return nil
	}
	_, err = p.Send(ctx, svc)
	p.Close()
	if !errors.Is(err, ErrInterrupted) || !strings.Contains(err.Error(), "line 3 was accepted; run again to resume, nothing is paid twice") {
		t.Fatalf("run with a journal that fails: %v", err)
	}
	if len(svc.calls) != 2 {
		t.Fatalf("%d sends, want the batch stopped at the second row", len(svc.calls))
	}
	at := attempts()
	if len(at) != 2 || at[0].Outcome != payout.OutcomeAccepted || at[1].Outcome != "" {
		t.Fatalf("audit record %+v: want line 2 accepted, line 3's attempt without an outcome", at)
	}

	svc.hook = nil
	sum, err := Run(ctx, f, svc, opt)
	if err != nil || !sum.OK() {
		t.Fatalf("re-run: %v, %+v", err, sum.Counts)
	}
	if got := svc.calls[2]; got != at[1].TransactionID {
		t.Errorf("re-run sent line 3 under %s, want its first id %s", got, at[1].TransactionID)
	}
	if len(svc.created) != len(f.Rows) || len(svc.calls) != 2+3 {
		t.Errorf("%d payouts created by %d sends, want one per row and line 2 not sent again", len(svc.created), len(svc.calls))
	}
}
