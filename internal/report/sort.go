package report

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"runtime"
	"slices"
	"strings"
	"sync"
)

// Column is a column of the report, in the dashboard's order.
type Column int

const (
	ColTime Column = iota
	ColType
	ColStatus
	ColCurrency
	ColAmount
	ColName
	ColIBAN
	ColReference
	ColID
	NumColumns
)

// ColumnNames are the columns' titles.
var ColumnNames = [NumColumns]string{"Time", "Type", "Status", "Cur", "Amount", "Beneficiary", "IBAN", "Reference", "ID"}

// SortKey is a column and a direction.
type SortKey struct {
	Col  Column
	Desc bool
}

func sortedCopy(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}

// Sorted returns idx sorted by k; ties keep report order (by row number),
// whatever the direction, so the order is deterministic. Every row gets
// a 64-bit key (the value itself for times and amounts, the rank among
// the distinct values for enums, names and IBANs, the first eight bytes
// for references and ids), the keys are radix-sorted, and only runs of
// equal text prefixes are compared in full: a million rows sort in a
// fraction of a second by any column.
func (s *Store) Sorted(idx []int32, k SortKey) []int32 {
	rows := s.inRowOrder(idx)
	keys := make([]uint64, len(rows))
	var keys2 []uint64 // bytes 8..16 of text columns
	if k.Col == ColReference || k.Col == ColID {
		keys2 = make([]uint64, len(rows))
	}
	s.fillKeys(keys, keys2, rows, k.Col)
	if k.Desc {
		for i := range keys {
			keys[i] = ^keys[i]
		}
		for i := range keys2 {
			keys2[i] = ^keys2[i]
		}
	}
	if keys2 == nil && inOrder(keys, rows) {
		return rows
	}
	if keys2 != nil {
		radixSort(keys2, rows, keys) // LSD: the less significant word first
		radixSort(keys, rows, keys2)
		s.sortTies(keys, keys2, rows, k)
	} else {
		radixSort(keys, rows, nil)
	}
	return rows
}

// inOrder puts rows in key order without sorting when the keys fall in
// a few runs that each go one way, as a report's times do (the service
// sends it oldest first, and the dashboard shows it newest first; a
// report fetched newest window first is one such run a window): a pass,
// each downward run reversed, and a merge of the runs, instead of a
// radix sort, a tenth of a second a million rows. It reports false when
// the keys fall in more than maxRuns runs; rows are then in an order a
// stable sort still gives the same result from (see reverseRun). The
// result is the stable sort's: ties stay in row order.
func inOrder(keys []uint64, rows []int32) bool {
	const maxRuns = 8
	starts := []int{0}
	for i := 0; i < len(keys); {
		j := i + 1
		up, down := true, true
		for ; j < len(keys); j++ {
			u, d := keys[j-1] <= keys[j], keys[j-1] >= keys[j]
			if (!up || !u) && (!down || !d) {
				break // neither way goes on
			}
			up, down = up && u, down && d
		}
		if !up {
			reverseRun(keys[i:j], rows[i:j])
		}
		if j < len(keys) {
			if len(starts) == maxRuns {
				return false
			}
			starts = append(starts, j)
		}
		i = j
	}
	if len(starts) == 1 {
		return true
	}
	mergeRuns(keys, rows, starts)
	return true
}

// reverseRun turns a downward run upward, its ties (now in reverse row
// order) back in row order. A run's rows keep their place among the
// other runs', so equal keys across runs stay in row order too: a
// stable sort of the result is the stable sort of the original.
func reverseRun(keys []uint64, rows []int32) {
	slices.Reverse(keys)
	slices.Reverse(rows)
	for i := 0; i < len(keys); {
		j := i + 1
		for j < len(keys) && keys[j] == keys[i] {
			j++
		}
		slices.Reverse(rows[i:j])
		i = j
	}
}

