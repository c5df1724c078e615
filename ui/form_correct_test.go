package ui

import (
	"testing"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/relayclient"
)

// Issue 22 friction: a payout rejected after acceptance is corrected from
// its result: e fills the form in again, with a new transaction id, and
// sending it makes one new payout (the rejected one paid nothing).
func TestRejectedPayoutIsCorrectedFromItsResult(t *testing.T) {
	h := newHarness(t, Options{Backend: newFake(10), Events: closedEvents(nil), States: liveState()}, 120, 40)
	fillPayout(h, "Ada Lovelace", "GB33BUKB20201555555555", "INV-1", "12.34")
	h.key("y")
	if h.be.payoutCount() != 1 {
		t.Fatalf("%d payouts sent, want 1", h.be.payoutCount())
	}
	first := h.be.payouts[0]
	// Before any rejection, e offers nothing: the payout may still settle.
	if h.m.payout.correctable() {
		t.Fatal("an accepted payout is offered for correction before it failed")
	}
	ev := payoutEvent(20, first.TransactionID, api.StateRejected)
	ev.Reason = "beneficiary_account_closed"
	h.send(relayEventsMsg{events: []relayclient.Event{ev}})
	mustContain(t, h.view(), "then rejected", "e correct and resend", "new transaction id")
	h.key("e")
	if h.m.payout.phase != phaseEdit || h.m.payout.key == first.TransactionID {
		t.Fatalf("after e: phase %d, key %s (the rejected payout's is %s)", h.m.payout.phase, h.m.payout.key, first.TransactionID)
	}
	// The values are there: enter walks to the confirmation.
	for range 6 {
		h.key("enter")
	}
	mustContain(t, h.view(), "Ada Lovelace", "12.34")
	h.key("y")
	if n := h.be.payoutCount(); n != 2 {
		t.Fatalf("%d payouts sent after the correction, want 2 (the rejected and its correction)", n)
	}
	second := h.be.payouts[1]
	if second.TransactionID == first.TransactionID {
		t.Fatal("the correction reused the rejected payout's transaction id")
	}
	if second.BeneficiaryIBAN != first.BeneficiaryIBAN || second.AmountInMinor != first.AmountInMinor || second.BeneficiaryName != first.BeneficiaryName {
		t.Fatalf("the correction changed what was typed: %+v, was %+v", second, first)
	}
}
