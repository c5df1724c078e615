package api

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
)

func TestParseAmountAccepts(t *testing.T) {
	cases := []struct {
		in        string
		currency  string
		allowZero bool
		want      int64
	}{
		{"1,234.56", "GBP", false, 123456},
		{"1234.5", "GBP", false, 123450},
		{"0.01", "GBP", false, 1},
		{"1234", "GBP", false, 123400},
		{"1,234,567.89", "EUR", false, 123456789},
		{"007.50", "GBP", false, 750},
		{"£1,234.56", "GBP", false, 123456},
		{"  £ 12.00  ", "GBP", false, 1200},
		{"€0.01", "EUR", false, 1},
		{"1,234.56 USD", "USD", false, 123456},
		{"usd 5", "USD", false, 500},
		{"GBP 5.5", "GBP", false, 550},
		{"1,234", "JPY", false, 1234},
		{"1,234 JPY", "JPY", false, 1234},
		{"1.234", "BHD", false, 1234},
		{"0", "GBP", true, 0},
		{"£0.00", "GBP", true, 0},
		{"92,233,720,368,547,758.07", "GBP", false, math.MaxInt64},
		{"9223372036854775807", "JPY", false, math.MaxInt64},
	}
	for _, c := range cases {
		t.Run(c.currency+" "+c.in, func(t *testing.T) {
			got, err := ParseAmount(c.in, c.currency, c.allowZero)
			if err != nil || got != c.want {
				t.Fatalf("ParseAmount(%q, %s) = %d, %v; want %d", c.in, c.currency, got, err, c.want)
			}
		})
	}
}

func TestParseAmountRejects(t *testing.T) {
	cases := []struct {
		name     string
		in       string
		currency string
		kind     error
		hint     string // what the message tells the person to type
	}{
		{"three decimals", "12.345", "GBP", ErrAmountDecimals, "at most 2 digits after the point, like 1,234.56"},
		{"trailing zero decimal", "12.500", "EUR", ErrAmountDecimals, "at most 2 digits"},
		{"decimals on yen", "12.5", "JPY", ErrAmountDecimals, "whole amount, like 1,234"},
		{"four decimals on dinar", "1.2345", "BHD", ErrAmountDecimals, "at most 3 digits after the point, like 1,234.560"},
		{"negative", "-5", "GBP", ErrAmountNegative, "without a minus sign"},
		{"negative formatted", "-£5.00", "GBP", ErrAmountNegative, "without a minus sign"},
		{"negative after symbol", "£-5", "GBP", ErrAmountNegative, "without a minus sign"},
		{"unicode minus", "\u22125.00", "GBP", ErrAmountNegative, "without a minus sign"},
		{"zero", "0", "GBP", ErrAmountZero, "at least 0.01"},
		{"zero with decimals", "0.00", "EUR", ErrAmountZero, "at least 0.01"},
		{"zero yen", "0", "JPY", ErrAmountZero, "at least 1"},
		{"letters", "abc", "GBP", ErrAmountSyntax, "like 1,234.56"},
		{"letters after digits", "12abc", "GBP", ErrAmountSyntax, "like 1,234.56"},
		{"two dots", "1.2.3", "GBP", ErrAmountSyntax, "one point"},
		{"misplaced comma", "1,23,4", "GBP", ErrAmountSyntax, "groups of three digits"},
		{"decimal comma", "12,34", "EUR", ErrAmountSyntax, "groups of three digits"},
		{"leading comma", ",123", "GBP", ErrAmountSyntax, "groups of three digits"},
		{"long group", "1,2345", "GBP", ErrAmountSyntax, "groups of three digits"},
		{"comma in decimals", "1.2,3", "GBP", ErrAmountSyntax, "like 1,234.56"},
		{"trailing point", "12.", "GBP", ErrAmountSyntax, "both sides of the decimal point"},
		{"leading point", ".5", "GBP", ErrAmountSyntax, "both sides of the decimal point"},
		{"inner space", "1 234", "GBP", ErrAmountSyntax, "like 1,234.56"},
		{"plus sign", "+5", "GBP", ErrAmountSyntax, "like 1,234.56"},
		{"symbol only", "£", "GBP", ErrAmountSyntax, "no number"},
		{"other symbol", "€5", "GBP", ErrAmountSyntax, "currency is GBP"},
		{"other code", "5 EUR", "GBP", ErrAmountSyntax, "currency is GBP"},
		{"empty", "", "GBP", ErrAmountEmpty, "like 1,234.56"},
		{"spaces", "   ", "GBP", ErrAmountEmpty, "like 1,234.56"},
		{"overflow by one", "92233720368547758.08", "GBP", ErrAmountTooLarge, "92,233,720,368,547,758.07"},
		{"overflow digits", "99999999999999999999", "GBP", ErrAmountTooLarge, "the most paydash can hold"},
		{"unknown currency", "5", "XYZ", ErrUnknownCurrency, "such as GBP or EUR"},
		{"lower-case currency", "5", "gbp", ErrUnknownCurrency, "capitals: GBP"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ParseAmount(c.in, c.currency, false)
			if !errors.Is(err, c.kind) {
				t.Fatalf("ParseAmount(%q, %s) = %d, %v; want %v", c.in, c.currency, got, err, c.kind)
			}
			if !strings.Contains(err.Error(), c.hint) {
				t.Errorf("message %q does not tell the person %q", err, c.hint)
			}
		})
	}
}

