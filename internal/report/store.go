package report

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/paydash/paydash/api"
)

// Rows live in chunks of chunkRows; each chunk's columns are allocated
// once at their full size, so loading never copies a column, and a
// refresh that changes a row copies only that row's chunk.
const (
	chunkShift = 16
	chunkRows  = 1 << chunkShift
	chunkMask  = chunkRows - 1
)

// Text (transaction id and reference, the two per-row strings) lives in
// blocks of blockSize bytes; a row's text never straddles two blocks.
const (
	blockShift = 20
	blockSize  = 1 << blockShift
	maxID      = 255
	maxRef     = 4096
	maxText    = 1<<32 - 1
)

// chunk is the columns of up to chunkRows rows.
type chunk struct {
	amount                         []int64
	authorised, submitted, settled []int64  // unix ns; 0 = not reached
	name, iban                     []uint32 // dictionary ids
	text                           []uint32 // offset of "id\x00ref" in the text blocks
	idLen                          []uint8
	refLen                         []uint16 // with foldedCopy set when a folded copy follows
	typ, cur, status, context      []uint8
}

func newChunk(capacity int) chunk {
	return chunk{
		amount: make([]int64, 0, capacity), authorised: make([]int64, 0, capacity),
		submitted: make([]int64, 0, capacity), settled: make([]int64, 0, capacity),
		name: make([]uint32, 0, capacity), iban: make([]uint32, 0, capacity), text: make([]uint32, 0, capacity),
		idLen: make([]uint8, 0, capacity), refLen: make([]uint16, 0, capacity),
		typ: make([]uint8, 0, capacity), cur: make([]uint8, 0, capacity),
		status: make([]uint8, 0, capacity), context: make([]uint8, 0, capacity),
	}
}

func (c *chunk) len() int { return len(c.amount) }

// clone copies the chunk's columns, for a refresh that changes a row of a
// chunk a published Store still reads.
func (c *chunk) clone() chunk {
	g := func(s []int64) []int64 { return append(make([]int64, 0, cap(s)), s...) }
	u := func(s []uint32) []uint32 { return append(make([]uint32, 0, cap(s)), s...) }
	b := func(s []uint8) []uint8 { return append(make([]uint8, 0, cap(s)), s...) }
	return chunk{amount: g(c.amount), authorised: g(c.authorised), submitted: g(c.submitted), settled: g(c.settled),
		name: u(c.name), iban: u(c.iban), text: u(c.text), idLen: b(c.idLen),
		refLen: append(make([]uint16, 0, cap(c.refLen)), c.refLen...),
		typ:    b(c.typ), cur: b(c.cur), status: b(c.status), context: b(c.context)}
}

// Enum columns: a handful of distinct values each, interned to a byte.
const (
	EnumType = iota
	EnumCurrency
	EnumStatus
	EnumContext
	numEnums
)

// enumScan is the number of a column's values up to which a value is
// looked up by comparing rather than in the map.
const enumScan = 16

// enumOverflow stands for values beyond the first 255 of a column, which
// the interface never produces.
const enumOverflow = 255

// Store is one published state of the report: immutable, so filter and
// sort goroutines read it freely while a refresh builds the next one.
// Row numbers are stable: a refresh updates rows in place (in a copy of
// their chunk) and appends new ones after the last.
type Store struct {
	n      int
	chunks []chunk
	// text holds each row's "id\x00ref" as received, ASCII searched by
	// folding on the fly; a row with other characters is followed by a
	// folded copy of the same length ("\x00id\x00ref" folded), marked by
	// foldedCopy in its refLen. A folded copy of every row doubled the
	// text written on load (a fifth of its memory, in page faults) for
	// the few rows that need one.
	text   [][]byte
	names  dictView
	ibans  dictView
	enums  [numEnums][]string
	newest int64 // latest report time of any row
	// idsHex: every transaction id is hex digits and dashes (UUIDs), so a
	// query with any other character need not look at ids.
	idsHex bool
	b      *builder
	// mapped: the columns were read back from a persisted file (Decode)
	// rather than built on the heap.
	mapped bool
	// allTotals caches the totals of every row.
	allTotals *totalsCache
	// gen numbers the stores its builder published, 1 up; parentGen is
	// the one published before it, which it was built from (0: none).
	gen, parentGen uint64
}

type totalsCache struct {
	once sync.Once
	u    *sums
}

// dictView is the published part of a dictionary: value and folded value
// by id.
type dictView struct{ vals, lower []string }

