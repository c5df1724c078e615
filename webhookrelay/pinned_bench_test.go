package webhookrelay

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/api/testkey"
)

// BenchmarkPinnedRelay measures the relay alone on one core: the relay is
// this test binary run again as a child process under `taskset -c 1` with
// GOMAXPROCS=1, and this process (64 senders, 10 websocket subscribers)
// pins itself to the other cores, so the load's CPU is not the relay's.
// Every figure is reported beside the one-core ES512 verify rate the
// relay child measures with its own verify call, before and after the
// load, in the same run:
//
//   - ingest: signed webhooks as fast as the relay takes them, counted
//     when all 10 subscribers have them (target >= 0.90 of the verify
//     rate: of-verify-rate);
//   - latency: the same at half the verify rate, from when each webhook
//     was due to each subscriber having it (target p99 <= 10 ms, or <=
//     three verifications where one takes > 3.3 ms);
//   - the parts that are not the signature check, each as the relay's CPU
//     per webhook: redelivery (a byte-identical webhook answered from the
//     store without verifying: HTTP and the lookup), unsigned-0-subs
//     (HTTP, parsing and the fsync'd store), unsigned-10-subs (that plus
//     the fan-out). Differences between them price each part.
//
// Run: go test -run '^$' -bench PinnedRelay -benchtime 3000x -count 3 ./webhookrelay
func BenchmarkPinnedRelay(b *testing.B) {
	relayCPU, loadCPUs := pinnedCPUs(b)
	machineOnce.Do(func() {
		// Printed, not logged: the figures mean little without it.
		fmt.Printf("machine: nproc %d, CPU %q; relay alone on CPU %d (taskset, GOMAXPROCS=1), senders and subscribers on CPUs %s\n",
			runtime.NumCPU(), cpuModel(), relayCPU, loadCPUs)
	})
	b.Run("ingest", func(b *testing.B) { pinnedIngest(b, relayCPU) })
	b.Run("latency", func(b *testing.B) { pinnedLatency(b, relayCPU) })
	b.Run("redelivery", func(b *testing.B) { pinnedCPUPerEvent(b, relayCPU, true, true, 0, benchSenders) })
	b.Run("unsigned-0-subs", func(b *testing.B) { pinnedCPUPerEvent(b, relayCPU, false, false, 0, benchSenders) })
	b.Run("unsigned-10-subs", func(b *testing.B) { pinnedCPUPerEvent(b, relayCPU, false, false, benchSubscribers, benchSenders) })
	b.Run("store-1-per-commit", func(b *testing.B) { pinnedCPUPerEvent(b, relayCPU, false, false, 0, 1) })
}

var machineOnce sync.Once

// pinnedCPUs picks CPU 1 for the relay and pins this process (every
// thread, with taskset -a) to all the others.
func pinnedCPUs(b *testing.B) (int, string) {
	b.Helper()
	if runtime.NumCPU() < 2 {
		b.Skip("needs two CPUs: one for the relay alone, one for the load")
	}
	if _, err := exec.LookPath("taskset"); err != nil {
		b.Skip("needs taskset (util-linux) to pin the relay to one CPU")
	}
	const relayCPU = 1
	var others []string
	for c := range runtime.NumCPU() {
		if c != relayCPU {
			others = append(others, strconv.Itoa(c))
		}
	}
	loadCPUs := strings.Join(others, ",")
	if out, err := exec.Command("taskset", "-a", "-p", "-c", loadCPUs, strconv.Itoa(os.Getpid())).CombinedOutput(); err != nil {
		b.Fatalf("taskset -a -p -c %s: %v: %s", loadCPUs, err, out)
	}
	return relayCPU, loadCPUs
}

