package report

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"unsafe"
)

// The persisted layout of a Store is its columns as they sit in memory,
// each one a section (a little-endian length, the bytes, zero padding to
// 8 bytes), in a fixed order. Decode maps each section back onto the
// Store's slices without copying or rebuilding: a report cache read with
// mmap costs, on opening, only the pages the first screen touches.
//
// Layout version: a change to the order or meaning of sections bumps
// LayoutVersion, and a cache written with another is not read.
const LayoutVersion = 2

// littleEndian: the columns are written as the machine holds them, so the
// layout is little-endian; a big-endian machine keeps no cache.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// ErrLayout is returned by Decode for bytes that are not a Store of this
// LayoutVersion (a damaged or foreign file).
var ErrLayout = errors.New("report: not a stored report of this layout")

// Snapshot is a consistent picture of a Store for persisting: the
// published columns plus the builder's lookup state as of the same rows.
type Snapshot struct {
	s          *Store
	slots      []int32 // id index, entries for rows beyond s.n cleared; nil = not built
	used       int
	nameOfIBAN []uint32
	pendingMin int64
	// Order is, when not nil, every row sorted by OrderSort; it is
	// persisted so a reader can show the first screen without sorting.
	Order     []int32
	OrderSort SortKey
}

// Snapshot takes the state of s for Encode. It holds the refresh lock
// only to copy the id index (a few bytes a row), not while encoding.
func (s *Store) Snapshot() *Snapshot {
	snap := &Snapshot{s: s}
	b := s.b
	if b == nil {
		return snap
	}
	b.mu.Lock()
	built, same := b.idsBuilt, b.cur.n == s.n
	if built && b.cur.n >= s.n {
		// Entries go in in row order (build walks rows upwards, add
		// appends), so a row of s never probes past an entry of a later
		// row: clearing those keeps every chain of s intact.
		snap.slots = slices.Clone(b.ids.slots)
	}
	snap.nameOfIBAN = slices.Clone(b.nameOfIBAN[:min(len(b.nameOfIBAN), len(s.ibans.vals))])
	snap.pendingMin = b.pendingMin
	b.mu.Unlock()
	for i, r := range snap.slots {
		if int(r) > s.n {
			snap.slots[i] = 0
		} else if r != 0 {
			snap.used++
		}
	}
	if !built {
		// Built for the file, here in the background save, so the first
		// refresh after the next start need not (over a million rows a
		// million random writes and every id read); not for the builder,
		// whose appends (the rest of a history loading) would then each
		// insert into it. s is published: read without the lock.
		var x idIndex
		x.build(s)
		snap.slots, snap.used = x.slots, x.used
	}
	if !same {
		// pendingMin has moved on with later rows: the published rows'
		// own oldest pending time.
		snap.pendingMin = pendingMinOf(s)
	}
	return snap
}

// Store is the snapshot's store.
func (sn *Snapshot) Store() *Store { return sn.s }