// mergeRuns merges the upward runs starting at starts, pairwise until
// one is left; on equal keys the earlier run's row goes first (stable).
func mergeRuns(keys []uint64, rows []int32, starts []int) {
	n := len(keys)
	k2, r2 := make([]uint64, n), make([]int32, n)
	for len(starts) > 1 {
		var next []int
		for p := 0; p < len(starts); p += 2 {
			lo := starts[p]
			next = append(next, lo)
			hi := n
			if p+2 < len(starts) {
				hi = starts[p+2]
			}
			if p+1 == len(starts) { // an odd run out: as it is
				copy(k2[lo:], keys[lo:])
				copy(r2[lo:], rows[lo:])
				break
			}
			mid := starts[p+1]
			i, j, o := lo, mid, lo
			for ; i < mid && j < hi; o++ {
				if keys[j] < keys[i] {
					k2[o], r2[o] = keys[j], rows[j]
					j++
				} else {
					k2[o], r2[o] = keys[i], rows[i]
					i++
				}
			}
			copy(k2[o:], keys[i:mid])
			copy(r2[o:], rows[i:mid])
			o += mid - i
			copy(k2[o:], keys[j:hi])
			copy(r2[o:], rows[j:hi])
		}
		copy(keys, k2)
		copy(rows, r2)
		starts = next
	}
}

// inRowOrder returns idx's rows in ascending row order (a fresh slice),
// through a bitmap when idx is large.
func (s *Store) inRowOrder(idx []int32) []int32 {
	if len(idx) < 4096 {
		out := slices.Clone(idx)
		slices.Sort(out)
		return out
	}
	bits := make([]uint64, (s.n+63)/64)
	for _, i := range idx {
		bits[i>>6] |= 1 << (uint(i) & 63) //nolint:gosec // G115: row numbers are non-negative
	}
	out := make([]int32, 0, len(idx))
	for w, word := range bits {
		for word != 0 {
			b := bitsTrailing(word)
			out = append(out, int32(w*64+b)) //nolint:gosec // G115: a row number, below the row count
			word &= word - 1
		}
	}
	return out
}

func bitsTrailing(x uint64) int {
	n := 0
	for x&1 == 0 {
		x >>= 1
		n++
	}
	return n
}

// fillKeys computes each row's key, split across the CPUs.
func (s *Store) fillKeys(keys, keys2 []uint64, rows []int32, col Column) {
	var ranks []uint32
	switch col {
	case ColType, ColStatus, ColCurrency:
		which := map[Column]int{ColType: EnumType, ColStatus: EnumStatus, ColCurrency: EnumCurrency}[col]
		ranks = rankStrings(s.enums[which], strings.Compare)
		for len(ranks) < 256 {
			ranks = append(ranks, uint32(len(ranks))) //nolint:gosec // G115: at most 256 enum ranks
		}
	case ColName:
		ranks = s.names.ranks(true)
	case ColIBAN:
		ranks = s.ibans.ranks(false)
	}
	parallel(len(rows), func(lo, hi int) {
		for p := lo; p < hi; p++ {
			c, j := s.at(rows[p])
			var v uint64
			switch col {
			case ColTime:
				v = uint64(rowTime(c.authorised[j], c.submitted[j], c.settled[j])) ^ 1<<63 //nolint:gosec // G115: the sign bit flipped: a bit pattern that sorts as the signed value
			case ColAmount:
				v = uint64(c.amount[j]) ^ 1<<63 //nolint:gosec // G115: the sign bit flipped: a bit pattern that sorts as the signed value
			case ColType:
				v = uint64(ranks[c.typ[j]])
			case ColStatus:
				v = uint64(ranks[c.status[j]])
			case ColCurrency:
				v = uint64(ranks[c.cur[j]])
			case ColName:
				v = uint64(ranks[c.name[j]])
			case ColIBAN:
				v = uint64(ranks[c.iban[j]])
			case ColReference, ColID:
				id, ref := s.textOf(s.text, rows[p])
				t := id
				if col == ColReference {
					t = ref
				}
				var b [16]byte
				copy(b[:], t)
				v = binary.BigEndian.Uint64(b[:8])
				keys2[p] = binary.BigEndian.Uint64(b[8:])
			}
			keys[p] = v
		}
	})
}

// ranks gives each dictionary entry its rank among the entries (equal
// values share one), by the folded value when fold.
func (d *dictView) ranks(fold bool) []uint32 {
	vals := d.vals
	if fold {
		vals = d.lower
	}
	return rankStrings(vals, strings.Compare)
}

