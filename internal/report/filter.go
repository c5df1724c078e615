package report

import (
	"errors"
	"math/bits"
	"runtime"
	"slices"
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
	lo, hi []int64
	nums   [][]int64
	// text is the free text's pattern; numText each bare number's, as text.
	text    textPattern
	numText []textPattern
	// textOnly: free text is the only condition.
	textOnly bool
	// Progress, when set by the caller, counts a pass with this filter
	// as it goes.
	Progress *Progress
}

// Progress counts a filter's pass while it runs, for a screen to say how
// far a pass over a big report has got: Scanned of Total candidates
// tested so far, Matched of them kept. It is updated every
// staleCheckEvery rows a worker tests, and read at any time.
type Progress struct {
	Total, Scanned, Matched atomic.Int64
}

// note adds a worker's tests since its last note.
func (p *Progress) note(scanned, matched int) {
	if p != nil {
		p.Scanned.Add(int64(scanned))
		p.Matched.Add(int64(matched))
	}
}

func (p *Progress) begin(total int) {
	if p != nil {
		p.Total.Store(int64(total))
		p.Scanned.Store(0)
		p.Matched.Store(0)
	}
}

// textPattern is one folded phrase resolved against a Store's dictionaries.
type textPattern struct {
	p []byte
	// names and ibans mark the dictionary entries containing p; nil when
	// none does, so a row's name and IBAN columns are not even read.
	names, ibans []uint64
	// refOnly: p cannot be in an id (see Store.idsHex), so only references
	// are searched.
	refOnly bool
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
		f.numText = append(f.numText, textPattern{p: t, names: s.names.match(t, nil), ibans: s.ibans.match(t, nil),
			refOnly: s.idsHex && !hexOnly(string(t))})
	}
	if q.Text != "" {
		f.text = textPattern{p: []byte(q.Text), names: s.names.match([]byte(q.Text), nil),
			ibans:   s.ibans.match([]byte(q.Text), []byte(strings.ReplaceAll(q.Text, " ", ""))),
			refOnly: s.idsHex && !hexOnly(q.Text)}
	}
	f.textOnly = f.typ == anyValue && f.cur == anyValue && f.status == anyValue && q.From == 0 && q.To == 0 &&
		len(q.Amount) == 0 && len(q.Numbers) == 0
	return f
}

