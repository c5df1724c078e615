package webhookrelay

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paydash/paydash/internal/platform/natstest"
)

// natsChildEnv makes this test binary a three-node NATS cluster process
// (see TestMain), so a benchmark can tell the relay's CPU from the
// cluster's.
const natsChildEnv = "WEBHOOKRELAY_TEST_NATS_CLUSTER_DIR"

// runNATSChild serves a three-node cluster under dir, prints "URLS
// a,b,c", and stops when its standard input closes (the parent is gone).
func runNATSChild(dir string) int {
	dirs := []string{filepath.Join(dir, "n1"), filepath.Join(dir, "n2"), filepath.Join(dir, "n3")}
	c, err := natstest.Launch(dirs)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Printf("URLS %s\n", strings.Join(c.ClientURLs(), ","))
	_, _ = io.Copy(io.Discard, os.Stdin)
	c.Shutdown()
	return 0
}

// startNATSChild runs the cluster in a child process and returns its URLs
// and a function reading the child's CPU time so far.
func startNATSChild(b testing.TB) ([]string, func() time.Duration) {
	b.Helper()
	child := startChild(b, natsChildEnv+"="+b.TempDir())
	line, err := child.out.ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "URLS ") {
		b.Fatalf("NATS child: %q %v", line, err)
	}
	pid := child.pid
	return strings.Split(strings.TrimSpace(strings.TrimPrefix(line, "URLS ")), ","), func() time.Duration {
		return procCPU(b, pid)
	}
}

// child is this test binary run again as a helper process (a load
// generator, a NATS cluster) so its CPU is measured apart from ours.
type child struct {
	pid   int
	stdin io.Writer
	out   *bufio.Reader
}

// startChild runs the test binary with env set and no tests; the child
// exits when its stdin closes, at the end of the benchmark.
func startChild(b testing.TB, env string) *child {
	b.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), env)
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
	return &child{pid: cmd.Process.Pid, stdin: stdin, out: bufio.NewReader(out)}
}

// procCPU reads a process's user+system time from /proc (in clock ticks
// of 10 ms, Linux's USER_HZ).
func procCPU(b testing.TB, pid int) time.Duration {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		b.Fatal(err)
	}
	fields := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+2:]))
	utime, _ := strconv.ParseInt(fields[11], 10, 64)
	stime, _ := strconv.ParseInt(fields[12], 10, 64)
	return time.Duration(utime+stime) * 10 * time.Millisecond
}

// BenchmarkClusteredIngest is BenchmarkIngest for one relay instance in
// clustered mode: a three-node JetStream cluster (replicas 3) in a child
// process, the relay verifying every signature and answering after the
// stream acknowledged the write, 10 subscribers. It reports events/s
// beside the same verify anchor, the relay process's CPU per event
// (senders and subscribers included, as in BenchmarkIngest), and the NATS
// cluster's CPU per event (all three servers).
func BenchmarkClusteredIngest(b *testing.B) {
	urls, natsCPU := startNATSChild(b)
	tr := startRelay(b, Config{Tolerance: time.Hour, VerifyKey: &testSigningKey(b).PublicKey,
		NATS: &NATSConfig{URLs: urls, Replicas: 3}})
	waitAll := startBenchSubscribers(b, tr, benchSubscribers, nil)
	ds := signDeliveries(b, "cluster", DefaultPath, 0, int64(b.N))
	client := benchClient()
	defer client.CloseIdleConnections()
	anchor, vcpu := verifyRate(b, time.Second)
	b.ReportAllocs()
	b.ResetTimer()
	cpu0, ncpu0, start := cpuTime(), natsCPU(), time.Now()
	drive(b, client, tr.base+DefaultPath, ds)
	waitAll(uint64(b.N))
	elapsed, cpu, ncpu := time.Since(start), cpuTime()-cpu0, natsCPU()-ncpu0
	b.StopTimer()
	rate := float64(b.N) / elapsed.Seconds()
	limit := anchor * float64(runtime.GOMAXPROCS(0))
	b.ReportMetric(rate, "events/s")
	b.ReportMetric(limit, "verify-limit/s")
	b.ReportMetric(rate/limit, "of-limit")
	b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "relay-cpu-us/event")
	b.ReportMetric(float64(ncpu.Microseconds())/float64(b.N), "nats-cpu-us/event")
	b.ReportMetric(float64(vcpu.Microseconds()), "verify-cpu-us")
	if m := tr.Metrics(); m.Stored != int64(b.N) {
		b.Fatalf("stored %d of %d", m.Stored, b.N)
	}
}
