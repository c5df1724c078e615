package ui

import (
	"strings"
	"testing"
)

// TestPayoutFormRefusesAnIBANTheRailCannotReach: the form says at the
// IBAN field, before anything is sent, that the source account's rail
// does not reach the IBAN (GBP over Faster Payments to a German IBAN; EUR
// over SEPA to a UK one), and does not move on.
func TestPayoutFormRefusesAnIBANTheRailCannotReach(t *testing.T) {
	for _, tc := range []struct {
		name  string
		down  int // the source account: 0 EUR, 1 GBP
		iban  string
		rail  string
		valid string
	}{
		{"GBP to DE", 1, "DE89370400440532013000", "Faster Payments", "GB82WEST12345698765432"},
		{"EUR to GB", 0, "GB82WEST12345698765432", "SEPA", "DE75512108001245126199"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fb := newFake(10)
			h := newHarness(t, Options{Backend: fb}, 120, 40)
			h.key("5")
			for range tc.down {
				h.key("down")
			}
			h.key("enter")
			h.typeText("Ada")
			h.key("enter")
			h.typeText(tc.iban)
			if v := h.view(); !strings.Contains(v, "✗") || !strings.Contains(v, tc.rail) {
				t.Fatalf("no refusal naming %s at the IBAN:\n%s", tc.rail, v)
			}
			h.key("enter")
			if f := h.m.payout.form.GetFocusedField(); f.GetKey() != "iban" {
				t.Fatalf("the form moved on to %s with an IBAN the rail cannot reach", f.GetKey())
			}
			for range len(tc.iban) {
				h.key("backspace")
			}
			h.typeText(tc.valid)
			mustContain(t, h.view(), "✓ valid IBAN")
			if len(fb.payouts) != 0 {
				t.Errorf("%d payouts sent", len(fb.payouts))
			}
		})
	}
}
