//go:build unix

package cache

import (
	"os"

	"golang.org/x/sys/unix"
)

// mapFile maps the cache private and writable: pages the process writes
// (the id index a refresh inserts into) become its own copies; the file
// is never written through this mapping, and only the pages a view
// touches are read.
func mapFile(f *os.File, size int64) ([]byte, error) {
	return unix.Mmap(int(f.Fd()), 0, int(size), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE) //nolint:gosec // G115: a file descriptor and the cache's size fit int
}

func unmapFile(data []byte) error { return unix.Munmap(data) }