// Encode writes the snapshot in the persisted layout.
func (sn *Snapshot) Encode(w io.Writer) error {
	if !littleEndian {
		return errors.New("report: the cache layout is little-endian; this machine is not")
	}
	s := sn.s
	e := &encoder{w: bufio.NewWriterSize(w, 1<<20)}
	e.u64(uint64(s.n), uint64(len(s.chunks)), uint64(len(s.text)), uint64(s.newest), b2u(s.idsHex), uint64(sn.pendingMin)) //nolint:gosec // G115: non-negative counts and times
	for k := range numEnums {
		e.strings(s.enums[k])
	}
	e.strings(s.names.vals)
	e.strings(s.names.lower)
	e.strings(s.ibans.vals)
	e.strings(s.ibans.lower)
	e.section(asBytes(sn.nameOfIBAN))
	for k := range s.chunks {
		c := &s.chunks[k]
		n := min(c.len(), s.n-k*chunkRows)
		e.u64(uint64(n)) //nolint:gosec // G115: non-negative
		e.section(asBytes(c.amount[:n]))
		e.section(asBytes(c.authorised[:n]))
		e.section(asBytes(c.submitted[:n]))
		e.section(asBytes(c.settled[:n]))
		e.section(asBytes(c.name[:n]))
		e.section(asBytes(c.iban[:n]))
		e.section(asBytes(c.text[:n]))
		e.section(c.idLen[:n])
		e.section(asBytes(c.refLen[:n]))
		e.section(c.typ[:n])
		e.section(c.cur[:n])
		e.section(c.status[:n])
		e.section(c.context[:n])
	}
	for _, t := range s.text {
		e.section(t)
	}
	e.u64(uint64(sn.used)) //nolint:gosec // G115: non-negative
	e.section(asBytes(sn.slots))
	order := sn.Order
	if len(order) != s.n {
		order = nil
	}
	e.u64(uint64(sn.OrderSort.Col), b2u(sn.OrderSort.Desc)) //nolint:gosec // G115: a small column number
	e.section(asBytes(order))
	// Every row's totals, so the first screen after opening (which
	// shows them) does not read the amounts of every row.
	u := s.allSums()
	e.section(asBytes(unsafe.Slice((*int64)(unsafe.Pointer(&u.acc[0])), len(u.acc)*4))) //nolint:gosec // G103: the totals' int64 array read as its bytes, its length from the array
	if e.err != nil {
		return e.err
	}
	return e.w.Flush()
}

// Decoded is a Store read back, with the order persisted beside it.
type Decoded struct {
	Store     *Store
	Order     []int32 // nil when none was persisted
	OrderSort SortKey
}

