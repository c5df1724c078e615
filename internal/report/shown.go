package report

import (
	"strings"
	"unicode/utf8"

	"github.com/paydash/paydash/api"
)

// Amounts and currencies as the screen shows them (issue 22): a filter
// token copied from a row ("-£54.89", "+€713.71", "£54.89", "54.89€") is
// that amount in that currency; a currency code alone, in capitals as
// the Cur column shows it ("EUR"), is cur:. The sign says which way the money went, which the row's type
// already says, so it is read and not required: "-54.89" and "54.89"
// both find the payout shown as -£54.89.

// parseShown reads tok as a shown amount: a sign or a currency symbol (or
// both) around a number. cur is the symbol's currency ("" for none).
func parseShown(tok string) (d Decimal, cur string, ok bool) {
	s, signed := tok, false
	for _, minus := range []string{"-", "+", "−"} {
		if rest, found := strings.CutPrefix(s, minus); found {
			s, signed = rest, true
			break
		}
	}
	if r, size := utf8.DecodeRuneInString(s); size > 0 {
		if c, found := api.CurrencyOfSymbol(string(r)); found {
			s, cur = s[size:], c
		}
	}
	if cur == "" {
		if r, size := utf8.DecodeLastRuneInString(s); size > 0 {
			if c, found := api.CurrencyOfSymbol(string(r)); found {
				s, cur = s[:len(s)-size], c
			}
		}
	}
	if !signed && cur == "" {
		return Decimal{}, "", false // a bare number: amount or text, as before
	}
	d, ok = parseDecimal(s)
	d.Text = tok
	return d, cur, ok
}

// shownToken applies one token read as the screen shows it to q; it
// reports whether the token was one.
func (q *Query) shownToken(tok string) bool {
	if d, cur, ok := parseShown(tok); ok {
		q.Amount = append(q.Amount, AmountTerm{Op: "=", Lo: d})
		if cur != "" && q.Currency == "" {
			q.Currency = cur
		}
		return true
	}
	// Upper case as the Cur column shows it: "bob" and "all" stay words
	// to search for.
	if len(tok) == 3 && tok == strings.ToUpper(tok) && api.IsKnownCurrency(tok) && q.Currency == "" {
		q.Currency = tok
		return true
	}
	return false
}
