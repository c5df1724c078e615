package webhookrelay

import (
	"bytes"
	"context"
	"fmt"
	"io"
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

// Benchmarks run the product path: the relay holds the P-521 public key
// and verifies every webhook's ES512 signature; bodies are signed like the
// service's (payout envelope, X-Svc-Webhook-Timestamp covered by the
// signature); 10 websocket subscribers are connected and an event counts
// only once every one of them has it. Signing happens before the clock
// starts (the service signs, not the relay's host). Senders and
// subscribers run in the benchmark process, on the same cores as the
// relay, so their CPU counts against it.
const (
	benchSenders     = 64
	benchSubscribers = 10
)

func benchBody(run string, i int64) []byte {
	return []byte(fmt.Sprintf(`{"event_type":"payout_settled","event_id":"%s-%09d","event_body":{"transaction_id":"3f2a9c1e-5b7d-4e8f-9a0b-%012d","settled_at":"2026-11-21T10:15:30.000Z"}}`, run, i, i))
}

// signedDelivery is one webhook ready to send.
type signedDelivery struct {
	id     string
	body   []byte
	header http.Header
}

// signDeliveries signs n webhooks for path, numbered from first.
func signDeliveries(b testing.TB, run, path string, first, n int64) []signedDelivery {
	b.Helper()
	return signDeliveriesOf(b, run, path, first, n, benchBody)
}

// signDeliveriesOf signs n webhooks with bodies made by body.
func signDeliveriesOf(b testing.TB, run, path string, first, n int64, body func(run string, i int64) []byte) []signedDelivery {
	b.Helper()
	key := testSigningKey(b)
	ts := time.Now().UTC().Format(api.WebhookTimeLayout)
	out := make([]signedDelivery, n)
	var wg sync.WaitGroup
	for w := range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int64(w); i < n; i += int64(runtime.GOMAXPROCS(0)) {
				body := body(run, first+i)
				h := http.Header{}
				h.Set("Content-Type", "application/json")
				h.Set(api.HeaderWebhookTimestamp, ts)
				out[i] = signedDelivery{id: fmt.Sprintf("%s-%09d", run, first+i), body: body, header: sign(b, key, testKeyID, path, h, body)}
			}
		}()
	}
	wg.Wait()
	return out
}

func benchClient() *http.Client {
	return &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: benchSenders, MaxConnsPerHost: benchSenders}}
}

// send posts one delivery and fails unless it is acknowledged.
func send(client *http.Client, url string, d signedDelivery) error {
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(d.body))
	req.Header = d.header
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	return nil
}