// Decode maps data (Encode's bytes, typically a memory-mapped file) back
// onto a Store without copying the columns: the Store's columns and text
// point into data, which must therefore stay mapped, unchanged, for as
// long as the Store or any Store refreshed from it is in use. A refresh
// never writes into data: it copies a chunk before changing it and grows
// full columns into new arrays; only the id index is updated in place, so
// data must be writable: heap bytes or a private (copy-on-write) mapping,
// whose written pages are the process's own. data must be 8-byte aligned.
func Decode(data []byte) (d Decoded, err error) {
	if !littleEndian {
		return d, ErrLayout
	}
	if len(data) > 0 && uintptr(unsafe.Pointer(&data[0]))%8 != 0 { //nolint:gosec // G103: only the address's alignment is read
		return d, fmt.Errorf("%w: buffer not 8-byte aligned", ErrLayout)
	}
	defer func() {
		// A damaged file that passed the checksum cannot crash the
		// dashboard: every read is bounds-checked, and a failed one is
		// reported as a bad layout.
		if r := recover(); r != nil {
			d, err = Decoded{}, fmt.Errorf("%w: %v", ErrLayout, r)
		}
	}()
	r := &decoder{data: data}
	n, nchunks, nblocks, newest, idsHex, pendingMin := int(r.u64()), int(r.u64()), int(r.u64()), int64(r.u64()), r.u64() != 0, int64(r.u64()) //nolint:gosec // G115: as written
	if n < 0 || nchunks != (n+chunkRows-1)/chunkRows || nblocks < 0 || nblocks > maxText/blockSize {
		return d, fmt.Errorf("%w: %d rows in %d chunks", ErrLayout, n, nchunks)
	}
	// The payee dictionaries' lookup maps are built by the first row
	// added (builder.payee), not here: at ten million rows they were a
	// fifth of the time to the first screen of a report that may never
	// gain a payee.
	b := &builder{}
	s := &b.cur
	s.b = b
	s.n, s.newest, s.idsHex, s.mapped = n, newest, idsHex, true
	b.pendingMin = pendingMin
	for k := range numEnums {
		s.enums[k] = r.strings()
		b.enumIndex[k] = make(map[string]uint8, len(s.enums[k]))
		for i, v := range s.enums[k] {
			b.enumIndex[k][v] = uint8(min(i, enumOverflow)) //nolint:gosec // G115: clamped
		}
	}
	s.names.vals, s.names.lower = r.strings(), r.strings()
	s.ibans.vals, s.ibans.lower = r.strings(), r.strings()
	if len(s.names.lower) != len(s.names.vals) || len(s.ibans.lower) != len(s.ibans.vals) {
		return d, fmt.Errorf("%w: dictionaries", ErrLayout)
	}
	b.nameOfIBAN = slices.Clone(sectionOf[uint32](r))
	for _, v := range b.nameOfIBAN {
		if v != noName && v >= uint32(len(s.names.vals)) { //nolint:gosec // G115: dictionary sizes fit uint32
			return d, fmt.Errorf("%w: payee table", ErrLayout)
		}
	}
	s.chunks = make([]chunk, nchunks)
	b.owned = make([]bool, nchunks) // every chunk is data's: copied before a change
	for k := range s.chunks {
		rows := int(r.u64()) //nolint:gosec // G115: checked below
		if rows != min(chunkRows, n-k*chunkRows) {
			return d, fmt.Errorf("%w: chunk %d holds %d rows", ErrLayout, k, rows)
		}
		c := &s.chunks[k]
		c.amount, c.authorised, c.submitted, c.settled = col[int64](r, rows), col[int64](r, rows), col[int64](r, rows), col[int64](r, rows)
		c.name, c.iban, c.text = col[uint32](r, rows), col[uint32](r, rows), col[uint32](r, rows)
		c.idLen, c.refLen = col[uint8](r, rows), col[uint16](r, rows)
		c.typ, c.cur, c.status, c.context = col[uint8](r, rows), col[uint8](r, rows), col[uint8](r, rows), col[uint8](r, rows)
	}
	s.text = make([][]byte, nblocks)
	for i := range s.text {
		blk := r.section()
		s.text[i] = blk[:len(blk):len(blk)]
	}
	// Every reference a row holds lies inside what it refers to, so a
	// file damaged in a way its checksum has not yet been checked for
	// (see cache.Map) cannot crash a reader.
	for k := range s.chunks {
		c := &s.chunks[k]
		for j := range c.amount {
			blk := int(c.text[j] >> blockShift)
			end := int(c.text[j]&(blockSize-1)) + int(c.idLen[j]) + 1 + int(c.refLen[j]&refLenMask)
			if c.refLen[j]&foldedCopy != 0 {
				end = 2*end - int(c.text[j]&(blockSize-1)) + 1
			}
			if c.name[j] >= uint32(len(s.names.vals)) || c.iban[j] >= uint32(len(s.ibans.vals)) || blk >= nblocks || end > len(s.text[blk]) { //nolint:gosec // G115: dictionary sizes fit uint32
				return d, fmt.Errorf("%w: row %d refers outside its dictionaries or text", ErrLayout, k*chunkRows+j)
			}
		}
	}
	used := int(r.u64()) //nolint:gosec // G115: as written
	if slots := sectionOf[int32](r); len(slots) > 0 {
		if len(slots)&(len(slots)-1) != 0 {
			return d, fmt.Errorf("%w: id index of %d slots", ErrLayout, len(slots))
		}
		// The slots are data's, and an insert writes into them: data is
		// a private (copy-on-write) mapping or heap bytes, never a
		// read-only or shared one.
		b.ids = idIndex{slots: slots, used: used}
		b.idsBuilt = true
	}
	d.OrderSort = SortKey{Col: Column(r.u64()), Desc: r.u64() != 0} //nolint:gosec // G115: a small column number
	if order := sectionOf[int32](r); len(order) == n && n > 0 {
		d.Order = order[:n:n]
	}
	acc := sectionOf[int64](r)
	d.Store = b.publish()
	if u := d.Store.newSums(); len(acc) == len(u.acc)*4 {
		copy(unsafe.Slice((*int64)(unsafe.Pointer(&u.acc[0])), len(u.acc)*4), acc) //nolint:gosec // G103: the totals' int64 array written as its own elements
		d.Store.allTotals.once.Do(func() { d.Store.allTotals.u = u })
	}
	return d, nil
}

