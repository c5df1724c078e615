package ui

import (
	"strings"

	"github.com/paydash/paydash/api"
)

// payoutMatchText is what the Payouts filter searches in a payout: its
// id, state and reason, payee, IBAN and reference, and its amount as any
// screen shows it (issue 22): £12.34 here, -£12.34 in the report, 12.34
// as typed in the form, and its currency, GBP.
// Amounts are formatted only for a query with a digit in it (amounts),
// which keeps typing words into a long list cheap.
func payoutMatchText(p *trackedPayout, amounts bool) string {
	hay := p.id + " " + p.state + " " + p.reason
	if name, iban, ref, minor, cur, ok := p.details(); ok {
		hay += " " + name + " " + iban + " " + ref + " " + cur
		if amounts {
			hay += " " + api.FormatAmount(minor, cur) + " " + signed(-minor, cur) + " " + api.FormatAmountPlain(minor, cur)
		}
	}
	return hay
}

// hasDigit reports whether q may name an amount.
func hasDigit(q string) bool { return strings.ContainsAny(q, "0123456789") }

// shownQuery is a filter as typed, lower-cased, with the typographic
// minus read as the one the screen shows.
func shownQuery(q string) string { return strings.ReplaceAll(q, "−", "-") }

// infoLine is the Payouts view's first line in w cells: the count, the
// payouts the report lacks, and the state legend, each dropped whole
// (the legend first) rather than cut.
func (v *trackerView) infoLine(c *viewContext, w int) string {
	parts := []string{plural(v.payouts.len(), "payout", "payouts") + " followed"}
	if n := v.unknown(); n > 0 {
		missing := itoa(n) + " not in the loaded report (" + keyOf(c.keys.Refresh) + " reloads it)"
		if width(parts[0]+" · "+missing) > w {
			missing = itoa(n) + " not in the report"
		}
		parts = append(parts, missing)
	}
	legend := []string{"authorised → submitted → settled, or rejected/failed", "changes highlight for 2s"}
	return wholeParts(w, " · ", append(parts, legend...)...)
}
