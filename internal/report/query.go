package report

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/paydash/paydash/api"
)

// Query is a parsed filter in the one filter language of the filter bar
// and the CLI flags:
//
//	free text          beneficiary name, IBAN (spaces optional), reference or id
//	54.89              that amount (in the row's currency), or the text
//	-£54.89  €54.89    that amount in that currency, as the screen shows it
//	EUR                cur:EUR (in capitals, as the Cur column shows it)
//	date:today|7d|30d|all
//	from:2025-01-01    to:2025-01-31 (a whole day) or RFC 3339 times
//	type:payout        cur:GBP (or currency:)     status:settled (or state:)
//	amount:>1000  amount:<=20  amount:50..100  amount:54.89
//
// Tokens are separated by spaces; everything that is not a key:value
// token is free text, matched as one phrase, case-insensitively.
type Query struct {
	Text     string // folded phrase
	Numbers  []Decimal
	From, To int64 // unix ns, from inclusive, to exclusive; 0 = open
	Type     string
	Currency string
	Status   string
	Amount   []AmountTerm
	// Problems are tokens that could not be read, as sentences.
	Problems []string
}

// Decimal is a non-negative decimal number: Units / 10^Scale.
type Decimal struct {
	Units int64
	Scale int
	Text  string
}

// AmountTerm is one amount: token. Op is one of = > >= < <= or "..".
type AmountTerm struct {
	Op     string
	Lo, Hi Decimal // Hi only for ".."
}

// Empty reports whether the query keeps every row.
func (q *Query) Empty() bool {
	return q.Text == "" && len(q.Numbers) == 0 && q.From == 0 && q.To == 0 && q.Type == "" &&
		q.Currency == "" && q.Status == "" && len(q.Amount) == 0
}

// Narrows reports whether every row matching q also matches base, so q can
// be evaluated over base's result: the same structured filters, and the
// free text extended at the end.
func (q *Query) Narrows(base *Query) bool {
	return q.From == base.From && q.To == base.To && q.Type == base.Type && q.Currency == base.Currency &&
		q.Status == base.Status && slices.Equal(q.Amount, base.Amount) && slices.Equal(q.Numbers, base.Numbers) &&
		strings.HasPrefix(q.Text, base.Text)
}

// Equal reports whether two queries keep the same rows.
func (q *Query) Equal(o *Query) bool {
	return q.Narrows(o) && q.Text == o.Text
}

// Parse reads the filter language; now (with its location) anchors date:
// and dates without a time. Unreadable tokens are reported in Problems
// and otherwise ignored.
func Parse(text string, now time.Time) Query {
	var q Query
	var words []string
	// Relative ranges start at a whole minute so that the query, and with
	// it narrowing, stays the same from one keystroke to the next.
	base := now.Truncate(time.Minute)
	for _, tok := range strings.Fields(text) {
		k, val, ok := strings.Cut(tok, ":")
		if !ok || !IsKey(k) {
			if q.shownToken(tok) {
				continue
			}
			if d, ok := parseDecimal(tok); ok {
				q.Numbers = append(q.Numbers, d)
				continue
			}
			words = append(words, tok)
			continue
		}
		switch strings.ToLower(k) {
		case "date":
			switch strings.ToLower(val) {
			case "", "all":
			case "today":
				y, mo, d := now.Date()
				q.From = time.Date(y, mo, d, 0, 0, 0, 0, now.Location()).UnixNano()
			case "7d":
				q.From = base.Add(-7 * 24 * time.Hour).UnixNano()
			case "30d":
				q.From = base.Add(-30 * 24 * time.Hour).UnixNano()
			default:
				q.Problems = append(q.Problems, "date:"+val+" — use today, 7d, 30d or all")
			}
		case "from", "to":
			if val == "" {
				continue
			}
			t, dateOnly, err := ParseDate(val, now.Location())
			if err != nil {
				q.Problems = append(q.Problems, k+": "+err.Error())
				continue
			}
			if strings.EqualFold(k, "from") {
				q.From = t.UnixNano()
			} else {
				if dateOnly {
					t = t.AddDate(0, 0, 1) // to: a day includes that whole day
				}
				q.To = t.UnixNano()
			}
		case "type":
			q.Type = val
		case "cur", "currency":
			q.Currency = val
		case "status", "state":
			q.Status = val
		case "amount", "amt":
			if val == "" {
				continue
			}
			if a, ok := parseAmountTerm(val); ok {
				q.Amount = append(q.Amount, a)
			} else {
				q.Problems = append(q.Problems, "amount:"+val+" — use amount:54.89, amount:>1000, amount:<=20 or amount:50..100")
			}
		}
	}
	q.Text = Fold(strings.Join(words, " "))
	return q
}

