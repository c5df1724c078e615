package ui

import (
	"context"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

const million = 1_000_000

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
	var per []time.Duration
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		h.key("esc")
		h.key("esc") // filter cleared: the whole report again
		h.key("/")
		b.StartTimer()
		for _, r := range query {
			start := time.Now()
			_, cmd := h.m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
			h.run(cmd)
			per = append(per, time.Since(start))
		}
	}
	b.StopTimer()
	if got := len(h.m.tx.idx); got == 0 || got == million {
		b.Fatalf("query matched %d rows", got)
	}
	slices.Sort(per)
	b.ReportMetric(float64(per[len(per)/2])/1e6, "ms/keystroke")
	b.ReportMetric(float64(per[len(per)-1])/1e6, "worst-ms/keystroke")
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

// BenchmarkLoad1M loads 1,000,000 transactions through StreamTransactions
// from a fake backend into the report's store (including the initial
// newest-first sort) and reports the heap the loaded report holds.
func BenchmarkLoad1M(b *testing.B) {
	fb := newFake(million)
	var heapMB float64
	for b.Loop() {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		msg := loadStore(context.Background(), fb, 1, defaultSort, new(atomic.Int64))
		b.StopTimer()
		runtime.GC()
		runtime.ReadMemStats(&after)
		if msg.err != nil || msg.store.Len() != million {
			b.Fatalf("loaded %d rows: %v", msg.store.Len(), msg.err)
		}
		heapMB = float64(after.HeapAlloc-before.HeapAlloc) / (1 << 20)
		runtime.KeepAlive(msg)
		b.StartTimer()
	}
	b.ReportMetric(heapMB, "heap-MB")
}
