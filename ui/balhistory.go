package ui

import (
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/report"
)

// historyDays is how far back the balance history goes (the chart shows
// the last 30 or all 90).
const historyDays = 90

// recentRows is how many of an account's latest transactions its detail
// view lists.
const recentRows = 8

// curHistory is one currency's movements by day, from the report: moves[d]
// is the net money in (+) or out (−) on day d, d = 0 being the oldest of
// historyDays days ending today; recent are its latest transactions.
type curHistory struct {
	moves  [historyDays]int64
	recent []api.Transaction
}

// balanceHistoryMsg carries the report's movements per currency to the
// balances view (the root computes them off the Update path from each
// loaded report), with what the next load's computation may start from.
type balanceHistoryMsg struct {
	today time.Time // midnight of today in the dashboard's zone
	byCur map[string]*curHistory
	// store, bounds and moves are what byCur was computed from.
	store  *report.Store
	bounds historyDaysBounds
	moves  map[string]*report.DayMoves
}

// historyDaysBounds are the starts of the history's days and the end of
// today, in unix nanoseconds.
type historyDaysBounds [historyDays + 1]int64

// historyBounds are the history's days as of now: calendar days in now's
// zone (daylight saving makes some 23 or 25 hours long).
func historyBounds(now time.Time) (today time.Time, bounds historyDaysBounds) {
	y, m, d := now.Date()
	today = time.Date(y, m, d, 0, 0, 0, 0, now.Location())
	first := today.AddDate(0, 0, -(historyDays - 1))
	for k := range bounds {
		bounds[k] = first.AddDate(0, 0, k).UnixNano()
	}
	return today, bounds
}

// balanceHistory reads the report's rows into daily movements per
// currency, by each row's latest time in now's zone. Failed and rejected
// payouts moved no money and are skipped; fundings are credits, payouts
// debits.
func balanceHistory(st *report.Store, now time.Time) tea.Cmd {
	if st == nil {
		return nil
	}
	return func() tea.Msg {
		today, bounds := historyBounds(now)
		return historyMsg(st, today, bounds, st.DailyMoves(bounds[:], recentRows))
	}
}

// balanceHistoryAfter is balanceHistory for st, merged from prev's store
// with the rows changed changed: only those are read.
func balanceHistoryAfter(st *report.Store, prev balanceHistoryMsg, changed []int32) tea.Cmd {
	return func() tea.Msg {
		return historyMsg(st, prev.today, prev.bounds, st.DailyMovesAfter(prev.store, prev.moves, changed, prev.bounds[:], recentRows))
	}
}

func historyMsg(st *report.Store, today time.Time, bounds historyDaysBounds, moves map[string]*report.DayMoves) balanceHistoryMsg {
	out := map[string]*curHistory{}
	for cur, dm := range moves {
		h := &curHistory{}
		copy(h.moves[:], dm.Moves)
		for _, i := range dm.Recent {
			h.recent = append(h.recent, st.Tx(i))
		}
		out[cur] = h
	}
	return balanceHistoryMsg{today: today, byCur: out, store: st, bounds: bounds, moves: moves}
}

// series is the end-of-day balance for the last days days, running back
// from today's balance through the day's movements: the balance at the
// end of day d is today's minus everything that moved after day d.
func (h *curHistory) series(todayBalance int64, days int) []int64 {
	out := make([]int64, days)
	bal := todayBalance
	for k := 0; k < days; k++ {
		d := historyDays - 1 - k // today, yesterday, …
		out[days-1-k] = bal
		bal -= h.moves[d]
	}
	return out
}

// chart draws vals as a bar chart h rows high and one column per value
// (vals are averaged down when wider than w), from zero (or the lowest
// value when one is negative) to the highest; the threshold, when set,
// is drawn as ┄ across the columns it is above.
func chart(vals []int64, w, h int, threshold int64, hasThreshold bool) []string {
	if len(vals) == 0 || w <= 0 || h <= 0 {
		return nil
	}
	if len(vals) > w {
		vals = shrink(vals, w)
	}
	lo, hi := int64(0), vals[0]
	for _, v := range vals {
		lo, hi = min(lo, v), max(hi, v)
	}
	if hasThreshold {
		hi = max(hi, threshold)
		lo = min(lo, threshold)
	}
	if hi == lo {
		hi = lo + 1
	}
	const eighths = " ▁▂▃▄▅▆▇█"
	blocks := []rune(eighths)
	level := func(v int64) int { // in eighths of a row, 0..8h
		return int(float64(v-lo) / float64(hi-lo) * float64(8*h))
	}
	thRow := -1
	if hasThreshold {
		thRow = min(level(threshold)/8, h-1)
	}
	rows := make([]string, h)
	for r := 0; r < h; r++ { // r = 0 is the top row
		fromBottom := h - 1 - r
		var b strings.Builder
		for _, v := range vals {
			fill := level(v) - 8*fromBottom
			switch {
			case fill >= 8:
				b.WriteRune('█')
			case fill > 0:
				b.WriteRune(blocks[fill])
			case fromBottom == thRow:
				b.WriteRune('┄')
			default:
				b.WriteRune(' ')
			}
		}
		rows[r] = b.String()
	}
	return rows
}

// shrink averages vals down to w points.
func shrink(vals []int64, w int) []int64 {
	out := make([]int64, w)
	for i := range out {
		a, b := i*len(vals)/w, (i+1)*len(vals)/w
		var sum int64
		for _, v := range vals[a:b] {
			sum += v
		}
		out[i] = sum / int64(max(b-a, 1))
	}
	return out
}
