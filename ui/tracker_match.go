package ui

import (
	"strings"

	"github.com/paydash/paydash/api"
)

// payoutMatchText is what the Payouts filter searches in a payout: its
// id, state and reason, payee, IBAN and reference, and its amount as any
// screen shows it (issue 22): £12.34 here, -£12.34 in the report, 12.34
// as typed in the form, and its currency, GBP.
func payoutMatchText(p *trackedPayout) string {
	hay := p.id + " " + p.state + " " + p.reason
	if name, iban, ref, minor, cur, ok := p.details(); ok {
		hay += " " + name + " " + iban + " " + ref + " " + cur + " " + api.FormatAmount(minor, cur) +
			" " + signed(-minor, cur) + " " + api.FormatAmountPlain(minor, cur)
	}
	return hay
}

// shownQuery is a filter as typed, lower-cased, with the typographic
// minus read as the one the screen shows.
func shownQuery(q string) string { return strings.ReplaceAll(q, "−", "-") }
