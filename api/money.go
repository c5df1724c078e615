package api

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Kinds of amount error, for errors.Is; the error's text says what to type.
var (
	ErrUnknownCurrency = errors.New("unknown currency")
	ErrAmountEmpty     = errors.New("amount is empty")
	ErrAmountSyntax    = errors.New("amount is not a number")
	ErrAmountDecimals  = errors.New("amount has too many decimals")
	ErrAmountNegative  = errors.New("amount is negative")
	ErrAmountZero      = errors.New("amount is zero")
	ErrAmountTooLarge  = errors.New("amount is too large")
)

// currencyDigits holds the ISO 4217 minor-unit digits of the currencies
// paydash knows. It is a read-only table: nothing writes to it after init.
// The list covers the rails the service pays on (GBP, EUR), the other
// European currencies a SEPA/SWIFT payout account may hold, common majors,
// and zero- and three-digit currencies so every formatting path is used.
var currencyDigits = map[string]int{
	"GBP": 2, "EUR": 2, "USD": 2, "CHF": 2, "SEK": 2, "NOK": 2, "DKK": 2,
	"PLN": 2, "CZK": 2, "HUF": 2, "RON": 2, "BGN": 2, "CAD": 2, "AUD": 2,
	"NZD": 2, "SGD": 2, "HKD": 2, "ZAR": 2, "AED": 2, "INR": 2, "CNY": 2,
	"MXN": 2, "BRL": 2, "TRY": 2, "ILS": 2,
	"JPY": 0, "KRW": 0, "ISK": 0, "CLP": 0,
	"BHD": 3, "KWD": 3, "JOD": 3, "OMR": 3, "TND": 3,
}

// currencySymbols are the symbols FormatAmount writes and ParseAmount reads.
// Only £ and € are unambiguous; "$" or "kr" name several currencies, so the
// others are shown with their code instead.
var currencySymbols = map[string]string{"GBP": "£", "EUR": "€"}

// maxInputEcho caps how much of a typed amount an error message repeats.
const maxInputEcho = 32

// CurrencyDigits is the number of minor-unit digits of a currency (GBP 2,
// EUR 2, ...); ok is false for a currency paydash does not know.
func CurrencyDigits(currency string) (digits int, ok bool) {
	digits, ok = currencyDigits[currency]
	return digits, ok
}

// KnownCurrencies lists the ISO 4217 codes CurrencyDigits knows, sorted,
// for pickers and help text.
func KnownCurrencies() []string {
	out := make([]string, 0, len(currencyDigits))
	for c := range currencyDigits {
		out = append(out, c)
	}
	sort.Strings(out)
	return out
}

// amountError carries a sentence for a person and a kind for errors.Is.
type amountError struct {
	kind error
	msg  string
}

func (e *amountError) Error() string { return e.msg }
func (e *amountError) Unwrap() error { return e.kind }

func amountErr(kind error, input, format string, args ...any) error {
	if len(input) > maxInputEcho {
		input = truncateRunes(input, maxInputEcho) + "…"
	}
	return &amountError{kind: kind, msg: fmt.Sprintf("amount %q ", input) + fmt.Sprintf(format, args...)}
}

// truncateRunes cuts s to at most n bytes without splitting a character.
func truncateRunes(s string, n int) string {
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// ParseAmount turns what a person types ("1,234.56", "1234.5", "0.01") into
// minor units of currency, rejecting more decimals than the currency has,
// negatives, zero unless allowZero, junk and overflow.
//
// It also reads back what FormatAmount and FormatAmountPlain write: a
// leading symbol of the same currency ("£1,234.56"), the currency code
// before or after the number ("1,234.56 USD"), and surrounding spaces.
func ParseAmount(s, currency string, allowZero bool) (int64, error) {
	digits, ok := CurrencyDigits(currency)
	if !ok {
		return 0, unknownCurrencyErr(currency)
	}
	body, negative, err := stripAmountDecoration(s, currency)
	if err != nil {
		return 0, err
	}
	if negative {
		return 0, amountErr(ErrAmountNegative, s, "is negative; type the amount without a minus sign, like %s", exampleAmount(digits))
	}
	minor, err := parseDecimal(s, body, currency, digits)
	if err != nil {
		return 0, err
	}
	if minor == 0 && !allowZero {
		return 0, amountErr(ErrAmountZero, s, "is zero; type an amount of at least %s", FormatAmountPlain(1, currency))
	}
	return minor, nil
}

func unknownCurrencyErr(currency string) error {
	hint := ""
	if _, ok := CurrencyDigits(strings.ToUpper(currency)); ok {
		hint = fmt.Sprintf(" (write it in capitals: %s)", strings.ToUpper(currency))
	}
	return fmt.Errorf("%w %q: use an ISO 4217 code paydash knows, such as GBP or EUR%s", ErrUnknownCurrency, currency, hint)
}

// exampleAmount is a sample a person can copy, with the currency's decimals.
func exampleAmount(digits int) string {
	return formatNumber(123456*int64(pow10(digits))/100, digits, true) //nolint:gosec // digits is a currency's decimals (0-4): the power is tiny
}

// stripAmountDecoration removes spaces, a minus sign, and the currency's own
// symbol or code, leaving the number. A symbol or code of another currency
// is an error, so "€5" is never read as five pounds.
func stripAmountDecoration(s, currency string) (body string, negative bool, err error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return "", false, &amountError{kind: ErrAmountEmpty, msg: "amount is empty; type an amount like " + exampleAmount(mustDigits(currency))}
	}
	t, negative = cutMinus(t)
	if sym, ok := currencySymbols[currency]; ok {
		t, _ = strings.CutPrefix(t, sym)
	}
	t = strings.TrimSpace(t)
	if rest, ok := cutCode(t, currency); ok {
		t = rest
	}
	t, neg2 := cutMinus(t)
	if other := foreignMarker(t); other != "" {
		return "", false, amountErr(ErrAmountSyntax, s, "is marked %s, but the currency is %s; type just the number, like %s", other, currency, exampleAmount(mustDigits(currency)))
	}
	return t, negative || neg2, nil
}