// Keys are the filter language's keys, aliases after the main name.
var Keys = []string{"date", "from", "to", "type", "cur", "currency", "status", "state", "amount", "amt"}

// IsKey reports whether k (any case) is a key of the filter language.
func IsKey(k string) bool {
	for _, x := range Keys {
		if strings.EqualFold(x, k) {
			return true
		}
	}
	return false
}

// ParseDate reads 2025-01-31 (in loc; dateOnly) or an RFC 3339 time.
func ParseDate(s string, loc *time.Location) (t time.Time, dateOnly bool, err error) {
	if t, err := time.ParseInLocation("2006-01-02", s, loc); err == nil {
		return t, true, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, false, nil
	}
	return time.Time{}, false, fmt.Errorf("%q is not a date like 2025-01-31 or 2025-01-31T09:30:00Z", s)
}

// parseDecimal reads 54, 54.89, 1,234.50 or 54. (a number being typed).
func parseDecimal(s string) (Decimal, bool) {
	d := Decimal{Text: s}
	body := strings.ReplaceAll(s, ",", "")
	if body == "" || body == "." {
		return d, false
	}
	whole, frac, hasDot := strings.Cut(body, ".")
	if hasDot && strings.Contains(frac, ".") {
		return d, false
	}
	if len(whole)+len(frac) > 17 {
		return d, false
	}
	for _, c := range whole + frac {
		if c < '0' || c > '9' {
			return d, false
		}
	}
	v, _ := strconv.ParseInt("0"+whole+frac, 10, 64)
	d.Units, d.Scale = v, len(frac)
	return d, true
}

func parseAmountTerm(v string) (AmountTerm, bool) {
	if lo, hi, ok := strings.Cut(v, ".."); ok {
		a, okA := parseDecimal(lo)
		b, okB := parseDecimal(hi)
		if lo == "" {
			a, okA = Decimal{Text: "0"}, true
		}
		if hi == "" {
			return AmountTerm{Op: ">=", Lo: a}, okA
		}
		return AmountTerm{Op: "..", Lo: a, Hi: b}, okA && okB
	}
	for _, op := range []string{">=", "<=", ">", "<", "="} {
		if rest, ok := strings.CutPrefix(v, op); ok {
			d, ok := parseDecimal(rest)
			return AmountTerm{Op: op, Lo: d}, ok
		}
	}
	d, ok := parseDecimal(v)
	return AmountTerm{Op: "=", Lo: d}, ok
}

// minor converts d to minor units of a currency with digits decimals:
// the value rounded down, and whether it was exact.
func (d Decimal) minor(digits int) (int64, bool) {
	v := d.Units
	for s := d.Scale; s < digits; s++ {
		if v > 1<<62/10 {
			return 1<<62 - 1, false
		}
		v *= 10
	}
	exact := true
	for s := d.Scale; s > digits; s-- {
		if v%10 != 0 {
			exact = false
		}
		v /= 10
	}
	return v, exact
}

// bounds is the inclusive minor-unit range an amount term allows.
func (a AmountTerm) bounds(digits int) (lo, hi int64) {
	const inf = 1<<63 - 1
	v, exact := a.Lo.minor(digits)
	ceil := v
	if !exact {
		ceil = v + 1
	}
	switch a.Op {
	case ">":
		return v + 1, inf
	case ">=":
		return ceil, inf
	case "<":
		if exact {
			return -inf, v - 1
		}
		return -inf, v
	case "<=":
		return -inf, v
	case "..":
		h, _ := a.Hi.minor(digits)
		return ceil, h
	}
	if !exact {
		return 1, 0 // an amount finer than the currency: nothing
	}
	return v, v
}

