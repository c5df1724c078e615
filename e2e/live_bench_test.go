package e2e

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paydash/paydash/api"
)

// Knobs of BenchmarkLiveAtVolume, from the environment so the documented
// command stays one line: PAYDASH_LIVE_DURATION (default 4m) is how long
// events flow, PAYDASH_LIVE_RATE (default 100) how many a second, and
// PAYDASH_LIVE_IDLE (default 20s) how long each quiet phase lasts.
func liveKnobs(tb testing.TB) (dur time.Duration, rate int, idle time.Duration) {
	dur, rate, idle = 4*time.Minute, 100, 20*time.Second
	if v := os.Getenv("PAYDASH_LIVE_DURATION"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			tb.Fatalf("PAYDASH_LIVE_DURATION: %v", err)
		}
		dur = d
	}
	if v := os.Getenv("PAYDASH_LIVE_RATE"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			tb.Fatalf("PAYDASH_LIVE_RATE=%q: want events per second", v)
		}
		rate = n
	}
	if v := os.Getenv("PAYDASH_LIVE_IDLE"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			tb.Fatalf("PAYDASH_LIVE_IDLE: %v", err)
		}
		idle = d
	}
	return dur, rate, idle
}

// The dashboard's caps (ui.maxEvents, the default tracker_keep_final).
const (
	eventsCap  = 20000
	trackerCap = 1000
)

// BenchmarkLiveAtVolume measures the dashboard on the path a person runs
// at a busy hour: `paydash demo --headless` (the sandbox signs each
// webhook, the relay verifies every signature, stores it and streams
// it), the dashboard attached from another process in a 120x40
// pseudo-terminal, and events at 100 a second for 4 minutes, crossing the
// Events view's 20,000 cap and the tracker's 1,000. The dashboard is
// pinned to core 0; the demo, this load generator and the terminal
// emulator to core 1.
//
// Beside the same figures with no events flowing (before the load, and
// after it with 20,000 events held) it reports: key-to-screen latency,
// median and worst, for Events filter keystrokes and for every other key
// (a key is written to the pty and timed until the screen shows its
// effect); the dashboard's CPU per 1,000 events in the first and the
// last third; its RSS (/proc, whole process) growth per 10,000 events
// after the caps; and whether the count on screen equals the relay's.
//
//	go test ./e2e -run '^$' -bench LiveAtVolume -benchtime 1x -timeout 20m
//	PAYDASH_LIVE_DURATION=40s go test ./e2e -run '^$' -bench LiveAtVolume -benchtime 1x   # a quick run
//	PAYDASH_PPROF_DIR=/tmp/prof PAYDASH_PPROF_EVERY=20s go test ./e2e …   # the dashboard's CPU and heap profiles per 20s
func BenchmarkLiveAtVolume(b *testing.B) {
	if raceEnabled {
		b.Skip("figures are for the normal build")
	}
	dur, rate, idle := liveKnobs(b)
	pinned := pinSelf(b)
	for b.Loop() {
		runLiveAtVolume(b, dur, rate, idle, pinned)
	}
}

// pinSelf moves this process (load generator, terminal emulator) to core
// 1, leaving core 0 to the dashboard; it reports whether it could.
func pinSelf(b *testing.B) bool {
	if runtime.NumCPU() < 2 {
		b.Log("one core: nothing pinned")
		return false
	}
	if _, err := exec.LookPath("taskset"); err != nil {
		b.Log("no taskset: nothing pinned")
		return false
	}
	if out, err := exec.Command("taskset", "-a", "-cp", "1", strconv.Itoa(os.Getpid())).CombinedOutput(); err != nil {
		b.Fatalf("taskset: %v %s", err, out)
	}
	return true
}

func onCore(pinned bool, core string, argv ...string) *exec.Cmd {
	if pinned {
		return exec.Command("taskset", append([]string{"-c", core}, argv...)...)
	}
	return exec.Command(argv[0], argv[1:]...)
}

