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
	s.fillKeys(keys, rows, k.Col)
	if k.Desc {
		for i := range keys {
			keys[i] = ^keys[i]
		}
	}
	radixSort(keys, rows)
	if k.Col == ColReference || k.Col == ColID {
		s.sortTies(keys, rows, k)
	}
	return rows
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
		bits[i>>6] |= 1 << (uint(i) & 63)
	}
	out := make([]int32, 0, len(idx))
	for w, word := range bits {
		for word != 0 {
			b := bitsTrailing(word)
			out = append(out, int32(w*64+b))
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
func (s *Store) fillKeys(keys []uint64, rows []int32, col Column) {
	var ranks []uint32
	switch col {
	case ColType, ColStatus, ColCurrency:
		which := map[Column]int{ColType: EnumType, ColStatus: EnumStatus, ColCurrency: EnumCurrency}[col]
		ranks = rankStrings(s.enums[which], strings.Compare)
		for len(ranks) < 256 {
			ranks = append(ranks, uint32(len(ranks)))
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
				v = uint64(rowTime(c.authorised[j], c.submitted[j], c.settled[j])) ^ 1<<63
			case ColAmount:
				v = uint64(c.amount[j]) ^ 1<<63
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
				var b [8]byte
				copy(b[:], t)
				v = binary.BigEndian.Uint64(b[:])
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

// radixSort sorts keys ascending, carrying rows along, stably (LSD, 16
// bits a pass; passes where every key has the same digit are skipped).
func radixSort(keys []uint64, rows []int32) {
	n := len(keys)
	if n < 2 {
		return
	}
	k2 := make([]uint64, n)
	r2 := make([]int32, n)
	var count [1 << 16]int
	for shift := 0; shift < 64; shift += 16 {
		clear(count[:])
		for _, k := range keys {
			count[(k>>shift)&0xffff]++
		}
		if count[(keys[0]>>shift)&0xffff] == n {
			continue // one digit everywhere: already in order for this pass
		}
		sum := 0
		for d := range count {
			c := count[d]
			count[d] = sum
			sum += c
		}
		for i, k := range keys {
			d := (k >> shift) & 0xffff
			k2[count[d]] = k
			r2[count[d]] = rows[i]
			count[d]++
		}
		copy(keys, k2)
		copy(rows, r2)
	}
}

// sortTies orders runs of equal eight-byte prefixes by the whole text.
func (s *Store) sortTies(keys []uint64, rows []int32, k SortKey) {
	text := func(i int32) []byte {
		id, ref := s.textOf(s.text, i)
		if k.Col == ColReference {
			return ref
		}
		return id
	}
	for lo := 0; lo < len(keys); {
		hi := lo + 1
		for hi < len(keys) && keys[hi] == keys[lo] {
			hi++
		}
		if hi-lo > 1 {
			slices.SortFunc(rows[lo:hi], func(a, b int32) int {
				c := bytes.Compare(text(a), text(b))
				if k.Desc {
					c = -c
				}
				if c == 0 {
					c = cmp.Compare(a, b)
				}
				return c
			})
		}
		lo = hi
	}
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
