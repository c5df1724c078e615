package webhookrelay

import (
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"
)

// BenchmarkFdatasync is the disk's share of a group commit on its own: a
// 4 KB page written into a preallocated file and fdatasync'd, the call
// bbolt makes twice per commit, in the directory the relay benchmarks
// use. Its p99 beside BenchmarkLatency's ack-p99 shows how much of the
// commit's tail is the disk and how much is waiting for a core.
func BenchmarkFdatasync(b *testing.B) {
	f, err := os.Create(filepath.Join(b.TempDir(), "sync"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	const pages = 4096
	if err := f.Truncate(pages * 4096); err != nil {
		b.Fatal(err)
	}
	page := make([]byte, 4096)
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if _, err := f.WriteAt(page, int64(i%pages)*4096); err != nil {
			b.Fatal(err)
		}
		t := time.Now()
		if err := syscall.Fdatasync(int(f.Fd())); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t))
	}
	b.StopTimer()
	slices.Sort(lat)
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	b.ReportMetric(ms(lat[len(lat)/2]), "p50-ms")
	b.ReportMetric(ms(lat[min(len(lat)-1, len(lat)*99/100)]), "p99-ms")
	b.ReportMetric(ms(lat[len(lat)-1]), "max-ms")
}
