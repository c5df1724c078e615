package report

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/paydash/paydash/api"
)

// Source streams the service's transaction report (api.Client does).
type Source interface {
	StreamTransactions(ctx context.Context, q api.TransactionQuery, fn func(api.Transaction) error) error
}

// recordSource is api.Client's cheaper stream (records whose strings are
// not made: the store copies what it keeps into its own arenas).
type recordSource interface {
	StreamRecords(ctx context.Context, q api.TransactionQuery, fn func(*api.Record) error) error
}

// stream reads the report from src, by records when it can.
func stream(ctx context.Context, src Source, q api.TransactionQuery, fn func(*api.Transaction) error) error {
	if rs, ok := src.(recordSource); ok {
		var t api.Transaction // one for the whole stream: no allocation a record
		return rs.StreamRecords(ctx, q, func(r *api.Record) error {
			t = r.Transient()
			return fn(&t)
		})
	}
	return src.StreamTransactions(ctx, q, func(t api.Transaction) error { return fn(&t) })
}

// Overlap is how far before the newest row a refresh asks from, so rows
// booked a little out of order are not missed.
const Overlap = 2 * time.Minute

// PendingLookback bounds how far back a refresh goes for rows still in
// flight (authorised or submitted), whose status may yet change: older
// ones are caught by a full reload.
const PendingLookback = 24 * time.Hour

// Load streams the whole report into a new Store. sizeHint (0 = unknown)
// sizes the first chunk; progress, when not nil, counts rows as they
// arrive. On an error the rows received so far are returned with it.
func Load(ctx context.Context, src Source, sizeHint int, progress *atomic.Int64) (*Store, error) {
	st := New(sizeHint)
	b := st.b
	b.mu.Lock()
	defer b.mu.Unlock()
	err := stream(ctx, src, api.TransactionQuery{}, func(t *api.Transaction) error {
		if err := b.add(t); err != nil {
			return err
		}
		if progress != nil {
			progress.Add(1)
		}
		return nil
	})
	// The index a refresh merges by is built by the first refresh, not
	// here nor in the background after: over a million rows it is a
	// million random writes into 8 MB, which in the background
	// landed on the first keystrokes typed into the rows just shown.
	st = b.publish()
	return st, err
}

// Since is where the next refresh asks from: the newest report time seen
// minus Overlap, or earlier to cover rows still in flight (at most
// PendingLookback before the newest). Zero means everything.
func (s *Store) Since() time.Time {
	b := s.b
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.since()
}

func (b *builder) since() time.Time {
	if b.cur.newest == 0 {
		return time.Time{}
	}
	from := b.cur.newest - int64(Overlap)
	if p := b.pendingMin; p != 0 && p < from {
		from = max(p, b.cur.newest-int64(PendingLookback))
	}
	return time.Unix(0, from).UTC()
}

// Refresh asks the service only for what is new (from Since on) and
// merges it by transaction id: rows seen before are updated where they
// changed (a payout settling), new ones appended. It returns the new
// Store; s itself stays as it was, so readers of s are undisturbed. Row
// numbers of s keep meaning the same transactions in the result. On an
// error the rows merged so far are kept in the result.
func (s *Store) Refresh(ctx context.Context, src Source) (*Store, MergeStats, error) {
	return s.merge(ctx, src, nil, nil)
}

// Merge is Refresh for the rows q asks for (rather than those from
// Since on): what a store that may already hold some of them takes, such
// as a window of history whose first fetch was cut off. progress, when
// not nil, counts rows as they arrive.
func (s *Store) Merge(ctx context.Context, src Source, q api.TransactionQuery, progress *atomic.Int64) (*Store, MergeStats, error) {
	return s.merge(ctx, src, &q, progress)
}

func (s *Store) merge(ctx context.Context, src Source, query *api.TransactionQuery, progress *atomic.Int64) (*Store, MergeStats, error) {
	b := s.b
	b.mu.Lock()
	defer b.mu.Unlock()
	var ms MergeStats
	first := int32(b.cur.n) //nolint:gosec // G115: row counts fit int32 (row numbers are int32 throughout)
	if !b.idsBuilt {
		b.ids.build(&b.cur)
		b.idsBuilt = true
	}
	q := api.TransactionQuery{From: b.since()}
	if query != nil {
		q = *query
	}
	hadPending := b.pendingMin != 0
	err := stream(ctx, src, q, func(t *api.Transaction) error {
		ms.Seen++
		if progress != nil {
			progress.Add(1)
		}
		if i, ok := b.ids.find(&b.cur, []byte(clip(t.TransactionID, maxID))); ok {
			if b.update(i, t) {
				ms.Updated++
				if i < first {
					ms.Changed = append(ms.Changed, i)
				}
			}
			b.noteTime(t)
			return nil
		}
		ms.Added++
		return b.add(t)
	})
	if hadPending && ms.Updated > 0 {
		b.recomputePending()
	}
	for i := first; i < int32(b.cur.n); i++ { //nolint:gosec // G115: row counts fit int32 (row numbers are int32 throughout)
		ms.Changed = append(ms.Changed, i)
	}
	return b.publish(), ms, err
}

// Append streams the rows q asks for and appends them all without
// merging: for a time window the store holds none of (the older history
// of a report fetched newest first). It returns the new Store; s stays
// as it was. progress, when not nil, counts rows as they arrive. On an
// error the rows received so far are kept in the result.
func (s *Store) Append(ctx context.Context, src Source, q api.TransactionQuery, progress *atomic.Int64) (*Store, MergeStats, error) {
	b := s.b
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.idsBuilt {
		// An older window is most of a report fetched newest first:
		// inserting each of its ids cost a twentieth of a cold start at
		// ten million rows. The index is dropped; the first merge after
		// builds it whole, and a report read back from the cache has the
		// saved one.
		b.ids, b.idsBuilt = idIndex{}, false
	}
	var ms MergeStats
	first := int32(b.cur.n) //nolint:gosec // G115: row counts fit int32 (row numbers are int32 throughout)
	err := stream(ctx, src, q, func(t *api.Transaction) error {
		ms.Seen++
		ms.Added++
		if progress != nil {
			progress.Add(1)
		}
		return b.add(t)
	})
	for i := first; i < int32(b.cur.n); i++ { //nolint:gosec // G115: row counts fit int32 (row numbers are int32 throughout)
		ms.Changed = append(ms.Changed, i)
	}
	return b.publish(), ms, err
}