func TestParseAmountEchoesLongInputShortened(t *testing.T) {
	_, err := ParseAmount(strings.Repeat("x", 1000), "GBP", false)
	if err == nil || len(err.Error()) > 300 {
		t.Fatalf("error for a 1000-character input should be short, got %d characters: %v", len(err.Error()), err)
	}
}

func TestFormatAmount(t *testing.T) {
	cases := []struct {
		minor    int64
		currency string
		want     string
		plain    string
	}{
		{123456, "GBP", "£1,234.56", "1234.56"},
		{1, "EUR", "€0.01", "0.01"},
		{-500, "GBP", "-£5.00", "-5.00"},
		{0, "GBP", "£0.00", "0.00"},
		{99999, "GBP", "£999.99", "999.99"},
		{100000, "EUR", "€1,000.00", "1000.00"},
		{123456, "USD", "1,234.56 USD", "1234.56"},
		{-123456, "USD", "-1,234.56 USD", "-1234.56"},
		{1234, "JPY", "1,234 JPY", "1234"},
		{1234, "BHD", "1.234 BHD", "1.234"},
		{5, "BHD", "0.005 BHD", "0.005"},
		{123456, "XYZ", "1,234.56 XYZ", "1234.56"},
		{math.MaxInt64, "GBP", "£92,233,720,368,547,758.07", "92233720368547758.07"},
		{math.MinInt64, "GBP", "-£92,233,720,368,547,758.08", "-92233720368547758.08"},
	}
	for _, c := range cases {
		if got := FormatAmount(c.minor, c.currency); got != c.want {
			t.Errorf("FormatAmount(%d, %s) = %q, want %q", c.minor, c.currency, got, c.want)
		}
		if got := FormatAmountPlain(c.minor, c.currency); got != c.plain {
			t.Errorf("FormatAmountPlain(%d, %s) = %q, want %q", c.minor, c.currency, got, c.plain)
		}
	}
}

func TestCurrencyDigits(t *testing.T) {
	cases := []struct {
		currency string
		digits   int
		ok       bool
	}{
		{"GBP", 2, true}, {"EUR", 2, true}, {"USD", 2, true}, {"JPY", 0, true},
		{"BHD", 3, true}, {"XYZ", 0, false}, {"gbp", 0, false}, {"", 0, false},
	}
	for _, c := range cases {
		d, ok := CurrencyDigits(c.currency)
		if d != c.digits || ok != c.ok {
			t.Errorf("CurrencyDigits(%q) = %d, %v; want %d, %v", c.currency, d, ok, c.digits, c.ok)
		}
	}
}

func TestKnownCurrenciesAreSortedAndKnown(t *testing.T) {
	cs := KnownCurrencies()
	if !slices.IsSorted(cs) || !slices.Contains(cs, "GBP") || !slices.Contains(cs, "JPY") {
		t.Fatalf("KnownCurrencies() = %v; want a sorted list holding GBP and JPY", cs)
	}
	for _, c := range cs {
		if _, ok := CurrencyDigits(c); !ok {
			t.Errorf("KnownCurrencies lists %s but CurrencyDigits does not know it", c)
		}
	}
}

