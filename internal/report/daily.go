package report

import (
	"slices"
	"time"
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

const dayNs = int64(24 * time.Hour)

// DailyMoves sums, per currency, the signed amount of every row that
// moved money, by the day its LatestTime falls on: day d is
// [bounds[d], bounds[d+1]) in unix nanoseconds, so len(bounds)-1 days.
// Rows that moved no money (failed, rejected: the rule totals use) are
// skipped; rows outside the days are not summed, but their currency
// still gets an entry (an account with no recent movement). Recent keeps
// the keep latest rows.
//
// One pass over the columns, every row's codes looked up in tables
// built once: the balances page recomputes this on every report load,
// and as a map lookup and a calendar computation a row it cost half a
// second at ten million rows, on the core drawing the first screen.
func (s *Store) DailyMoves(bounds []int64, keep int) map[string]*DayMoves {
	p := s.newDailyPass(bounds, keep)
	if p.days < 1 {
		return map[string]*DayMoves{}
	}
	// Newest rows last is the report's order: read backwards, the latest
	// few come first and most rows fail the one test against the last
	// of them, where forwards nearly every row was a new latest.
	for k := len(s.chunks) - 1; k >= 0; k-- {
		c := &s.chunks[k]
		for j := min(c.len(), s.n-k*chunkRows) - 1; j >= 0; j-- {
			p.count(s, c, j, int32(k*chunkRows+j)) //nolint:gosec // G115: row numbers fit int32
		}
	}
	return p.result(s)
}

// DailyMovesAfter is DailyMoves for s from prev, the DailyMoves (same
// bounds and keep) of old, the store s was merged from (else, see
// MergedFrom, it is a whole pass): only the
// rows of s changed (MergeStats.Changed: rows of old updated, and rows
// added) are read, old's values of the updated ones taken back out. A
// sync bringing ten thousand rows into ten million then costs ten
// thousand rows, not a pass over the report. prev is not changed.
func (s *Store) DailyMovesAfter(old *Store, prev map[string]*DayMoves, changed []int32, bounds []int64, keep int) map[string]*DayMoves {
	if !s.MergedFrom(old) {
		return s.DailyMoves(bounds, keep)
	}
	p := s.newDailyPass(bounds, keep)
	if p.days < 1 {
		return map[string]*DayMoves{}
	}
	for name, m := range prev {
		code := slices.Index(s.enums[EnumCurrency], name)
		if code < 0 {
			code = enumOverflow
		}
		p.per[code] = &DayMoves{Moves: slices.Clone(m.Moves), Recent: slices.Clone(m.Recent)}
		for _, i := range m.Recent {
			p.recentAt[code] = append(p.recentAt[code], old.latestNs(i))
		}
	}
	for _, i := range changed {
		if int(i) < old.n {
			c, j := old.at(i)
			if paid, d, _ := p.place(c, j); paid && d >= 0 {
				m := p.per[c.cur[j]]
				if m == nil || slices.Contains(m.Recent, i) {
					// A row among the latest changed: which row takes its
					// place needs the whole report.
					return s.DailyMoves(bounds, keep)
				}
				m.Moves[d] -= p.signed(c, j)
			}
		}
		c, j := s.at(i)
		p.count(s, c, j, i)
	}
	return p.result(s)
}

// dailyPass is the state of a DailyMoves computation.
type dailyPass struct {
	credit, unpaid *[256]bool // by type, status code (Store.moneyCodes)
	bounds         []int64
	days           int
	keep           int
	per            [256]*DayMoves // by currency code
	// recentAt[code][k] is the latest time of per[code].Recent[k]: the
	// test against the last of them is made for most rows.
	recentAt [256][]int64
}

func (s *Store) newDailyPass(bounds []int64, keep int) *dailyPass {
	p := &dailyPass{bounds: bounds, days: len(bounds) - 1, keep: keep}
	p.credit, p.unpaid = s.moneyCodes()
	return p
}

// place says whether row j of c moved money and on which day (-1: none
// of the days), and its latest time.
func (p *dailyPass) place(c *chunk, j int) (paid bool, day int, at int64) {
	if p.unpaid[c.status[j]] {
		return false, -1, 0
	}
	at = latestOf(c, j)
	lo := p.bounds[0]
	if at < lo || at >= p.bounds[p.days] {
		return true, -1, at
	}
	// The last day d with bounds[d] <= at: estimated as if every day
	// were 24 hours, then corrected (a daylight-saving day is 23 or 25).
	d := min(int((at-lo)/dayNs), p.days-1)
	for d > 0 && p.bounds[d] > at {
		d--
	}
	for d < p.days-1 && p.bounds[d+1] <= at {
		d++
	}
	return true, d, at
}

func (p *dailyPass) signed(c *chunk, j int) int64 {
	if p.credit[c.typ[j]] {
		return c.amount[j]
	}
	return -c.amount[j]
}

// count adds row (row j of c) to its currency's day.
func (p *dailyPass) count(s *Store, c *chunk, j int, row int32) {
	paid, d, at := p.place(c, j)
	if !paid {
		return
	}
	m := p.per[c.cur[j]]
	if m == nil {
		m = &DayMoves{Moves: make([]int64, p.days)}
		p.per[c.cur[j]] = m
	}
	if d < 0 {
		return
	}
	m.Moves[d] += p.signed(c, j)
	ats := p.recentAt[c.cur[j]]
	if len(ats) < p.keep || later(at, row, ats[len(ats)-1], m.Recent[len(ats)-1]) {
		m.Recent, p.recentAt[c.cur[j]] = insertRecent(m.Recent, ats, row, at, p.keep)
	}
}

// later orders Recent: the later latest time first, and among equal
// times the earlier row, whichever way rows are read.
func later(at int64, row int32, thanAt int64, thanRow int32) bool {
	return at > thanAt || at == thanAt && row < thanRow
}

func (p *dailyPass) result(s *Store) map[string]*DayMoves {
	out := make(map[string]*DayMoves)
	for code, m := range p.per {
		if m != nil {
			out[s.enumName(EnumCurrency, uint8(code))] = m //nolint:gosec // G115: code < 256
		}
	}
	return out
}

// latestNs is row i's LatestTime in unix nanoseconds.
func (s *Store) latestNs(i int32) int64 {
	c, j := s.at(i)
	return latestOf(c, j)
}

// latestOf is when row j of c last moved (unix ns; 0 = never): settled,
// else submitted, else authorised.
func latestOf(c *chunk, j int) int64 {
	for _, ns := range [...]int64{c.settled[j], c.submitted[j], c.authorised[j]} {
		if ns != 0 {
			return ns
		}
	}
	return 0
}

// insertRecent puts row (latest time at) into list (whose rows' times
// are ats), kept in the order later gives and at most keep long.
func insertRecent(list []int32, ats []int64, row int32, at int64, keep int) ([]int32, []int64) {
	pos := len(list)
	for pos > 0 && later(at, row, ats[pos-1], list[pos-1]) {
		pos--
	}
	if pos >= keep {
		return list, ats
	}
	list, ats = slices.Insert(list, pos, row), slices.Insert(ats, pos, at)
	if len(list) > keep {
		list, ats = list[:keep], ats[:keep]
	}
	return list, ats
}
