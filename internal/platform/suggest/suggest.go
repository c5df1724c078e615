// Package suggest is the one "did you mean" of paydash: the nearest known
// word to a misspelt one, for config keys, key bindings and flags alike.
//
// It imports nothing of paydash.
package suggest

// Nearest is the name in names closest to s by edit distance, if it is
// within maxEdits edits, else "". Of names equally near, the first wins.
func Nearest(s string, names []string, maxEdits int) string {
	best, bestD := "", maxEdits+1
	for _, n := range names {
		if d := Distance(s, n); d < bestD {
			best, bestD = n, d
		}
	}
	return best
}

// Distance is the Levenshtein distance of two short words, byte by byte
// (config keys, flag and action names are ASCII).
func Distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
