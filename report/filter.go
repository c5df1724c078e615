package report

import (
	"bytes"
	"errors"
	"math/bits"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
)

// Filter is a Query resolved against one Store: enum values as the
// store's codes, amounts per currency, the matching dictionary entries.
type Filter struct {
	Query
	typ, cur, status int // anyValue, noValue or the code
	// per currency code: inclusive amount bounds, and each bare number's
	// exact minor value (-1 when the currency cannot hold it)
	lo, hi   []int64
	nums     [][]int64
	numText  [][]byte
	text     []byte
	nameBits []uint64 // names matching text
	ibanBits []uint64
	numName  [][]uint64
	numIBAN  [][]uint64
	// refOnly: the text cannot be in an id (see Store.idsHex), so only
	// references are searched.
	refOnly    bool
	numRefOnly []bool
	// textOnly: free text is the only condition.
	textOnly bool
}

const (
	anyValue = -1
	noValue  = -2
)

// Resolve prepares q for s. Problems gains a sentence for a type,
// currency or status no row has, listing those the report holds.
func (s *Store) Resolve(q Query) *Filter {
	f := &Filter{Query: q, typ: anyValue, cur: anyValue, status: anyValue}
	f.Problems = append([]string(nil), q.Problems...)
	f.typ = s.enumFilter(&f.Problems, "type", q.Type, EnumType)
	f.cur = s.enumFilter(&f.Problems, "currency", q.Currency, EnumCurrency)
	f.status = s.enumFilter(&f.Problems, "status", q.Status, EnumStatus)
	curs := s.enums[EnumCurrency]
	if len(q.Amount) > 0 {
		f.lo, f.hi = make([]int64, 256), make([]int64, 256)
		for c := range 256 {
			d := 2
			if c < len(curs) {
				d = digitsOf(curs[c])
			}
			f.lo[c], f.hi[c] = -1<<63, 1<<63-1
			for _, a := range q.Amount {
				lo, hi := a.bounds(d)
				f.lo[c], f.hi[c] = max(f.lo[c], lo), min(f.hi[c], hi)
			}
		}
	}
	for _, n := range q.Numbers {
		per := make([]int64, 256)
		for c := range 256 {
			d := 2
			if c < len(curs) {
				d = digitsOf(curs[c])
			}
			if v, exact := n.minor(d); exact {
				per[c] = v
			} else {
				per[c] = -1
			}
		}
		f.nums = append(f.nums, per)
		t := []byte(Fold(n.Text))
		f.numText = append(f.numText, t)
		f.numName = append(f.numName, s.names.match(t, nil))
		f.numIBAN = append(f.numIBAN, s.ibans.match(t, nil))
		f.numRefOnly = append(f.numRefOnly, s.idsHex && !hexOnly(string(t)))
	}
	if q.Text != "" {
		f.text = []byte(q.Text)
		f.nameBits = s.names.match(f.text, nil)
		f.ibanBits = s.ibans.match(f.text, []byte(strings.ReplaceAll(q.Text, " ", "")))
		f.refOnly = s.idsHex && !hexOnly(q.Text)
	}
	f.textOnly = f.typ == anyValue && f.cur == anyValue && f.status == anyValue && q.From == 0 && q.To == 0 &&
		len(q.Amount) == 0 && len(q.Numbers) == 0
	return f
}

// match returns a bitmap of the dictionary entries containing p (or alt).
func (d *dictView) match(p, alt []byte) []uint64 {
	bits := make([]uint64, (len(d.lower)+63)/64)
	ps, as := string(p), string(alt)
	for i, v := range d.lower {
		if strings.Contains(v, ps) || as != "" && strings.Contains(v, as) {
			bits[i>>6] |= 1 << (uint(i) & 63)
		}
	}
	return bits
}

func (s *Store) enumFilter(probs *[]string, what, val string, which int) int {
	if val == "" {
		return anyValue
	}
	for i, n := range s.enums[which] {
		if strings.EqualFold(n, val) {
			return i
		}
	}
	have := sortedCopy(s.enums[which])
	*probs = append(*probs, "no "+what+" "+val+" in the report (have: "+strings.Join(have, ", ")+")")
	return noValue
}

// none reports whether the filter can match nothing.
func (f *Filter) none() bool { return f.typ == noValue || f.cur == noValue || f.status == noValue }

func bit(bits []uint64, i uint32) bool { return bits[i>>6]&(1<<(i&63)) != 0 }