// match returns a bitmap of the dictionary entries containing p (or
// alt), nil when there are none.
func (d *dictView) match(p, alt []byte) []uint64 {
	var bits []uint64
	ps, as := string(p), string(alt)
	for i, v := range d.lower {
		if strings.Contains(v, ps) || as != "" && strings.Contains(v, as) {
			if bits == nil {
				bits = make([]uint64, (len(d.lower)+63)/64)
			}
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
		return s.textMatch(c, j, &f.text)
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
		if c.amount[j] != per[c.cur[j]] && !s.textMatch(c, j, &f.numText[k]) {
			return false
		}
	}
	return len(f.text.p) == 0 || s.textMatch(c, j, &f.text)
}

// textMatch tests row j's reference, name, IBAN and id, in that order:
// the reference is what people type most often, and a match there
// spares reading the name and IBAN columns (over a million rows, the
// first keys of a query match every row, and those reads were a third
// of such a keystroke). A query holds no NUL, so no match spans the id
// and the reference.
func (s *Store) textMatch(c *chunk, j int, t *textPattern) bool {
	id, ref, tab := s.searchText(c, j)
	if containsFold(ref, t.p, tab) {
		return true
	}
	if t.names != nil && bit(t.names, c.name[j]) || t.ibans != nil && bit(t.ibans, c.iban[j]) {
		return true
	}
	return !t.refOnly && containsFold(id, t.p, tab)
}

// searchText returns row j's id and reference to search, with the table
// that folds them: the text as received folded by lowerASCII, or, for a
// row with other characters, its folded copy taken as it is.
func (s *Store) searchText(c *chunk, j int) (id, ref []byte, tab *[256]byte) {
	off := c.text[j]
	blk := s.text[off>>blockShift]
	o := off & (blockSize - 1)
	il, rl := uint32(c.idLen[j]), uint32(c.refLen[j])
	tab = &lowerASCII
	if rl&foldedCopy != 0 {
		rl &= refLenMask
		o += il + 1 + rl + 1
		tab = &sameByte
	}
	return blk[o : o+il], blk[o+il+1 : o+il+1+rl], tab
}

// sameByte maps each byte to itself: the fold of text already folded.
var sameByte = func() (t [256]byte) {
	for i := range t {
		t[i] = byte(i)
	}
	return t
}()

// containsFold reports whether s, each byte mapped by tab, contains p:
// a plain loop for the short texts of one row (bytes.Contains's call and
// vector set-up cost more than the search there).
func containsFold(s, p []byte, tab *[256]byte) bool {
	if len(p) == 0 {
		return true
	}
	first := p[0]
	for k := 0; k+len(p) <= len(s); k++ {
		if tab[s[k]] != first {
			continue
		}
		m := 1
		for m < len(p) && tab[s[k+m]] == p[m] {
			m++
		}
		if m == len(p) {
			return true
		}
	}
	return false
}

// textWord tests up to 64 rows against the free text alone (a filter
// whose only condition it is, as while a reference or name is typed) and
// returns bit b set when the b-th matches. It is textMatch unrolled over
// the rows with the search inlined: the calls per row (the row test, the
// text test, the search) cost more than the search itself, and over a
// million rows each nanosecond a row is a millisecond a keystroke.
func (s *Store) textWord(rows []int32, t *textPattern) (word uint64) {
	p := t.p
	first := p[0]
	for b, i := range rows {
		c := &s.chunks[i>>chunkShift]
		j := int(i & chunkMask)
		// searchText, inlined by hand (the compiler finds it too big)
		off := c.text[j]
		blk := s.text[off>>blockShift]
		o := off & (blockSize - 1)
		il, rl := uint32(c.idLen[j]), uint32(c.refLen[j])
		tab := &lowerASCII
		if rl&foldedCopy != 0 {
			rl &= refLenMask
			o += il + 1 + rl + 1
			tab = &sameByte
		}
		ref := blk[o+il+1 : o+il+1+rl]
		hit := false
		for k := 0; k+len(p) <= len(ref); k++ {
			if tab[ref[k]] != first {
				continue
			}
			m := 1
			for m < len(p) && tab[ref[k+m]] == p[m] {
				m++
			}
			if m == len(p) {
				hit = true
				break
			}
		}
		if hit || t.names != nil && bit(t.names, c.name[j]) || t.ibans != nil && bit(t.ibans, c.iban[j]) ||
			!t.refOnly && containsFold(blk[o:o+il], p, tab) {
			word |= 1 << uint(b)
		}
	}
	return word
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
// never piles up work. When every candidate matches, the result is cands
// itself.
//
// The rows are tested first and summed after, in a second pass over
// whichever is fewer, the matches or (when the candidates are every row,
// whose totals are known) the rows rejected: the first keys of a query,
// which keep every row, then sum nothing, and a key that keeps a fifth
// of the report sums that fifth, not the other four.
func (s *Store) Select(cands []int32, f *Filter, stale func() bool) ([]int32, []Total, error) {
	return s.SelectInto(nil, cands, nil, f, stale)
}

// SelectInto is Select writing its result into dst's array when it is
// large enough (dst's contents are not read; dst must not share cands'
// array). A dashboard hands back a result no longer on screen: the
// first keys of a query keep nearly every row, and a fresh million-row
// result is 4 MB of memory the kernel faults in page by page, which
// cost more than the filtering. candTotals, when not nil, are the totals
// of cands (as Select gave them): a key that keeps most of the rows on
// screen then sums the few it drops instead of the many it keeps.
func (s *Store) SelectInto(dst, cands []int32, candTotals []Total, f *Filter, stale func() bool) ([]int32, []Total, error) {
	if f.none() {
		return []int32{}, nil, nil
	}
	if f.Empty() {
		return cands, s.Totals(cands), nil
	}
	if len(cands) < parallelMin || len(cands) < s.n/8 || !scattered(cands) {
		keep := func(cands []int32) (word uint64) {
			for b, i := range cands {
				c, j := s.at(i)
				if s.matchRow(f, c, j) {
					word |= 1 << uint(b)
				}
			}
			return word
		}
		if f.textOnly {
			keep = func(cands []int32) uint64 { return s.textWord(cands, &f.text) }
		}
		var known *sums
		switch {
		case len(cands) == s.n:
			// Candidates that are every row are each row once: their
			// sums are every row's.
			known = s.allSums()
		case candTotals != nil:
			known = s.sumsOf(candTotals)
		}
		f.Progress.begin(len(cands))
		out, u, err := s.selectParallel(dst, cands, keep, true, known, stale, f.Progress)
		if err != nil {
			return nil, nil, err
		}
		return out, s.totals(u), nil
	}
	// Much of the report in an order unrelated to storage (sorted by
	// amount, say): testing the candidates in that order reads the
	// columns at random, a cache miss each, about ten times slower than
	// in storage order. Testing every row in storage order instead
	// streams through memory; a bitmap then gives back the candidates
	// that match, in their order.
	f.Progress.begin(s.n)
	bits, u, err := s.matchBits(f, cands, stale)
	if err != nil {
		return nil, nil, err
	}
	out, _, err := s.selectParallel(dst, cands, func(cands []int32) (word uint64) {
		for b, i := range cands {
			word |= (bits[i>>6] >> (uint(i) & 63) & 1) << uint(b) //nolint:gosec // G115: row numbers are non-negative
		}
		return word
	}, false, nil, stale, nil)
	if err != nil {
		return nil, nil, err
	}
	return out, s.totals(u), nil
}

// sumsOf turns totals back into sums, nil when a currency is not one of
// the store's.
func (s *Store) sumsOf(ts []Total) *sums {
	u := s.newSums()
	for _, t := range ts {
		code := slices.Index(s.enums[EnumCurrency], t.Currency)
		switch {
		case code < 0 && t.Currency == s.enumName(EnumCurrency, enumOverflow):
			code = enumOverflow
		case code < 0:
			return nil
		}
		u.acc[code] = struct{ credits, debits, count, failed int64 }{t.Credits, t.Debits, int64(t.Count), int64(t.Failed)}
	}
	return u
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

// workersFor is how many goroutines share a pass over n rows.
func workersFor(n int) int {
	if n < parallelMin {
		return 1
	}
	return runtime.GOMAXPROCS(0)
}

// matchBits tests every candidate row in storage order, split across
// the CPUs in whole bitmap words (a word never straddles a chunk), and
// returns bit i set when row i matches, with the matches' sums. When the
// candidates are not every row, only rows among them are tested.
func (s *Store) matchBits(f *Filter, cands []int32, stale func() bool) ([]uint64, *sums, error) {
	n := s.n
	var among []uint64
	if len(cands) != n {
		among = make([]uint64, (n+63)/64)
		for _, i := range cands {
			among[i>>6] |= 1 << (uint(i) & 63) //nolint:gosec // G115: row numbers are non-negative
		}
	}
	hit := make([]uint64, (n+63)/64)
	workers := runtime.GOMAXPROCS(0)
	per := (len(hit) + workers - 1) / workers
	counts := make([]int, workers)
	var failed atomic.Bool
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := min(w*per, len(hit)), min((w+1)*per, len(hit))
		wg.Add(1)
		go func() {
			defer wg.Done()
			count, noted, from := 0, 0, lo
			for wi := lo; wi < hi; wi++ {
				if (wi*64)%staleCheckEvery == 0 {
					if stale() {
						failed.Store(true)
						return
					}
					f.Progress.note((wi-from)*64, count-noted)
					noted, from = count, wi
				}
				c := &s.chunks[(wi*64)>>chunkShift]
				base := (wi * 64) & chunkMask
				end := min(64, c.len()-base)
				mask := ^uint64(0)
				if among != nil {
					mask = among[wi]
				}
				if end < 64 {
					mask &= 1<<uint(end) - 1
				}
				var word uint64
				if f.textOnly {
					word = s.textBits(wi, mask, &f.text)
				} else {
					for b := 0; b < end; b++ {
						if mask&(1<<uint(b)) != 0 && s.matchRow(f, c, base+b) {
							word |= 1 << uint(b)
						}
					}
				}
				hit[wi] = word
				count += bits.OnesCount64(word)
			}
			counts[w] = count
		}()
	}
	wg.Wait()
	if failed.Load() {
		return nil, nil, ErrStale
	}
	matched := 0
	for _, c := range counts {
		matched += c
	}
	if among == nil && matched > n/2 {
		// Most rows match: every row's sums less the rejected rows'.
		u := *s.allSums()
		u.sub(s.sumWords(hit, true))
		return hit, &u, nil
	}
	return hit, s.sumWords(hit, false), nil
}

// textBits is textWord over the rows of bitmap word wi whose bit is set
// in mask, returning the matches as bits of that word.
func (s *Store) textBits(wi int, mask uint64, t *textPattern) uint64 {
	var rows [64]int32
	k := 0
	for m := mask; m != 0; m &= m - 1 {
		rows[k] = int32(wi*64 + bits.TrailingZeros64(m)) //nolint:gosec // G115: row numbers fit int32
		k++
	}
	got := s.textWord(rows[:k], t)
	if mask == ^uint64(0) {
		return got // every row of the word, in order: the bits line up
	}
	var word uint64
	k = 0
	for m := mask; m != 0; m &= m - 1 {
		word |= (got >> uint(k) & 1) << uint(bits.TrailingZeros64(m))
		k++
	}
	return word
}

// sumWords sums the rows whose bit is set (clear, when invert), split
// across the CPUs in whole words; words with nothing to sum cost a test.
func (s *Store) sumWords(set []uint64, invert bool) *sums {
	workers := workersFor(s.n)
	per := (len(set) + workers - 1) / workers
	us := make([]*sums, workers)
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := min(w*per, len(set)), min((w+1)*per, len(set))
		us[w] = s.newSums()
		u := us[w]
		wg.Add(1)
		go func() {
			defer wg.Done()
			for wi := lo; wi < hi; wi++ {
				c := &s.chunks[(wi*64)>>chunkShift]
				base := (wi * 64) & chunkMask
				word := set[wi]
				if invert {
					word = ^word
					if end := c.len() - base; end < 64 {
						word &= 1<<uint(end) - 1
					}
				}
				for ; word != 0; word &= word - 1 {
					u.add(c, base+bits.TrailingZeros64(word))
				}
			}
		}()
	}
	wg.Wait()
	for _, u := range us[1:] {
		us[0].merge(u)
	}
	return us[0]
}

// selectParallel returns the candidates keep accepts, in candidate order,
// and, when sum is set, their sums. keep is given up to 64 candidates at
// a time and returns bit b set when it accepts the b-th: one indirect
// call per 64 rows rather than per row. The accepted are first marked in
// a bitmap of candidate positions (one bit a candidate, 125 KB for a
// million); a second pass copies them into a result of exactly their
// number and sums them, or, when the candidates are every row and most
// are accepted, sums the rejected instead (taken off every row's sums).
// When keep accepts every candidate it returns cands itself: the first
// keys of a query typically match the whole report, and writing a fresh
// million-entry result (4 MB of pages the kernel must fault in, the heap
// having been handed back after load) cost most of such a keystroke.
func (s *Store) selectParallel(dst, cands []int32, keep func([]int32) uint64, sum bool, known *sums, stale func() bool, prog *Progress) ([]int32, *sums, error) {
	n := len(cands)
	pos := make([]uint64, (n+63)/64)
	workers := workersFor(n)
	per := (len(pos) + workers - 1) / workers // in bitmap words
	counts := make([]int, workers)
	oks := make([]bool, workers)
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := min(w*per, len(pos)), min((w+1)*per, len(pos))
		wg.Add(1)
		go func() {
			defer wg.Done()
			count, noted, from := 0, 0, lo
			for wi := lo; wi < hi; wi++ {
				if (wi*64)%staleCheckEvery == 0 {
					if stale() {
						return
					}
					prog.note((wi-from)*64, count-noted)
					noted, from = count, wi
				}
				base := wi * 64
				word := keep(cands[base:min(base+64, n)])
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
	}
	// When the candidates' sums are known, the rejected can be summed
	// instead, when they are fewer.
	sumRejected := sum && known != nil && total > n/2
	sumKept := sum && !sumRejected
	copyOut := total < n
	out := cands
	switch {
	case copyOut && cap(dst) >= total:
		out = dst[:total]
	case copyOut:
		out = make([]int32, total)
	case cands == nil:
		out = []int32{}
	}
	if !copyOut && !sumKept { // every candidate kept, nothing to copy or sum
		if !sum {
			return out, nil, nil
		}
		u := *known
		return out, &u, nil
	}
	us := make([]*sums, workers)
	at := 0
	for w := range workers {
		lo, hi, start := min(w*per, len(pos)), min((w+1)*per, len(pos)), at
		at += counts[w]
		if sum {
			us[w] = s.newSums()
		}
		u := us[w]
		wg.Add(1)
		go func() {
			defer wg.Done()
			o := start
			for wi := lo; wi < hi; wi++ {
				word := pos[wi]
				if copyOut || sumKept {
					for w := word; w != 0; w &= w - 1 {
						i := cands[wi*64+bits.TrailingZeros64(w)]
						if copyOut {
							out[o] = i
							o++
						}
						if sumKept {
							u.add(s.at(i))
						}
					}
				}
				if sumRejected {
					rej := ^word
					if end := n - wi*64; end < 64 {
						rej &= 1<<uint(end) - 1
					}
					for ; rej != 0; rej &= rej - 1 {
						u.add(s.at(cands[wi*64+bits.TrailingZeros64(rej)]))
					}
				}
			}
		}()
	}
	wg.Wait()
	if !sum {
		return out, nil, nil
	}
	for _, u := range us[1:] {
		us[0].merge(u)
	}
	if sumRejected {
		all := *known
		all.sub(us[0])
		return out, &all, nil
	}
	return out, us[0], nil
}
