package ui

import (
	"strings"
	"testing"
)

func focusedKey(h *harness) string {
	if f := h.m.payout.form.GetFocusedField(); f != nil {
		return f.GetKey()
	}
	return ""
}

// Issue 22 friction: on the confirmation enter does what the hint says
// (the hint names what the highlighted choice does, and changes with it),
// and going back lands on the page holding the field last edited, not on
// page 1.
func TestConfirmEnterDoesWhatItSaysAndBackKeepsThePage(t *testing.T) {
	h := newHarness(t, Options{Backend: newFake(10)}, 120, 40)
	fillPayout(h, "Ada Lovelace", "DE75512108001245126199", "INV-1", "12.34")
	mustContain(t, h.view(), "enter goes back to edit")
	h.key("enter")
	if h.be.payoutCount() != 0 {
		t.Fatal("enter sent the payout while the hint said it goes back to edit")
	}
	if got := focusedKey(h); got != "context" {
		t.Fatalf("back to edit landed on field %q, want the page of the last field (context)", got)
	}
	mustContain(t, h.view(), "2/2")
	// n on the confirmation goes back to the same page.
	h.key("enter")
	h.key("n")
	if got := focusedKey(h); got != "context" {
		t.Fatalf("n landed on field %q, want context", got)
	}
	// Choosing Send changes the hint, and enter then sends.
	h.key("enter")
	h.key("left")
	view := h.view()
	if !strings.Contains(view, "enter sends") {
		t.Fatalf("the hint does not follow the highlighted choice:\n%s", view)
	}
	h.key("enter")
	if h.be.payoutCount() != 1 {
		t.Fatalf("enter on Send sent %d payouts, want 1", h.be.payoutCount())
	}
}
