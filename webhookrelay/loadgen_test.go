package webhookrelay

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/api/testkey"
	"github.com/paydash/paydash/webhookrelay/relayclient"
)

// loadgenEnv makes this test binary the load of BenchmarkIngestRelayOnly:
// the 64 senders and 10 subscribers, in a process of their own, so the
// benchmark process's CPU is the relay's alone. Its value is
// "<relay base URL> <events>".
const loadgenEnv = "WEBHOOKRELAY_TEST_LOADGEN"

// runLoadgenChild signs the events, connects the subscribers, prints
// READY, waits for GO on stdin, sends everything, waits until every
// subscriber has every event, and prints DONE <nanoseconds>.
func runLoadgenChild(spec string) int {
	fail := func(err error) int { fmt.Fprintln(os.Stderr, "loadgen:", err); return 1 }
	var base string
	var n int64
	if _, err := fmt.Sscan(spec, &base, &n); err != nil {
		return fail(err)
	}
	pem, err := os.ReadFile(testkey.Path())
	if err != nil {
		return fail(err)
	}
	key, err := api.ParsePrivateKeyPEM(pem)
	if err != nil {
		return fail(err)
	}
	ts := time.Now().UTC().Format(api.WebhookTimeLayout)
	ds := make([]signedDelivery, n)
	var wg sync.WaitGroup
	var signErr atomic.Value
	procs := int64(runtime.GOMAXPROCS(0))
	for w := range procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += procs {
				body := benchBody("relayonly", i)
				h := http.Header{}
				h.Set("Content-Type", "application/json")
				h.Set(api.HeaderWebhookTimestamp, ts)
				sig, err := api.Sign(key, testKeyID, http.MethodPost, DefaultPath, []api.SignedHeader{{Name: api.HeaderWebhookTimestamp, Value: ts}}, body)
				if err != nil {
					signErr.Store(err)
					return
				}
				h.Set(api.HeaderPayoutSignature, sig)
				ds[i] = signedDelivery{body: body, header: h}
			}
		}()
	}
	wg.Wait()
	if err, _ := signErr.Load().(error); err != nil {
		return fail(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	subs := make([]*relayclient.Subscriber, benchSubscribers)
	for i := range subs {
		subs[i] = relayclient.NewSubscriber(relayclient.SubscriberConfig{URL: "ws" + strings.TrimPrefix(base, "http") + "/ws", MinBackoff: 10 * time.Millisecond, MaxBackoff: 100 * time.Millisecond, Buffer: 4096})
		go func(s *relayclient.Subscriber) { _ = s.Run(ctx) }(subs[i])
		go func(s *relayclient.Subscriber) {
			for range s.Events() {
			}
		}(subs[i])
	}
	fmt.Println("READY")
	in := bufio.NewReader(os.Stdin)
	if line, err := in.ReadString('\n'); err != nil || strings.TrimSpace(line) != "GO" {
		return fail(fmt.Errorf("want GO, got %q: %w", line, err))
	}
	client := benchClient()
	var next, failed atomic.Int64
	start := time.Now()
	for range benchSenders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := next.Add(1) - 1; i < n; i = next.Add(1) - 1 {
				if send(client, base+DefaultPath, ds[i]) != nil {
					failed.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	if f := failed.Load(); f > 0 {
		return fail(fmt.Errorf("%d of %d deliveries failed", f, n))
	}
	for _, s := range subs {
		for s.LastSeq() < uint64(n) {
			time.Sleep(200 * time.Microsecond)
		}
	}
	fmt.Printf("DONE %d\n", time.Since(start).Nanoseconds())
	return 0
}

// BenchmarkIngestRelayOnly is BenchmarkIngest with the senders and the
// 10 subscribers in a child process (on the same 2 cores), so the CPU per
// event it reports is the relay process's alone, beside the verify CPU
// measured in the same run.
func BenchmarkIngestRelayOnly(b *testing.B) {
	tr := startRelay(b, Config{Tolerance: time.Hour, VerifyKey: &testSigningKey(b).PublicKey})
	gen := startChild(b, fmt.Sprintf("%s=%s %d", loadgenEnv, tr.base, b.N))
	lines := gen.out
	if line, err := lines.ReadString('\n'); err != nil || strings.TrimSpace(line) != "READY" {
		b.Fatalf("load generator: %q %v", line, err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for tr.Metrics().Clients < benchSubscribers {
		if time.Now().After(deadline) {
			b.Fatal("subscribers did not connect")
		}
		time.Sleep(time.Millisecond)
	}
	anchor, vcpu := verifyRate(b, time.Second)
	pid := gen.pid
	b.ResetTimer()
	cpu0, load0 := cpuTime(), procCPU(b, pid)
	if _, err := fmt.Fprintln(gen.stdin, "GO"); err != nil {
		b.Fatal(err)
	}
	line, err := lines.ReadString('\n')
	cpu, loadCPU := cpuTime()-cpu0, procCPU(b, pid)-load0
	b.StopTimer()
	ns, perr := strconv.ParseInt(strings.TrimPrefix(strings.TrimSpace(line), "DONE "), 10, 64)
	if err != nil || perr != nil {
		b.Fatalf("load generator: %q %v", line, err)
	}
	anchor2, vcpu2 := verifyRate(b, time.Second)
	anchor, vcpu = (anchor+anchor2)/2, (vcpu+vcpu2)/2
	rate := float64(b.N) / time.Duration(ns).Seconds()
	limit := anchor * float64(runtime.GOMAXPROCS(0))
	perEvent := cpu / time.Duration(b.N)
	b.ReportMetric(rate, "events/s")
	b.ReportMetric(limit, "verify-limit/s")
	b.ReportMetric(rate/limit, "of-limit")
	b.ReportMetric(float64(perEvent.Microseconds()), "relay-cpu-us/event")
	b.ReportMetric(float64(vcpu.Microseconds()), "verify-cpu-us")
	b.ReportMetric(float64(vcpu)/float64(perEvent), "cpu-of-limit")
	b.ReportMetric(float64(loadCPU.Microseconds())/float64(b.N), "load-cpu-us/event")
	if m := tr.Metrics(); m.Stored != int64(b.N) {
		b.Fatalf("stored %d of %d", m.Stored, b.N)
	}
}