// builder is the mutable side shared by the Stores of one report: the
// lookup tables and what a refresh appends to. mu serialises refreshes.
type builder struct {
	mu         sync.Mutex
	cur        Store // the state being built; published by copying
	owned      []bool
	nameIndex  map[string]uint32
	ibanIndex  map[string]uint32
	enumIndex  [numEnums]map[string]uint8
	ids        idIndex
	idsBuilt   bool
	nameOfIBAN []uint32 // by IBAN id: the name id last seen with it (see payee)
	firstChunk int      // rows the first chunk is sized for; 0 = unknown
	pendingMin int64    // report time of the oldest row not yet settled or failed; 0 = none
	published  uint64   // stores published (Store.gen of the latest)
}

// New returns an empty store; sizeHint (0 = unknown) sizes the first
// chunk ahead when the row count is known.
func New(sizeHint int) *Store {
	b := &builder{nameIndex: map[string]uint32{}, ibanIndex: map[string]uint32{}}
	for i := range b.enumIndex {
		b.enumIndex[i] = map[string]uint8{}
	}
	b.cur.b = b
	b.cur.idsHex = true
	b.firstChunk = sizeHint
	return b.publish()
}

// Len is the number of rows.
func (s *Store) Len() int {
	if s == nil {
		return 0
	}
	return s.n
}

// Newest is the latest report time of any row (zero for an empty store).
func (s *Store) Newest() time.Time {
	if s == nil || s.newest == 0 {
		return time.Time{}
	}
	return time.Unix(0, s.newest).UTC()
}

// EnumValues lists the values a column holds, in the order first seen.
func (s *Store) EnumValues(which int) []string { return s.enums[which] }

// publish returns the state built so far as an immutable Store: the
// column headers are copied, and chunks written later are copied first
// (owned is reset).
func (b *builder) publish() *Store {
	s := b.cur
	s.parentGen = b.published
	b.published++
	s.gen = b.published
	s.allTotals = new(totalsCache)
	s.chunks = slices.Clone(b.cur.chunks)
	s.text = slices.Clone(b.cur.text)
	clear(b.owned)
	return &s
}

// ---- row access ----

func (s *Store) at(i int32) (*chunk, int) { return &s.chunks[i>>chunkShift], int(i & chunkMask) }

func (s *Store) textOf(blocks [][]byte, i int32) (id, ref []byte) {
	c, j := s.at(i)
	off := c.text[j]
	blk := blocks[off>>blockShift]
	o := off & (blockSize - 1)
	il, rl := uint32(c.idLen[j]), uint32(c.refLen[j]&refLenMask)
	return blk[o : o+il], blk[o+il+1 : o+il+1+rl]
}

// ID is row i's transaction id.
func (s *Store) ID(i int32) []byte { id, _ := s.textOf(s.text, i); return id }

// Reference is row i's beneficiary reference.
func (s *Store) Reference(i int32) []byte { _, ref := s.textOf(s.text, i); return ref }

// Name is row i's beneficiary name.
func (s *Store) Name(i int32) string { c, j := s.at(i); return s.names.vals[c.name[j]] }

// IBAN is row i's beneficiary IBAN.
func (s *Store) IBAN(i int32) string { c, j := s.at(i); return s.ibans.vals[c.iban[j]] }

// Amount is row i's amount in minor units, as the report gives it.
func (s *Store) Amount(i int32) int64 { c, j := s.at(i); return c.amount[j] }

// Signed is row i's amount with its direction: fundings are credits
// (positive), payouts debits (negative).
func (s *Store) Signed(i int32) int64 {
	c, j := s.at(i)
	if api.Credit(s.enumName(EnumType, c.typ[j])) {
		return c.amount[j]
	}
	return -c.amount[j]
}

// Type, Currency and Status are row i's enum values.
func (s *Store) Type(i int32) string     { c, j := s.at(i); return s.enumName(EnumType, c.typ[j]) }
func (s *Store) Currency(i int32) string { c, j := s.at(i); return s.enumName(EnumCurrency, c.cur[j]) }
func (s *Store) Status(i int32) string   { c, j := s.at(i); return s.enumName(EnumStatus, c.status[j]) }

// Time is row i's report time: when it was authorised, or for rows that
// never were (fundings), when it was submitted or settled.
func (s *Store) Time(i int32) time.Time { return time.Unix(0, s.atNs(i)) }

