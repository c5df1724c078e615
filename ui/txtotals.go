package ui

import (
	"slices"
	"strings"

	"github.com/paydash/paydash/api"
)

// curTotal is what the rows on screen add up to in one currency: money in
// (fundings), money out (payouts) and rows counted. Failed and rejected
// payouts moved no money and are left out.
type curTotal struct {
	cur      string
	in, out  int64
	rows     int
	excluded int
}

// credit reports whether a transaction type brings money in.
func credit(typ string) bool { return typ == api.TransactionFunding }

// signedAmount is the amount as the account sees it: + for money in,
// − for money out.
func signedAmount(minor int64, cur, typ string) string {
	if credit(typ) {
		return "+" + api.FormatAmount(minor, cur)
	}
	return "−" + api.FormatAmount(minor, cur)
}

// totals adds up the rows idx per currency, in currency order.
func (s *txStore) totals(idx []int32) []curTotal {
	if s == nil {
		return nil
	}
	byCur := make([]curTotal, len(s.currencies.names))
	for i := range byCur {
		byCur[i].cur = s.currencies.name(uint8(i))
	}
	// One look-up per enum value, not per row.
	var failed, in [256]bool
	for i, st := range s.statuses.names {
		failed[i] = st == api.StateFailed || st == api.StateRejected
	}
	for i, typ := range s.types.names {
		in[i] = credit(typ)
	}
	for _, i := range idx {
		r := &s.rows[i]
		if int(r.currency) >= len(byCur) {
			continue
		}
		t := &byCur[r.currency]
		if failed[r.status] {
			t.excluded++
			continue
		}
		t.rows++
		if in[r.typ] {
			t.in += r.amount
		} else {
			t.out += r.amount
		}
	}
	out := byCur[:0]
	for _, t := range byCur {
		if t.rows > 0 || t.excluded > 0 {
			out = append(out, t)
		}
	}
	slices.SortFunc(out, func(a, b curTotal) int { return strings.Compare(a.cur, b.cur) })
	return out
}
