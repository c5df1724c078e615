package cache

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/report"
)

// Held is the report a process holds: the store and the ranges of report
// time it has every row of. It is a value: each step returns a new one.
type Held struct {
	Store  *report.Store
	Ranges Ranges
	// Order is the persisted order (every row sorted by OrderSort) of a
	// store just opened from the cache, else nil.
	Order     []int32
	OrderSort report.SortKey
	// Partial: the store may hold rows of a window whose fetch was cut
	// off (not in Ranges); the next window is merged by transaction id
	// rather than appended, so none is held twice.
	Partial bool
}

// FromOpened is the report an opened cache holds.
func FromOpened(o *Opened) Held {
	return Held{Store: o.Decoded.Store, Ranges: o.Meta.Ranges, Order: o.Decoded.Order, OrderSort: o.Decoded.OrderSort, Partial: o.Meta.Partial}
}

// Complete reports whether the whole history is held (no older window
// left to fetch).
func (h Held) Complete() bool { return h.Store != nil && h.Ranges.Complete() }

// windows are the sizes of the windows a report is fetched in when
// nothing is cached, newest first: the last day shows at once, then the
// rest, with no lower bound. Measured at a million rows, each further
// window cost its own request and a sort of everything held (3.5 s in
// five windows against 2.8 s in one call); two keep the first screen
// fast and the whole history near one call's time.
var windows = []time.Duration{24 * time.Hour}

// nextWindow is the query of the next older window below what h holds.
func (h Held) nextWindow(now time.Time) (api.TransactionQuery, Range) {
	var q api.TransactionQuery
	if h.Store == nil || len(h.Ranges) == 0 {
		q.From = now.Add(-windows[0]).UTC()
		return q, Range{From: q.From, To: now.UTC(), Fetched: now.UTC()}
	}
	oldest := h.Ranges.Oldest()
	q.To = oldest.Add(-time.Nanosecond).UTC()
	for _, w := range windows {
		if from := now.Add(-w); from.Before(oldest) {
			q.From = from.UTC()
			break
		}
	}
	return q, Range{From: q.From, To: q.To, Fetched: now.UTC()}
}

// Older fetches the next older window of history (the first, newest
// window when nothing is held) and appends it. Windows never overlap
// what is held, so nothing is merged, unless h is Partial. progress,
// when not nil, counts rows as they arrive. On an error the rows
// received are kept in the result, which is then Partial, and the window
// is not recorded as held: the next call asks for it again and merges.
func Older(ctx context.Context, src report.Source, h Held, now time.Time, progress *atomic.Int64) (Held, report.MergeStats, error) {
	if h.Complete() {
		return h, report.MergeStats{}, nil
	}
	q, r := h.nextWindow(now)
	st := h.Store
	if st == nil {
		st = report.New(0)
	}
	var next *report.Store
	var ms report.MergeStats
	var err error
	if h.Partial {
		next, ms, err = st.Merge(ctx, src, q, progress)
	} else {
		next, ms, err = st.Append(ctx, src, q, progress)
	}
	out := Held{Store: next, Ranges: h.Ranges, Partial: err != nil && (h.Partial || ms.Added > 0)}
	if err == nil {
		out.Ranges = h.Ranges.Add(r)
	}
	return out, ms, err
}

// Sync brings what h holds up to date: it asks the service only for rows
// from the store's Since on (the newest row less report.Overlap, or the
// oldest still in flight, at most report.PendingLookback back) and merges
// them by transaction id, as report.Store.Refresh does: a row whose
// status changed since it was cached is corrected, new rows are added.
// With nothing held it fetches the newest window (see Older).
func Sync(ctx context.Context, src report.Source, h Held, now time.Time) (Held, report.MergeStats, error) {
	if h.Store == nil || h.Store.Len() == 0 && len(h.Ranges) == 0 {
		return Older(ctx, src, h, now, nil)
	}
	from := h.Store.Since()
	next, ms, err := h.Store.Refresh(ctx, src)
	out := Held{Store: next, Ranges: h.Ranges, Partial: h.Partial}
	if err == nil {
		out.Ranges = h.Ranges.Add(Range{From: from, To: now.UTC(), Fetched: now.UTC()})
		if from.IsZero() { // an empty report: the service has nothing at all
			out.Ranges = Ranges{{To: now.UTC(), Fetched: now.UTC()}}
		}
	}
	return out, ms, err
}

// Save writes h to c, with order (every row sorted by sort, as the
// dashboard shows them; nil for none) so the next opening shows its first
// screen without sorting.
func Save(ctx context.Context, c *Cache, h Held, order []int32, sort report.SortKey, now time.Time) (Meta, error) {
	snap := h.Store.Snapshot()
	snap.Order, snap.OrderSort = order, sort
	return c.Save(ctx, snap, h.Ranges, h.Partial, now)
}
