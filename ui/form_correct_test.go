package ui

import (
	"testing"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/webhookrelay/relayclient"
)

// Issue 22 friction: a payout rejected after acceptance is corrected from
// its result: e fills the form in again, with a new transaction id, and
// sending it makes one new payout (the rejected one paid nothing).
func TestRejectedPayoutIsCorrectedFromItsResult(t *testing.T) {
	h := newHarness(t, Options{Backend: newFake(10), Events: closedEvents(nil), States: liveState()}, 120, 40)
	fillPayout(h, "Ada Lovelace", "DE75512108001245126199", "INV-1", "12.34")
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

// The same correction from the tracker: e (or the row's actions) on a
// payout sent from here and rejected opens the payout form filled in with
// it under a new transaction id; a form holding unsent input is not
// overwritten.
func TestRejectedPayoutIsCorrectedFromTheTracker(t *testing.T) {
	h := newHarness(t, Options{Backend: newFake(10), Events: closedEvents(nil), States: liveState()}, 120, 40)
	fillPayout(h, "Ada Lovelace", "DE75512108001245126199", "INV-1", "12.34")
	h.key("y")
	first := h.be.payouts[0]
	ev := payoutEvent(20, first.TransactionID, api.StateRejected)
	ev.Reason = "beneficiary_account_closed"
	h.send(relayEventsMsg{events: []relayclient.Event{ev}})
	// A new form with unsent input: e in the tracker leaves it alone.
	h.key("n")
	h.key("enter")
	h.typeText("Someone Else")
	h.key("alt+3")
	mustContain(t, h.view(), "e correct and resend")
	h.key("e")
	if h.m.tab != tabPayout || h.m.payout.spec.(*payoutForm).name != "Someone Else" {
		t.Fatalf("the correction overwrote unsent input (tab %s)", tabNames[h.m.tab])
	}
	mustContain(t, h.view(), "holds unsent input")
	// Cleared, the correction fills the form in.
	h.key("ctrl+n")
	h.key("y")
	h.key("alt+3")
	h.key(" ")
	mustContain(t, h.view(), "Actions", "correct and resend")
	h.key("e")
	p := h.m.payout.spec.(*payoutForm)
	if h.m.tab != tabPayout || p.name != first.BeneficiaryName || p.iban != first.BeneficiaryIBAN || h.m.payout.key == first.TransactionID {
		t.Fatalf("tab %s, form %+v, key %s", tabNames[h.m.tab], p, h.m.payout.key)
	}
	for range 6 {
		h.key("enter")
	}
	h.key("y")
	if n := h.be.payoutCount(); n != 2 || h.be.payouts[1].AmountInMinor != first.AmountInMinor || h.be.payouts[1].TransactionID == first.TransactionID {
		t.Fatalf("after the correction %d payouts: %+v", n, h.be.payouts)
	}
}