// liveFigures are one phase's measurements.
type liveFigures struct {
	filterKeys, otherKeys []time.Duration
	// filterKeysFull are the filter keystrokes typed while the Events
	// view held its full 20,000.
	filterKeysFull []time.Duration
	slowest        []slowKey // the five slowest keys, slowest first
}

// slowKey says which key was slow and when, to set it beside the load,
// and how much of it the dashboard spent on a core and waiting for one
// (its threads' /proc schedstat): a key that waited is the machine's
// load, one that ran is the dashboard's work.
type slowKey struct {
	key       string
	at        time.Time
	d         time.Duration
	ran, wait time.Duration
}

func (f *liveFigures) add(filter, full bool, k slowKey) {
	if filter && full {
		f.filterKeysFull = append(f.filterKeysFull, k.d)
	}
	if filter {
		f.filterKeys = append(f.filterKeys, k.d)
	} else {
		f.otherKeys = append(f.otherKeys, k.d)
	}
	f.slowest = append(f.slowest, k)
	slices.SortFunc(f.slowest, func(a, b slowKey) int { return int(b.d - a.d) })
	f.slowest = f.slowest[:min(len(f.slowest), 5)]
}

func (f *liveFigures) slowText(t0 time.Time) string {
	var parts []string
	for _, k := range f.slowest {
		parts = append(parts, fmt.Sprintf("%q %.0fms at %+.0fs (its threads ran %.0fms, waited for a core %.0fms)", k.key,
			float64(k.d.Microseconds())/1000, k.at.Sub(t0).Seconds(), float64(k.ran.Microseconds())/1000, float64(k.wait.Microseconds())/1000))
	}
	return strings.Join(parts, ", ")
}

func medianWorst(ds []time.Duration) (med, worst float64) {
	med, _, worst = quantiles(ds)
	return med, worst
}