// matchRow tests row j of chunk c.
func (s *Store) matchRow(f *Filter, c *chunk, j int) bool {
	if f.textOnly {
		return s.textMatch(c, j, f.text, f.nameBits, f.ibanBits, f.refOnly)
	}
	if f.typ >= 0 && int(c.typ[j]) != f.typ || f.cur >= 0 && int(c.cur[j]) != f.cur ||
		f.status >= 0 && int(c.status[j]) != f.status {
		return false
	}
	if f.From != 0 || f.To != 0 {
		at := rowTime(c.authorised[j], c.submitted[j], c.settled[j])
		if f.From != 0 && at < f.From || f.To != 0 && at >= f.To {
			return false
		}
	}
	if f.lo != nil {
		cur, a := c.cur[j], c.amount[j]
		if a < f.lo[cur] || a > f.hi[cur] {
			return false
		}
	}
	for k, per := range f.nums {
		if c.amount[j] != per[c.cur[j]] && !s.textMatch(c, j, f.numText[k], f.numName[k], f.numIBAN[k], f.numRefOnly[k]) {
			return false
		}
	}
	return len(f.text) == 0 || s.textMatch(c, j, f.text, f.nameBits, f.ibanBits, f.refOnly)
}

func (s *Store) textMatch(c *chunk, j int, p []byte, names, ibans []uint64, refOnly bool) bool {
	if bit(names, c.name[j]) || bit(ibans, c.iban[j]) {
		return true
	}
	off := c.text[j]
	blk := s.lower[off>>blockShift]
	o := off & (blockSize - 1)
	ref := o + uint32(c.idLen[j]) + 1
	// The reference first: what people type is more often there. A
	// query holds no NUL, so no match spans the id and the reference.
	if containsShort(blk[ref:ref+uint32(c.refLen[j])], p) {
		return true
	}
	return !refOnly && containsShort(blk[o:ref], p)
}

// containsShort is bytes.Contains for the short haystacks of one row's
// text: a plain loop, inlined into the row test, costs a few nanoseconds
// where bytes.Contains's call and vector set-up cost about twenty, which
// over a million rows was most of a keystroke.
func containsShort(s, p []byte) bool {
	if len(s) > 64 || len(p) == 0 {
		return bytes.Contains(s, p)
	}
	first := p[0]
	for k := 0; k+len(p) <= len(s); k++ {
		if s[k] != first {
			continue
		}
		m := 1
		for m < len(p) && s[k+m] == p[m] {
			m++
		}
		if m == len(p) {
			return true
		}
	}
	return false
}

// ErrStale reports that a newer request superseded this one.
var ErrStale = errors.New("superseded by a newer filter")

// All returns every row number, in storage order.
func (s *Store) All() []int32 {
	out := make([]int32, s.Len())
	for i := range out {
		out[i] = int32(i)
	}
	return out
}

// Select returns the candidates matching f, in candidate order, and
// their totals. It splits the work across the CPUs and gives up
// (ErrStale) once stale() says a newer request exists, so fast typing
// never piles up work.
func (s *Store) Select(cands []int32, f *Filter, stale func() bool) ([]int32, []Total, error) {
	if f.none() {
		return []int32{}, nil, nil
	}
	if f.Empty() {
		return cands, s.Totals(cands), nil
	}
	// When the candidates are every row, the totals of every row are
	// known (cached per Store), so the rows rejected are summed instead
	// and taken off: the first keys of a query, which typically keep
	// every row, then sum nothing.
	rejected := len(cands) == s.n
	totals := func(u *sums) []Total {
		if rejected {
			all := *s.allSums()
			all.sub(u)
			u = &all
		}
		return s.totals(u)
	}
	if len(cands) < parallelMin || len(cands) < s.n/8 || !scattered(cands) {
		out, u, err := selectParallel(cands, func(cands []int32, u *sums) (word uint64) {
			for b, i := range cands {
				c, j := s.at(i)
				m := s.matchRow(f, c, j)
				if m {
					word |= 1 << uint(b)
				}
				if m != rejected {
					u.add(c, j)
				}
			}
			return word
		}, s.newSums, stale)
		if err != nil {
			return nil, nil, err
		}
		return out, totals(u), nil
	}
	// Much of the report in an order unrelated to storage (sorted by
	// amount, say): testing the candidates in that order reads the
	// columns at random, a cache miss each, about ten times slower than
	// in storage order. Testing every row in storage order instead
	// streams through memory (summing as it goes); a bitmap then gives
	// back the candidates that match, in their order.
	bits, u, err := s.matchBits(f, cands, rejected, stale)
	if err != nil {
		return nil, nil, err
	}
	out, _, err := selectParallel(cands, func(cands []int32, _ *sums) (word uint64) {
		for b, i := range cands {
			word |= (bits[i>>6] >> (uint(i) & 63) & 1) << uint(b) //nolint:gosec // G115: row numbers are non-negative
		}
		return word
	}, nil, stale)
	if err != nil {
		return nil, nil, err
	}
	return out, totals(u), nil
}

// scattered reports whether neighbouring candidates are mostly far apart
// in storage, judged on a sample.
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
const parallelMin = 1 << 15

