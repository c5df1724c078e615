package ui

import (
	"bytes"
	"cmp"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/paydash/paydash/api"
)

// txStore is the transaction report held compactly so that a million rows
// stay well under the memory budget and filtering touches few cache lines:
// free text lives in two byte arenas (as received, and pre-lowercased for
// search), small closed sets (type, currency, status, context code) are
// interned to one byte, timestamps are int64 nanoseconds. A txStore is
// immutable once loaded, so filter and sort goroutines share it freely.
type txStore struct {
	rows                                  []txRow
	text                                  []byte // id, name, iban, reference of each row, back to back
	lower                                 []byte // "id\x00name\x00iban\x00ref\x00" lowercased, per row
	types, currencies, statuses, contexts enumTable
}

type txRow struct {
	amount                             int64
	authorised, submitted, settled     int64 // unix ns; 0 = not reached
	off, loff, llen                    uint32
	idLen, nameLen, ibanLen, refLen    uint16
	typ, currency, status, contextCode uint8
}

// at is the row's report time: when it was authorised, or for rows that
// never were (fundings), when it settled or was submitted.
func (r *txRow) at() int64 {
	switch {
	case r.authorised != 0:
		return r.authorised
	case r.submitted != 0:
		return r.submitted
	}
	return r.settled
}

// enumTable interns the few distinct values of a column. Index 255 is
// reserved for "anything beyond the first 255 values", which the interface
// never produces for these columns.
type enumTable struct {
	names []string
	index map[string]uint8
}

const enumOverflow = 255

func (e *enumTable) intern(s string) uint8 {
	if i, ok := e.index[s]; ok {
		return i
	}
	if e.index == nil {
		e.index = make(map[string]uint8)
	}
	if len(e.names) >= enumOverflow {
		return enumOverflow
	}
	i := uint8(len(e.names))
	e.names = append(e.names, s)
	e.index[s] = i
	return i
}

func (e *enumTable) name(i uint8) string {
	if int(i) < len(e.names) {
		return e.names[i]
	}
	return "(other)"
}

// lookup finds a value case-insensitively; ok is false when no row has it.
func (e *enumTable) lookup(s string) (uint8, bool) {
	for i, n := range e.names {
		if strings.EqualFold(n, s) {
			return uint8(i), true
		}
	}
	return 0, false
}

// sorted returns the values in alphabetical order (for cycling filters).
func (e *enumTable) sorted() []string {
	s := slices.Clone(e.names)
	slices.Sort(s)
	return s
}

const maxField = 1<<16 - 1

func clipField(s string) string {
	if len(s) <= maxField {
		return s
	}
	// Cut on a rune boundary; no real report field is anywhere near 64 KiB.
	s = s[:maxField]
	for !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s
}

func unixNano(t api.ReportTime) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

// add appends one transaction. It is only called while loading, before the
// store is shared.
func (s *txStore) add(t *api.Transaction) error {
	id, name, iban, ref := clipField(t.TransactionID), clipField(t.BeneficiaryName), clipField(t.BeneficiaryIBAN), clipField(t.BeneficiaryReference)
	if uint64(len(s.text))+uint64(len(id)+len(name)+len(iban)+len(ref)) > 1<<32-1 ||
		uint64(len(s.lower))+4*uint64(len(id)+len(name)+len(iban)+len(ref)+4) > 1<<32-1 {
		return fmt.Errorf("transaction report too large to hold (%d rows, 4 GiB of text): narrow the query by date or currency", len(s.rows))
	}
	r := txRow{
		amount:      t.AmountInMinor,
		authorised:  unixNano(t.AuthorisedAt),
		submitted:   unixNano(t.SubmittedAt),
		settled:     unixNano(t.SettledAt),
		off:         uint32(len(s.text)),
		loff:        uint32(len(s.lower)),
		idLen:       uint16(len(id)),
		nameLen:     uint16(len(name)),
		ibanLen:     uint16(len(iban)),
		refLen:      uint16(len(ref)),
		typ:         s.types.intern(t.Type),
		currency:    s.currencies.intern(t.Currency),
		status:      s.statuses.intern(t.Status),
		contextCode: s.contexts.intern(t.ContextCode),
	}
	s.text = append(s.text, id...)
	s.text = append(s.text, name...)
	s.text = append(s.text, iban...)
	s.text = append(s.text, ref...)
	for _, f := range [...]string{id, name, iban, ref} {
		s.lower = appendLower(s.lower, f)
		s.lower = append(s.lower, 0) // a query can never match across fields
	}
	r.llen = uint32(len(s.lower)) - r.loff
	s.rows = append(s.rows, r)
	return nil
}