// quantiles are the median, the 95th percentile and the worst, in ms.
func quantiles(ds []time.Duration) (med, p95, worst float64) {
	if len(ds) == 0 {
		return 0, 0, 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	return ms(s[len(s)/2]), ms(s[len(s)*95/100]), ms(s[len(s)-1])
}

// sample is the dashboard's CPU and RSS when the relay had stored n
// events.
type sample struct {
	at  time.Time
	n   int64
	cpu time.Duration
	rss int64 // KiB
}

func runLiveAtVolume(b *testing.B, dur time.Duration, rate int, idle time.Duration, pinned bool) {
	env := isolatedEnv(b)
	addrs := startBenchDemo(b, env, pinned, "1", time.Minute, "--activity=false", "--history", "5000", "--step-delay", "1s")
	cfg := addrs.cfg
	relay := relayCounter{url: "http://" + addrs.Relay + "/metrics"}

	// PAYDASH_PPROF_DIR (and PAYDASH_PPROF_EVERY) reach the dashboard
	// only: its CPU and heap profiles per window, for developers.
	dashEnv := slices.Clone(env)
	for _, k := range []string{"PAYDASH_PPROF_DIR", "PAYDASH_PPROF_EVERY"} {
		if v := os.Getenv(k); v != "" {
			dashEnv = append(dashEnv, k+"="+v)
		}
	}
	s := startScreenCmd(b, dashEnv, onCore(pinned, "0", bin, "--config", cfg))
	s.waitText(60*time.Second, "Faster Payments", "relay: live")
	pid := s.cmd.Process.Pid
	s.press("4")
	s.waitText(10*time.Second, "0 of 0 events")

	var latest atomic.Int64
	keys := liveKeys{s: s, pid: pid, stored: &latest}
	// Quiet, before any event: the anchors.
	quiet0 := keys.phase(idle, nil)
	cpu0, rss0 := procCPU(b, pid), procStatus(b, pid, "VmRSS")
	time.Sleep(idle / 2)
	idleCPU0 := procCPU(b, pid) - cpu0
	idleRSS0 := procStatus(b, pid, "VmRSS") - rss0

	// The load: events on a fixed schedule, from a pool of senders so a
	// slow answer does not delay the next.
	gen := newLoadGen("http://"+addrs.Sandbox+"/sandbox/events", rate)
	var samples []sample
	var smu sync.Mutex
	stopSampling := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			n, _ := relay.stored()
			latest.Store(n)
			cpu, rss, ok := procNow(pid)
			if !ok {
				return // the dashboard exited: the test goroutine reports it
			}
			smu.Lock()
			samples = append(samples, sample{at: time.Now(), n: n, cpu: cpu, rss: rss})
			smu.Unlock()
			select {
			case <-stopSampling:
				return
			case <-t.C:
			}
		}
	}()
	// The load lasts until the relay has stored every event sent: on a
	// busy machine the sandbox's deliveries lag the schedule, and the
	// keys keep being timed while events still flow.
	var genEnd time.Time
	var stored int64
	var stall string
	flowing := make(chan struct{})
	go func() {
		defer close(flowing)
		gen.run(dur)
		genEnd = time.Now()
		want, before := gen.sent.Load(), int64(-1)
		for deadline := time.Now().Add(time.Minute); ; time.Sleep(200 * time.Millisecond) {
			if stored, _ = relay.stored(); stored >= want {
				return
			}
			if stored > before {
				before, deadline = stored, time.Now().Add(time.Minute)
			}
			if time.Now().After(deadline) {
				stall = fmt.Sprintf("the relay stored %d of %d events and no more for a minute", stored, want)
				return
			}
		}
	}()
	loaded := keys.phase(dur, flowing)
	<-flowing
	if f := gen.failed.Load(); f > 0 {
		b.Fatalf("%d of %d triggers failed: %s", f, gen.sent.Load(), gen.lastErr.Load())
	}
	if stall != "" {
		b.Fatal(stall)
	}
	want := gen.sent.Load()
	if lag := time.Since(genEnd); lag > 5*time.Second {
		fmt.Printf("live: the relay stored the last event %.0fs after the schedule: the load's core could not keep up\n", lag.Seconds())
	}
	// Every event reaches the screen: the count held plus the count
	// dropped equals what the relay stored (the relay's own count).
	var onScreen int64
	s.waitFor("the screen to count every event the relay stored", 2*time.Minute, func(txt string) bool {
		onScreen = screenEventCount(txt)
		return onScreen == stored
	})
	close(stopSampling)
	<-sampled
	// The last sample: every event on screen.
	if cpu, rss, ok := procNow(pid); ok {
		samples = append(samples, sample{at: time.Now(), n: stored, cpu: cpu, rss: rss})
	}
	verified, _ := relay.verified()

	// Quiet again, with the Events view full: the anchors after.
	latest.Store(stored)
	quiet1 := keys.phase(idle, nil)
	cpu1, rss1 := procCPU(b, pid), procStatus(b, pid, "VmRSS")
	time.Sleep(idle / 2)
	idleCPU1 := procCPU(b, pid) - cpu1
	idleRSS1 := procStatus(b, pid, "VmRSS") - rss1

	// CPU per 1,000 events in the first and the last third of the load.
	smu.Lock()
	defer smu.Unlock()
	// Thirds of the events the relay stored (not of the time: on a busy
	// machine delivery lags the schedule and catches up later).
	third := func(k int) (perK float64, pct float64) {
		lo, hi := stored*int64(k)/3, stored*int64(k+1)/3
		var a, z *sample
		for i := range samples {
			if a == nil && samples[i].n >= lo {
				a = &samples[i]
			}
			if z == nil && samples[i].n >= hi {
				z = &samples[i]
			}
		}
		if a == nil || z == nil || z.n <= a.n {
			return 0, 0
		}
		cpu := z.cpu - a.cpu
		return cpu.Seconds() * 1000 / (float64(z.n-a.n) / 1000), 100 * cpu.Seconds() / z.at.Sub(a.at).Seconds()
	}
	first, firstPct := third(0)
	last, lastPct := third(2)
	whole := samples[len(samples)-1]
	loadPct := 100 * (whole.cpu - samples[0].cpu).Seconds() / whole.at.Sub(samples[0].at).Seconds()

	// RSS growth after the caps: the slope of RSS over events once both
	// caps are crossed (or only the tracker's, in a run too short for
	// the Events view's).
	capAt := int64(eventsCap)
	if want <= eventsCap+2000 {
		capAt = 3 * trackerCap * 2
	}
	var atCap, peak int64
	for _, smp := range samples {
		if atCap == 0 && smp.n >= capAt {
			atCap = smp.rss
		}
		peak = max(peak, smp.rss)
	}
	var xs, ys []float64
	for _, smp := range samples {
		if smp.n >= capAt {
			xs, ys = append(xs, float64(smp.n)), append(ys, float64(smp.rss))
		}
	}
	growth := slope(xs, ys) * 10000 / 1024 // MiB per 10,000 events

	fq0, wq0 := medianWorst(quiet0.filterKeys)
	oq0, owq0 := medianWorst(quiet0.otherKeys)
	fl, wfl := medianWorst(loaded.filterKeys)
	ff, wff := medianWorst(loaded.filterKeysFull)
	ol, wol := medianWorst(loaded.otherKeys)
	fq1, wq1 := medianWorst(quiet1.filterKeys)
	oq1, owq1 := medianWorst(quiet1.otherKeys)

	b.ReportMetric(float64(rate), "events/s")
	b.ReportMetric(fl, "filter-key-ms-median")
	b.ReportMetric(wfl, "filter-key-ms-worst")
	b.ReportMetric(ff, "filter-key-20k-held-ms-median")
	b.ReportMetric(wff, "filter-key-20k-held-ms-worst")
	b.ReportMetric(wol, "other-key-ms-worst")
	b.ReportMetric(loadPct, "dash-cpu-%core")
	b.ReportMetric(first, "cpu-ms/1k-events-first-third")
	b.ReportMetric(last, "cpu-ms/1k-events-last-third")
	b.ReportMetric(growth, "rss-MB/10k-events-after-caps")
	b.ReportMetric(float64(onScreen), "events-on-screen")

	// Printed, not logged: the testing package cuts a benchmark's log
	// to its first lines.
	pf := func(format string, args ...any) { fmt.Printf("live: "+format+"\n", args...) }
	pf("dashboard pinned to core 0, load to core 1: %v; %d events at %d/s over %s, %d stored by the relay (%d signatures verified), %d counted on screen",
		pinned, want, rate, dur, stored, verified, onScreen)
	pf("%-44s %18s %18s %22s", "", "quiet, none held", "under load", fmt.Sprintf("quiet, %s held", thousands(min(stored, eventsCap))))
	pf("%-44s %8.1f / %7.1f %8.1f / %7.1f %10.1f / %9.1f", "Events filter keystroke ms (median / worst)", fq0, wq0, fl, wfl, fq1, wq1)
	pf("%-44s %8.1f / %7.1f %8.1f / %7.1f %10.1f / %9.1f", "other keys ms (median / worst)", oq0, owq0, ol, wol, oq1, owq1)
	fh1, wfh1 := medianWorst(quiet1.filterKeysFull)
	pf("%-44s %18s %8.1f / %7.1f %10.1f / %9.1f", "  the same with 20,000 held (median / worst)", "—", ff, wff, fh1, wfh1)
	pf("%-44s %18s %18d %22d", "  keystrokes typed with 20,000 held", "—", len(loaded.filterKeysFull), len(quiet1.filterKeysFull))
	p95 := func(ds []time.Duration) float64 { _, p, _ := quantiles(ds); return p }
	pf("%-44s %18.1f %18.1f %22.1f", "Events filter keystroke ms, 95th percentile", p95(quiet0.filterKeys), p95(loaded.filterKeys), p95(quiet1.filterKeys))
	pf("%-44s %18.1f %18.1f %22.1f", "other keys ms, 95th percentile", p95(quiet0.otherKeys), p95(loaded.otherKeys), p95(quiet1.otherKeys))
	pf("%-44s %18d %18d %22d", "keys measured (filter + other)", len(quiet0.filterKeys)+len(quiet0.otherKeys),
		len(loaded.filterKeys)+len(loaded.otherKeys), len(quiet1.filterKeys)+len(quiet1.otherKeys))
	pf("%-44s %18.1f %18.1f %22.1f", "dashboard CPU, % of one core", 100*idleCPU0.Seconds()/(idle/2).Seconds(), loadPct, 100*idleCPU1.Seconds()/(idle/2).Seconds())
	pf("%-44s %18s %8.1f → %7.1f %22s", "CPU ms per 1,000 events, first → last third", "—", first, last, "—")
	pf("%-44s %18s %8.1f → %7.1f %22s", "CPU % of a core, first → last third", "—", firstPct, lastPct, "—")
	pf("%-44s %18.2f %18.2f %22.2f", "RSS growth MiB (quiet: over the phase)", float64(idleRSS0)/1024, growth, float64(idleRSS1)/1024)
	pf("%-44s %18.1f %18.1f %22.1f", "RSS MiB", float64(rss0)/1024, float64(whole.rss)/1024, float64(rss1)/1024)
	pf("(under load, RSS growth is the slope per 10,000 events after %d events: RSS %.1f MiB there, %.1f at the end, peak %.1f)",
		capAt, float64(atCap)/1024, float64(whole.rss)/1024, float64(peak)/1024)
	t0 := samples[0].at // the load's start
	pf("slowest keys, quiet before: %s", quiet0.slowText(t0))
	pf("slowest keys, under load:   %s", loaded.slowText(t0))
	pf("slowest keys, quiet after:  %s", quiet1.slowText(t0))
	var series []string
	for i, smp := range samples {
		if i%10 == 0 || i == len(samples)-1 {
			series = append(series, fmt.Sprintf("+%.0fs %d ev %.1f MiB", smp.at.Sub(t0).Seconds(), smp.n, float64(smp.rss)/1024))
		}
	}
	pf("RSS under load: %s", strings.Join(series, "; "))
	evLine, _ := line(s.text(), " events · ")
	s.press("3")
	trLine, _ := line(s.waitText(10*time.Second, "followed"), "followed")
	dropLine, _ := line(s.text(), "older finished payouts dropped")
	pf("on screen: %s", strings.TrimSpace(evLine))
	pf("on screen: %s", strings.TrimSpace(trLine))
	pf("on screen: %s", strings.TrimSpace(dropLine))
	s.press("q")
	s.wait(30 * time.Second)
}