func rankStrings(vals []string, compare func(a, b string) int) []uint32 {
	order := make([]uint32, len(vals))
	for i := range order {
		order[i] = uint32(i)
	}
	slices.SortFunc(order, func(a, b uint32) int { return compare(vals[a], vals[b]) })
	ranks := make([]uint32, len(vals))
	r := uint32(0)
	for p, i := range order {
		if p > 0 && vals[i] != vals[order[p-1]] {
			r++
		}
		ranks[i] = r
	}
	return ranks
}

// radixSort sorts keys ascending, carrying rows (and carry, when not nil)
// along, stably: LSD, 11 bits a pass (buckets that fit the cache), all
// digit counts taken in one read, passes where every key has the same
// digit skipped.
func radixSort(keys []uint64, rows []int32, carry []uint64) {
	const bits, passes = 11, 6
	const buckets = 1 << bits
	n := len(keys)
	if n < 2 {
		return
	}
	origK, origR, origC := keys, rows, carry
	var count [passes][buckets]int
	for _, k := range keys {
		for p := range passes {
			count[p][(k>>(p*bits))&(buckets-1)]++
		}
	}
	k2 := make([]uint64, n)
	r2 := make([]int32, n)
	var c2 []uint64
	if carry != nil {
		c2 = make([]uint64, n)
	}
	for p := range passes {
		shift := p * bits
		c := &count[p]
		if c[(keys[0]>>shift)&(buckets-1)] == n {
			continue // one digit everywhere: this pass changes nothing
		}
		sum := 0
		for d := range c {
			v := c[d]
			c[d] = sum
			sum += v
		}
		for i, k := range keys {
			d := (k >> shift) & (buckets - 1)
			at := c[d]
			k2[at] = k
			r2[at] = rows[i]
			if carry != nil {
				c2[at] = carry[i]
			}
			c[d]++
		}
		keys, k2 = k2, keys
		rows, r2 = r2, rows
		carry, c2 = c2, carry
	}
	// After an odd number of passes the result is in the scratch arrays.
	if &keys[0] != &origK[0] {
		copy(origK, keys)
		copy(origR, rows)
		copy(origC, carry)
	}
}

// sortTies orders runs of equal sixteen-byte prefixes by the rest of the
// text: long runs by radix-sorting the next sixteen bytes (and so on),
// short ones by comparing.
func (s *Store) sortTies(keys, keys2 []uint64, rows []int32, k SortKey) {
	text := func(i int32) []byte {
		id, ref := s.textOf(s.text, i)
		if k.Col == ColReference {
			return ref
		}
		return id
	}
	s.sortRuns(keys, keys2, rows, k, text, 0)
}

func (s *Store) sortRuns(keys, keys2 []uint64, rows []int32, k SortKey, text func(int32) []byte, depth int) {
	for lo := 0; lo < len(keys); {
		hi := lo + 1
		for hi < len(keys) && keys[hi] == keys[lo] && keys2[hi] == keys2[lo] {
			hi++
		}
		run := rows[lo:hi]
		switch {
		case hi-lo == 1 || shortAndPlain(run, text, 16*(depth+1)):
		case hi-lo < 256:
			slices.SortFunc(run, func(a, b int32) int {
				c := bytes.Compare(text(a), text(b))
				if k.Desc {
					c = -c
				}
				if c == 0 {
					c = cmp.Compare(a, b)
				}
				return c
			})
		default:
			// The next sixteen bytes, radix-sorted; the run is in row
			// order, and radix sorting keeps it so among equal keys.
			k1, k2 := make([]uint64, len(run)), make([]uint64, len(run))
			off := 16 * (depth + 1)
			for p, r := range run {
				var b [16]byte
				if t := text(r); len(t) > off {
					copy(b[:], t[off:])
				}
				k1[p], k2[p] = binary.BigEndian.Uint64(b[:8]), binary.BigEndian.Uint64(b[8:])
				if k.Desc {
					k1[p], k2[p] = ^k1[p], ^k2[p]
				}
			}
			radixSort(k2, run, k1)
			radixSort(k1, run, k2)
			s.sortRuns(k1, k2, run, k, text, depth+1)
		}
		lo = hi
	}
}

