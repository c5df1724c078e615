package ui

import "slices"

// resultPool recycles the arrays of filter results between keystrokes.
// Over a million rows the first keys of a query keep nearly every row,
// and a fresh result each key is 4 MB the kernel faults in page by page
// (the Go heap, grown by the report, hands out untouched memory until
// its next collection): more than the filtering cost. A result that
// leaves the screen is retired; retired arrays are reused only once no
// filter request or export that could still read or write one is
// running, so an array is never written while anything reads it. Only
// filters' results are handed back, and one spare is kept (what typing
// needs beside the result on screen): 4 bytes a row once the filter bar
// has been opened over a big report (see prepareSpare), none before.
type resultPool struct {
	busy    int       // filter requests and exports running
	retired [][]int32 // off screen, maybe still read by what is running
	free    [][]int32 // off screen and read by nothing
}

// maxPooled bounds the arrays kept; more are left to the collector.
const maxPooled = 1

// take returns an array for a filter request to write its result into
// (nil when none is free) and counts the request as running.
func (p *resultPool) take() []int32 {
	if p.busy == 0 && len(p.retired) > 0 {
		// Keep the largest (see take below).
		p.free = append(p.free, p.retired...)
		clear(p.retired)
		p.retired = p.retired[:0]
		slices.SortFunc(p.free, func(a, b []int32) int { return cap(b) - cap(a) })
		if len(p.free) > maxPooled {
			clear(p.free[maxPooled:])
			p.free = p.free[:maxPooled]
		}
	}
	p.busy++
	// The largest: a result is at most its base, and the base is
	// usually the previous result or the whole report.
	best := -1
	for i, b := range p.free {
		if best < 0 || cap(b) > cap(p.free[best]) {
			best = i
		}
	}
	if best < 0 {
		return nil
	}
	b := p.free[best]
	p.free = append(p.free[:best], p.free[best+1:]...)
	p.free[:len(p.free)+1][len(p.free)] = nil // no stale reference left behind
	return b[:0]
}

// hasFree reports whether a free array holds n rows.
func (p *resultPool) hasFree(n int) bool {
	for _, b := range p.free {
		if cap(b) >= n {
			return true
		}
	}
	return false
}

// give adds b, read by nothing, to the free arrays (within maxPooled).
func (p *resultPool) give(b []int32) {
	if len(p.free) < maxPooled {
		p.free = append(p.free, b[:0])
	}
}

// drop forgets every array (the running requests keep theirs alive until
// they finish; they are simply not reused).
func (p *resultPool) drop() {
	p.retired, p.free = nil, nil
}

// hold counts an export of a result as running.
func (p *resultPool) hold() { p.busy++ }

// done counts a filter request or an export as finished.
func (p *resultPool) done() {
	if p.busy > 0 {
		p.busy--
	}
}

// retire hands back b, unless it is one of the live arrays (on screen,
// the report's order) or already handed back.
func (p *resultPool) retire(b []int32, live ...[]int32) {
	if cap(b) == 0 {
		return
	}
	for _, l := range live {
		if sameArray(b, l) {
			return
		}
	}
	for _, l := range p.retired {
		if sameArray(b, l) {
			return
		}
	}
	for _, l := range p.free {
		if sameArray(b, l) {
			return
		}
	}
	p.retired = append(p.retired, b)
}

// reclaim takes b back out of the pool: it is on screen again (a filter
// that kept every row of its base returns the base itself).
func (p *resultPool) reclaim(b []int32) {
	keep := func(list [][]int32) [][]int32 {
		out := list[:0]
		for _, l := range list {
			if !sameArray(b, l) {
				out = append(out, l)
			}
		}
		clear(list[len(out):])
		return out
	}
	p.retired, p.free = keep(p.retired), keep(p.free)
}

func sameArray(a, b []int32) bool {
	return cap(a) > 0 && cap(b) > 0 && &a[:1][0] == &b[:1][0]
}