// LatestTime is when row i last moved: settled, else submitted, else
// authorised, as api.Transaction.LatestTime, read from the columns so a
// pass over a million rows builds no records (the account page's daily
// movements). Time, the report's own row time, is the authorisation.
func (s *Store) LatestTime(i int32) time.Time {
	if ns := s.latestNs(i); ns != 0 {
		return time.Unix(0, ns)
	}
	return time.Time{}
}

func (s *Store) atNs(i int32) int64 {
	c, j := s.at(i)
	return rowTime(c.authorised[j], c.submitted[j], c.settled[j])
}

func rowTime(authorised, submitted, settled int64) int64 {
	switch {
	case authorised != 0:
		return authorised
	case submitted != 0:
		return submitted
	}
	return settled
}

func (s *Store) enumName(which int, v uint8) string {
	if int(v) < len(s.enums[which]) {
		return s.enums[which][v]
	}
	return "(other)"
}

func reportTime(ns int64) api.ReportTime {
	if ns == 0 {
		return api.ReportTime{}
	}
	return api.ReportTime{Time: time.Unix(0, ns).UTC()}
}

// Tx rebuilds row i as the API record (detail pane, copy, export).
func (s *Store) Tx(i int32) api.Transaction {
	c, j := s.at(i)
	id, ref := s.textOf(s.text, i)
	return api.Transaction{
		TransactionID:        string(id),
		Type:                 s.enumName(EnumType, c.typ[j]),
		AuthorisedAt:         reportTime(c.authorised[j]),
		SubmittedAt:          reportTime(c.submitted[j]),
		SettledAt:            reportTime(c.settled[j]),
		BeneficiaryName:      s.names.vals[c.name[j]],
		BeneficiaryIBAN:      s.ibans.vals[c.iban[j]],
		BeneficiaryReference: string(ref),
		AmountInMinor:        c.amount[j],
		Currency:             s.enumName(EnumCurrency, c.cur[j]),
		ContextCode:          s.enumName(EnumContext, c.context[j]),
		Status:               s.enumName(EnumStatus, c.status[j]),
	}
}

// FindIDs returns the rows whose transaction id is in ids, scanning from
// the newest rows, where recently sent payouts are, and stopping once
// every id is found.
func (s *Store) FindIDs(ids map[string]bool) map[string]api.Transaction {
	out := make(map[string]api.Transaction, len(ids))
	// Once a refresh has built the report's id index, a look-up per id
	// rather than a scan of every row: the tracker asks on every event
	// batch that brings payouts it does not know. The index belongs to
	// the builder; a refresh running now holds it, and the scan serves.
	if b := s.b; b != nil && b.mu.TryLock() {
		built := b.idsBuilt
		if built {
			for id := range ids {
				if i, ok := b.ids.find(&b.cur, []byte(clip(id, maxID))); ok && int(i) < s.n {
					out[id] = s.Tx(i)
				}
			}
		}
		b.mu.Unlock()
		if built {
			return out
		}
	}
	for i := int32(s.Len()) - 1; i >= 0 && len(out) < len(ids); i-- { //nolint:gosec // G115: row counts fit int32 (row numbers are int32 throughout)
		if id := s.ID(i); ids[string(id)] {
			out[string(id)] = s.Tx(i)
		}
	}
	return out
}

// ---- building ----