// cpuModel is the first "model name" of /proc/cpuinfo.
func cpuModel() string {
	data, _ := os.ReadFile("/proc/cpuinfo")
	for line := range strings.Lines(string(data)) {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}

// pinnedRelayEnv makes this test binary the pinned relay child; its value
// is "signed" (the relay verifies with the test key) or "unsigned".
const pinnedRelayEnv = "WEBHOOKRELAY_TEST_PINNED_RELAY"

// pinnedRelayProfileEnv, set to a file path, has the pinned relay write
// its CPU profile there (the last child started wins).
const pinnedRelayProfileEnv = "WEBHOOKRELAY_PINNED_RELAY_CPUPROFILE"

// pinnedRelay is the relay child, driven over its stdin and stdout.
type pinnedRelay struct {
	base  string
	stdin io.Writer
	out   *bufio.Reader
	pid   int
}

func startPinnedRelay(b *testing.B, cpu int, signed bool) *pinnedRelay {
	b.Helper()
	mode := "unsigned"
	if signed {
		mode = "signed"
	}
	cmd := exec.Command("taskset", "-c", strconv.Itoa(cpu), os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "GOMAXPROCS=1", pinnedRelayEnv+"="+mode)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { stdin.Close(); _ = cmd.Wait() })
	p := &pinnedRelay{stdin: stdin, out: bufio.NewReader(out), pid: cmd.Process.Pid}
	p.base = strings.TrimPrefix(p.read(b, "ADDR"), "ADDR ")
	return p
}

func (p *pinnedRelay) read(b *testing.B, prefix string) string {
	b.Helper()
	line, err := p.out.ReadString('\n')
	line = strings.TrimSpace(line)
	if err != nil || !strings.HasPrefix(line, prefix) {
		b.Fatalf("pinned relay: want %s, got %q (%v)", prefix, line, err)
	}
	return line
}

// ask sends one command and parses the numbers of its answer.
func (p *pinnedRelay) ask(b *testing.B, cmd string) []float64 {
	b.Helper()
	if _, err := fmt.Fprintln(p.stdin, cmd); err != nil {
		b.Fatal(err)
	}
	var nums []float64
	for _, f := range strings.Fields(p.read(b, strings.Fields(cmd)[0]))[1:] {
		v, err := strconv.ParseFloat(f, 64)
		if err != nil {
			b.Fatal(err)
		}
		nums = append(nums, v)
	}
	return nums
}

// verifyRate has the relay child verify one signed webhook with its own
// call, in one goroutine on its core, for d: verifies/s and CPU per verify.
func (p *pinnedRelay) verifyRate(b *testing.B, d time.Duration) (float64, time.Duration) {
	v := p.ask(b, fmt.Sprintf("VERIFY %d", d.Milliseconds()))
	return v[0], time.Duration(v[1])
}

func (p *pinnedRelay) cpu(b *testing.B) time.Duration { return time.Duration(p.ask(b, "CPU")[0]) }

// stats: stored, duplicates answered without verifying, clients.
func (p *pinnedRelay) stats(b *testing.B) (stored, dupUnverified, clients int64) {
	v := p.ask(b, "STATS")
	return int64(v[0]), int64(v[1]), int64(v[2])
}

// commits is how many store transactions took webhooks so far.
func (p *pinnedRelay) commits(b *testing.B) int64 { return int64(p.ask(b, "STATS")[3]) }

func (p *pinnedRelay) wsURL() string { return "ws" + strings.TrimPrefix(p.base, "http") + "/ws" }

// pinnedSubscribers connects n subscribers to the child; onEvent (if set)
// sees each event; the function returned waits until each has seq target.
func pinnedSubscribers(b *testing.B, p *pinnedRelay, n int, onEvent func(Event)) func(target uint64) {
	b.Helper()
	return connectSubscribers(b, p.wsURL(), n, onEvent, func() int64 {
		_, _, c := p.stats(b)
		return c
	})
}

func pinnedIngest(b *testing.B, cpu int) {
	p := startPinnedRelay(b, cpu, true)
	waitAll := pinnedSubscribers(b, p, benchSubscribers, nil)
	ds := signDeliveries(b, "pinned", DefaultPath, 0, int64(b.N))
	client := benchClient()
	defer client.CloseIdleConnections()
	rate1, vcpu1 := p.verifyRate(b, time.Second)
	b.ResetTimer()
	cpu0, start := p.cpu(b), time.Now()
	drive(b, client, p.base+DefaultPath, ds)
	waitAll(uint64(b.N))
	elapsed, relayCPU := time.Since(start), p.cpu(b)-cpu0
	b.StopTimer()
	rate2, vcpu2 := p.verifyRate(b, time.Second)
	verify, vcpu := (rate1+rate2)/2, (vcpu1+vcpu2)/2
	rate := float64(b.N) / elapsed.Seconds()
	perEvent := relayCPU / time.Duration(b.N)
	b.ReportMetric(rate, "events/s")
	b.ReportMetric(verify, "verify/s")
	b.ReportMetric(rate/verify, "of-verify-rate")
	b.ReportMetric(float64(perEvent.Microseconds()), "relay-cpu-us/event")
	b.ReportMetric(float64(vcpu.Microseconds()), "verify-cpu-us")
	b.ReportMetric(float64(vcpu)/float64(perEvent), "verify-share")
	stored, _, _ := p.stats(b)
	if stored != int64(b.N) {
		b.Fatalf("stored %d of %d", stored, b.N)
	}
	// Signature checks one at a time on one core hand the store fewer
	// webhooks per commit than an unsigned flood: the store's cost per
	// event is its cost per commit (store-1-per-commit) over this.
	b.ReportMetric(float64(stored)/float64(p.commits(b)), "events/commit")
}