// appendLower appends strings.ToLower(f) without allocating for ASCII.
func appendLower(b []byte, f string) []byte {
	if !isASCII(f) {
		return append(b, strings.ToLower(f)...)
	}
	for i := 0; i < len(f); i++ {
		c := f[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b = append(b, c)
	}
	return b
}

// compact trims the arenas' growth slack once loading is done.
func (s *txStore) compact() {
	s.rows = slices.Clip(slices.Clone(s.rows))
	s.text = slices.Clone(s.text)
	s.lower = slices.Clone(s.lower)
}

func (s *txStore) len() int { return len(s.rows) }

func (s *txStore) idBytes(i int32) []byte {
	r := &s.rows[i]
	return s.text[r.off : r.off+uint32(r.idLen)]
}

func (s *txStore) nameBytes(i int32) []byte {
	r := &s.rows[i]
	o := r.off + uint32(r.idLen)
	return s.text[o : o+uint32(r.nameLen)]
}

func (s *txStore) ibanBytes(i int32) []byte {
	r := &s.rows[i]
	o := r.off + uint32(r.idLen) + uint32(r.nameLen)
	return s.text[o : o+uint32(r.ibanLen)]
}

func (s *txStore) refBytes(i int32) []byte {
	r := &s.rows[i]
	o := r.off + uint32(r.idLen) + uint32(r.nameLen) + uint32(r.ibanLen)
	return s.text[o : o+uint32(r.refLen)]
}

// lowerName is the lowercased beneficiary name (second field of the
// search text), for case-insensitive sorting.
func (s *txStore) lowerName(i int32) []byte {
	r := &s.rows[i]
	l := s.lower[r.loff : r.loff+r.llen]
	l = l[bytes.IndexByte(l, 0)+1:]
	return l[:bytes.IndexByte(l, 0)]
}

func reportTime(ns int64) api.ReportTime {
	if ns == 0 {
		return api.ReportTime{}
	}
	return api.ReportTime{Time: time.Unix(0, ns).UTC()}
}

// tx rebuilds row i as the API record (for the detail pane, copy, export).
func (s *txStore) tx(i int32) api.Transaction {
	r := &s.rows[i]
	return api.Transaction{
		TransactionID:        string(s.idBytes(i)),
		Type:                 s.types.name(r.typ),
		AuthorisedAt:         reportTime(r.authorised),
		SubmittedAt:          reportTime(r.submitted),
		SettledAt:            reportTime(r.settled),
		BeneficiaryName:      string(s.nameBytes(i)),
		BeneficiaryIBAN:      string(s.ibanBytes(i)),
		BeneficiaryReference: string(s.refBytes(i)),
		AmountInMinor:        r.amount,
		Currency:             s.currencies.name(r.currency),
		ContextCode:          s.contexts.name(r.contextCode),
		Status:               s.statuses.name(r.status),
	}
}

// ---- filtering ----

// anyValue means "no restriction" for an enum filter; noValue means the
// filter names a value no row has, so nothing matches.
const (
	anyValue = -1
	noValue  = -2
)

// txFilter is a parsed filter bar, resolved against one store.
type txFilter struct {
	text             string // lowercased free text
	from, to         int64  // unix ns, inclusive from, exclusive to; 0 = open
	typ, cur, status int
}

func (f txFilter) empty() bool {
	return f.text == "" && f.from == 0 && f.to == 0 && f.typ == anyValue && f.cur == anyValue && f.status == anyValue
}

// narrows reports whether every row matching f also matches base, so f can
// be evaluated over base's result instead of the whole report: same
// structured filters, and free text extended at the end.
func (f txFilter) narrows(base txFilter) bool {
	return f.from == base.from && f.to == base.to && f.typ == base.typ && f.cur == base.cur &&
		f.status == base.status && strings.HasPrefix(f.text, base.text)
}

func (s *txStore) match(i int32, f *txFilter, q []byte) bool {
	r := &s.rows[i]
	if f.typ != anyValue && int(r.typ) != f.typ ||
		f.cur != anyValue && int(r.currency) != f.cur ||
		f.status != anyValue && int(r.status) != f.status {
		return false
	}
	if f.from != 0 || f.to != 0 {
		at := r.at()
		if f.from != 0 && at < f.from || f.to != 0 && at >= f.to {
			return false
		}
	}
	return len(q) == 0 || bytes.Contains(s.lower[r.loff:r.loff+r.llen], q)
}

// errStale reports that a newer request superseded this one.
var errStale = fmt.Errorf("superseded by a newer filter")

// filter returns the candidates matching f, in candidate order. It splits
// large inputs across the CPUs and gives up early (errStale) once stale()
// says a newer request exists, so fast typing never piles up work.
func (s *txStore) filter(cands []int32, f txFilter, stale func() bool) ([]int32, error) {
	if f.typ == noValue || f.cur == noValue || f.status == noValue {
		return []int32{}, nil
	}
	if f.empty() {
		return cands, nil
	}
	q := []byte(f.text)
	if len(cands) < parallelMin || len(cands) < len(s.rows)/8 || !scattered(cands) {
		return selectParallel(cands, func(i int32) bool { return s.match(i, &f, q) }, stale)
	}
	// Much of the report (the first keystrokes) in a sort order unrelated
	// to storage (amount, name): testing the candidates in that order
	// reads the rows and their text at random, a cache miss each, about
	// ten times slower than in storage order. Testing every row in storage
	// order instead streams through memory; a bitmap then gives back the
	// candidates that match, in their order.
	bits, err := s.matchBits(&f, q, stale)
	if err != nil {
		return nil, err
	}
	return selectParallel(cands, func(i int32) bool { return bits[i>>6]&(1<<(uint(i)&63)) != 0 }, stale)
}

// scattered reports whether neighbouring candidates are mostly far apart
// in storage, judged on a sample: then visiting them in order would miss
// the cache on nearly every row.
func scattered(cands []int32) bool {
	const samples = 256
	step := max(len(cands)/samples, 1)
	far, n := 0, 0
	for k := 0; k+1 < len(cands); k += step {
		if d := cands[k+1] - cands[k]; d > 8 || d < -8 {
			far++
		}
		n++
	}
	return far*2 > n
}

// parallelMin is the input size below which one goroutine does the work.
const parallelMin = 1 << 16

// staleCheckEvery is how many rows a worker tests between stale checks.
const staleCheckEvery = 1 << 14

// matchBits tests every row in storage order, split across the CPUs in
// whole bitmap words, and returns bit i set when row i matches.
func (s *txStore) matchBits(f *txFilter, q []byte, stale func() bool) ([]uint64, error) {
	n := len(s.rows)
	bits := make([]uint64, (n+63)/64)
	workers := runtime.GOMAXPROCS(0)
	per := (len(bits) + workers - 1) / workers
	var failed atomic.Bool
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := min(w*per, len(bits)), min((w+1)*per, len(bits))
		wg.Add(1)
		go func() {
			defer wg.Done()
			for wi := lo; wi < hi; wi++ {
				if (wi*64)%staleCheckEvery == 0 && stale() {
					failed.Store(true)
					return
				}
				var word uint64
				for b, i := 0, wi*64; b < 64 && i < n; b, i = b+1, i+1 {
					if s.match(int32(i), f, q) {
						word |= 1 << uint(b)
					}
				}
				bits[wi] = word
			}
		}()
	}
	wg.Wait()
	if failed.Load() {
		return nil, errStale
	}
	return bits, nil
}

