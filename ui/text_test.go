package ui

import (
	"strings"
	"testing"

	"github.com/paydash/paydash/termtext"
)

// TestPayoutFormRefusesNamesThatDriveATerminal: a bidi override, an
// isolate or a zero-width character typed or pasted into a field never
// enters it: the screen says which (by its code, never drawing it), as
// every command and the sandbox refuse it; a name in any script with
// accents is taken.
func TestPayoutFormRefusesNamesThatDriveATerminal(t *testing.T) {
	for _, bad := range []string{"Zoë\u202eGmbH", "Ada\u200bLovelace", "Ada\u2067x\u2069"} {
		h := newHarness(t, Options{Backend: newFake(10)}, 120, 40)
		h.key("5")
		h.key("enter")
		h.typeText(bad)
		v := h.view()
		if !strings.Contains(v, "U+") || !strings.Contains(v, "not typed") || rawUnsafe(v) != "" {
			t.Errorf("name %q: no refusal naming the character, or it is drawn raw:\n%s", bad, v)
		}
		if got := h.m.payout.spec.(*payoutForm).name; strings.ContainsFunc(got, termtext.Unsafe) {
			t.Errorf("name %q: the field holds %q", bad, got)
		}
	}
	h := newHarness(t, Options{Backend: newFake(10)}, 120, 40)
	fillPayout(h, "O'Brien & Co. Müller GmbH", "DE75512108001245126199", "Zoë 山田 #4", "10")
	mustContain(t, h.view(), "Send this payout?")
}