// add appends t as a new row. t's strings may share a decoder's buffer:
// everything kept is copied.
func (b *builder) add(t *api.Transaction) error {
	id, ref := clip(t.TransactionID, maxID), clip(t.BeneficiaryReference, maxRef)
	off, folded, err := b.appendText(id, ref)
	if err != nil {
		return err
	}
	s := &b.cur
	if s.idsHex && !hexOnly(id) {
		s.idsHex = false
	}
	if s.n == len(s.chunks)*chunkRows {
		capacity := chunkRows
		if s.n == 0 && b.firstChunk > 0 {
			capacity = min(b.firstChunk, chunkRows)
		} else if s.n == 0 {
			capacity = 4096 // a small report stays small; only this chunk ever grows
		}
		s.chunks = append(s.chunks, newChunk(capacity))
		b.owned = append(b.owned, true)
	}
	// Appending needs no copy of a published chunk: a Store never reads
	// past its own length, and a full first chunk grows into new arrays.
	c := &s.chunks[s.n>>chunkShift]
	c.amount = append(c.amount, t.AmountInMinor)
	c.authorised = append(c.authorised, unixNano(t.AuthorisedAt))
	c.submitted = append(c.submitted, unixNano(t.SubmittedAt))
	c.settled = append(c.settled, unixNano(t.SettledAt))
	name, iban := b.payee(t.BeneficiaryName, t.BeneficiaryIBAN)
	c.name = append(c.name, name)
	c.iban = append(c.iban, iban)
	c.text = append(c.text, off)
	c.idLen = append(c.idLen, uint8(len(id)))            //nolint:gosec // G115: clipped to maxID
	c.refLen = append(c.refLen, uint16(len(ref))|folded) //nolint:gosec // G115: clipped to maxRef
	c.typ = append(c.typ, b.enum(EnumType, t.Type))
	c.cur = append(c.cur, b.enum(EnumCurrency, t.Currency))
	c.status = append(c.status, b.enum(EnumStatus, t.Status))
	c.context = append(c.context, b.enum(EnumContext, t.ContextCode))
	s.n++
	if b.idsBuilt {
		b.ids.insert(s, int32(s.n-1)) //nolint:gosec // G115: row counts fit int32 (row numbers are int32 throughout)
	}
	b.noteTime(t)
	return nil
}

// ownForUpdate makes chunk k safe to change in place: a chunk a published
// Store shares is copied first (once per refresh).
func (b *builder) ownForUpdate(k int) {
	if b.owned[k] {
		return
	}
	b.cur.chunks[k] = b.cur.chunks[k].clone()
	b.owned[k] = true
}

func (b *builder) noteTime(t *api.Transaction) {
	at := rowTimeOf(t)
	b.cur.newest = max(b.cur.newest, at)
	if pending(t.Status) && (b.pendingMin == 0 || at < b.pendingMin) {
		b.pendingMin = at
	}
}

// pending reports whether a row in this status may still change.
func pending(status string) bool {
	return api.StateRank(status) > 0 && !api.IsFinalState(status)
}

func unixNano(t api.ReportTime) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[:n]
	for !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s
}

// foldedCopy marks, in a row's refLen, that its text is followed by a
// folded copy; refLenMask keeps the length (maxRef fits below it).
const (
	foldedCopy = 1 << 15
	refLenMask = foldedCopy - 1
)