// staleCheckEvery is how many rows a worker tests between stale checks.
const staleCheckEvery = 1 << 14

// matchBits tests every candidate row in storage order, split across
// the CPUs in whole bitmap words (a word never straddles a chunk), and
// returns bit i set when row i matches, with the matches' sums (the
// rejected rows' when rejected). When the candidates are not every row,
// only rows among them are tested.
func (s *Store) matchBits(f *Filter, cands []int32, rejected bool, stale func() bool) ([]uint64, *sums, error) {
	n := s.n
	var among []uint64
	if len(cands) != n {
		among = make([]uint64, (n+63)/64)
		for _, i := range cands {
			among[i>>6] |= 1 << (uint(i) & 63) //nolint:gosec // G115: row numbers are non-negative
		}
	}
	bits := make([]uint64, (n+63)/64)
	workers := runtime.GOMAXPROCS(0)
	per := (len(bits) + workers - 1) / workers
	us := make([]*sums, workers)
	var failed atomic.Bool
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := min(w*per, len(bits)), min((w+1)*per, len(bits))
		us[w] = s.newSums()
		u := us[w]
		wg.Add(1)
		go func() {
			defer wg.Done()
			for wi := lo; wi < hi; wi++ {
				if (wi*64)%staleCheckEvery == 0 && stale() {
					failed.Store(true)
					return
				}
				c := &s.chunks[(wi*64)>>chunkShift]
				base := (wi * 64) & chunkMask
				end := min(64, c.len()-base)
				mask := ^uint64(0)
				if among != nil {
					mask = among[wi]
				}
				var word uint64
				for b := 0; b < end; b++ {
					if mask&(1<<uint(b)) == 0 {
						continue
					}
					m := s.matchRow(f, c, base+b)
					if m {
						word |= 1 << uint(b)
					}
					if m != rejected {
						u.add(c, base+b)
					}
				}
				bits[wi] = word
			}
		}()
	}
	wg.Wait()
	if failed.Load() {
		return nil, nil, ErrStale
	}
	for _, u := range us[1:] {
		us[0].merge(u)
	}
	return bits, us[0], nil
}

// selectParallel returns the candidates keep accepts, in candidate order,
// with the sums keep gathered (when newSums is not nil). keep is given up
// to 64 candidates at a time and returns bit b set when it accepts the
// b-th: one indirect call per 64 rows rather than per row. When keep accepts
// every candidate it returns cands itself: the first keys of a query
// typically match the whole report, and writing a fresh million-entry
// result (4 MB of pages the kernel must fault in, the heap having been
// handed back after load) cost most of such a keystroke. Otherwise the
// matches are first marked in a bitmap of candidate positions (one bit a
// candidate, 125 KB for a million) and then copied into a result of
// exactly their number.
func selectParallel(cands []int32, keep func([]int32, *sums) uint64, newSums func() *sums, stale func() bool) ([]int32, *sums, error) {
	n := len(cands)
	pos := make([]uint64, (n+63)/64)
	workers := runtime.GOMAXPROCS(0)
	if n < parallelMin {
		workers = 1
	}
	per := (len(pos) + workers - 1) / workers // in bitmap words
	counts := make([]int, workers)
	oks := make([]bool, workers)
	us := make([]*sums, workers)
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := min(w*per, len(pos)), min((w+1)*per, len(pos))
		if newSums != nil {
			us[w] = newSums()
		}
		u := us[w]
		wg.Add(1)
		go func() {
			defer wg.Done()
			count := 0
			for wi := lo; wi < hi; wi++ {
				if (wi*64)%staleCheckEvery == 0 && stale() {
					return
				}
				base := wi * 64
				word := keep(cands[base:min(base+64, n)], u)
				count += bits.OnesCount64(word)
				pos[wi] = word
			}
			counts[w], oks[w] = count, true
		}()
	}
	wg.Wait()
	total := 0
	for w := range workers {
		if !oks[w] {
			return nil, nil, ErrStale
		}
		total += counts[w]
		if w > 0 && us[0] != nil {
			us[0].merge(us[w])
		}
	}
	if total == n {
		if cands == nil {
			cands = []int32{}
		}
		return cands, us[0], nil
	}
	out := make([]int32, total)
	at := 0
	for w := range workers {
		lo, hi, start := min(w*per, len(pos)), min((w+1)*per, len(pos)), at
		at += counts[w]
		wg.Add(1)
		go func() {
			defer wg.Done()
			o := start
			for wi := lo; wi < hi; wi++ {
				for word := pos[wi]; word != 0; word &= word - 1 {
					out[o] = cands[wi*64+bits.TrailingZeros64(word)]
					o++
				}
			}
		}()
	}
	wg.Wait()
	return out, us[0], nil
}