// shortAndPlain reports whether every text of a run of equal keys fits
// in the key and has no NUL byte (the key's padding): then the texts are
// equal, and the run is already in row order.
func shortAndPlain(rows []int32, text func(int32) []byte, n int) bool {
	for _, r := range rows {
		t := text(r)
		if len(t) > n {
			return false
		}
		for _, c := range t {
			if c == 0 {
				return false
			}
		}
	}
	return true
}

// parallel runs fn over [0, n) split across the CPUs.
func parallel(n int, fn func(lo, hi int)) {
	workers := runtime.GOMAXPROCS(0)
	if n < parallelMin {
		workers = 1
	}
	size := (n + workers - 1) / workers
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := min(w*size, n), min((w+1)*size, n)
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn(lo, hi)
		}()
	}
	wg.Wait()
}

// Resort returns order (every row of an earlier Store, sorted by k) with
// the rows changed since (MergeStats.Changed: updated and added ones) put
// where k places them now, exactly as Sorted(All()) would: a refresh of a
// few rows then costs a merge, not a sort of the whole report.
func (s *Store) Resort(order []int32, k SortKey, changed []int32) []int32 {
	moved := make([]uint64, (s.n+63)/64)
	for _, i := range changed {
		moved[i>>6] |= 1 << (uint(i) & 63) //nolint:gosec // G115: row numbers are non-negative
	}
	d := s.Sorted(changed, k)
	cmp := s.comparer(k)
	out := make([]int32, 0, s.n)
	j := 0
	for _, i := range order {
		if moved[i>>6]&(1<<(uint(i)&63)) != 0 { //nolint:gosec // G115: row numbers are non-negative
			continue
		}
		for j < len(d) && cmp(d[j], i) < 0 {
			out = append(out, d[j])
			j++
		}
		out = append(out, i)
	}
	return append(out, d[j:]...)
}

// comparer orders two rows as Sorted does: by k, ties by row number.
func (s *Store) comparer(k SortKey) func(a, b int32) int {
	var ranks []uint32
	switch k.Col {
	case ColType, ColStatus, ColCurrency:
		which := map[Column]int{ColType: EnumType, ColStatus: EnumStatus, ColCurrency: EnumCurrency}[k.Col]
		ranks = rankStrings(s.enums[which], strings.Compare)
	case ColName:
		ranks = s.names.ranks(true)
	case ColIBAN:
		ranks = s.ibans.ranks(false)
	}
	rank := func(v uint32) uint32 {
		if int(v) < len(ranks) {
			return ranks[v]
		}
		return v
	}
	return func(a, b int32) int {
		ca, ja := s.at(a)
		cb, jb := s.at(b)
		var c int
		switch k.Col {
		case ColTime:
			c = cmp.Compare(rowTime(ca.authorised[ja], ca.submitted[ja], ca.settled[ja]), rowTime(cb.authorised[jb], cb.submitted[jb], cb.settled[jb]))
		case ColAmount:
			c = cmp.Compare(ca.amount[ja], cb.amount[jb])
		case ColType:
			c = cmp.Compare(rank(uint32(ca.typ[ja])), rank(uint32(cb.typ[jb])))
		case ColStatus:
			c = cmp.Compare(rank(uint32(ca.status[ja])), rank(uint32(cb.status[jb])))
		case ColCurrency:
			c = cmp.Compare(rank(uint32(ca.cur[ja])), rank(uint32(cb.cur[jb])))
		case ColName:
			c = cmp.Compare(rank(ca.name[ja]), rank(cb.name[jb]))
		case ColIBAN:
			c = cmp.Compare(rank(ca.iban[ja]), rank(cb.iban[jb]))
		case ColReference:
			c = bytes.Compare(s.Reference(a), s.Reference(b))
		case ColID:
			c = bytes.Compare(s.ID(a), s.ID(b))
		}
		if k.Desc {
			c = -c
		}
		if c == 0 {
			c = cmp.Compare(a, b)
		}
		return c
	}
}
