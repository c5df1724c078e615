package ui

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/paydash/paydash/internal/payguard"
)

// TestFormDuplicateNeedsASecondConfirmation: a payout matching one the
// audit record holds is not sent on the first confirmation; the form
// shows the earlier payout's date and id, enter does not get past it, and
// only the explicit "send anyway" key sends it, recorded as an allowed
// duplicate.
func TestFormDuplicateNeedsASecondConfirmation(t *testing.T) {
	log, err := payguard.Open(filepath.Join(t.TempDir(), "audit.jsonl"), "demo", nil)
	if err != nil {
		t.Fatal(err)
	}
	const earlier = "11111111-2222-4333-8444-555555555555"
	// Paid an hour ago from `payout create`: same IBAN, amount, currency
	// and reference.
	if _, err := log.Reserve(context.Background(), payguard.Entry{Source: payguard.SourceCreate, TransactionID: earlier, Name: "Ada Lovelace",
		IBAN: "GB33BUKB20201555555555", Reference: "INV-1", AmountInMinor: 1234, Currency: "EUR"}, payguard.DefaultWindow, false); err != nil {
		t.Fatal(err)
	}
	_ = log.Outcome(earlier, payguard.OutcomeAccepted, "")

	be := newFake(10)
	h := newHarness(t, Options{Backend: be, Guard: &payguard.Guard{Log: log, Source: payguard.SourceForm},
		Events: closedEvents(testEvents()), States: liveState()}, 120, 40)
	fillPayout(h, "Ada Lovelace", "GB33 BUKB 2020 1555 5555 55", "inv-1", "12.34")
	h.key("y")
	screen := ansi.Strip(h.view())
	for _, want := range []string{"Possible duplicate: nothing was sent", earlier, "a sends it anyway"} {
		if !strings.Contains(screen, want) {
			t.Fatalf("duplicate screen lacks %q:\n%s", want, screen)
		}
	}
	h.key("enter") // a reflex enter must not send it
	if n := len(be.payouts); n != 0 {
		t.Fatalf("%d payout(s) sent without the second confirmation", n)
	}
	h.key("a")
	if n := len(be.payouts); n != 1 {
		t.Fatalf("after the second confirmation %d payout(s) sent, want 1", n)
	}
	if !strings.Contains(ansi.Strip(h.view()), "Payout accepted (202)") {
		t.Errorf("no result after sending anyway:\n%s", ansi.Strip(h.view()))
	}
	entries, _ := log.Entries()
	at := payguard.Attempts(entries)
	if len(at) != 2 || !at[1].AllowedDuplicate || at[1].Source != payguard.SourceForm || at[1].Outcome != payguard.OutcomeAccepted {
		t.Errorf("audit record: %+v", at)
	}

	// A payout that matches nothing goes on the first confirmation.
	h.key("n")
	fillPayout(h, "Grace Hopper", "GB33 BUKB 2020 1555 5555 55", "INV-2", "5.00")
	h.key("y")
	if n := len(be.payouts); n != 2 {
		t.Fatalf("a payout matching nothing was not sent: %d", n)
	}
	if got := be.payouts[1]; got.BeneficiaryReference != "INV-2" || got.Currency != "EUR" || got.AmountInMinor != 500 {
		t.Errorf("sent %+v", got)
	}
}