// drive posts deliveries from benchSenders goroutines as fast as they are
// answered and returns the wall time taken.
func drive(b testing.TB, client *http.Client, url string, ds []signedDelivery) time.Duration {
	b.Helper()
	var (
		next   atomic.Int64
		failed atomic.Int64
		wg     sync.WaitGroup
	)
	start := time.Now()
	for range benchSenders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := next.Add(1) - 1; i < int64(len(ds)); i = next.Add(1) - 1 {
				if send(client, url, ds[i]) != nil {
					failed.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	if f := failed.Load(); f > 0 {
		b.Fatalf("%d of %d deliveries failed", f, len(ds))
	}
	return elapsed
}

// startBenchSubscribers connects n subscribers that drain their events and
// returns a function waiting until each has seen seq target.
func startBenchSubscribers(b testing.TB, tr *testRelay, n int, onEvent func(Event)) func(target uint64) {
	b.Helper()
	return connectSubscribers(b, tr.wsURL(), n, onEvent, func() int64 { return tr.Metrics().Clients })
}

// connectSubscribers connects n subscribers to the relay at wsURL; onEvent
// (if set) sees each event. It waits until the relay counts n clients
// (clients), and returns a function waiting until each has seq target.
func connectSubscribers(b testing.TB, wsURL string, n int, onEvent func(Event), clients func() int64) func(target uint64) {
	b.Helper()
	subs := make([]*relayclient.Subscriber, n)
	for i := range subs {
		subs[i] = relayclient.NewSubscriber(relayclient.SubscriberConfig{URL: wsURL, MinBackoff: 10 * time.Millisecond, MaxBackoff: 100 * time.Millisecond, Buffer: 4096})
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
	for clients() < int64(n) {
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

// cpuTime is the process's user+system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// verifyRate measures the anchor: single-goroutine ES512 verifications
// per second of the relay's own verify call, over about d, and the CPU
// time one takes (the process's CPU over the loop, which on a machine
// shared with other work is steadier than the wall-clock rate).
func verifyRate(b testing.TB, d time.Duration) (perSec float64, cpu time.Duration) {
	b.Helper()
	ds := signDeliveries(b, "anchor", DefaultPath, 0, 1)
	v := newVerifier(Config{VerifyKey: &testSigningKey(b).PublicKey})
	n, start, cpu0 := 0, time.Now(), cpuTime()
	for time.Since(start) < d {
		if err := v.verify(context.Background(), DefaultPath, ds[0].header, ds[0].body); err != nil {
			b.Fatal(err)
		}
		n++
	}
	return float64(n) / time.Since(start).Seconds(), (cpuTime() - cpu0) / time.Duration(n)
}

// BenchmarkVerifyES512 is the anchor alone: one goroutine verifying one
// signed webhook with the relay's verify call. GOMAXPROCS times its rate
// is the most webhooks any relay on this machine can accept.
func BenchmarkVerifyES512(b *testing.B) {
	ds := signDeliveries(b, "anchor", DefaultPath, 0, 1)
	v := newVerifier(Config{VerifyKey: &testSigningKey(b).PublicKey})
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if err := v.verify(context.Background(), DefaultPath, ds[0].header, ds[0].body); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	rate := float64(b.N) / b.Elapsed().Seconds()
	b.ReportMetric(rate, "verifies/s")
	b.ReportMetric(rate*float64(runtime.GOMAXPROCS(0)), "limit-events/s")
}

// BenchmarkVerifyES512Parallel runs the same verify call on every P at
// once: what this machine's cores verify together, which on shared or
// SMT cores is less than GOMAXPROCS times the single-core rate.
func BenchmarkVerifyES512Parallel(b *testing.B) {
	ds := signDeliveries(b, "anchor", DefaultPath, 0, 1)
	v := newVerifier(Config{VerifyKey: &testSigningKey(b).PublicKey})
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := api.Verify(v.static, ds[0].header.Get(api.HeaderPayoutSignature), http.MethodPost, DefaultPath, ds[0].header, ds[0].body, api.HeaderWebhookTimestamp); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "verifies/s")
}

// BenchmarkIngest measures durable, verified ingest (each 200 sent after
// the signature check and the fsynced commit) with 10 subscribers, until
// every subscriber has every event, and the anchor in the same run: the
// single-core verify rate, measured just before and just after, times
// GOMAXPROCS. It reports events/s, the anchor, their ratio, and CPU per
// event (senders' and subscribers' share included).
func BenchmarkIngest(b *testing.B) {
	tr := startRelay(b, Config{Tolerance: time.Hour, VerifyKey: &testSigningKey(b).PublicKey})
	waitAll := startBenchSubscribers(b, tr, benchSubscribers, nil)
	ds := signDeliveries(b, "ingest", DefaultPath, 0, int64(b.N))
	client := benchClient()
	defer client.CloseIdleConnections()
	anchor, vcpu := verifyRate(b, time.Second)
	b.ReportAllocs()
	b.ResetTimer()
	cpu0, start := cpuTime(), time.Now()
	drive(b, client, tr.base+DefaultPath, ds)
	waitAll(uint64(b.N))
	elapsed, cpu := time.Since(start), cpuTime()-cpu0
	b.StopTimer()
	anchor2, vcpu2 := verifyRate(b, time.Second)
	anchor, vcpu = (anchor+anchor2)/2, (vcpu+vcpu2)/2
	limit := anchor * float64(runtime.GOMAXPROCS(0))
	rate := float64(b.N) / elapsed.Seconds()
	perEvent := cpu / time.Duration(b.N)
	b.ReportMetric(rate, "events/s")
	b.ReportMetric(limit, "verify-limit/s")
	b.ReportMetric(rate/limit, "of-limit")
	b.ReportMetric(float64(perEvent.Microseconds()), "cpu-us/event")
	b.ReportMetric(float64(vcpu.Microseconds()), "verify-cpu-us")
	// The same ratio in CPU: what share of the CPU an event costs is the
	// signature check, the rest being HTTP, parsing, storing and fan-out.
	b.ReportMetric(float64(vcpu)/float64(perEvent), "cpu-of-limit")
	m := tr.Metrics()
	if m.Stored != int64(b.N) {
		b.Fatalf("stored %d of %d", m.Stored, b.N)
	}
	b.ReportMetric(float64(m.Stored)/float64(m.Commits), "events/commit")
}

// BenchmarkIngestRedelivery sends every event twice: the second, byte for
// byte the same, is answered duplicate without verifying. It reports the
// redelivery rate beside the anchor.
func BenchmarkIngestRedelivery(b *testing.B) {
	tr := startRelay(b, Config{Tolerance: time.Hour, VerifyKey: &testSigningKey(b).PublicKey})
	ds := signDeliveries(b, "redeliver", DefaultPath, 0, int64(b.N))
	client := benchClient()
	defer client.CloseIdleConnections()
	drive(b, client, tr.base+DefaultPath, ds)
	anchor, _ := verifyRate(b, time.Second)
	b.ResetTimer()
	elapsed := drive(b, client, tr.base+DefaultPath, ds)
	b.StopTimer()
	m := tr.Metrics()
	if m.DuplicatesUnverified != int64(b.N) {
		b.Fatalf("%d of %d redeliveries skipped verification", m.DuplicatesUnverified, b.N)
	}
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "redeliveries/s")
	b.ReportMetric(anchor*float64(runtime.GOMAXPROCS(0)), "verify-limit/s")
}

// latencyRecorder times each event from when it was due to when a
// subscriber got it, counting only once measure is set (warm-up events are
// not counted). The latency benchmarks share it.
type latencyRecorder struct {
	due     sync.Map // event id -> time.Time it was due
	measure atomic.Bool
	mu      sync.Mutex
	lat     []time.Duration
}

func newLatencyRecorder(n int) *latencyRecorder {
	return &latencyRecorder{lat: make([]time.Duration, 0, n)}
}

// got is the subscribers' callback.
func (r *latencyRecorder) got(e Event) {
	now := time.Now()
	if !r.measure.Load() {
		return
	}
	if t0, ok := r.due.Load(e.EventID); ok {
		r.mu.Lock()
		r.lat = append(r.lat, now.Sub(t0.(time.Time)))
		r.mu.Unlock()
	}
}

// sorted is every latency recorded, in order; call it once the
// subscribers have every event.
func (r *latencyRecorder) sorted() []time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	slices.Sort(r.lat)
	return r.lat
}

// BenchmarkLatency measures, with 10 subscribers, the time from a signed
// webhook being due to be sent to each subscriber having it,
// at half the capacity measured in the same run: first a saturating
// burst of 1,500 events sets the capacity, then b.N events are sent at
// half that rate, evenly spaced. p50/p99/max are over every (event,
// subscriber) pair; ack-p50/ack-p99, from due to the sender's 2xx, say
// how much of that is before the answer (verify and commit) and how much
// the fan-out.
func BenchmarkLatency(b *testing.B) {
	tr := startRelay(b, Config{Tolerance: time.Hour, VerifyKey: &testSigningKey(b).PublicKey})
	rec := newLatencyRecorder(benchSubscribers * b.N)
	waitAll := startBenchSubscribers(b, tr, benchSubscribers, rec.got)
	client := benchClient()
	defer client.CloseIdleConnections()
	const burst = 1500
	warm := signDeliveries(b, "capacity", DefaultPath, 0, burst)
	ds := signDeliveries(b, "lat", DefaultPath, 0, int64(b.N))
	start := time.Now()
	drive(b, client, tr.base+DefaultPath, warm)
	waitAll(burst)
	capacity := burst / time.Since(start).Seconds()
	offered := capacity / 2
	anchor, _ := verifyRate(b, time.Second)
	rec.measure.Store(true)
	work := make(chan signedDelivery, 1024)
	var (
		wg    sync.WaitGroup
		ackMu sync.Mutex
		acks  = make([]time.Duration, 0, b.N)
	)
	for range benchSenders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for d := range work {
				if err := send(client, tr.base+DefaultPath, d); err != nil {
					b.Error(err)
				}
				if t0, ok := rec.due.Load(d.id); ok {
					ack := time.Since(t0.(time.Time))
					ackMu.Lock()
					acks = append(acks, ack)
					ackMu.Unlock()
				}
			}
		}()
	}
	b.ResetTimer()
	interval := time.Duration(float64(time.Second) / offered)
	t0 := time.Now()
	for i, d := range ds {
		// Latency counts from when the event was due, not from when a
		// sender got to it: a late sender is part of the delay (no
		// coordinated omission).
		due := t0.Add(time.Duration(i) * interval)
		if wait := time.Until(due); wait > 0 {
			time.Sleep(wait)
		}
		rec.due.Store(d.id, due)
		work <- d
	}
	close(work)
	wg.Wait()
	waitAll(uint64(burst + b.N))
	b.StopTimer()
	lat := rec.sorted()
	slices.Sort(acks)
	pct := func(lat []time.Duration, p float64) float64 {
		return float64(lat[min(len(lat)-1, int(p*float64(len(lat))))]) / float64(time.Millisecond)
	}
	b.ReportMetric(pct(lat, 0.50), "p50-ms")
	b.ReportMetric(pct(lat, 0.99), "p99-ms")
	// The sender's answer splits the path: due → 200 (verify and commit)
	// against due → subscriber (that plus the fan-out).
	b.ReportMetric(pct(acks, 0.50), "ack-p50-ms")
	b.ReportMetric(pct(acks, 0.99), "ack-p99-ms")
	b.ReportMetric(float64(lat[len(lat)-1])/float64(time.Millisecond), "max-ms")
	b.ReportMetric(offered, "offered-events/s")
	b.ReportMetric(capacity, "capacity-events/s")
	b.ReportMetric(anchor*float64(runtime.GOMAXPROCS(0)), "verify-limit/s")
	b.ReportMetric(float64(len(lat)), "samples")
}

// BenchmarkMemoryRetention pushes 1,000,000 events through the ingest path
// (parse, group commit, dedupe, retention, fan-out) with RetainCount 10,000
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
