package dashboard

import (
	"io"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"testing"
	"time"
)

// With PAYDASH_PPROF_DIR set the dashboard writes a CPU and a heap
// profile per window and a line per window in mem.txt; without it,
// nothing.
func TestDevProfilesPerWindow(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "prof")
	env := map[string]string{envPprofDir: dir, envPprofEvery: "100ms"}
	stop, err := startDevProfiles(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(250 * time.Millisecond)
	stop()
	for _, name := range []string{"cpu-000.pprof", "cpu-001.pprof", "heap-000.pprof", "heap-001.pprof"} {
		if st, err := os.Stat(filepath.Join(dir, name)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v (size %v)", name, err, st)
		}
	}
	mem, err := os.ReadFile(filepath.Join(dir, "mem.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(strings.TrimSpace(string(mem)), "\n"); len(lines) < 3 || !strings.HasPrefix(lines[1], "000 ") {
		t.Errorf("mem.txt has %d lines, want a header and one per window:\n%s", len(lines), mem)
	}

	if _, err := startDevProfiles(func(k string) string { return map[string]string{envPprofDir: dir, envPprofEvery: "soon"}[k] }); err == nil {
		t.Error("PAYDASH_PPROF_EVERY=soon was taken")
	}
	// Without the variable no profile runs: one can be started here.
	stop, err = startDevProfiles(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if err := pprof.StartCPUProfile(io.Discard); err != nil {
		t.Errorf("a CPU profile runs without %s: %v", envPprofDir, err)
	}
	pprof.StopCPUProfile()
	stop()
}