// appendText stores "id\x00ref" as received and, when either holds
// other than ASCII, "\x00id\x00ref" folded after it (foldInto keeps
// lengths); folded is foldedCopy then.
func (b *builder) appendText(id, ref string) (off uint32, folded uint16, err error) {
	s := &b.cur
	need := len(id) + 1 + len(ref)
	if !isASCII(id) || !isASCII(ref) {
		folded = foldedCopy
		need *= 2
		need++
	}
	last := len(s.text) - 1
	if last < 0 || len(s.text[last])+need > blockSize {
		if uint64(len(s.text)+1)*blockSize > maxText {
			return 0, 0, fmt.Errorf("transaction report too large to hold (%d rows, 4 GiB of text): narrow the query by date or currency", s.n)
		}
		size := blockSize
		if last < 0 {
			size = 64 << 10 // a small report stays small: only the first block grows
		}
		s.text = append(s.text, make([]byte, 0, size))
		last++
	}
	off = uint32(last)<<blockShift | uint32(len(s.text[last])) //nolint:gosec // G115: blocks are counted against maxText above
	t := s.text[last]
	t = append(t, id...)
	t = append(t, 0) // a query never matches across the two fields
	t = append(t, ref...)
	if folded != 0 {
		t = append(t, 0)
		t = foldInto(t, id)
		t = append(t, 0)
		t = foldInto(t, ref)
	}
	s.text[last] = t
	return off, folded, nil
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// intern returns the dictionary id of v, adding it when new.
// payee returns the dictionary ids of a row's beneficiary name and IBAN.
// An IBAN mostly comes with the same name, so the name last seen with it
// is compared first: one map lookup a row on load instead of two.
func (b *builder) payee(name, iban string) (nameID, ibanID uint32) {
	s := &b.cur
	if b.nameIndex == nil {
		b.indexPayees()
	}
	ibanID = b.intern(&s.ibans, b.ibanIndex, iban)
	for len(b.nameOfIBAN) < len(s.ibans.vals) {
		b.nameOfIBAN = append(b.nameOfIBAN, noName)
	}
	if n := b.nameOfIBAN[ibanID]; n != noName && s.names.vals[n] == clip(name, maxRef) {
		return n, ibanID
	}
	nameID = b.intern(&s.names, b.nameIndex, name)
	b.nameOfIBAN[ibanID] = nameID
	return nameID, ibanID
}

// indexPayees builds the dictionaries' lookup maps (a decoded store
// has none until its first row is added).
func (b *builder) indexPayees() {
	s := &b.cur
	b.nameIndex = make(map[string]uint32, len(s.names.vals))
	b.ibanIndex = make(map[string]uint32, len(s.ibans.vals))
	for i, v := range s.names.vals {
		b.nameIndex[v] = uint32(i) //nolint:gosec // G115: dictionary ids fit uint32
	}
	for i, v := range s.ibans.vals {
		b.ibanIndex[v] = uint32(i) //nolint:gosec // G115: dictionary ids fit uint32
	}
}

// noName marks an IBAN not yet seen with a name.
const noName = ^uint32(0)

func (b *builder) intern(d *dictView, index map[string]uint32, v string) uint32 {
	if id, ok := index[v]; ok {
		return id
	}
	id := uint32(len(d.vals))          //nolint:gosec // G115: dictionary ids fit uint32 (a million rows at most)
	v = strings.Clone(clip(v, maxRef)) // v may share a decoder's buffer (api.Record.Transient)
	d.vals = append(d.vals, v)
	d.lower = append(d.lower, string(foldInto(nil, v)))
	index[v] = id
	return id
}

func (b *builder) enum(which int, v string) uint8 {
	e := b.cur.enums[which]
	if len(e) <= enumScan {
		// A column's few values are found by comparing: four columns a
		// row, and a map's hashing cost more than the comparisons.
		for i, x := range e {
			if x == v {
				return uint8(i) //nolint:gosec // G115: below enumScan
			}
		}
	} else if i, ok := b.enumIndex[which][v]; ok {
		return i
	}
	if len(e) >= enumOverflow {
		return enumOverflow
	}
	i := uint8(len(e))   //nolint:gosec // G115: below enumOverflow, checked above
	v = strings.Clone(v) // v may share a decoder's buffer
	b.cur.enums[which] = append(e, v)
	b.enumIndex[which][v] = i
	return i
}

// foldInto appends s lowercased, rune by rune, keeping its length in
// bytes: a rune whose lower case has another UTF-8 length is kept as it
// is (so the folded text has the same offsets as the original). Queries
// are folded the same way.
func foldInto(b []byte, s string) []byte {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		n := len(b)
		b = append(b, s...)
		for i, c := range b[n:] {
			b[n+i] = lowerASCII[c]
		}
		return b
	}
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			b = append(b, c)
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if l := unicode.ToLower(r); r != utf8.RuneError && utf8.RuneLen(l) == n {
			b = utf8.AppendRune(b, l)
		} else {
			b = append(b, s[i:i+n]...)
		}
		i += n
	}
	return b
}

// hexOnly reports whether s (folded or not) is only hex digits and
// dashes.
func hexOnly(s string) bool {
	for i := 0; i < len(s); i++ {
		if !hexChars[s[i]] {
			return false
		}
	}
	return true
}

var hexChars = func() (t [256]bool) {
	for _, c := range "0123456789abcdefABCDEF-" {
		t[c] = true
	}
	return t
}()

// lowerASCII maps each byte to its ASCII lower case (others unchanged).
var lowerASCII = func() (t [256]byte) {
	for i := range t {
		t[i] = byte(i)
		if 'A' <= i && i <= 'Z' {
			t[i] = byte(i + 'a' - 'A')
		}
	}
	return t
}()

// Fold is the search form of a query: lowercased as the store folds.
func Fold(s string) string { return string(foldInto(nil, s)) }

// ---- merging by transaction id ----

// idIndex is an open-addressing hash table from transaction id to row
// (row+1; 0 is empty), built on the first refresh: 4 bytes a slot instead
// of a map's hundred.
type idIndex struct {
	slots []int32
	used  int
}

func hashID(id []byte) uint64 {
	v := uint64(14695981039346656037)
	for _, c := range id {
		v ^= uint64(c)
		v *= 1099511628211
	}
	return v
}

func (x *idIndex) build(s *Store) {
	size := 1024
	for size < 2*s.n {
		size *= 2
	}
	x.slots = make([]int32, size)
	x.used = 0
	for i := range s.n {
		x.insert(s, int32(i))
	}
}