// procNow is procCPU and VmRSS for a goroutine other than the test's
// (which alone may fail the benchmark).
func procNow(pid int) (cpu time.Duration, rss int64, ok bool) {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, false
	}
	f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+2:]))
	u, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	status, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, 0, false
	}
	for _, l := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			rss, _ = strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		}
	}
	return time.Duration(u+st) * 10 * time.Millisecond, rss, true
}

// schedstat sums, over a process's threads, the time spent on a core
// and the time spent runnable but waiting for one (/proc/<pid>/task/
// <tid>/schedstat, nanoseconds).
func schedstat(pid int) (ran, wait time.Duration) {
	dir := "/proc/" + strconv.Itoa(pid) + "/task"
	tasks, _ := os.ReadDir(dir)
	for _, t := range tasks {
		raw, err := os.ReadFile(dir + "/" + t.Name() + "/schedstat")
		if err != nil {
			continue
		}
		f := strings.Fields(string(raw))
		if len(f) < 2 {
			continue
		}
		r, _ := strconv.ParseInt(f[0], 10, 64)
		w, _ := strconv.ParseInt(f[1], 10, 64)
		ran, wait = ran+time.Duration(r), wait+time.Duration(w)
	}
	return ran, wait
}

func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// slope is the least-squares slope of ys over xs (0 with fewer than two).
func slope(xs, ys []float64) float64 {
	n := float64(len(xs))
	if n < 2 {
		return 0
	}
	var sx, sy, sxx, sxy float64
	for i := range xs {
		sx, sy, sxx, sxy = sx+xs[i], sy+ys[i], sxx+xs[i]*xs[i], sxy+xs[i]*ys[i]
	}
	d := n*sxx - sx*sx
	if d == 0 {
		return 0
	}
	return (n*sxy - sx*sy) / d
}

