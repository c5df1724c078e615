package webhookrelay

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/webhookrelay/relayclient"
)

// Benchmark load: benchSenders concurrent keep-alive HTTP senders, each
// posting payout-interface webhooks with a timestamp header, as a busy
// sandbox or service would. The bare handler gets exactly the same load.
const (
	benchSenders     = 64
	benchSubscribers = 10
)

func benchBody(run string, i int64) []byte {
	return []byte(fmt.Sprintf(`{"event_type":"payout_settled","event_id":"%s-%09d","event_body":{"transaction_id":"3f2a9c1e-5b7d-4e8f-9a0b-%012d","settled_at":"2026-11-21T10:15:30.000Z"}}`, run, i, i))
}

// drive posts n webhooks to url from benchSenders goroutines and returns
// the wall time taken.
func drive(b *testing.B, url, run string, n int64) time.Duration {
	b.Helper()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: benchSenders, MaxConnsPerHost: benchSenders}}
	defer client.CloseIdleConnections()
	ts := time.Now().UTC().Format(api.WebhookTimeLayout)
	var (
		next   atomic.Int64
		failed atomic.Int64
		wg     sync.WaitGroup
	)
	start := time.Now()
	for s := 0; s < benchSenders; s++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := next.Add(1); i <= n; i = next.Add(1) {
				req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(benchBody(run, i)))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set(api.HeaderWebhookTimestamp, ts)
				resp, err := client.Do(req)
				if err != nil {
					failed.Add(1)
					continue
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					failed.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	if f := failed.Load(); f > 0 {
		b.Fatalf("%d of %d deliveries failed", f, n)
	}
	return elapsed
}

// bareServer is a net/http server whose handler reads the body and
// answers 200: the ceiling any receiver on this machine can reach.
func bareServer(b *testing.B) string {
	b.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
	})}
	go func() { _ = srv.Serve(ln) }()
	b.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String() + "/webhooks"
}

// startBenchSubscribers connects n subscribers that drain their events and
// returns a function waiting until each has seen seq target.
func startBenchSubscribers(b *testing.B, tr *testRelay, n int, onEvent func(Event)) func(target uint64) {
	b.Helper()
	subs := make([]*relayclient.Subscriber, n)
	for i := range subs {
		subs[i] = relayclient.NewSubscriber(relayclient.SubscriberConfig{URL: tr.wsURL(), MinBackoff: 10 * time.Millisecond, MaxBackoff: 100 * time.Millisecond, Buffer: 4096})
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func(s *relayclient.Subscriber) { defer close(done); _ = s.Run(ctx) }(subs[i])
		go func(s *relayclient.Subscriber) {
			for e := range s.Events() {
				if onEvent != nil {
					onEvent(e)
				}
			}
		}(subs[i])
		b.Cleanup(func() { cancel(); <-done })
	}
	deadline := time.Now().Add(10 * time.Second)
	for tr.Metrics().Clients < int64(n) {
		if time.Now().After(deadline) {
			b.Fatal("subscribers did not connect")
		}
		time.Sleep(time.Millisecond)
	}
	return func(target uint64) {
		for _, s := range subs {
			for s.LastSeq() < target {
				time.Sleep(200 * time.Microsecond)
			}
		}
	}
}

// benchRound is how many events each side gets before the other: the
// relay and the bare handler alternate in rounds so that load from other
// processes on the machine falls on both alike.
const benchRound = 2000

// cpuTime is the process's user+system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkIngest measures durable ingest (each 200 sent only after the
// fsynced commit) with 10 websocket subscribers connected, counting until
// every subscriber has received every event, against a bare net/http
// handler under the same load, alternating rounds in the same run. It
// reports both rates, their ratio, and the CPU each costs per event (the
// senders' and subscribers' share included, since they run in-process).
func BenchmarkIngest(b *testing.B) {
	tr := startRelay(b, Config{Tolerance: time.Hour})
	waitAll := startBenchSubscribers(b, tr, benchSubscribers, nil)
	bare := bareServer(b)
	b.ReportAllocs()
	b.ResetTimer()
	var relayTime, bareTime, relayCPU, bareCPU time.Duration
	for done := int64(0); done < int64(b.N); {
		n := min(benchRound, int64(b.N)-done)
		cpu0, start := cpuTime(), time.Now()
		drive(b, tr.base+DefaultPath, fmt.Sprintf("ingest%d", done), n)
		waitAll(uint64(done + n))
		relayTime += time.Since(start)
		relayCPU += cpuTime() - cpu0
		b.StopTimer()
		cpu0 = cpuTime()
		bareTime += drive(b, bare, "bare", n)
		bareCPU += cpuTime() - cpu0
		b.StartTimer()
		done += n
	}
	b.StopTimer()
	relayRate := float64(b.N) / relayTime.Seconds()
	bareRate := float64(b.N) / bareTime.Seconds()
	b.ReportMetric(relayRate, "events/s")
	b.ReportMetric(bareRate, "bare-events/s")
	b.ReportMetric(relayRate/bareRate, "ratio")
	b.ReportMetric(float64(relayCPU.Microseconds())/float64(b.N), "cpu-us/event")
	b.ReportMetric(float64(bareCPU.Microseconds())/float64(b.N), "bare-cpu-us/event")
	m := tr.Metrics()
	if m.Stored != int64(b.N) {
		b.Fatalf("stored %d of %d", m.Stored, b.N)
	}
	b.ReportMetric(float64(m.Stored)/float64(m.Commits), "events/commit")
}

