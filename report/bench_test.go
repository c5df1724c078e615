package report

import (
	"context"
	"fmt"
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
