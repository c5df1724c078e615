package e2e

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/report/rawreport"
)

// procStatus reads a field of /proc/<pid>/status in KiB (VmRSS: resident
// now, VmHWM: the peak): whole-process memory, not the Go heap.
func procStatus(tb testing.TB, pid int, field string) int64 {
	tb.Helper()
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n
		}
	}
	tb.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}

// procCPU is a process's user and system CPU time so far.
func procCPU(tb testing.TB, pid int) time.Duration {
	tb.Helper()
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		tb.Fatal(err)
	}
	// Fields after the command name (which ends with ')'): utime is the
	// 14th field of the line, stime the 15th, in clock ticks (100/s).
	f := strings.Fields(string(raw[strings.LastIndexByte(string(raw), ')')+2:]))
	u, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(u+st) * 10 * time.Millisecond
}

var countLine = regexp.MustCompile(`([\d,]+) of ([\d,]+) transactions · sorted by`)

// shownCount is the "N of M transactions" of the report's info line when
// nothing is loading or refreshing, else -1.
func shownCount(txt string) int {
	l, ok := line(txt, "transactions · sorted by")
	if !ok || strings.Contains(l, "refreshing") || strings.Contains(l, "reloading") || strings.Contains(l, "filtering") {
		return -1
	}
	m := countLine.FindStringSubmatch(l)
	if m == nil {
		return -1
	}
	n, _ := strconv.Atoi(strings.ReplaceAll(m[2], ",", ""))
	return n
}

// BenchmarkWholeProcess1M measures paydash as separate processes, the way
// a person runs them, against `paydash demo --headless --history 1000000`:
//
//   - the demo's RSS (sandbox with a million-record history, relay);
//   - `paydash transactions --csv` over the million records: wall time
//     and peak RSS, beside the raw HTTP download of the same report in the
//     same run (the anchor);
//   - the dashboard attached to the demo: RSS with the report loaded, then
//     after each of ten refreshes (r), each after two payouts sent from
//     another terminal (and the demo's background activity).
//
// RSS is /proc/<pid>/status (VmRSS, VmHWM) and getrusage's ru_maxrss:
// whole processes, not the Go heap. It runs only with -bench.
func BenchmarkWholeProcess1M(b *testing.B) {
	if raceEnabled {
		b.Skip("figures are for the normal build")
	}
	env := isolatedEnv(b)
	demo := startBenchDemo(b, env, false, "", 3*time.Minute, "--history", "1000000", "--step-delay", "1s")
	cfg := demo.cfg
	_, acfg, client := demo.api(b, env)
	ctx := context.Background()

	// The anchor: the report's bytes over HTTP, read and dropped.
	raw := func() (time.Duration, int64) {
		tok, err := client.Token(ctx, api.ScopePayouts)
		if err != nil {
			b.Fatal(err)
		}
		return rawreport.Download(b, acfg.PayoutsURL, tok)
	}
	devnull, _ := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	defer devnull.Close()
	var csvCPU time.Duration
	cli := func() (time.Duration, int64) {
		cmd := exec.Command(bin, "--config", cfg, "transactions", "--csv")
		cmd.Env, cmd.Stdout, cmd.Stderr = env, devnull, io.Discard
		start := time.Now()
		if err := cmd.Run(); err != nil {
			b.Fatalf("paydash transactions --csv: %v", err)
		}
		csvCPU += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		return time.Since(start), cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss // KiB on Linux
	}
	var raws, csvs []time.Duration
	var bytes, csvPeak int64
	// CPU the demo (the server) spends serving each: on a shared machine
	// the CPU a whole run costs is the steadier comparison.
	var rawServer, csvServer time.Duration
	for b.Loop() {
		s0 := procCPU(b, demo.pid)
		d, n := raw()
		s1 := procCPU(b, demo.pid)
		raws, bytes = append(raws, d), n
		d, peak := cli()
		s2 := procCPU(b, demo.pid)
		csvs, csvPeak = append(csvs, d), max(csvPeak, peak)
		rawServer += s1 - s0
		csvServer += s2 - s1
	}
	runs := float64(len(raws))
	b.ReportMetric(rawServer.Seconds()/runs, "raw-server-cpu-s")
	b.ReportMetric(csvServer.Seconds()/runs, "csv-server-cpu-s")
	b.ReportMetric(csvCPU.Seconds()/runs, "csv-client-cpu-s")
	b.StopTimer()
	med := func(ds []time.Duration) time.Duration { s := slices.Clone(ds); slices.Sort(s); return s[len(s)/2] }
	b.ReportMetric(med(raws).Seconds(), "raw-download-s")
	b.ReportMetric(float64(bytes)/(1<<20), "report-MB")
	b.ReportMetric(med(csvs).Seconds(), "csv-s")
	b.ReportMetric(med(csvs).Seconds()/med(raws).Seconds(), "csv/raw")
	b.ReportMetric(float64(csvPeak)/1024, "csv-peak-RSS-MB")

	// The dashboard.
	s := startScreen(b, env, "--config", cfg)
	start := time.Now()
	s.waitText(60*time.Second, "Faster Payments")
	s.press("2")
	var loaded int
	s.waitFor("the million rows loaded", 5*time.Minute, func(txt string) bool {
		loaded = shownCount(txt)
		return loaded >= 1_000_002
	})
	loadTime := time.Since(start)
	time.Sleep(2 * time.Second) // let the first sort's garbage go
	pid := s.cmd.Process.Pid
	rss := []int64{procStatus(b, pid, "VmRSS")}
	for round := range 10 {
		// A few new rows, from another terminal, before each refresh.
		for k := range 2 {
			cmd := exec.Command(bin, "--config", cfg, "payout", "create", "--name", "Perf Payee", "--iban", "GB33BUKB20201555555555",
				"--reference", "PERF-"+strconv.Itoa(round*2+k), "--amount", "1.00", "--currency", "GBP", "--yes")
			cmd.Env = env
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("payout create: %v\n%s", err, out)
			}
		}
		s.press("r")
		time.Sleep(300 * time.Millisecond)
		s.waitFor("the refresh to finish", 2*time.Minute, func(txt string) bool { return shownCount(txt) >= loaded })
		time.Sleep(1500 * time.Millisecond)
		rss = append(rss, procStatus(b, pid, "VmRSS"))
	}
	final := shownCount(s.text())
	if final < loaded+20 {
		b.Fatalf("%d rows after ten refreshes with 20 new payouts, %d before", final, loaded)
	}
	b.ReportMetric(loadTime.Seconds(), "dash-start-to-1M-shown-s")
	b.ReportMetric(float64(rss[0])/1024, "dash-RSS-loaded-MB")
	b.ReportMetric(float64(slices.Max(rss))/1024, "dash-RSS-max-10-refreshes-MB")
	b.ReportMetric(float64(slices.Min(rss))/1024, "dash-RSS-min-10-refreshes-MB")
	b.ReportMetric(float64(procStatus(b, pid, "VmHWM"))/1024, "dash-peak-RSS-MB")
	b.ReportMetric(float64(procStatus(b, demo.pid, "VmRSS"))/1024, "demo-RSS-MB")
	b.ReportMetric(float64(procStatus(b, demo.pid, "VmHWM"))/1024, "demo-peak-RSS-MB")
	b.Logf("rows: %d loaded, %d after ten refreshes; dashboard RSS (MiB) after load and each refresh: %v", loaded, final, mib(rss))
	s.press("q")
	s.wait(30 * time.Second)
}

func mib(kb []int64) []int64 {
	out := make([]int64, len(kb))
	for i, v := range kb {
		out[i] = v / 1024
	}
	return out
}
