package ui

import (
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/paydash/paydash/internal/payout"
)

// TestFormDuplicateNeedsASecondConfirmation: a payout matching one the
// audit record holds is not sent on the first confirmation; the form
// shows the earlier payout's date and id, enter does not get past it, and
// only the explicit "send anyway" key sends it, recorded as an allowed
// duplicate.
func TestFormDuplicateNeedsASecondConfirmation(t *testing.T) {
	log, err := payout.Open(filepath.Join(t.TempDir(), "audit.jsonl"), "demo", nil)
	if err != nil {
		t.Fatal(err)
	}
	const earlier = "11111111-2222-4333-8444-555555555555"
	// Paid an hour ago from `payout create`: same IBAN, amount, currency
	// and reference.
	if _, err := log.Reserve(context.Background(), payout.Entry{Source: payout.SourceCreate, TransactionID: earlier, Name: "Ada Lovelace",
		IBAN: "DE75512108001245126199", Reference: "INV-1", AmountInMinor: 1234, Currency: "EUR"}, payout.DefaultWindow, false); err != nil {
		t.Fatal(err)
	}
	_ = log.Outcome(earlier, payout.OutcomeAccepted, "")

	be := newFake(10)
	h := newHarness(t, Options{Backend: be, Guard: &payout.Pipeline{Log: log, Source: payout.SourceForm},
		Events: closedEvents(testEvents()), States: liveState()}, 120, 40)
	fillPayout(h, "Ada Lovelace", "DE75 5121 0800 1245 1261 99", "inv-1", "12.34")
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
	at := payout.Attempts(entries)
	if len(at) != 2 || !at[1].AllowedDuplicate || at[1].Source != payout.SourceForm || at[1].Outcome != payout.OutcomeAccepted {
		t.Errorf("audit record: %+v", at)
	}

	// A payout that matches nothing goes on the first confirmation.
	h.key("n")
	fillPayout(h, "Grace Hopper", "DE75 5121 0800 1245 1261 99", "INV-2", "5.00")
	h.key("y")
	if n := len(be.payouts); n != 2 {
		t.Fatalf("a payout matching nothing was not sent: %d", n)
	}
	if got := be.payouts[1]; got.BeneficiaryReference != "INV-2" || got.Currency != "EUR" || got.AmountInMinor != 500 {
		t.Errorf("sent %+v", got)
	}
}

// TestDuplicateScreenSpacingAndEditGoesBackToTheFields: on the duplicate
// screen the earlier payout's date and id are apart at both sizes; e goes
// back to the fields (the amount), not straight to the confirmation, and
// the payout keeps its transaction id (nothing was sent).
func TestDuplicateScreenSpacingAndEditGoesBackToTheFields(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		log, err := payout.Open(filepath.Join(t.TempDir(), "audit.jsonl"), "demo", nil)
		if err != nil {
			t.Fatal(err)
		}
		const earlier = "ffe93e3a-e073-466f-a707-0a227507fcdd"
		if _, err := log.Reserve(context.Background(), payout.Entry{Source: payout.SourceCreate, TransactionID: earlier, Name: "Ada Lovelace",
			IBAN: "DE75512108001245126199", Reference: "INV-1", AmountInMinor: 4200, Currency: "EUR"}, payout.DefaultWindow, false); err != nil {
			t.Fatal(err)
		}
		_ = log.Outcome(earlier, payout.OutcomeAccepted, "")
		be := newFake(10)
		h := newHarness(t, Options{Backend: be, Guard: &payout.Pipeline{Log: log, Source: payout.SourceForm},
			Events: closedEvents(testEvents()), States: liveState()}, size[0], size[1])
		fillPayout(h, "Ada Lovelace", "DE75 5121 0800 1245 1261 99", "INV-1", "42.00")
		idRe := regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
		var before []string
		for _, id := range idRe.FindAllString(ansi.Strip(h.view()), -1) {
			if id != earlier {
				before = append(before, id)
			}
		}
		h.key("y")
		screen := ansi.Strip(h.view())
		if !regexp.MustCompile(`\d\d:\d\d +` + earlier[:8]).MatchString(screen) {
			t.Errorf("%dx%d: date and id run together:\n%s", size[0], size[1], screen)
		}
		h.key("e")
		screen = ansi.Strip(h.view())
		if strings.Contains(screen, "Possible duplicate") || strings.Contains(screen, "a sends it anyway") || !strings.Contains(screen, "┃ Amount") {
			t.Fatalf("%dx%d: e did not go back to the fields:\n%s", size[0], size[1], screen)
		}
		for range 6 {
			h.key("backspace")
		}
		h.typeText("43.00")
		h.key("enter")
		h.key("enter") // context code
		h.key("y")
		if n := len(be.payouts); n != 1 {
			t.Fatalf("%dx%d: %d payout(s) sent after the edit, want 1:\n%s", size[0], size[1], n, ansi.Strip(h.view()))
		}
		if got := be.payouts[0]; got.AmountInMinor != 4300 || (len(before) > 0 && got.TransactionID != before[0]) {
			t.Errorf("%dx%d: sent %d under %s; the confirmation showed %v", size[0], size[1], got.AmountInMinor, got.TransactionID, before)
		}
	}
}