// FuzzParseFormat: whatever FormatAmount or FormatAmountPlain write,
// ParseAmount reads back to the same minor units (negatives and zero are
// refused as documented), and ParseAmount never panics on any input.
func FuzzParseFormat(f *testing.F) {
	f.Add(int64(123456), uint8(0), "1,234.56")
	f.Add(int64(1), uint8(1), "£0.01")
	f.Add(int64(0), uint8(2), "0")
	f.Add(int64(-500), uint8(3), "-£5.00")
	f.Add(int64(math.MaxInt64), uint8(4), "92,233,720,368,547,758.08")
	f.Add(int64(math.MinInt64), uint8(5), "1,23,4")
	f.Add(int64(999), uint8(6), "€ 1.2.3 EUR")
	f.Add(int64(1000), uint8(7), "\u2212 usd 1,000")
	currencies := KnownCurrencies()
	f.Fuzz(func(t *testing.T, x int64, pick uint8, input string) {
		cur := currencies[int(pick)%len(currencies)]
		if v, err := ParseAmount(input, cur, true); err == nil {
			if v < 0 {
				t.Fatalf("ParseAmount(%q, %s) = %d, a negative amount", input, cur, v)
			}
			if back, err := ParseAmount(FormatAmount(v, cur), cur, true); err != nil || back != v {
				t.Fatalf("%q parsed to %d, whose display form %q reads back as %d, %v", input, v, FormatAmount(v, cur), back, err)
			}
		}
		for _, s := range []string{FormatAmount(x, cur), FormatAmountPlain(x, cur)} {
			got, err := ParseAmount(s, cur, true)
			switch {
			case x < 0 && !errors.Is(err, ErrAmountNegative):
				t.Fatalf("ParseAmount(%q, %s) = %d, %v; want a negative-amount error", s, cur, got, err)
			case x >= 0 && (err != nil || got != x):
				t.Fatalf("ParseAmount(%q, %s) = %d, %v; want %d", s, cur, got, err, x)
			}
			if _, err := ParseAmount(s, cur, false); x == 0 && !errors.Is(err, ErrAmountZero) {
				t.Fatalf("ParseAmount(%q, %s, allowZero=false) = %v; want a zero-amount error", s, cur, err)
			}
		}
	})
}

func BenchmarkParseAmount(b *testing.B) {
	for b.Loop() {
		if _, err := ParseAmount("£1,234,567.89", "GBP", false); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFormatAmount(b *testing.B) {
	for b.Loop() {
		_ = FormatAmount(123456789, "GBP")
	}
}

func TestFormatCount(t *testing.T) {
	for _, c := range []struct {
		n    int64
		want string
	}{
		{0, "0"}, {999, "999"}, {1000, "1,000"}, {1234567, "1,234,567"},
		{-1000, "-1,000"}, {math.MinInt64, "-9,223,372,036,854,775,808"},
	} {
		if got := FormatCount(c.n); got != c.want {
			t.Errorf("FormatCount(%d) = %q, want %q", c.n, got, c.want)
		}
	}
}

func TestFormatTotalsReadsTheSameWhateverTheMapOrder(t *testing.T) {
	totals := map[string]int64{"GBP": 70000, "EUR": 30000, "JPY": 500}
	want := "€300.00, £700.00, 500 JPY"
	for range 20 {
		if got := FormatTotals(totals, ", "); got != want {
			t.Fatalf("FormatTotals = %q, want %q", got, want)
		}
	}
}

func TestFormatTotalsWithSaysEachAmountItsWayInCurrencyOrder(t *testing.T) {
	totals := map[string]int64{"USD": 1_00, "GBP": 1500_00, "EUR": 20_00}
	plain := func(minor int64, cur string) string { return FormatAmountPlain(minor, cur) + " " + cur }
	want := "20.00 EUR + 1500.00 GBP + 1.00 USD"
	for range 20 {
		if got := FormatTotalsWith(totals, " + ", plain); got != want {
			t.Fatalf("FormatTotalsWith = %q, want %q", got, want)
		}
	}
	if got := FormatTotalsWith(nil, ", ", plain); got != "" {
		t.Fatalf("no totals read %q", got)
	}
}

// The dashboard and `paydash transactions` sign amounts alike: + for
// money in, - for money out, nothing on zero.
func TestFormatSignedAmount(t *testing.T) {
	for _, tc := range []struct {
		typ   string
		minor int64
		want  string
	}{
		{TransactionFunding, 12345, "+£123.45"},
		{TransactionPayout, 12345, "-£123.45"},
		{TransactionPayout, 0, "£0.00"},
		{TransactionFunding, 0, "£0.00"},
	} {
		if got := FormatSignedAmount(SignedMinor(tc.typ, tc.minor), "GBP"); got != tc.want {
			t.Errorf("%s %d: %q, want %q", tc.typ, tc.minor, got, tc.want)
		}
	}
}