// selectParallel returns the candidates keep accepts, in candidate order,
// splitting large inputs across the CPUs.
func selectParallel(cands []int32, keep func(int32) bool, stale func() bool) ([]int32, error) {
	// Each worker writes its matches into its own stretch of one buffer
	// (no growth copying); the stretches are then closed up.
	buf := make([]int32, len(cands))
	run := func(lo, hi int) (int, bool) {
		n := lo
		for start := lo; start < hi; start += staleCheckEvery {
			if stale() {
				return 0, false
			}
			for _, i := range cands[start:min(start+staleCheckEvery, hi)] {
				if keep(i) {
					buf[n] = i
					n++
				}
			}
		}
		return n - lo, true
	}
	workers := runtime.GOMAXPROCS(0)
	if len(cands) < parallelMin {
		workers = 1
	}
	counts := make([]int, workers)
	oks := make([]bool, workers)
	size := (len(cands) + workers - 1) / workers
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := min(w*size, len(cands)), min((w+1)*size, len(cands))
		wg.Add(1)
		go func() {
			defer wg.Done()
			counts[w], oks[w] = run(lo, hi)
		}()
	}
	wg.Wait()
	n := 0
	for w := range workers {
		if !oks[w] {
			return nil, errStale
		}
		copy(buf[n:], buf[w*size:w*size+counts[w]])
		n += counts[w]
	}
	out := buf[:n]
	if n < len(buf)/4 {
		// Do not keep a buffer sized for the whole report behind a
		// short result.
		out = slices.Clone(out)
	}
	if out == nil {
		out = []int32{}
	}
	return out, nil
}

