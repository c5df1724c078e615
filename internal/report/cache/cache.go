// Package cache keeps a profile's transaction report on disk between
// runs, so the dashboard and `paydash transactions` open at once and a
// restart fetches only what changed. The file is one report.Store in the
// engine's own columnar layout (report.Snapshot.Encode), memory-mapped on
// opening: nothing is rebuilt, and the pages the first screen does not
// touch are never read.
//
// A cache is written whole to a temporary file beside it and renamed over
// it, so a reader sees the old file or the new one, never a mix. Its
// header names the format, the profile and the service URL, and checksums
// the payload; a commit marker ends it. A file that is torn, damaged, of
// another format, profile or service is refused (and then rebuilt by the
// caller); it is never shown.
//
// It imports report and api; ui and the CLI import it.
package cache

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/paydash/paydash/internal/report"
)

// Format is the version of the file's framing (header, trailer, meta).
// The payload's own version is report.LayoutVersion; both must match.
const Format = 1

// FileName is the cache's name in the profile's state directory.
const FileName = "report.cache"

// Path is where a profile's cache lives: $XDG_STATE_HOME/paydash/<profile>/report.cache
// (stateDir is config.StateDir).
func Path(stateDir, profile string) string {
	return filepath.Join(stateDir, profile, FileName)
}

const (
	magic      = "PDRCACHE"
	doneMagic  = "PDRCDONE"
	headerSize = 4096 // the payload starts page-aligned, so its columns map aligned
	fixedSize  = 40   // the header's fixed fields, before the meta JSON
	trailer    = 16
)

// Errors of Open: the caller rebuilds the cache after any of them but
// ErrNone needs no message.
var (
	// ErrNone: there is no cache yet.
	ErrNone = errors.New("no report cache")
	// ErrForeign: the file belongs to another profile or service URL.
	ErrForeign = errors.New("report cache of another profile or service")
	// ErrFormat: the file was written by another version of paydash.
	ErrFormat = errors.New("report cache of another format version")
	// ErrTorn: the file is incomplete or damaged (a write cut off, a bad
	// checksum).
	ErrTorn = errors.New("report cache incomplete or damaged")
)

// Key is what a cache belongs to: a cache is used only by the same
// profile on the same service.
type Key struct {
	Profile    string `json:"profile"`
	ServiceURL string `json:"service_url"`
}

// Meta is what the header says besides the key.
type Meta struct {
	Format int    `json:"format"`
	Layout int    `json:"layout"`
	Key    Key    `json:"key"`
	Rows   int    `json:"rows"`
	Ranges Ranges `json:"ranges"`
	// Partial: rows of a window cut off are held beyond Ranges (see
	// Held.Partial).
	Partial bool `json:"partial,omitempty"`
	Written time.Time
	// Bytes is the file's size (set by Open and Save, not stored).
	Bytes int64 `json:"-"`
}

// Cache is one profile's cache file.
type Cache struct {
	path string
	key  Key
}

// New returns the cache at path for key (nothing is read yet).
func New(path string, key Key) *Cache { return &Cache{path: path, key: key} }

// Path is the file's path.
func (c *Cache) Path() string { return c.path }

// Key is whom the cache is for.
func (c *Cache) Key() Key { return c.key }

// Opened is a cache read back.
type Opened struct {
	Meta    Meta
	Decoded report.Decoded
	file    *os.File // the file mapped (Verify reads it, then closes it)
	n       int64    // payload bytes
	crc     uint32
}