var eventCountRE = regexp.MustCompile(`([\d,]+) of ([\d,]+) events(?: · ([\d,]+) older dropped)?`)

// screenEventCount is held plus dropped from the Events view's status
// line, or -1.
func screenEventCount(txt string) int64 {
	m := eventCountRE.FindStringSubmatch(txt)
	if m == nil {
		return -1
	}
	n := func(s string) int64 { v, _ := strconv.ParseInt(strings.ReplaceAll(s, ",", ""), 10, 64); return v }
	return n(m[2]) + n(m[3])
}

// relayCounter reads the relay's Prometheus counters.
type relayCounter struct{ url string }

func (r relayCounter) metric(name string) (int64, error) {
	resp, err := http.Get(r.url) //nolint:noctx // loopback, the test's own relay
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), name+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			return int64(f), err
		}
	}
	return 0, fmt.Errorf("no %s in %s", name, r.url)
}

func (r relayCounter) stored() (int64, error) { return r.metric("paydash_relay_events_stored_total") }
func (r relayCounter) verified() (int64, error) {
	return r.metric("paydash_relay_verify_seconds_count")
}

// loadGen asks the sandbox for webhooks (POST /sandbox/events) on a
// fixed schedule: payouts of other operators going authorised →
// submitted → settled, fifty in flight at a time, and now and then an
// external payment. The sandbox signs each; the relay verifies it.
type loadGen struct {
	url     string
	rate    int
	client  *http.Client
	sent    atomic.Int64
	failed  atomic.Int64
	lastErr atomic.Value
}

