package headless

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/dustin/go-humanize"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/cli/cmdutil"
	"github.com/paydash/paydash/internal/report"
	"github.com/paydash/paydash/internal/report/cache"
)

// saveEvery and saveShare say when a run that changed only some rows
// rewrites the cache (a window of history fetched always does): once
// the file is that old, or once that share of its rows changed. A
// rewrite costs the whole file; rows not saved are fetched again by the
// next run, which costs little.
const (
	saveEvery = 10 * time.Minute
	saveShare = 20 // one row in twenty
)

// heldReport brings the profile's report cache up to date and returns
// what it holds: the cache opened (or, when none can be used, the report
// fetched newest window first), synced with the service (only rows after
// its newest, and the recent past still in flight), any missing older
// history fetched, and the result saved back when worth it (see
// saveEvery). seen counts the rows the service sent, for the progress
// line.
func heldReport(ctx context.Context, s *cmdutil.Streams, src report.Source, cc *cache.Cache, now time.Time, seen *atomic.Int64) (cache.Held, error) {
	var h cache.Held
	var written time.Time
	o, err := cc.Open(ctx)
	switch {
	case err == nil:
		h, written = cache.FromOpened(o), o.Meta.Written
	case errors.Is(err, cache.ErrNone):
	case ctx.Err() != nil:
		return h, ctx.Err()
	default:
		fmt.Fprintf(s.Err, "report cache not used: %s\n", cache.Describe(err))
	}
	changed, windows := 0, false
	if h.Store != nil {
		next, ms, err := cache.Sync(ctx, src, h, now)
		seen.Add(int64(ms.Seen))
		if err != nil {
			return h, fmt.Errorf("sync the report cache: %w", err)
		}
		h, changed = next, ms.Added+ms.Updated
	}
	for !h.Complete() {
		next, _, err := cache.Older(ctx, src, h, now, seen)
		if err != nil {
			return h, fmt.Errorf("read transactions (after %s rows): %w", humanize.Comma(seen.Load()), err)
		}
		h, windows = next, true
	}
	if windows || changed > 0 && (now.Sub(written) >= saveEvery || changed >= max(h.Store.Len()/saveShare, 1000)) {
		// Saved with the dashboard's order (newest first), so the next
		// dashboard start shows its first screen without a sort.
		order := h.Store.Sorted(h.Store.All(), report.SortKey{Col: report.ColTime, Desc: true})
		if _, err := cache.Save(ctx, cc, h, order, report.SortKey{Col: report.ColTime, Desc: true}, now); err != nil {
			// The answer does not depend on the cache: say so and go on.
			fmt.Fprintf(s.Err, "could not save the report cache: %v\n", err)
		}
	}
	return h, nil
}

// fromCache writes the rows of q (the service's own filters: dates, type,
// currency) that match rq, in the report's order (oldest first), from
// the held report. It returns the rows of q and those written.
func fromCache(st *report.Store, q api.TransactionQuery, rq *report.Query, w rowWriter) (seen, kept int64, err error) {
	from, to := q.From, q.To
	rows := make([]int32, 0, st.Len())
	for i := range int32(st.Len()) { //nolint:gosec // G115: row counts fit int32
		at := st.Time(i)
		if !from.IsZero() && at.Before(from) || !to.IsZero() && at.After(to) {
			continue
		}
		if q.Type != "" && !strings.EqualFold(st.Type(i), q.Type) || q.Currency != "" && st.Currency(i) != q.Currency {
			continue
		}
		rows = append(rows, i)
	}
	rows = st.Sorted(rows, report.SortKey{Col: report.ColTime})
	all := rq.Empty()
	for _, i := range rows {
		seen++
		t := st.Tx(i)
		if !all && !rq.MatchTx(&t) {
			continue
		}
		kept++
		if err := w.write(&t); err != nil {
			return seen, kept, err
		}
	}
	return seen, kept, nil
}
