package report

import (
	"slices"
	"strings"

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

// sums accumulates totals per currency code while rows are selected.
type sums struct {
	credit, failed *[256]bool
	acc            [256]struct{ credits, debits, count, failed int64 }
}

func (s *Store) newSums() *sums {
	u := &sums{}
	u.credit, u.failed = s.moneyCodes()
	return u
}

// moneyCodes are the report's money rules as tables by code: which types
// are credits (fundings; the rest are debits) and which statuses moved
// no money (api.StateUnpaid: failed, rejected). Totals and the balances'
// daily movements both read them.
func (s *Store) moneyCodes() (credit, unpaid *[256]bool) {
	credit, unpaid = new([256]bool), new([256]bool)
	for v, name := range s.enums[EnumType] {
		credit[v] = api.Credit(name)
	}
	for v, name := range s.enums[EnumStatus] {
		unpaid[v] = api.StateUnpaid(name)
	}
	return credit, unpaid
}

func (u *sums) add(c *chunk, j int) {
	t := &u.acc[c.cur[j]]
	t.count++
	switch {
	case u.credit[c.typ[j]]:
		t.credits += c.amount[j]
	case u.failed[c.status[j]]:
		t.failed++
	default:
		t.debits += c.amount[j]
	}
}

// sub takes o's rows off u.
func (u *sums) sub(o *sums) {
	for v := range u.acc {
		a, b := &u.acc[v], &o.acc[v]
		a.credits -= b.credits
		a.debits -= b.debits
		a.count -= b.count
		a.failed -= b.failed
	}
}

func (u *sums) merge(o *sums) {
	for v := range u.acc {
		a, b := &u.acc[v], &o.acc[v]
		a.credits += b.credits
		a.debits += b.debits
		a.count += b.count
		a.failed += b.failed
	}
}

func (s *Store) totals(u *sums) []Total {
	var out []Total
	for v := range u.acc {
		a := u.acc[v]
		if a.count == 0 {
			continue
		}
		out = append(out, Total{Currency: s.enumName(EnumCurrency, uint8(v)), Credits: a.credits, Debits: a.debits,
			Net: a.credits - a.debits, Count: int(a.count), Failed: int(a.failed)})
	}
	slices.SortFunc(out, func(a, b Total) int { return strings.Compare(a.Currency, b.Currency) })
	return out
}

// Totals sums rows per currency, in currency order. Every row's totals
// are computed once per Store; for a subset it reads the rows in storage
// order (through a bitmap when they are many), so a sorted million-row
// result costs a sequential pass, not a cache miss a row. Select gives
// the totals of what it selects without a second pass.
func (s *Store) Totals(rows []int32) []Total {
	if len(rows) == s.n {
		return s.totals(s.allSums())
	}
	if len(rows) > s.n/16 {
		bits := make([]uint64, (s.n+63)/64)
		for _, i := range rows {
			bits[i>>6] |= 1 << (uint(i) & 63) //nolint:gosec // G115: row numbers are non-negative
		}
		return s.sumAll(bits)
	}
	u := s.newSums()
	for _, i := range rows {
		c, j := s.at(i)
		u.add(c, j)
	}
	return s.totals(u)
}

// allSums is the sums of every row, computed once per Store; callers
// copy it before changing it.
func (s *Store) allSums() *sums {
	s.allTotals.once.Do(func() { s.allTotals.u = s.sumBits(nil) })
	return s.allTotals.u
}

// sumAll sums the rows whose bit is set (every row when bits is nil).
func (s *Store) sumAll(bits []uint64) []Total { return s.totals(s.sumBits(bits)) }

func (s *Store) sumBits(bits []uint64) *sums {
	u := s.newSums()
	for k := range s.chunks {
		c := &s.chunks[k]
		for j := range c.len() {
			i := k<<chunkShift | j
			if bits == nil || bits[i>>6]&(1<<(uint(i)&63)) != 0 {
				u.add(c, j)
			}
		}
	}
	return u
}