func pinnedLatency(b *testing.B, cpu int) {
	p := startPinnedRelay(b, cpu, true)
	rec := newLatencyRecorder(benchSubscribers * b.N)
	waitAll := pinnedSubscribers(b, p, benchSubscribers, rec.got)
	client := benchClient()
	defer client.CloseIdleConnections()
	ds := signDeliveries(b, "pinnedlat", DefaultPath, 0, int64(b.N))
	verify, vcpu := p.verifyRate(b, time.Second)
	offered := verify / 2
	rec.measure.Store(true)
	work := make(chan signedDelivery, 1024)
	var wg sync.WaitGroup
	for range benchSenders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for d := range work {
				if err := send(client, p.base+DefaultPath, d); err != nil {
					b.Error(err)
				}
			}
		}()
	}
	b.ResetTimer()
	interval := time.Duration(float64(time.Second) / offered)
	t0 := time.Now()
	for i, d := range ds {
		// Counted from when the webhook was due, not from when a sender
		// got to it (no coordinated omission).
		at := t0.Add(time.Duration(i) * interval)
		if wait := time.Until(at); wait > 0 {
			time.Sleep(wait)
		}
		rec.due.Store(d.id, at)
		work <- d
	}
	close(work)
	wg.Wait()
	waitAll(uint64(b.N))
	b.StopTimer()
	verify2, vcpu2 := p.verifyRate(b, time.Second)
	verify, vcpu = (verify+verify2)/2, (vcpu+vcpu2)/2
	lat := rec.sorted()
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	pct := func(q float64) time.Duration { return lat[min(len(lat)-1, int(q*float64(len(lat))))] }
	b.ReportMetric(ms(pct(0.50)), "p50-ms")
	b.ReportMetric(ms(pct(0.99)), "p99-ms")
	b.ReportMetric(ms(lat[len(lat)-1]), "max-ms")
	b.ReportMetric(offered, "offered/s")
	b.ReportMetric(verify, "verify/s")
	b.ReportMetric(ms(vcpu), "verify-ms")
	b.ReportMetric(float64(pct(0.99))/float64(vcpu), "p99-in-verifies")
}

// pinnedCPUPerEvent reports the relay's CPU per webhook for one mix of
// parts: signed or not, redelivered (answered from the store without
// verifying) or new, with subs subscribers, from senders senders (one:
// each webhook is its own commit).
func pinnedCPUPerEvent(b *testing.B, cpu int, signed, redeliver bool, subs, senders int) {
	p := startPinnedRelay(b, cpu, signed)
	var waitAll func(uint64)
	if subs > 0 {
		waitAll = pinnedSubscribers(b, p, subs, nil)
	}
	var ds []signedDelivery
	if signed {
		ds = signDeliveries(b, "parts", DefaultPath, 0, int64(b.N))
	} else {
		ds = make([]signedDelivery, b.N)
		for i := range ds {
			h := http.Header{}
			h.Set("Content-Type", "application/json")
			h.Set(api.HeaderWebhookTimestamp, time.Now().UTC().Format(api.WebhookTimeLayout))
			ds[i] = signedDelivery{id: fmt.Sprintf("parts-%09d", i), body: benchBody("parts", int64(i)), header: h}
		}
	}
	client := benchClient()
	defer client.CloseIdleConnections()
	if redeliver {
		drive(b, client, p.base+DefaultPath, ds)
	}
	_, vcpu := p.verifyRate(b, 500*time.Millisecond)
	commits0 := p.commits(b)
	b.ResetTimer()
	cpu0, start := p.cpu(b), time.Now()
	if senders == 1 {
		for _, d := range ds {
			if err := send(client, p.base+DefaultPath, d); err != nil {
				b.Fatal(err)
			}
		}
	} else {
		drive(b, client, p.base+DefaultPath, ds)
	}
	if waitAll != nil {
		waitAll(uint64(b.N))
	}
	elapsed, relayCPU := time.Since(start), p.cpu(b)-cpu0
	b.StopTimer()
	perEvent := relayCPU / time.Duration(b.N)
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "events/s")
	b.ReportMetric(float64(perEvent.Microseconds()), "relay-cpu-us/event")
	b.ReportMetric(float64(vcpu.Microseconds()), "verify-cpu-us")
	b.ReportMetric(float64(perEvent)/float64(vcpu), "of-a-verify")
	if !redeliver {
		b.ReportMetric(float64(b.N)/float64(p.commits(b)-commits0), "events/commit")
	}
	stored, dups, _ := p.stats(b)
	if redeliver && dups != int64(b.N) {
		b.Fatalf("%d of %d redeliveries answered without verifying", dups, b.N)
	}
	if stored != int64(b.N) {
		b.Fatalf("stored %d of %d", stored, b.N)
	}
}