func digitsOf(currency string) int {
	d, ok := api.CurrencyDigits(strings.ToUpper(currency))
	if !ok {
		return 2
	}
	return d
}

// Known values the CLI accepts before it has seen a report.
var (
	KnownTypes    = []string{api.TransactionFunding, api.TransactionPayout}
	KnownStatuses = []string{api.StateAuthorised, api.StateFailed, api.StateSettled, api.StateSubmitted}
)

// Check returns an error naming the valid values when the query's type,
// currency or status is not one the interface knows, or a token could not
// be read: for the CLI, where a typo must not quietly match nothing.
func (q *Query) Check() error {
	var probs []string
	probs = append(probs, q.Problems...)
	check := func(what, v string, valid []string) {
		if v != "" && !slices.ContainsFunc(valid, func(x string) bool { return strings.EqualFold(x, v) }) {
			probs = append(probs, fmt.Sprintf("unknown %s %q; valid: %s", what, v, strings.Join(valid, ", ")))
		}
	}
	check("type", q.Type, KnownTypes)
	check("currency", q.Currency, api.KnownCurrencies())
	check("status", q.Status, KnownStatuses)
	if len(probs) > 0 {
		return fmt.Errorf("%s", strings.Join(probs, "; "))
	}
	return nil
}

// MatchTx reports whether one record matches, for streaming a report
// without a Store (`paydash transactions`). It agrees with the Store's
// filter (TestMatchTxAgreesWithStore).
func (q *Query) MatchTx(t *api.Transaction) bool {
	if q.Type != "" && !strings.EqualFold(t.Type, q.Type) ||
		q.Currency != "" && !strings.EqualFold(t.Currency, q.Currency) ||
		q.Status != "" && !strings.EqualFold(t.Status, q.Status) {
		return false
	}
	if q.From != 0 || q.To != 0 {
		at := rowTimeOf(t)
		if q.From != 0 && at < q.From || q.To != 0 && at >= q.To {
			return false
		}
	}
	digits := digitsOf(t.Currency)
	for _, a := range q.Amount {
		if lo, hi := a.bounds(digits); t.AmountInMinor < lo || t.AmountInMinor > hi {
			return false
		}
	}
	text := func(p string) bool {
		if p == "" {
			return true
		}
		for _, f := range [...]string{t.BeneficiaryName, t.BeneficiaryIBAN, t.BeneficiaryReference, t.TransactionID} {
			if containsFolded(f, p) {
				return true
			}
		}
		return strings.Contains(p, " ") && containsFolded(t.BeneficiaryIBAN, strings.ReplaceAll(p, " ", ""))
	}
	for _, n := range q.Numbers {
		if v, exact := n.minor(digits); (!exact || v != t.AmountInMinor) && !text(Fold(n.Text)) {
			return false
		}
	}
	return text(q.Text)
}

// RowTime is t's time in the report, as the Store keeps it (Store.Time):
// when it was authorised, or for a row never authorised (a funding), when
// it was submitted or settled. The date, from and to filters, the sort by
// time and the dashboard's Time column all use it, so the CLI's time
// column does too: a row shown is then always inside the dates asked for.
func RowTime(t *api.Transaction) time.Time {
	if ns := rowTimeOf(t); ns != 0 {
		return time.Unix(0, ns).UTC()
	}
	return time.Time{}
}

func rowTimeOf(t *api.Transaction) int64 {
	return rowTime(unixNano(t.AuthorisedAt), unixNano(t.SubmittedAt), unixNano(t.SettledAt))
}

// containsFolded reports whether Fold(s) contains p (already folded),
// without making Fold(s) when s is ASCII: the CLI tests every field of
// every record.
func containsFolded(s, p string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return strings.Contains(Fold(s), p)
		}
	}
	if len(p) == 0 {
		return true
	}
	first := p[0]
	for i := 0; i+len(p) <= len(s); i++ {
		if lowerASCII[s[i]] != first {
			continue
		}
		j := 1
		for j < len(p) && lowerASCII[s[i+j]] == p[j] {
			j++
		}
		if j == len(p) {
			return true
		}
	}
	return false
}