// Verify checks the payload's checksum, which Map leaves to the caller,
// then closes the file. It reads the file mapped (by its descriptor, so
// a save renamed over it since does not matter) rather than the mapping,
// so it may run while the store is refreshed (a refresh writes its own
// copies of the mapped id index's pages) and maps nothing into the
// process. A damaged payload is ErrTorn.
func (o *Opened) Verify(ctx context.Context) error {
	defer o.file.Close()
	h := crc32.New(castagnoli)
	buf := make([]byte, 1<<20)
	for off := int64(headerSize); off < headerSize+o.n; {
		if err := ctx.Err(); err != nil {
			return err
		}
		m := min(int64(len(buf)), headerSize+o.n-off)
		if _, err := o.file.ReadAt(buf[:m], off); err != nil {
			return fmt.Errorf("%w: %w", ErrTorn, err)
		}
		h.Write(buf[:m])
		off += m
	}
	if h.Sum32() != o.crc {
		return fmt.Errorf("%w: payload checksum", ErrTorn)
	}
	return nil
}

// Open maps the cache and checks it: ErrNone when there is none;
// ErrForeign, ErrFormat or ErrTorn (wrapped) when it may not be used. The
// store's columns stay mapped for the rest of the process (a mapping is
// address space, and its clean pages are the kernel's to drop): a store
// refreshed from it keeps reading the rows it did not change from there.
func (c *Cache) Open(ctx context.Context) (*Opened, error) {
	o, err := c.Map(ctx)
	if err != nil {
		return nil, err
	}
	if err := o.Verify(ctx); err != nil {
		return nil, err
	}
	return o, nil
}

// Map is Open without the payload's checksum, which the caller runs with
// Opened.Verify: the dashboard shows the first rows of a cache whose
// header, size and commit marker are whole (a torn write fails those),
// then verifies the rest in the background, beside its first sync; a
// ten-million-row cache is a gigabyte to checksum.
func (c *Cache) Map(ctx context.Context) (o *Opened, err error) {
	f, err := os.Open(c.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ErrNone
	}
	if err != nil {
		return nil, fmt.Errorf("open report cache: %w", err)
	}
	defer func() {
		if err != nil {
			f.Close()
		}
	}()
	meta, payloadLen, crc, err := readHeader(f, c.key)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("open report cache: %w", err)
	}
	if st.Size() != headerSize+payloadLen+trailer {
		return nil, fmt.Errorf("%w: %d bytes, the header promises %d", ErrTorn, st.Size(), headerSize+payloadLen+trailer)
	}
	var tail [trailer]byte
	if _, err := f.ReadAt(tail[:], headerSize+payloadLen); err != nil || string(tail[:8]) != doneMagic || int64(binary.LittleEndian.Uint64(tail[8:])) != payloadLen { //nolint:gosec // G115: compared, not used
		return nil, fmt.Errorf("%w: no commit marker", ErrTorn)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// Private and writable: pages the process writes (the id index a
	// refresh inserts into) become its own copies; the file is never
	// written through this mapping.
	data, err := mapFile(f, st.Size())
	if err != nil {
		return nil, fmt.Errorf("map report cache: %w", err)
	}
	d, err := report.Decode(data[headerSize : headerSize+payloadLen])
	if err != nil {
		_ = unmapFile(data)
		return nil, fmt.Errorf("%w: %w", ErrTorn, err)
	}
	if d.Store.Len() != meta.Rows {
		_ = unmapFile(data)
		return nil, fmt.Errorf("%w: %d rows, the header says %d", ErrTorn, d.Store.Len(), meta.Rows)
	}
	meta.Bytes = st.Size()
	return &Opened{Meta: meta, Decoded: d, file: f, n: payloadLen, crc: crc}, nil
}

// Stat reads the header only: what `paydash cache status` shows. It
// checks the key, the format and the commit marker, not the payload's
// checksum.
func (c *Cache) Stat() (Meta, error) {
	f, err := os.Open(c.path)
	if errors.Is(err, fs.ErrNotExist) {
		return Meta{}, ErrNone
	}
	if err != nil {
		return Meta{}, fmt.Errorf("open report cache: %w", err)
	}
	defer f.Close()
	meta, payloadLen, _, err := readHeader(f, c.key)
	if err != nil {
		return meta, err
	}
	st, err := f.Stat()
	if err != nil {
		return meta, err
	}
	meta.Bytes = st.Size()
	if st.Size() != headerSize+payloadLen+trailer {
		return meta, fmt.Errorf("%w: %d bytes, the header promises %d", ErrTorn, st.Size(), headerSize+payloadLen+trailer)
	}
	return meta, nil
}

