package webhookrelay

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"
)

// backend is where a relay keeps events: the embedded bbolt file (one
// process, the default) or a NATS JetStream stream shared by any number of
// relay instances (clustered mode). The HTTP side, the websocket stream
// and history only see this interface; records are encodeRecord's bytes
// in both, so frames are built the same way from either.
type backend interface {
	// submit makes e durable unless its event_id was stored within the
	// dedupe window, and returns once the outcome is durable: the seq
	// assigned, or the stored seq and dup. arrived says the caller counted
	// e with arriving(1).
	submit(ctx context.Context, e *Event, arrived bool) writeResult
	// arriving counts webhooks being checked that will be submitted (or
	// refused) shortly; bbolt's group commit waits a little for them.
	arriving(delta int64)
	// lookup finds eventID stored within the dedupe window: its seq and,
	// while retention still keeps it, its raw body (nil once dropped).
	lookup(ctx context.Context, eventID string) (seq uint64, body []byte, found bool, err error)
	// scanRaw calls fn with each record after seq `after`, in order,
	// stopping when fn returns false or after a bounded page; it returns
	// the last seq it looked at, so callers page with it.
	scanRaw(after uint64, fn func(seq uint64, rec []byte) (more bool, err error)) (uint64, error)
	// bounds returns the first and last stored seq (0, 0 when empty).
	bounds() (first, last uint64, err error)
	// storeID names this store for as long as it lives: a new or
	// replaced store has another, so subscribers can tell that seqs they
	// saw came from elsewhere even when the new store has caught up.
	storeID() string
	// lastSeq is the highest seq this relay knows to be assigned; fresh
	// asks the backend rather than answering from memory.
	lastSeq(ctx context.Context, fresh bool) (uint64, error)
	close() error
}

// rawScanner is what scanEvents reads from: the relay's backend for
// backlog pages, the bbolt store for the forwarder.
type rawScanner interface {
	scanRaw(after uint64, fn func(seq uint64, rec []byte) (more bool, err error)) (uint64, error)
}

// scanEvents decodes scanRaw's records: fn gets each event after seq
// `after` that keep (if not nil) accepts, in order, stopping when fn
// returns false, after max events or roughly maxBytes of bodies. It
// returns the last seq it looked at (kept or not).
func scanEvents(b rawScanner, after uint64, max, maxBytes int, keep func(*Event) bool, fn func(Event) bool) (uint64, error) {
	n, size := 0, 0
	return b.scanRaw(after, func(seq uint64, rec []byte) (bool, error) {
		e, err := decodeRecord(rec)
		if err != nil {
			return false, err
		}
		e.Seq = seq
		if keep != nil && !keep(&e) {
			return true, nil
		}
		n++
		size += len(e.Body)
		return fn(e) && n < max && size < maxBytes, nil
	})
}

// boltBackend is the default: one bbolt file written by one group-commit
// writer, which also feeds this relay's fan-out.
type boltBackend struct {
	st *store
	w  *writer
}

func (b *boltBackend) submit(ctx context.Context, e *Event, arrived bool) writeResult {
	return b.w.submit(ctx, e, arrived)
}

func (b *boltBackend) arriving(delta int64) { b.w.arriving.Add(delta) }

func (b *boltBackend) lookup(_ context.Context, eventID string) (uint64, []byte, bool, error) {
	return b.st.lookup(eventID)
}

func (b *boltBackend) scanRaw(after uint64, fn func(uint64, []byte) (bool, error)) (uint64, error) {
	return b.st.scanRaw(after, fn)
}

func (b *boltBackend) bounds() (uint64, uint64, error) {
	first, last, _, err := b.st.bounds()
	return first, last, err
}

func (b *boltBackend) lastSeq(context.Context, bool) (uint64, error) { return b.w.lastSeq.Load(), nil }

func (b *boltBackend) storeID() string { return b.st.id }

func (b *boltBackend) close() error {
	b.w.stop()
	return b.st.close()
}

// lookup returns the seq of eventID if it is in the dedupe index, and its
// body (copied) while the event itself is still stored.
func (s *store) lookup(eventID string) (seq uint64, body []byte, found bool, err error) {
	if len(eventID) == 0 || len(eventID) > bolt.MaxKeySize {
		return 0, nil, false, nil
	}
	err = s.db.View(func(tx *bolt.Tx) error {
		v := tx.Bucket(bucketIDs).Get([]byte(eventID))
		if len(v) < 8 {
			return nil
		}
		seq, found = binary.BigEndian.Uint64(v), true
		rec := tx.Bucket(bucketEvents).Get(v[:8])
		if rec == nil {
			return nil
		}
		_, b, err := splitRecord(rec)
		if err != nil {
			return err
		}
		body = append([]byte(nil), b...)
		return nil
	})
	return seq, body, found, err
}

// errBackendUnavailable means the backend could not make an event durable
// in time; the sender gets 503 and retries.
var errBackendUnavailable = errors.New("event store unavailable")

func unavailable(what string, err error) error {
	return fmt.Errorf("%w: %s: %w", errBackendUnavailable, what, err)
}

// DefaultDedupeWindow is how long an event_id stays a duplicate: the
// service retries a webhook for up to 72 hours.
const DefaultDedupeWindow = 72 * time.Hour
