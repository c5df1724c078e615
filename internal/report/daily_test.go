package report

import (
	"cmp"
	"context"
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
	got := st.DailyMoves(bounds, 8)

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

// DailyMovesAfter a merge (rows settled since, rows added, one of the
// latest rows changed) gives what a whole pass over the merged store
// gives.
func TestDailyMovesAfterAMergeIsAWholePass(t *testing.T) {
	rows := genTxs(20_000)
	first := tBase.AddDate(0, 0, 3)
	bounds := make([]int64, 11)
	for d := range bounds {
		bounds[d] = first.AddDate(0, 0, d).UnixNano()
	}
	for _, tc := range []struct{ latestChanged, dropped bool }{{false, false}, {true, false}, {false, true}} {
		latestChanged := tc.latestChanged
		// A store merges onward from its report's latest state: each
		// case starts from a fresh one.
		old := load(t, rows)
		prev := old.DailyMoves(bounds, 8)
		changed := append([]api.Transaction(nil), rows...)
		settle := func(i int, at time.Time) {
			changed[i].Status, changed[i].SettledAt = api.StateSettled, api.NewReportTime(at)
			if changed[i].SubmittedAt.IsZero() {
				changed[i].SubmittedAt = api.NewReportTime(at)
			}
		}
		n := 0
		for i := range changed {
			if changed[i].Status == api.StateAuthorised && i%3 == 0 {
				settle(i, tBase.AddDate(0, 0, 5+i%4)) // into the days, on other days
				n++
			}
		}
		if latestChanged {
			// Fail the GBP row latest in the days: it leaves Recent.
			gbp := prev["GBP"].Recent[0]
			id := string(old.ID(gbp))
			for i := range changed {
				if changed[i].TransactionID == id {
					changed[i].Status = api.StateFailed
				}
			}
		}
		added := genTxs(20_100)[20_000:]
		for i := range added {
			added[i].TransactionID += "-new"
		}
		src := &fakeSource{rows: append(changed, added...)}
		if tc.dropped {
			// A merge whose result the dashboard dropped (superseded): the
			// next merges onward from it, so its changes are not in the
			// next's Changed.
			if _, _, err := old.Merge(context.Background(), src, apiQuery{}, nil); err != nil {
				t.Fatal(err)
			}
			if _, _, err := old.Merge(context.Background(), src, apiQuery{}, nil); err != nil {
				t.Fatal(err)
			}
			added = nil
			n = 0
		}
		next, ms, err := old.Merge(context.Background(), src, apiQuery{}, nil)
		if err != nil || ms.Updated < n || ms.Added != len(added) {
			t.Fatalf("merge: %+v (%d settled) %v", ms, n, err)
		}
		got := next.DailyMovesAfter(old, prev, ms.Changed, bounds, 8)
		want := next.DailyMoves(bounds, 8)
		for cur, w := range want {
			if !slices.Equal(got[cur].Moves, w.Moves) || !slices.Equal(got[cur].Recent, w.Recent) {
				t.Errorf("latest changed %t, %s: after the merge %v %v, a whole pass %v %v", latestChanged, cur, got[cur].Moves, got[cur].Recent, w.Moves, w.Recent)
			}
		}
		if next.MergedFrom(old) == tc.dropped {
			t.Errorf("dropped %t: MergedFrom says %t", tc.dropped, next.MergedFrom(old))
		}
		if slices.Equal(prev["GBP"].Moves, want["GBP"].Moves) {
			t.Fatal("the merge moved nothing: the test tests nothing")
		}
	}
}