// runPinnedRelayChild serves a relay (verifying with the test key when
// mode is "signed") on a fresh store, prints "ADDR <base URL>", and
// answers commands on stdin until it closes:
//
//	VERIFY <ms>  -> VERIFY <verifies/s> <CPU ns per verify>
//	CPU          -> CPU <process CPU ns so far>
//	STATS        -> STATS <stored> <duplicates unverified> <clients> <commits>
func runPinnedRelayChild(mode string) int {
	fail := func(err error) int { fmt.Fprintln(os.Stderr, "pinned relay:", err); return 1 }
	dir, err := os.MkdirTemp("", "pinned-relay")
	if err != nil {
		return fail(err)
	}
	defer os.RemoveAll(dir)
	pem, err := os.ReadFile(testkey.Path())
	if err != nil {
		return fail(err)
	}
	key, err := api.ParsePrivateKeyPEM(pem)
	if err != nil {
		return fail(err)
	}
	if path := os.Getenv(pinnedRelayProfileEnv); path != "" {
		// The relay's own CPU profile, written when it exits.
		f, err := os.Create(path)
		if err != nil {
			return fail(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			return fail(err)
		}
		defer f.Close()
		defer pprof.StopCPUProfile()
	}
	cfg := Config{StorePath: filepath.Join(dir, "relay.db"), Tolerance: time.Hour}
	if mode == "signed" {
		cfg.VerifyKey = &key.PublicKey
	}
	r, err := Open(cfg)
	if err != nil {
		return fail(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fail(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	served := make(chan error, 1)
	go func() { served <- r.Serve(ctx, ln) }()
	fmt.Printf("ADDR http://%s\n", ln.Addr())

	// The anchor's webhook, signed here like the service signs.
	ts := time.Now().UTC().Format(api.WebhookTimeLayout)
	body := benchBody("anchor", 0)
	sig, err := api.Sign(key, testKeyID, http.MethodPost, DefaultPath, []api.SignedHeader{{Name: api.HeaderWebhookTimestamp, Value: ts}}, body)
	if err != nil {
		return fail(err)
	}
	h := http.Header{}
	h.Set(api.HeaderWebhookTimestamp, ts)
	h.Set(api.HeaderPayoutSignature, sig)
	v := newVerifier(Config{VerifyKey: &key.PublicKey})

	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		f := strings.Fields(in.Text())
		if len(f) == 0 {
			continue
		}
		switch f[0] {
		case "VERIFY":
			ms, _ := strconv.Atoi(f[1])
			n, start, cpu0 := 0, time.Now(), cpuTime()
			for time.Since(start) < time.Duration(ms)*time.Millisecond {
				if err := v.verify(context.Background(), DefaultPath, h, body); err != nil {
					return fail(err)
				}
				n++
			}
			fmt.Printf("VERIFY %f %d\n", float64(n)/time.Since(start).Seconds(), int64((cpuTime()-cpu0)/time.Duration(n)))
		case "CPU":
			fmt.Printf("CPU %d\n", int64(cpuTime()))
		case "STATS":
			m := r.Metrics()
			fmt.Printf("STATS %d %d %d %d\n", m.Stored, m.DuplicatesUnverified, m.Clients, m.Commits)
		default:
			return fail(fmt.Errorf("unknown command %q", f[0]))
		}
	}
	cancel()
	if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fail(err)
	}
	if err := r.Close(); err != nil {
		return fail(err)
	}
	return 0
}