func newLoadGen(url string, rate int) *loadGen {
	return &loadGen{url: url, rate: rate, client: &http.Client{Timeout: 30 * time.Second,
		Transport: &http.Transport{MaxIdleConnsPerHost: 16}}}
}

const lanes = 50

func liveID(p int) string { return fmt.Sprintf("%08x-1ive-4000-8000-%012d", p*2654435761%(1<<32), p) }

// trigger is event k's request body.
func trigger(k int) []byte {
	if k%25 == 24 {
		return []byte(`{"trigger":"external_payment_received","amount_in_minor":` + strconv.Itoa(1000+k) + `}`)
	}
	lane, c := k%lanes, k/lanes
	p := lane + lanes*(c/3)
	id := liveID(p)
	state := []string{api.EventPayoutAuthorised, api.EventPayoutSubmitted, api.EventPayoutSettled}[c%3]
	return []byte(`{"trigger":"` + state + `","payout_id":"` + id + `"}`)
}

func (g *loadGen) run(dur time.Duration) {
	n := int(dur.Seconds() * float64(g.rate))
	work := make(chan int, 256)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range work {
				body := trigger(k)
				resp, err := g.client.Post(g.url, "application/json", bytes.NewReader(body)) //nolint:noctx // loopback, bounded by the client's timeout
				if err == nil {
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != http.StatusAccepted {
						err = fmt.Errorf("POST %s: %s", g.url, resp.Status)
					}
				}
				if err != nil {
					g.failed.Add(1)
					g.lastErr.Store(err.Error())
					continue
				}
				g.sent.Add(1)
			}
		}()
	}
	start := time.Now()
	for k := range n {
		if d := time.Until(start.Add(time.Duration(k) * time.Second / time.Duration(g.rate))); d > 0 {
			time.Sleep(d)
		}
		work <- k
	}
	close(work)
	wg.Wait()
}

