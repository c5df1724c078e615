package dashboard

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"time"
)

// Profiles for developers measuring the dashboard (the e2e benchmark
// LiveAtVolume passes them through): with PAYDASH_PPROF_DIR set, the
// dashboard process writes a CPU profile per window of
// PAYDASH_PPROF_EVERY (default 30s), cpu-000.pprof, cpu-001.pprof, …,
// and the heap in use at the end of each, heap-000.pprof, …, with a
// line per window in mem.txt of where the process's memory is (the Go
// heap in use, what it holds for reuse and gave back, the collector's
// goal), so the
// first and the last part of a long run can be set side by side
// (`go tool pprof -top -diff_base cpu-000.pprof cpu-007.pprof`). Not a
// user's setting: nothing is written without the variable.
const (
	envPprofDir   = "PAYDASH_PPROF_DIR"
	envPprofEvery = "PAYDASH_PPROF_EVERY"
)

// startDevProfiles starts the profiles the environment asks for and
// returns what stops them (the last window is written then).
func startDevProfiles(getenv func(string) string) (stop func(), err error) {
	dir := getenv(envPprofDir)
	if dir == "" {
		return func() {}, nil
	}
	every := 30 * time.Second
	if v := getenv(envPprofEvery); v != "" {
		if every, err = time.ParseDuration(v); err != nil || every <= 0 {
			return nil, fmt.Errorf("%s=%q: want a duration such as 30s", envPprofEvery, v)
		}
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("%s: %w", envPprofDir, err)
	}
	window := func(n int) (*os.File, error) {
		f, err := os.Create(filepath.Join(dir, fmt.Sprintf("cpu-%03d.pprof", n))) //nolint:gosec // the developer's own directory
		if err != nil {
			return nil, err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			f.Close()
			return nil, err
		}
		return f, nil
	}
	memLog, err := os.Create(filepath.Join(dir, "mem.txt")) //nolint:gosec // the developer's own directory
	if err != nil {
		return nil, fmt.Errorf("%s: %w", envPprofDir, err)
	}
	fmt.Fprintln(memLog, "window heap-inuse-MiB heap-idle-MiB heap-released-MiB heap-sys-MiB next-gc-MiB stacks-MiB sys-MiB gcs")
	end := func(n int, f *os.File) {
		pprof.StopCPUProfile()
		_ = f.Close()
		// Before the collection below: the heap as the load left it.
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		mib := func(b uint64) float64 { return float64(b) / (1 << 20) }
		fmt.Fprintf(memLog, "%03d %.1f %.1f %.1f %.1f %.1f %.1f %.1f %d\n", n, mib(ms.HeapInuse), mib(ms.HeapIdle), mib(ms.HeapReleased),
			mib(ms.HeapSys), mib(ms.NextGC), mib(ms.StackInuse), mib(ms.Sys), ms.NumGC)
		// The heap in use now, not as of the last collection.
		runtime.GC()
		if h, err := os.Create(filepath.Join(dir, fmt.Sprintf("heap-%03d.pprof", n))); err == nil { //nolint:gosec // the developer's own directory
			_ = pprof.Lookup("heap").WriteTo(h, 0)
			_ = h.Close()
		}
	}
	f, err := window(0)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", envPprofDir, err)
	}
	quit, done := make(chan struct{}), make(chan struct{})
	go func(f *os.File) {
		defer close(done)
		t := time.NewTicker(every)
		defer t.Stop()
		for n := 0; ; n++ {
			select {
			case <-quit:
				end(n, f)
				return
			case <-t.C:
			}
			end(n, f)
			next, err := window(n + 1)
			if err != nil {
				return // the windows so far are written
			}
			f = next
		}
	}(f)
	return func() { close(quit); <-done; _ = memLog.Close() }, nil
}
