package sandbox

import (
	"context"
	"runtime"
	"testing"

	"github.com/paydash/paydash/api"
)

// loadRecords is the report size the UI issue sets its load targets for
// (≤ 3 s to load, ≤ 500 MB held).
const loadRecords = 1_000_000

// BenchmarkLoad1MOverHTTP measures the UI's real load path end to end:
// the sandbox encodes a seeded 1,000,000-record history, it crosses
// loopback HTTP, and api.Client.StreamTransactions decodes it record by
// record into a []api.Transaction. It reports seconds per load,
// records/s, and the heap the loaded slice holds after a GC (heap-MB),
// which is what the UI keeps in memory before building its own store.
func BenchmarkLoad1MOverHTTP(b *testing.B) {
	// Built once, before the timed loop: a fixed seed and the fake clock
	// make every run stream the same bytes.
	e := newEnv(b, func(o *Options) { o.History = loadRecords; o.HistorySeed = 1; o.WebhookURI = "" })
	ctx := context.Background()
	if _, err := e.client.Token(ctx, api.ScopePayouts); err != nil { // keep the token fetch out of the timing
		b.Fatal(err)
	}
	want := e.srv.ledger.size()
	var heapMB float64
	for b.Loop() {
		b.StopTimer()
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		b.StartTimer()

		var txns []api.Transaction
		err := e.client.StreamTransactions(ctx, api.TransactionQuery{}, func(t api.Transaction) error {
			txns = append(txns, t)
			return nil
		})

		b.StopTimer()
		if err != nil {
			b.Fatal(err)
		}
		if len(txns) != want {
			b.Fatalf("loaded %d records, want %d", len(txns), want)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		heapMB = float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / (1 << 20)
		runtime.KeepAlive(txns)
		b.StartTimer()
	}
	perLoad := b.Elapsed().Seconds() / float64(b.N)
	b.ReportMetric(perLoad, "s/load")
	b.ReportMetric(float64(want)/perLoad, "records/s")
	b.ReportMetric(heapMB, "heap-MB")
}