func (x *idIndex) insert(s *Store, row int32) {
	if 2*(x.used+1) > len(x.slots) {
		x.build(s) // s already includes row: build inserts it
		return
	}
	mask := uint64(len(x.slots) - 1) //nolint:gosec // G115: a positive power of two
	for h := hashID(s.ID(row)) & mask; ; h = (h + 1) & mask {
		if x.slots[h] == 0 {
			x.slots[h] = row + 1
			x.used++
			return
		}
	}
}

func (x *idIndex) find(s *Store, id []byte) (int32, bool) {
	mask := uint64(len(x.slots) - 1) //nolint:gosec // G115: a positive power of two
	for h := hashID(id) & mask; ; h = (h + 1) & mask {
		r := x.slots[h]
		if r == 0 || int(r) > s.n { // past the rows: only a damaged cache file holds such a slot
			return 0, false
		}
		if bytes.Equal(s.ID(r-1), id) {
			return r - 1, true
		}
	}
}

// MergedFrom reports whether s was built straight from old: published by
// the same report's builder next after it, so the rows a merge reported
// changed (MergeStats.Changed) are all s differs from old by. A merge
// whose result was dropped in between makes it false.
func (s *Store) MergedFrom(old *Store) bool {
	return s != nil && old != nil && s.b == old.b && s.parentGen == old.gen && old.gen != 0
}

// MergeStats says what a refresh changed: counts, and the rows added or
// changed (for Resort).
type MergeStats struct {
	Added, Updated, Seen int
	Changed              []int32
}

// update rewrites row i with t when anything differs; it reports whether
// it did.
func (b *builder) update(i int32, t *api.Transaction) bool {
	s := &b.cur
	c, j := s.at(i)
	_, ref := s.textOf(s.text, i)
	au, su, se := unixNano(t.AuthorisedAt), unixNano(t.SubmittedAt), unixNano(t.SettledAt)
	same := c.amount[j] == t.AmountInMinor && c.authorised[j] == au && c.submitted[j] == su && c.settled[j] == se &&
		s.enumName(EnumStatus, c.status[j]) == t.Status && s.enumName(EnumType, c.typ[j]) == t.Type &&
		s.enumName(EnumCurrency, c.cur[j]) == t.Currency && s.enumName(EnumContext, c.context[j]) == t.ContextCode &&
		s.names.vals[c.name[j]] == t.BeneficiaryName && s.ibans.vals[c.iban[j]] == t.BeneficiaryIBAN &&
		string(ref) == clip(t.BeneficiaryReference, maxRef)
	if same {
		return false
	}
	k := int(i >> chunkShift)
	b.ownForUpdate(k)
	c = &s.chunks[k]
	if string(ref) != clip(t.BeneficiaryReference, maxRef) {
		id := string(s.ID(i))
		off, folded, err := b.appendText(id, clip(t.BeneficiaryReference, maxRef))
		if err == nil {
			c.text[j], c.refLen[j] = off, uint16(len(clip(t.BeneficiaryReference, maxRef)))|folded //nolint:gosec // G115: clipped to maxRef
		}
	}
	c.amount[j], c.authorised[j], c.submitted[j], c.settled[j] = t.AmountInMinor, au, su, se
	c.status[j] = b.enum(EnumStatus, t.Status)
	c.typ[j] = b.enum(EnumType, t.Type)
	c.cur[j] = b.enum(EnumCurrency, t.Currency)
	c.context[j] = b.enum(EnumContext, t.ContextCode)
	c.name[j], c.iban[j] = b.payee(t.BeneficiaryName, t.BeneficiaryIBAN)
	return true
}

// recomputePending rescans for the oldest row still in flight (after a
// refresh may have settled the one that was).
func (b *builder) recomputePending() {
	s := &b.cur
	b.pendingMin = 0
	var want [2]int
	for w, st := range [2]string{api.StateAuthorised, api.StateSubmitted} {
		want[w] = -1
		for v, name := range s.enums[EnumStatus] {
			if name == st {
				want[w] = v
			}
		}
	}
	if want[0] < 0 && want[1] < 0 {
		return
	}
	for k := range s.chunks {
		c := &s.chunks[k]
		for j, st := range c.status {
			if int(st) == want[0] || int(st) == want[1] {
				at := rowTime(c.authorised[j], c.submitted[j], c.settled[j])
				if b.pendingMin == 0 || at < b.pendingMin {
					b.pendingMin = at
				}
			}
		}
	}
}