// BenchmarkBareHandler is the same load against a no-op net/http handler.
func BenchmarkBareHandler(b *testing.B) {
	url := bareServer(b)
	b.ReportAllocs()
	b.ResetTimer()
	elapsed := drive(b, url, "bare", int64(b.N))
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "events/s")
}

// BenchmarkLatency sends about 1,000 events/s (one every millisecond) with
// 10 subscribers connected and reports, over every (event, subscriber)
// pair, the time from the relay receiving the webhook to the subscriber
// having it.
func BenchmarkLatency(b *testing.B) {
	tr := startRelay(b, Config{Tolerance: time.Hour})
	var (
		mu  sync.Mutex
		lat = make([]time.Duration, 0, benchSubscribers*b.N)
	)
	waitAll := startBenchSubscribers(b, tr, benchSubscribers, func(e Event) {
		d := time.Since(e.ReceivedAt)
		mu.Lock()
		lat = append(lat, d)
		mu.Unlock()
	})
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: benchSenders}}
	ts := time.Now().UTC().Format(api.WebhookTimeLayout)
	work := make(chan int64, 1024)
	var wg sync.WaitGroup
	for s := 0; s < benchSenders; s++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				req, _ := http.NewRequest(http.MethodPost, tr.base+DefaultPath, bytes.NewReader(benchBody("lat", i)))
				req.Header.Set(api.HeaderWebhookTimestamp, ts)
				if resp, err := client.Do(req); err == nil {
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
			}
		}()
	}
	b.ResetTimer()
	tick := time.NewTicker(time.Millisecond)
	for i := 1; i <= b.N; i++ {
		<-tick.C
		work <- int64(i)
	}
	tick.Stop()
	close(work)
	wg.Wait()
	waitAll(uint64(b.N))
	b.StopTimer()
	mu.Lock()
	defer mu.Unlock()
	slices.Sort(lat)
	pct := func(p float64) float64 {
		return float64(lat[min(len(lat)-1, int(p*float64(len(lat))))]) / float64(time.Millisecond)
	}
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
	b.ReportMetric(float64(len(lat)), "samples")
}

// BenchmarkMemoryRetention pushes 1,000,000 events through the ingest path
// (parse, group commit, dedupe, retention, hub) with RetainCount 10,000
// and reports the live heap and the store file size afterwards. It skips
// HTTP to keep the run to about a minute; memory per event is what it
// shows. Run it alone: go test -run '^$' -bench Memory -benchtime 1x.
func BenchmarkMemoryRetention(b *testing.B) {
	const total, retain = 1_000_000, 10_000
	for n := 0; n < b.N; n++ {
		dir := b.TempDir()
		r, err := Open(Config{StorePath: filepath.Join(dir, "relay.db"), RetainCount: retain})
		if err != nil {
			b.Fatal(err)
		}
		heapAt := func() float64 {
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			return float64(ms.HeapAlloc) / (1 << 20)
		}
		var (
			next   atomic.Int64
			wg     sync.WaitGroup
			at100k float64
			once   sync.Once
		)
		for s := 0; s < benchSenders; s++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := next.Add(1); i <= total; i = next.Add(1) {
					e, err := ParseWebhook(benchBody("mem", i), http.Header{}, time.Now())
					if err != nil {
						b.Error(err)
						return
					}
					if res := r.writer.submit(context.Background(), &e, false); res.err != nil {
						b.Error(res.err)
						return
					}
					if i == 100_000 {
						once.Do(func() { at100k = heapAt() })
					}
				}
			}()
		}
		wg.Wait()
		heap := heapAt()
		first, last, _, err := r.store.bounds()
		if err != nil || last != total || last-first+1 > retain+retentionBatch {
			b.Fatalf("store holds %d..%d (%v)", first, last, err)
		}
		info, _ := os.Stat(filepath.Join(dir, "relay.db"))
		r.Close()
		b.ReportMetric(at100k, "heap-MB@100k")
		b.ReportMetric(heap, "heap-MB")
		b.ReportMetric(float64(info.Size())/(1<<20), "store-MB")
		// Peak resident set of the whole test process, bbolt's mapped
		// pages included (meaningful when this benchmark runs alone).
		var ru syscall.Rusage
		_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		b.ReportMetric(float64(ru.Maxrss)/1024, "peak-RSS-MB")
	}
}
