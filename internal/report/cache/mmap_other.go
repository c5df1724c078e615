//go:build !unix

package cache

import (
	"io"
	"os"
)

// mapFile reads the cache whole where paydash does not map files (Windows):
// the same bytes, held on the heap rather than mapped.
func mapFile(f *os.File, size int64) ([]byte, error) {
	data := make([]byte, size)
	_, err := io.ReadFull(io.NewSectionReader(f, 0, size), data)
	return data, err
}

func unmapFile([]byte) error { return nil }