// ---- sorting ----

type txColumn int

const (
	colTime txColumn = iota
	colType
	colStatus
	colCurrency
	colAmount
	colName
	colIBAN
	colReference
	colID
	numColumns
)

var columnNames = [numColumns]string{"Time", "Type", "Status", "Cur", "Amount", "Beneficiary", "IBAN", "Reference", "ID"}

type sortKey struct {
	col  txColumn
	desc bool
}

func (s *txStore) compare(a, b int32, col txColumn) int {
	ra, rb := &s.rows[a], &s.rows[b]
	switch col {
	case colTime:
		return cmp.Compare(ra.at(), rb.at())
	case colType:
		return strings.Compare(s.types.name(ra.typ), s.types.name(rb.typ))
	case colStatus:
		return strings.Compare(s.statuses.name(ra.status), s.statuses.name(rb.status))
	case colCurrency:
		return strings.Compare(s.currencies.name(ra.currency), s.currencies.name(rb.currency))
	case colAmount:
		return cmp.Compare(ra.amount, rb.amount)
	case colName:
		return bytes.Compare(s.lowerName(a), s.lowerName(b)) // case-insensitive
	case colIBAN:
		return bytes.Compare(s.ibanBytes(a), s.ibanBytes(b))
	case colReference:
		return bytes.Compare(s.refBytes(a), s.refBytes(b))
	case colID:
		return bytes.Compare(s.idBytes(a), s.idBytes(b))
	}
	return 0
}

// sorted returns a sorted copy of idx. Ties keep report order (by row
// index), so the order is deterministic whatever the previous sort was.
func (s *txStore) sorted(idx []int32, k sortKey) []int32 {
	out := slices.Clone(idx)
	slices.SortFunc(out, func(a, b int32) int {
		c := s.compare(a, b, k.col)
		if k.desc {
			c = -c
		}
		if c == 0 {
			c = cmp.Compare(a, b)
		}
		return c
	})
	return out
}

// all returns 0..n-1.
func (s *txStore) all() []int32 {
	out := make([]int32, len(s.rows))
	for i := range out {
		out[i] = int32(i)
	}
	return out
}

// staleFunc reports whether gen is no longer the newest request.
func staleFunc(cur *atomic.Uint64, gen uint64) func() bool {
	return func() bool { return cur.Load() != gen }
}

// findIDs returns the rows whose transaction id is in ids. It scans from
// the end, where a report's newest rows usually are, and stops once every
// id is found.
func (s *txStore) findIDs(ids map[string]bool) map[string]api.Transaction {
	out := make(map[string]api.Transaction, len(ids))
	for i := int32(len(s.rows)) - 1; i >= 0 && len(out) < len(ids); i-- {
		if id := s.idBytes(i); ids[string(id)] {
			out[string(id)] = s.tx(i)
		}
	}
	return out
}
