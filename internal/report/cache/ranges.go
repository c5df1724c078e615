package cache

import (
	"slices"
	"time"
)

// Range is a span of report time the cache holds every row of, as the
// service gave them at Fetched. From zero means the beginning of the
// report; To is inclusive.
type Range struct {
	From    time.Time `json:"from"`
	To      time.Time `json:"to"`
	Fetched time.Time `json:"fetched"`
}

// Ranges are the spans held, oldest first, not overlapping.
type Ranges []Range

// maxRanges bounds the header: older adjacent spans are merged beyond it.
const maxRanges = 32

// Add records that r was fetched: the parts of older ranges it covers
// now date from r's fetch.
func (rs Ranges) Add(r Range) Ranges {
	out := make(Ranges, 0, len(rs)+2)
	for _, o := range rs {
		// The part of o before r, and the part after it, stay o's.
		if before(o.From, r.From) {
			p := o
			if !r.From.IsZero() && p.To.After(r.From.Add(-time.Nanosecond)) {
				p.To = r.From.Add(-time.Nanosecond)
			}
			out = append(out, p)
		}
		if o.To.After(r.To) {
			p := o
			if before(p.From, r.To.Add(time.Nanosecond)) {
				p.From = r.To.Add(time.Nanosecond)
			}
			out = append(out, p)
		}
	}
	out = append(out, r)
	slices.SortFunc(out, func(a, b Range) int {
		switch {
		case before(a.From, b.From):
			return -1
		case before(b.From, a.From):
			return 1
		}
		return 0
	})
	return out
}

// before orders From times with zero (the beginning) first.
func before(a, b time.Time) bool {
	switch {
	case a.IsZero():
		return !b.IsZero()
	case b.IsZero():
		return false
	}
	return a.Before(b)
}

// compact merges adjacent ranges, the oldest first, until at most n are
// left; a merged span keeps the older fetch time (what is known of all
// of it).
func (rs Ranges) compact(n int) Ranges {
	out := slices.Clone(rs)
	for len(out) > n {
		a, b := out[0], out[1]
		f := a.Fetched
		if b.Fetched.Before(f) {
			f = b.Fetched
		}
		out[1] = Range{From: a.From, To: b.To, Fetched: f}
		out = out[1:]
	}
	return out
}

// Complete reports whether the ranges cover the report from its
// beginning to the newest one without a gap.
func (rs Ranges) Complete() bool {
	if len(rs) == 0 || !rs[0].From.IsZero() {
		return false
	}
	for i := 1; i < len(rs); i++ {
		if rs[i].From.After(rs[i-1].To.Add(time.Nanosecond)) {
			return false
		}
	}
	return true
}

// Oldest is the start of the newest gap-free span the ranges end with:
// what an older window is fetched below. Zero when nothing is held.
func (rs Ranges) Oldest() time.Time {
	if len(rs) == 0 {
		return time.Time{}
	}
	from := rs[len(rs)-1].From
	for i := len(rs) - 2; i >= 0; i-- {
		if rs[i+1].From.After(rs[i].To.Add(time.Nanosecond)) {
			break
		}
		from = rs[i].From
	}
	return from
}

// Newest is when the newest range was fetched (zero when none).
func (rs Ranges) Newest() time.Time {
	var t time.Time
	for _, r := range rs {
		if r.Fetched.After(t) {
			t = r.Fetched
		}
	}
	return t
}
