package report

import (
	"slices"

	"github.com/paydash/paydash/api"
)

// Total is the money of the filtered rows in one currency. Fundings are
// credits; payouts are debits unless they failed (the money never
// left). Net is credits minus debits; Count counts every row, failed
// ones included.
type Total struct {
	Currency      string
	Credits       int64
	Debits        int64
	Net           int64
	Count, Failed int
}

// Totals sums rows per currency, in currency order. It reads the rows in
// storage order (through a bitmap when they are many) so a sorted
// million-row result costs a sequential pass, not a cache miss a row.
func (s *Store) Totals(rows []int32) []Total {
	credit := make([]bool, 256)
	for v, name := range s.enums[EnumType] {
		credit[v] = name == api.TransactionFunding
	}
	failed := make([]bool, 256)
	for v, name := range s.enums[EnumStatus] {
		failed[v] = name == api.StateFailed || name == api.StateRejected
	}
	var acc [256]Total
	add := func(c *chunk, j int) {
		t := &acc[c.cur[j]]
		t.Count++
		switch {
		case credit[c.typ[j]]:
			t.Credits += c.amount[j]
		case failed[c.status[j]]:
			t.Failed++
		default:
			t.Debits += c.amount[j]
		}
	}
	if len(rows) == s.n || len(rows) > s.n/16 {
		all := len(rows) == s.n
		var bits []uint64
		if !all {
			bits = make([]uint64, (s.n+63)/64)
			for _, i := range rows {
				bits[i>>6] |= 1 << (uint(i) & 63)
			}
		}
		for k := range s.chunks {
			c := &s.chunks[k]
			for j := range c.len() {
				i := k<<chunkShift | j
				if all || bits[i>>6]&(1<<(uint(i)&63)) != 0 {
					add(c, j)
				}
			}
		}
	} else {
		for _, i := range rows {
			c, j := s.at(i)
			add(c, j)
		}
	}
	var out []Total
	for v := range acc {
		t := acc[v]
		if t.Count == 0 {
			continue
		}
		t.Currency = s.enumName(EnumCurrency, uint8(v))
		t.Net = t.Credits - t.Debits
		out = append(out, t)
	}
	slices.SortFunc(out, func(a, b Total) int {
		if a.Currency < b.Currency {
			return -1
		}
		if a.Currency > b.Currency {
			return 1
		}
		return 0
	})
	return out
}
