package report

import (
	"context"
	"fmt"
	"runtime/debug"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"
)

// cpuTime is the process's user and system CPU time: on a machine shared
// with other work, what an operation cost regardless of how long it
// waited for a core.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

const million = 1_000_000

var (
	millionOnce  sync.Once
	millionStore *Store
)

// loaded1M is a store of a million generated rows (setup, not measured).
func loaded1M(b *testing.B) *Store {
	b.Helper()
	millionOnce.Do(func() {
		st, err := Load(context.Background(), genSource{n: million}, 0, nil)
		if err != nil {
			b.Fatal(err)
		}
		millionStore = st
	})
	return millionStore
}

// genSource streams genTx rows without holding them.
type genSource struct{ n int }

func (g genSource) StreamTransactions(ctx context.Context, _ apiQuery, fn func(apiTx) error) error {
	for i := range g.n {
		if err := fn(genTx(i)); err != nil {
			return err
		}
	}
	return nil
}

// BenchmarkSort1M sorts a million rows by each column, both directions,
// from storage order, and reports the slowest column (worst-ms) beside
// each column's time.
func BenchmarkSort1M(b *testing.B) {
	st := loaded1M(b)
	all := st.All()
	worst := time.Duration(0)
	for col := range NumColumns {
		for _, desc := range []bool{false, true} {
			b.Run(fmt.Sprintf("%s/desc=%v", ColumnNames[col], desc), func(b *testing.B) {
				var slowest time.Duration
				cpu0 := cpuTime()
				for b.Loop() {
					start := time.Now()
					out := st.Sorted(all, SortKey{Col: col, Desc: desc})
					slowest = max(slowest, time.Since(start))
					if len(out) != million {
						b.Fatal(len(out))
					}
				}
				worst = max(worst, slowest)
				b.ReportMetric(float64(slowest)/1e6, "worst-ms")
				b.ReportMetric(float64(cpuTime()-cpu0)/1e6/float64(b.N), "cpu-ms/op")
			})
		}
	}
	b.Logf("slowest sort of 1M rows over every column: %.0f ms", float64(worst)/1e6)
}

// BenchmarkFilterKeystroke1M types "inv-12345" one key at a time over a
// million rows, each key narrowing the previous result as the dashboard
// does, with the rows in time order and in amount order (scattered in
// storage). The heap is handed back to the system first, as the
// dashboard does after a load, so a fresh result buffer costs its page
// faults here too; results off screen are written over, and each key
// is given the totals of the rows it narrows, as the dashboard does. Reported: median, worst and first-key ms, and the
// worst CPU ms of a keystroke (both cores count).
func BenchmarkFilterKeystroke1M(b *testing.B) {
	st := loaded1M(b)
	for _, col := range []Column{ColTime, ColAmount} {
		b.Run(ColumnNames[col], func(b *testing.B) {
			order := st.Sorted(st.All(), SortKey{Col: col})
			st.Totals(order) // the dashboard shows every row's totals on load
			debug.FreeOSMemory()
			never := func() bool { return false }
			const query = "inv-12345"
			var per, cpu []time.Duration
			var first time.Duration
			now := time.Now()
			// As the dashboard does, a result off screen (not the base of
			// the next key, nor the order) is handed back for the next
			// result to be written into.
			var spare, base []int32
			same := func(a, b []int32) bool { return cap(a) > 0 && cap(b) > 0 && &a[:1][0] == &b[:1][0] }
			for b.Loop() {
				if spare == nil && !same(base, order) {
					spare = base
				}
				base = order
				baseTotals := st.Totals(order) // on screen before the first key
				for k := range query {
					start, c0 := time.Now(), cpuTime()
					got, totals, err := st.SelectInto(spare, base, baseTotals, st.Resolve(Parse(query[:k+1], now)), never)
					d := time.Since(start)
					if err != nil || totals == nil && len(got) > 0 {
						b.Fatal(err, len(got))
					}
					per, cpu = append(per, d), append(cpu, cpuTime()-c0)
					if k == 0 {
						first = max(first, d)
					}
					if !same(got, base) {
						if same(got, spare) {
							spare = nil
						}
						if spare == nil && !same(base, order) {
							spare = base
						}
					}
					base, baseTotals = got, totals
				}
				if len(base) == 0 || len(base) == million {
					b.Fatalf("query matched %d rows", len(base))
				}
			}
			slices.Sort(per)
			slices.Sort(cpu)
			b.ReportMetric(float64(per[len(per)/2])/1e6, "ms/keystroke")
			b.ReportMetric(float64(per[len(per)-1])/1e6, "worst-ms/keystroke")
			b.ReportMetric(float64(first)/1e6, "worst-first-key-ms")
			b.ReportMetric(float64(cpu[len(cpu)-1])/1e6, "worst-cpu-ms/keystroke")
			b.ReportMetric(float64(cpu[len(cpu)/2])/1e6, "cpu-ms/keystroke")
		})
	}
}

// BenchmarkDailyMoves is the balances' daily movements over a million
// rows that all fall inside the days (the demo's history is its last
// 90 days): what every report load ran on the dashboard's core.
func BenchmarkDailyMoves(b *testing.B) {
	st := loaded1M(b)
	first := tBase.AddDate(0, 0, -1)
	bounds := make([]int64, 2*366+1) // every generated row (a minute each) inside
	for d := range bounds {
		bounds[d] = first.AddDate(0, 0, d).UnixNano()
	}
	b.ReportAllocs()
	for b.Loop() {
		if m := st.DailyMoves(bounds, 8); len(m) == 0 {
			b.Fatal("nothing moved")
		}
	}
}
