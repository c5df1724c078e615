package ui

import (
	"path/filepath"
	"testing"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/payout"
	"github.com/paydash/paydash/webhookrelay/relayclient"
)

// TestTrackerPutsLaterOutcomesInTheAuditRecord: a payout sent from the
// form is "accepted" in the audit record; when the tracker learns it was
// rejected (the relay's webhook), the record says so, and `payouts log`
// and the duplicate check with it. Payouts the record does not hold
// (other operators') add nothing.
func TestTrackerPutsLaterOutcomesInTheAuditRecord(t *testing.T) {
	log, err := payout.Open(filepath.Join(t.TempDir(), "audit.jsonl"), "demo", nil)
	if err != nil {
		t.Fatal(err)
	}
	be := newFake(10)
	h := newHarness(t, Options{Backend: be, Guard: &payout.Pipeline{Log: log, Source: payout.SourceForm},
		Events: closedEvents(nil), States: liveState()}, 120, 40)
	fillPayout(h, "AML Test", "DE75 5121 0800 1245 1261 99", "INV-8001", "9.99")
	h.key("y")
	if len(be.payouts) != 1 {
		t.Fatalf("%d payouts sent", len(be.payouts))
	}
	id := be.payouts[0].TransactionID
	other := "99999999-8888-4777-8666-000000000001"
	h.send(relayEventsMsg{events: []relayclient.Event{
		{EventID: "ev-r1", Family: relayclient.FamilyPayout, Type: api.EventPayoutRejected, PayoutID: id, State: api.StateRejected, Reason: "aml_check_failed", ReceivedAt: fixedNow},
		{EventID: "ev-o1", Family: relayclient.FamilyPayout, Type: api.EventPayoutSettled, PayoutID: other, State: api.StateSettled, ReceivedAt: fixedNow},
	}})
	entries, err := log.Entries()
	if err != nil {
		t.Fatal(err)
	}
	at := payout.Attempts(entries)
	if len(at) != 1 || at[0].TransactionID != id || at[0].Outcome != api.StateRejected {
		t.Fatalf("audit record after the rejection: %+v", at)
	}
	for _, e := range entries {
		if e.TransactionID == other {
			t.Errorf("another operator's payout was written to the record: %+v", e)
		}
	}
	// The same payout again is not a duplicate of a rejected one.
	if c, err := (&payout.Pipeline{Log: log}).Check(t.Context(), &be.payouts[0], payout.Options{}); err != nil || len(c.Matches) != 0 {
		t.Errorf("the rejected payout still blocks its re-send: %+v %v", c, err)
	}
}