// Mapped reports whether the store's rows were read back by Decode (its
// columns lie in the persisted file's bytes) rather than built on the
// heap; a refresh of such a store is too.
func (s *Store) Mapped() bool { return s != nil && s.mapped }

// pendingMinOf is builder.recomputePending for a published Store.
func pendingMinOf(s *Store) int64 {
	b := builder{cur: *s}
	b.recomputePending()
	return b.pendingMin
}

func b2u(v bool) uint64 {
	if v {
		return 1
	}
	return 0
}

// asBytes views a column as its bytes (the machine's byte order).
func asBytes[T int64 | int32 | uint32 | uint16](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*int(unsafe.Sizeof(s[0]))) //nolint:gosec // G103: fixed-size elements written as their bytes
}

type encoder struct {
	w   *bufio.Writer
	err error
	buf [8]byte
}

func (e *encoder) u64(vs ...uint64) {
	for _, v := range vs {
		binary.LittleEndian.PutUint64(e.buf[:], v)
		e.write(e.buf[:])
	}
}

func (e *encoder) write(p []byte) {
	if e.err == nil {
		_, e.err = e.w.Write(p)
	}
}

// section writes p's length, p and zero padding to a multiple of 8, so
// every section starts 8-aligned.
func (e *encoder) section(p []byte) {
	e.u64(uint64(len(p)))
	e.write(p)
	var pad [8]byte
	e.write(pad[:(8-len(p)%8)%8])
}

// strings writes a list of strings as two sections: end offsets and the
// bytes.
func (e *encoder) strings(vs []string) {
	ends := make([]uint32, len(vs))
	total := 0
	for i, v := range vs {
		total += len(v)
		ends[i] = uint32(total) //nolint:gosec // G115: dictionaries are far below 4 GiB
	}
	e.section(asBytes(ends))
	buf := make([]byte, 0, total)
	for _, v := range vs {
		buf = append(buf, v...)
	}
	e.section(buf)
}

type decoder struct {
	data []byte
	off  int
}

func (r *decoder) u64() uint64 {
	v := binary.LittleEndian.Uint64(r.data[r.off : r.off+8])
	r.off += 8
	return v
}

func (r *decoder) section() []byte {
	n := int(r.u64()) //nolint:gosec // G115: bounds-checked by the slice below
	if n < 0 || n > len(r.data)-r.off {
		panic(fmt.Sprintf("section of %d bytes at %d", n, r.off))
	}
	p := r.data[r.off : r.off+n : r.off+n]
	r.off += n + (8-n%8)%8
	return p
}

// sectionOf views a section as a column of T.
func sectionOf[T int64 | int32 | uint32 | uint16 | uint8](r *decoder) []T {
	p := r.section()
	var zero T
	size := int(unsafe.Sizeof(zero))
	if len(p)%size != 0 {
		panic(fmt.Sprintf("section of %d bytes is not of %d-byte values", len(p), size))
	}
	if len(p) == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&p[0])), len(p)/size) //nolint:gosec // G103: bytes read as the fixed-size elements they were written from, 8-byte aligned (Decode checks)
}

// col reads a column of exactly rows values, capped at its length so an
// append grows into a new array instead of writing into data.
func col[T int64 | int32 | uint32 | uint16 | uint8](r *decoder, rows int) []T {
	s := sectionOf[T](r)
	if len(s) != rows {
		panic(fmt.Sprintf("column of %d values for %d rows", len(s), rows))
	}
	return s[:rows:rows]
}

func (r *decoder) strings() []string {
	ends := sectionOf[uint32](r)
	buf := r.section()
	out := make([]string, len(ends))
	start := uint32(0)
	for i, end := range ends {
		if end < start || int(end) > len(buf) {
			panic("string list out of order")
		}
		// Copied: dictionaries are small, and map keys outlive nothing.
		out[i] = string(buf[start:end])
		start = end
	}
	return out
}