// liveKeys types the keys a person uses while watching: switching views,
// and filtering the Events view by a payout id, timing each from the
// write to the pty until the screen shows its effect.
type liveKeys struct {
	s   *screen
	pid int
	// stored is the relay's count as last sampled: from eventsCap on,
	// the Events view holds its full 20,000.
	stored *atomic.Int64
}

// phase runs rounds of keys for d, or until done is closed when done is
// not nil.
func (k *liveKeys) phase(d time.Duration, done <-chan struct{}) *liveFigures {
	f := &liveFigures{}
	end := time.Now().Add(d)
	for round := 0; ; round++ {
		if done != nil {
			select {
			case <-done:
				return f
			default:
			}
		} else if time.Now().After(end) {
			return f
		}
		k.round(f, round)
	}
}

func (k *liveKeys) round(f *liveFigures, round int) {
	pause := func() { time.Sleep(150 * time.Millisecond) }
	k.key(f, false, "1", func(t string) bool { return strings.Contains(t, "payout accounts · refresh every") })
	pause()
	k.key(f, false, "3", func(t string) bool {
		return strings.Contains(t, "followed ·") || strings.Contains(t, "No payouts yet")
	})
	pause()
	k.key(f, false, "4", func(t string) bool { return strings.Contains(t, "/ filter · t type") })
	pause()
	k.key(f, false, "/", func(t string) bool { return filterLine(t) == "/type, event id, payout id, summary" })
	// A payout id seen lately, as a person pastes or types one; the first
	// characters match many events, the later ones few.
	q := liveID(max(0, round*7) % 4096)[:8] + "-1ive"
	for i := range len(q) {
		want := "/" + q[:i+1]
		pause()
		k.key(f, true, q[i:i+1], func(t string) bool { return filterLine(t) == want })
	}
	for i := len(q) - 1; i >= 1; i-- {
		want := "/" + q[:i]
		pause()
		k.key(f, true, "\x7f", func(t string) bool { return filterLine(t) == want })
	}
	pause()
	k.key(f, false, "\x1b", func(t string) bool { return strings.Contains(t, "/ filter · t type") })
	pause()
}

// key writes one key and waits for its effect, recording the time.
func (k *liveKeys) key(f *liveFigures, filter bool, key string, shown func(string) bool) {
	s := k.s
	s.t.Helper()
	if shown(s.text()) {
		s.t.Fatalf("the effect of %q is on screen before the key:\n%s", key, s.text())
	}
	ran0, wait0 := schedstat(k.pid)
	start := time.Now()
	if _, err := io.WriteString(s.pty, key); err != nil {
		s.t.Fatalf("type %q: %v", key, err)
	}
	for deadline := start.Add(10 * time.Second); !shown(s.text()); time.Sleep(200 * time.Microsecond) {
		if time.Now().After(deadline) {
			s.t.Fatalf("%q: its effect not on screen after 10s:\n%s", key, s.text())
		}
	}
	d := time.Since(start)
	ran1, wait1 := schedstat(k.pid)
	f.add(filter, k.stored.Load() >= eventsCap, slowKey{key: key, at: start, d: d, ran: ran1 - ran0, wait: wait1 - wait0})
}

// filterLine is the Events filter bar as shown ("/" and the text), or "".
func filterLine(txt string) string {
	for _, l := range strings.Split(txt, "\n") {
		if strings.HasPrefix(l, "/") {
			return strings.TrimRight(l, " ")
		}
	}
	return ""
}