// cutMinus removes a leading ASCII hyphen-minus or Unicode minus sign.
func cutMinus(t string) (string, bool) {
	for _, m := range []string{"-", "\u2212"} {
		if rest, ok := strings.CutPrefix(t, m); ok {
			return strings.TrimSpace(rest), true
		}
	}
	return t, false
}

// cutCode removes the currency code before or after the number, in any case.
func cutCode(t, currency string) (string, bool) {
	n := len(currency)
	if len(t) >= n && strings.EqualFold(t[:n], currency) {
		return strings.TrimSpace(t[n:]), true
	}
	if len(t) >= n && strings.EqualFold(t[len(t)-n:], currency) {
		return strings.TrimSpace(t[:len(t)-n]), true
	}
	return t, false
}

// foreignMarker names another currency's symbol or code found on the
// number, or returns "".
func foreignMarker(t string) string {
	for code, sym := range currencySymbols {
		if strings.HasPrefix(t, sym) {
			return sym + " (" + code + ")"
		}
	}
	for _, code := range []string{t[:min(3, len(t))], t[max(0, len(t)-3):]} {
		if _, ok := CurrencyDigits(strings.ToUpper(code)); ok {
			return strings.ToUpper(code)
		}
	}
	return ""
}

func mustDigits(currency string) int {
	d, _ := CurrencyDigits(currency)
	return d
}

// parseDecimal reads "1,234.56" or "1234.56" with at most digits decimals.
func parseDecimal(input, body, currency string, digits int) (int64, error) {
	intPart, frac, hasPoint := strings.Cut(body, ".")
	example := exampleAmount(digits)
	switch {
	case body == "":
		return 0, amountErr(ErrAmountSyntax, input, "has no number in it; type an amount like %s", example)
	case strings.Contains(frac, "."):
		return 0, amountErr(ErrAmountSyntax, input, "has more than one decimal point; use one point before the decimals, like %s", example)
	case !onlyDigitsAndCommas(intPart) || !allDigits(frac):
		return 0, amountErr(ErrAmountSyntax, input, "is not a number; use digits, commas between thousands and one decimal point, like %s", example)
	case intPart == "" || (hasPoint && frac == ""):
		return 0, amountErr(ErrAmountSyntax, input, "needs digits on both sides of the decimal point; type it like %s", example)
	case !wellGrouped(intPart):
		return 0, amountErr(ErrAmountSyntax, input, "has a misplaced comma; commas go between groups of three digits, like %s, or leave them out", example)
	case len(frac) > digits && digits == 0:
		return 0, amountErr(ErrAmountDecimals, input, "has decimals, but %s has no minor units; type a whole amount, like %s", currency, example)
	case len(frac) > digits:
		return 0, amountErr(ErrAmountDecimals, input, "has %d decimals, but %s has %d; type at most %d digits after the point, like %s", len(frac), currency, digits, digits, example)
	}
	whole := strings.ReplaceAll(intPart, ",", "") + frac + strings.Repeat("0", digits-len(frac))
	minor, err := strconv.ParseInt(whole, 10, 64)
	if err != nil { // only a range error can remain: the text is all digits
		return 0, amountErr(ErrAmountTooLarge, input, "is too large; the most paydash can hold is %s", formatNumber(math.MaxInt64, digits, true))
	}
	return minor, nil
}