// Clear removes the cache (and any temporary file a cut-off write left).
// It is not an error when there is none.
func (c *Cache) Clear() error {
	err := os.Remove(c.path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove report cache: %w", err)
	}
	tmps, _ := filepath.Glob(filepath.Join(filepath.Dir(c.path), "."+filepath.Base(c.path)+".tmp-*"))
	for _, t := range tmps {
		_ = os.Remove(t)
	}
	return nil
}

func readHeader(f *os.File, key Key) (Meta, int64, uint32, error) {
	var hdr [headerSize]byte
	n, err := io.ReadFull(f, hdr[:])
	if err != nil {
		if n < fixedSize {
			return Meta{}, 0, 0, fmt.Errorf("%w: header cut off (%d bytes)", ErrTorn, n)
		}
	}
	if string(hdr[:8]) != magic {
		return Meta{}, 0, 0, fmt.Errorf("%w: no header", ErrTorn)
	}
	format, layout := binary.LittleEndian.Uint32(hdr[8:]), binary.LittleEndian.Uint32(hdr[12:])
	if format != Format || layout != report.LayoutVersion {
		return Meta{}, 0, 0, fmt.Errorf("%w: format %d layout %d, this paydash reads %d and %d", ErrFormat, format, layout, Format, report.LayoutVersion)
	}
	payloadLen := int64(binary.LittleEndian.Uint64(hdr[16:])) //nolint:gosec // G115: checked against the file size
	crc := binary.LittleEndian.Uint32(hdr[24:])
	metaLen, metaCRC := binary.LittleEndian.Uint32(hdr[28:]), binary.LittleEndian.Uint32(hdr[32:])
	if n < headerSize || metaLen > headerSize-fixedSize || payloadLen < 0 {
		return Meta{}, 0, 0, fmt.Errorf("%w: header", ErrTorn)
	}
	raw := hdr[fixedSize : fixedSize+metaLen]
	if crc32.Checksum(raw, castagnoli) != metaCRC {
		return Meta{}, 0, 0, fmt.Errorf("%w: header checksum", ErrTorn)
	}
	var meta Meta
	if err := json.Unmarshal(raw, &meta); err != nil {
		return Meta{}, 0, 0, fmt.Errorf("%w: header: %w", ErrTorn, err)
	}
	if meta.Key != key {
		return meta, 0, 0, fmt.Errorf("%w: written for profile %q on %s, not %q on %s", ErrForeign, meta.Key.Profile, meta.Key.ServiceURL, key.Profile, key.ServiceURL)
	}
	return meta, payloadLen, crc, nil
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Save writes snap as the cache, atomically: a temporary file (mode
// 0600) beside the cache, synced, then renamed over it. A cut-off Save
// leaves the old cache as it was (and a temporary file Clear removes).
func (c *Cache) Save(ctx context.Context, snap *report.Snapshot, ranges Ranges, partial bool, now time.Time) (Meta, error) {
	dir := filepath.Dir(c.path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return Meta{}, fmt.Errorf("write report cache: %w", err)
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(c.path)+".tmp-*")
	if err != nil {
		return Meta{}, fmt.Errorf("write report cache: %w", err)
	}
	done := false
	defer func() {
		if !done {
			_ = f.Close()
			_ = os.Remove(f.Name())
		}
	}()
	if err := f.Chmod(0o600); err != nil {
		return Meta{}, fmt.Errorf("write report cache: %w", err)
	}
	meta := Meta{Format: Format, Layout: report.LayoutVersion, Key: c.key, Rows: snap.Store().Len(), Ranges: ranges.compact(maxRanges), Partial: partial, Written: now.UTC()}
	rawMeta, err := json.Marshal(meta)
	if err != nil {
		return Meta{}, err
	}
	if len(rawMeta) > headerSize-fixedSize {
		return Meta{}, fmt.Errorf("write report cache: header of %d bytes", len(rawMeta))
	}
	// The header goes in last: until then the file has none, and a
	// reader of a cut-off write (were it ever renamed) refuses it.
	if _, err := f.Write(make([]byte, headerSize)); err != nil {
		return Meta{}, fmt.Errorf("write report cache: %w", err)
	}
	h := crc32.New(castagnoli)
	cw := &countingWriter{ctx: ctx, w: f, h: h}
	if err := snap.Encode(cw); err != nil {
		return Meta{}, fmt.Errorf("write report cache: %w", err)
	}
	var tail [trailer]byte
	copy(tail[:], doneMagic)
	binary.LittleEndian.PutUint64(tail[8:], uint64(cw.n)) //nolint:gosec // G115: a byte count
	if _, err := f.Write(tail[:]); err != nil {
		return Meta{}, fmt.Errorf("write report cache: %w", err)
	}
	var hdr [headerSize]byte
	copy(hdr[:], magic)
	binary.LittleEndian.PutUint32(hdr[8:], Format)
	binary.LittleEndian.PutUint32(hdr[12:], report.LayoutVersion)
	binary.LittleEndian.PutUint64(hdr[16:], uint64(cw.n)) //nolint:gosec // G115: a byte count
	binary.LittleEndian.PutUint32(hdr[24:], h.Sum32())
	binary.LittleEndian.PutUint32(hdr[28:], uint32(len(rawMeta))) //nolint:gosec // G115: checked above
	binary.LittleEndian.PutUint32(hdr[32:], crc32.Checksum(rawMeta, castagnoli))
	copy(hdr[fixedSize:], rawMeta)
	if _, err := f.WriteAt(hdr[:], 0); err != nil {
		return Meta{}, fmt.Errorf("write report cache: %w", err)
	}
	if err := f.Sync(); err != nil {
		return Meta{}, fmt.Errorf("write report cache: %w", err)
	}
	if err := f.Close(); err != nil {
		return Meta{}, fmt.Errorf("write report cache: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return Meta{}, err
	}
	if err := os.Rename(f.Name(), c.path); err != nil {
		return Meta{}, fmt.Errorf("write report cache: %w", err)
	}
	done = true
	if d, err := os.Open(dir); err == nil { //nolint:gosec // G304: the profile's own cache directory; opened so the rename itself survives a crash
		_ = d.Sync()
		_ = d.Close()
	}
	meta.Bytes = headerSize + cw.n + trailer
	return meta, nil
}

// countingWriter writes to w, hashing and counting, and stops once ctx
// is done.
type countingWriter struct {
	ctx context.Context
	w   io.Writer
	h   hash.Hash32
	n   int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	n, err := c.w.Write(p)
	c.h.Write(p[:n])
	c.n += int64(n)
	return n, err
}

// Describe is a one-line account of an Open or Stat error for a person.
func Describe(err error) string {
	switch {
	case errors.Is(err, ErrNone):
		return "no cache yet"
	case errors.Is(err, ErrForeign), errors.Is(err, ErrFormat), errors.Is(err, ErrTorn):
		return err.Error() + "; it will be rebuilt"
	}
	return err.Error()
}

// ForProfile is the cache of a profile's report on the service at
// serviceURL (its payouts URL), under stateDir (config.StateDir); nil
// when the profile keeps none (report_cache = false).
func ForProfile(stateDir, profile, serviceURL string, enabled bool) *Cache {
	if !enabled || profile == "" {
		return nil
	}
	return New(Path(stateDir, profile), Key{Profile: profile, ServiceURL: serviceURL})
}
