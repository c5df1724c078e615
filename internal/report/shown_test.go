package report

import (
	"testing"
	"time"
)

// Issue 22: the report filter reads amounts as the screen shows them
// (signed, with or without the currency's symbol) and currency codes.
func TestParseReadsAmountsAsShown(t *testing.T) {
	now := time.Date(2025, 3, 14, 9, 30, 0, 0, time.UTC)
	for _, tc := range []struct {
		in  string
		cur string
		amt bool
	}{
		{"-£54.89", "GBP", true},
		{"−£54.89", "GBP", true},
		{"+€713.71", "EUR", true},
		{"£54.89", "GBP", true},
		{"54.89€", "EUR", true},
		{"-54.89", "", true},
		{"-£1,234.50", "GBP", true},
		{"EUR", "EUR", false},
	} {
		q := Parse(tc.in, now)
		if q.Currency != tc.cur || (len(q.Amount) == 1) != tc.amt || q.Text != "" || len(q.Problems) > 0 {
			t.Errorf("Parse(%q) = cur %q, amount %v, text %q, problems %v", tc.in, q.Currency, q.Amount, q.Text, q.Problems)
		}
	}
	// Words stay words: a bare number is still amount-or-text, and a
	// lower-case code is a word to search for.
	if q := Parse("54.89", now); len(q.Numbers) != 1 || len(q.Amount) != 0 {
		t.Errorf("bare number: %+v", q)
	}
	if q := Parse("bob", now); q.Currency != "" || q.Text != "bob" {
		t.Errorf("bob read as %+v", q)
	}
}
