package ui

import (
	"path/filepath"
	"testing"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/payout"
	"github.com/paydash/paydash/webhookrelay/relayclient"
)

// A payout this profile sent before the session (so in the audit record)
// that the loaded report does not show gets its payee and amount from
// the record when its webhook arrives; one the record does not hold
// either stays unknown.
func TestTrackerFillsPayeeFromTheAuditRecord(t *testing.T) {
	log, err := payout.Open(filepath.Join(t.TempDir(), "audit.jsonl"), "demo", nil)
	if err != nil {
		t.Fatal(err)
	}
	guard := &payout.Pipeline{Log: log, Source: payout.SourceForm}
	earlier := &api.PayoutRequest{TransactionID: "0a0a0a0a-1111-4222-8333-444444444444", BeneficiaryName: "Grace Hopper",
		BeneficiaryIBAN: "GB33BUKB20201555555555", BeneficiaryReference: "INV-77", Currency: "GBP", AmountInMinor: 4200}
	if err := guard.Reserve(t.Context(), earlier, payout.Options{}, nil); err != nil {
		t.Fatal(err)
	}
	if err := guard.RecordAnswer(earlier, nil, payout.Classify(nil)); err != nil {
		t.Fatal(err)
	}
	other := "99999999-8888-4777-8666-000000000002"
	h := newHarness(t, Options{Backend: newFake(10), Guard: guard, Events: closedEvents(nil), States: liveState()}, 120, 40)
	h.send(relayEventsMsg{events: []relayclient.Event{
		{EventID: "ev-g1", Family: relayclient.FamilyPayout, Type: api.EventPayoutSettled, PayoutID: earlier.TransactionID, State: api.StateSettled, ReceivedAt: fixedNow},
		{EventID: "ev-g2", Family: relayclient.FamilyPayout, Type: api.EventPayoutSettled, PayoutID: other, State: api.StateSettled, ReceivedAt: fixedNow},
	}})
	p := h.m.tracker.byID[earlier.TransactionID]
	if p == nil || p.row != nil {
		t.Fatalf("tracked %+v; the report should not hold this payout", p)
	}
	name, _, _, minor, cur, ok := p.details()
	if !ok || name != "Grace Hopper" || minor != 4200 || cur != "GBP" {
		t.Fatalf("payee and amount from the record: %q %d %s %v", name, minor, cur, ok)
	}
	if _, _, _, _, _, ok := h.m.tracker.byID[other].details(); ok {
		t.Errorf("a payout neither the report nor the record holds got details")
	}
	h.key("3")
	v := h.view()
	mustContain(t, v, "Grace Hopper", "£42.00")
}