func onlyDigitsAndCommas(s string) bool {
	for i := 0; i < len(s); i++ {
		if (s[i] < '0' || s[i] > '9') && s[i] != ',' {
			return false
		}
	}
	return true
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// wellGrouped accepts digits without commas, or thousands groups: 1-3
// digits, then groups of exactly three ("1,234,567").
func wellGrouped(intPart string) bool {
	if !strings.Contains(intPart, ",") {
		return true
	}
	groups := strings.Split(intPart, ",")
	if len(groups[0]) < 1 || len(groups[0]) > 3 {
		return false
	}
	for _, g := range groups[1:] {
		if len(g) != 3 {
			return false
		}
	}
	return true
}

// FormatAmount renders minor units for display: "£1,234.56", "€0.01",
// "-£5.00"; unknown currencies as "1,234.56 XYZ".
func FormatAmount(minor int64, currency string) string {
	digits, ok := CurrencyDigits(currency)
	if !ok {
		digits = 2
	}
	num := formatNumber(minor, digits, true)
	sign := ""
	if minor < 0 {
		sign, num = "-", num[1:]
	}
	if sym, ok := currencySymbols[currency]; ok {
		return sign + sym + num
	}
	return sign + num + " " + currency
}

// FormatSignedAmount renders minor units with their sign, as the
// dashboard and the CLI show every signed amount: "+£1.00", "-£1.00",
// and no sign on zero ("£0.00": a "-£0.00" reads as a debt).
func FormatSignedAmount(minor int64, currency string) string {
	if minor > 0 {
		return "+" + FormatAmount(minor, currency)
	}
	return FormatAmount(minor, currency)
}

// SignedMinor is a transaction's amount as its account sees it: positive
// for money in (a funding), negative for money out (a payout).
func SignedMinor(transactionType string, minor int64) int64 {
	if transactionType == TransactionFunding {
		return minor
	}
	return -minor
}

// FormatAmountPlain renders minor units without symbol or grouping
// ("1234.56"), for CSV, forms and flags; ParseAmount reads it back.
func FormatAmountPlain(minor int64, currency string) string {
	digits, ok := CurrencyDigits(currency)
	if !ok {
		digits = 2
	}
	return formatNumber(minor, digits, false)
}

// formatNumber writes minor units with the given decimals, optionally
// grouping thousands with commas. It handles math.MinInt64 by working on
// the unsigned magnitude.
func formatNumber(minor int64, digits int, group bool) string {
	mag := uint64(minor) //nolint:gosec // two's complement on purpose: negated below, so MinInt64 keeps its magnitude
	if minor < 0 {
		mag = -mag
	}
	scale := pow10(digits)
	whole := strconv.FormatUint(mag/scale, 10)
	if group {
		whole = groupThousands(whole)
	}
	var b strings.Builder
	if minor < 0 {
		b.WriteByte('-')
	}
	b.WriteString(whole)
	if digits > 0 {
		frac := strconv.FormatUint(mag%scale, 10)
		b.WriteByte('.')
		b.WriteString(strings.Repeat("0", digits-len(frac)))
		b.WriteString(frac)
	}
	return b.String()
}

// FormatCount renders a count with comma separators ("1,234,567"), the
// grouping FormatAmount uses, for row counts shown next to amounts.
func FormatCount(n int64) string {
	if n < 0 {
		// Via uint64 so math.MinInt64 keeps all its digits.
		return "-" + groupThousands(strconv.FormatUint(uint64(-(n+1))+1, 10)) //nolint:gosec // -(n+1) of a negative n is never negative
	}
	return groupThousands(strconv.FormatInt(n, 10))
}

func groupThousands(d string) string {
	if len(d) <= 3 {
		return d
	}
	var b strings.Builder
	head := len(d) % 3
	if head == 0 {
		head = 3
	}
	b.WriteString(d[:head])
	for i := head; i < len(d); i += 3 {
		b.WriteByte(',')
		b.WriteString(d[i : i+3])
	}
	return b.String()
}

func pow10(n int) uint64 {
	p := uint64(1)
	for range n {
		p *= 10
	}
	return p
}

// FormatTotals says amounts per currency (a batch's totals) with
// FormatAmount, currencies in alphabetical order so the same totals
// always read the same, joined by sep.
func FormatTotals(totals map[string]int64, sep string) string {
	return FormatTotalsWith(totals, sep, FormatAmount)
}

// FormatTotalsWith is FormatTotals saying each amount with format (e.g. a
// form's plain amount and its currency, for totals to be typed back):
// the one place totals are put in order, so every summary, notification
// and confirmation of a batch lists its currencies alike.
func FormatTotalsWith(totals map[string]int64, sep string, format func(minor int64, currency string) string) string {
	curs := make([]string, 0, len(totals))
	for c := range totals {
		curs = append(curs, c)
	}
	sort.Strings(curs)
	parts := make([]string, len(curs))
	for i, c := range curs {
		parts[i] = format(totals[c], c)
	}
	return strings.Join(parts, sep)
}
