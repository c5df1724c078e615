package report

import (
	"cmp"
	"slices"
	"testing"
	"time"

	"github.com/paydash/paydash/api"
)

// DailyMoves gives, day by day and currency by currency, what summing
// each paid row's signed amount on the day of its latest move gives,
// with days of uneven length (a daylight-saving change) and rows
// outside the days, and the latest rows in order.
func TestDailyMovesSumsEachPaidRowOnItsLatestDay(t *testing.T) {
	rows := genTxs(20_000) // a row a minute from tBase: about two weeks
	st := load(t, rows)
	newYork, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Skip("no zone data:", err)
	}
	// Ten days around the clocks going forward (9 March 2025), starting
	// after the first rows and ending before the last.
	first := time.Date(2025, 3, 4, 0, 0, 0, 0, newYork)
	bounds := make([]int64, 11)
	for d := range bounds {
		bounds[d] = first.AddDate(0, 0, d).UnixNano()
	}
	got := st.DailyMoves(bounds, api.StateUnpaid, 8)

	want := map[string][]int64{}
	type summed struct {
		row int32
		at  int64
	}
	recent := map[string][]summed{}
	for i := range int32(st.Len()) { //nolint:gosec // small
		if api.StateUnpaid(st.Status(i)) {
			continue
		}
		cur := st.Currency(i)
		if want[cur] == nil {
			want[cur] = make([]int64, 10)
		}
		at := st.LatestTime(i).UnixNano()
		for d := range 10 {
			if at >= bounds[d] && at < bounds[d+1] {
				want[cur][d] += st.Signed(i)
				recent[cur] = append(recent[cur], summed{i, at})
			}
		}
	}
	if len(got) != len(want) {
		t.Fatalf("%d currencies, want %d", len(got), len(want))
	}
	for cur, w := range want {
		if !slices.Equal(got[cur].Moves, w) {
			t.Errorf("%s moves %v, want %v", cur, got[cur].Moves, w)
		}
		r := recent[cur]
		slices.SortStableFunc(r, func(a, b summed) int { return cmp.Compare(b.at, a.at) })
		var wantRows []int32
		for _, x := range r[:min(8, len(r))] {
			wantRows = append(wantRows, x.row)
		}
		if !slices.Equal(got[cur].Recent, wantRows) {
			t.Errorf("%s recent %v, want %v", cur, got[cur].Recent, wantRows)
		}
	}
	// The short day (23 hours) holds fewer minutes' rows than the day
	// before it.
	var short, long int
	for _, r := range recent {
		for _, x := range r {
			switch {
			case x.at >= bounds[5] && x.at < bounds[6]:
				short++
			case x.at >= bounds[4] && x.at < bounds[5]:
				long++
			}
		}
	}
	if short == 0 || short >= long {
		t.Fatalf("paid rows on the 23-hour day %d, on the day before %d", short, long)
	}
}
