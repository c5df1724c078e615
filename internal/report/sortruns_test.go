package report

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
)

// Keys in a few runs, each up or down and with ties (a report fetched a
// window at a time, shown newest first), are put in the order a stable
// sort gives: by key, ties in row order. More runs than the bound are
// left to the sort.
func TestInOrderMergesAFewRuns(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, runs := range []int{1, 2, 3, 5, 8, 9} {
		var keys []uint64
		for r := range runs {
			n := 1 + rng.IntN(500)
			k := uint64(rng.IntN(1000))
			run := make([]uint64, n)
			for i := range run {
				run[i] = k
				k += uint64(rng.IntN(3)) // ties and steps
			}
			if r%2 == 1 {
				slices.Reverse(run)
			}
			if len(keys) > 0 && run[0] == keys[len(keys)-1] {
				run[0]++ // a new run starts where the direction breaks
			}
			keys = append(keys, run...)
		}
		rows := make([]int32, len(keys))
		for i := range rows {
			rows[i] = int32(i) //nolint:gosec // small
		}
		want := slices.Clone(rows)
		slices.SortStableFunc(want, func(a, b int32) int { return cmp.Compare(keys[a], keys[b]) })
		orig := slices.Clone(keys)
		got := slices.Clone(rows)
		ok := inOrder(keys, got)
		if !ok {
			if runs <= 8 {
				t.Fatalf("%d runs: left to the sort", runs)
			}
			radixSort(keys, got, nil)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("%d runs (merged %t): rows not in stable key order", runs, ok)
		}
		for i, r := range got {
			if keys[i] != orig[r] {
				t.Fatalf("%d runs: key %d is %d, row %d's is %d", runs, i, keys[i], r, orig[r])
			}
		}
	}
}
