package ui

import (
	"slices"
	"syscall"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

const million = 1_000_000

// cpuTime is the process's user and system CPU time: what an operation
// cost, whatever it waited for a core on a shared machine. Work split
// across the cores counts once per core.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// loadedHarness is a dashboard at 120x40 on the Transactions tab with a
// million rows loaded (setup, not measured).
func loadedHarness(b *testing.B) *harness {
	b.Helper()
	h := newHarness(b, Options{Backend: newFake(million)}, 120, 40)
	h.key("2")
	if h.m.tx.store.Len() != million {
		b.Fatalf("loaded %d rows", h.m.tx.store.Len())
	}
	return h
}

// BenchmarkFilterKeystroke types a query into the filter bar one key at a
// time over 1,000,000 transactions. Each keystroke is measured from the
// key press to the filtered rows being on the model (Update, the filter
// command, Update with its result), which is what a person waits for.
// Reported: median and worst ms per keystroke.
func BenchmarkFilterKeystroke(b *testing.B) {
	benchFilterKeystroke(b, loadedHarness(b))
}

// BenchmarkFilterKeystrokeSortedByAmount is BenchmarkFilterKeystroke with
// the report sorted by amount, so the rows on screen are in no relation
// to the order they are stored in.
func BenchmarkFilterKeystrokeSortedByAmount(b *testing.B) {
	h := loadedHarness(b)
	for h.m.tx.sort.Col != colAmount {
		h.key("s")
	}
	benchFilterKeystroke(b, h)
}

func benchFilterKeystroke(b *testing.B, h *harness) {
	const query = "inv-12345"
	var per, cpu []time.Duration
	var first time.Duration
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		h.key("esc")
		h.key("esc") // filter cleared: the whole report again
		h.key("/")
		b.StartTimer()
		for k, r := range query {
			start, c0 := time.Now(), cpuTime()
			_, cmd := h.m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
			h.run(cmd)
			d := time.Since(start)
			per = append(per, d)
			cpu = append(cpu, cpuTime()-c0)
			if k == 0 {
				first = max(first, d)
			}
		}
	}
	b.StopTimer()
	if got := len(h.m.tx.idx); got == 0 || got == million {
		b.Fatalf("query matched %d rows", got)
	}
	if len(h.m.tx.totals) == 0 {
		b.Fatal("no totals computed with the filter")
	}
	slices.Sort(per)
	slices.Sort(cpu)
	b.ReportMetric(float64(per[len(per)/2])/1e6, "ms/keystroke")
	b.ReportMetric(float64(per[len(per)-1])/1e6, "worst-ms/keystroke")
	b.ReportMetric(float64(first)/1e6, "worst-first-key-ms")
	b.ReportMetric(float64(cpu[len(cpu)-1])/1e6, "worst-cpu-ms/keystroke")
}

// BenchmarkView renders the full 120x40 Transactions screen over a
// million rows.
func BenchmarkView(b *testing.B) {
	h := loadedHarness(b)
	h.key("enter") // with the detail pane
	for b.Loop() {
		_ = h.m.View()
	}
}

// BenchmarkBalanceHistory is the balances' 90-day history built from a
// loaded million-row report (once per report load, off the Update path).
func BenchmarkBalanceHistory(b *testing.B) {
	h := loadedHarness(b)
	st := h.m.tx.store
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if msg, ok := balanceHistory(st, fixedNow)().(balanceHistoryMsg); !ok || len(msg.byCur) == 0 {
			b.Fatal("no history")
		}
	}
}
