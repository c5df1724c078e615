package report

import (
	"sort"

	"github.com/paydash/paydash/api"
)

// DayMoves is one currency's money moved per day (see Store.DailyMoves).
type DayMoves struct {
	// Moves[d] is the net signed amount (Signed) of the rows whose
	// latest time falls on day d.
	Moves []int64
	// Recent are the rows with the latest latest times among those
	// summed, latest first (earlier rows first among equal times).
	Recent []int32
}

// DailyMoves sums, per currency, the signed amount of every row that
// moved money, by the day its LatestTime falls on: day d is
// [bounds[d], bounds[d+1]) in unix nanoseconds, so len(bounds)-1 days.
// Rows unpaid(status) says moved nothing are skipped; rows outside the
// days are not summed, but their currency still gets an entry (an
// account with no recent movement). Recent keeps the keep latest rows.
//
// One pass over the columns, every row's codes looked up in tables
// built once: the balances page recomputes this on every report load,
// and as a map lookup and a calendar computation a row it cost half a
// second at ten million rows, on the core drawing the first screen.
func (s *Store) DailyMoves(bounds []int64, unpaid func(status string) bool, keep int) map[string]*DayMoves {
	var skip [256]bool
	var credit [256]bool
	for code := range 256 {
		skip[code] = unpaid(s.enumName(EnumStatus, uint8(code)))
		credit[code] = s.enumName(EnumType, uint8(code)) == api.TransactionFunding
	}
	days := len(bounds) - 1
	var per [256]*DayMoves
	if days < 1 {
		return map[string]*DayMoves{}
	}
	lo, hi := bounds[0], bounds[days]
	for k := range s.chunks {
		c := &s.chunks[k]
		n := min(c.len(), s.n-k*chunkRows)
		for j := range n {
			if skip[c.status[j]] {
				continue
			}
			cur := c.cur[j]
			m := per[cur]
			if m == nil {
				m = &DayMoves{Moves: make([]int64, days)}
				per[cur] = m
			}
			at := c.settled[j]
			if at == 0 {
				at = c.submitted[j]
			}
			if at == 0 {
				at = c.authorised[j]
			}
			if at < lo || at >= hi {
				continue
			}
			// The last day d with bounds[d] <= at.
			d := sort.Search(days, func(d int) bool { return bounds[d+1] > at })
			amt := c.amount[j]
			if !credit[c.typ[j]] {
				amt = -amt
			}
			m.Moves[d] += amt
			row := int32(k*chunkRows + j) //nolint:gosec // G115: row numbers fit int32
			if len(m.Recent) < keep || s.latestNs(m.Recent[len(m.Recent)-1]) < at {
				m.Recent = s.insertRecent(m.Recent, row, at, keep)
			}
		}
	}
	out := make(map[string]*DayMoves)
	for code, m := range per {
		if m != nil {
			out[s.enumName(EnumCurrency, uint8(code))] = m //nolint:gosec // G115: code < 256
		}
	}
	return out
}

// latestNs is row i's LatestTime in unix nanoseconds.
func (s *Store) latestNs(i int32) int64 {
	c, j := s.at(i)
	for _, ns := range [...]int64{c.settled[j], c.submitted[j], c.authorised[j]} {
		if ns != 0 {
			return ns
		}
	}
	return 0
}

// insertRecent puts row (latest time at) into list, kept latest first
// and at most keep long; among equal times the earlier row stays first.
func (s *Store) insertRecent(list []int32, row int32, at int64, keep int) []int32 {
	pos := len(list)
	for pos > 0 && s.latestNs(list[pos-1]) < at {
		pos--
	}
	if pos >= keep {
		return list
	}
	list = append(list, 0)
	copy(list[pos+1:], list[pos:])
	list[pos] = row
	if len(list) > keep {
		list = list[:keep]
	}
	return list
}
