package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// TestPayoutConfirmNeverCutsWhatIsPaid: at every width from the minimum
// up, the confirmation shows the payee's whole 79-character name, the
// whole IBAN, the amount with its currency and the whole reference —
// wrapped, never cut with "…".
func TestPayoutConfirmNeverCutsWhatIsPaid(t *testing.T) {
	const ref = "Rechnung 2025-11-0042 / Kostenstelle 4711"
	for _, w := range []int{minWidth, 80, 100, 120} {
		h := newHarness(t, Options{Backend: newFake(10), Events: closedEvents(testEvents()), States: liveState()}, w, 40)
		fillPayout(h, longPayee, "DE89 3704 0044 0532 0130 00", ref, "1,234.56")
		screen := ansi.Strip(h.view())
		// The summary is the block between the title and the confirm.
		start := strings.Index(screen, "  from ")
		end := strings.Index(screen, "New payout · confirm")
		if start < 0 || end < start {
			t.Fatalf("width %d: no confirmation summary:\n%s", w, screen)
		}
		block := screen[start:end]
		if strings.Contains(block, "…") {
			t.Errorf("width %d: the summary cuts something:\n%s", w, block)
		}
		// Join the wrapped lines back: every value must be there whole.
		joined := strings.Join(strings.Fields(block), " ")
		for _, want := range []string{longPayee, "DE89370400440532013000", "€1,234.56 (EUR)", ref} {
			if !strings.Contains(joined, want) {
				t.Errorf("width %d: %q is not shown whole:\n%s", w, want, block)
			}
		}
		checkFrame(t, h.view(), w, 40)
	}
}
