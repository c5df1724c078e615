package webhookrelay

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/google/uuid"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"

	"github.com/paydash/paydash/internal/platform/boltformat"
)

// Buckets of the store file.
var (
	bucketEvents = []byte("events") // 8-byte big-endian seq -> record
	bucketIDs    = []byte("ids")    // event_id -> 8-byte big-endian seq
	// bucketIDOrder lists the dedupe index in seq order, so ids can be
	// trimmed by age once the dedupe window has passed, independently of
	// the events' own retention.
	bucketIDOrder = []byte("idorder") // 8-byte seq -> 8-byte received unix nanos + event_id
	bucketMeta    = []byte("meta")
	keyForwarded  = []byte("forwarded") // last seq the forwarder finished
	keyStoreID    = []byte("store_id")  // made when the file is created
)

// recordVersion is the first byte of every stored record.
const recordVersion = 1

// retentionBatch bounds how many old events one commit deletes, so a large
// retention backlog (say, after lowering RetainCount) is worked off over
// several commits instead of one huge transaction.
const retentionBatch = 2000

// store is the bbolt file. Every write goes through the relay's single
// writer goroutine except forward outcomes, which bbolt serialises anyway.
type store struct {
	db *bolt.DB
	id string // keyStoreID
}

func openStore(path string) (*store, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("create relay store directory: %w", err)
	}
	db, err := bolt.Open(path, 0o600, &bolt.Options{
		// A second relay on the same file fails fast instead of hanging.
		Timeout: 2 * time.Second,
		// The freelist is rebuilt by scanning at open instead of being
		// written on every commit: commits are what ingest pays for.
		NoFreelistSync: true,
		FreelistType:   bolt.FreelistMapType,
		// Room to grow before bbolt must remap (which waits for readers).
		InitialMmapSize: 256 << 20,
	})
	if errors.Is(err, bolterrors.ErrTimeout) {
		return nil, fmt.Errorf("relay store %s is in use by another relay process: stop it or choose another store path", path)
	}
	if err != nil {
		return nil, fmt.Errorf("open relay store %s: %w", path, err)
	}
	if err := boltformat.Check(db, path, storeFormat); err != nil {
		db.Close()
		return nil, err
	}
	var id string
	err = db.Update(func(tx *bolt.Tx) error {
		for _, b := range [][]byte{bucketEvents, bucketIDs, bucketMeta, bucketIDOrder} {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		// A store from before ids were kept gets one now: its
		// subscribers learn it on their next connection.
		meta := tx.Bucket(bucketMeta)
		if v := meta.Get(keyStoreID); len(v) > 0 {
			id = string(v)
		} else {
			id = uuid.NewString()
			if err := meta.Put(keyStoreID, []byte(id)); err != nil {
				return err
			}
		}
		if err := backfillIDOrder(tx); err != nil {
			return err
		}
		return boltformat.Put(tx, storeFormat)
	})
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("initialise relay store %s: %w", path, err)
	}
	return &store{db: db, id: id}, nil
}

func (s *store) close() error { return s.db.Close() }

// StoreFormat is the relay store's format. Format 1 is a store from
// before store versions (no format key; it may lack its store id and its
// dedupe order): it is migrated in place when opened, after a copy of it
// is kept beside it (path + ".format1.bak"). Format 2 names itself in the
// meta bucket. A store of a newer format is refused rather than
// misread.
const StoreFormat = 2

// storeFormat is where the relay store keeps its format (boltformat).
var storeFormat = boltformat.Spec{What: "relay store", Current: StoreFormat, Data: bucketEvents, Meta: bucketMeta, Key: []byte("format")}

func seqKey(seq uint64) []byte {
	k := make([]byte, 8)
	binary.BigEndian.PutUint64(k, seq)
	return k
}

// encodeRecord stores the event's fields as JSON followed by the raw body
// byte for byte (JSON would re-encode it, and forwarding and signature
// checks need the exact bytes). The seq is the record's key, not part of
// the record, so handlers encode records in parallel before the writer
// assigns seqs; the JSON always starts {"seq":0, and the stream frame
// puts the real seq there.
func encodeRecord(e *Event) ([]byte, error) {
	meta := *e
	meta.Seq = 0
	meta.Body = nil
	mj, err := json.Marshal(&meta)
	if err != nil {
		return nil, err
	}
	buf := make([]byte, 0, 1+binary.MaxVarintLen64+len(mj)+len(e.Body))
	buf = append(buf, recordVersion)
	buf = binary.AppendUvarint(buf, uint64(len(mj)))
	buf = append(buf, mj...)
	return append(buf, e.Body...), nil
}

// splitRecord returns the record's JSON fields and raw body (aliasing v).
func splitRecord(v []byte) (meta, body []byte, err error) {
	if len(v) < 2 || v[0] != recordVersion {
		return nil, nil, errors.New("relay store record has an unknown format")
	}
	n, w := binary.Uvarint(v[1:])
	if w <= 0 || n > uint64(len(v)-1-w) { //nolint:gosec // w <= len(v)-1, so the length is not negative
		return nil, nil, errors.New("relay store record is truncated")
	}
	end := 1 + w + int(n) //nolint:gosec // n was bounded by len(v) just above
	return v[1+w : end], v[end:], nil
}

// decodeRecord copies a record out of bbolt's memory into an Event.
func decodeRecord(v []byte) (Event, error) {
	meta, body, err := splitRecord(v)
	if err != nil {
		return Event{}, err
	}
	var e Event
	if err := json.Unmarshal(meta, &e); err != nil {
		return Event{}, fmt.Errorf("relay store record: %w", err)
	}
	e.Body = append(json.RawMessage(nil), body...)
	return e, nil
}

// recordHead is what retention needs from a record.
type recordHead struct {
	EventID    string    `json:"event_id"`
	ReceivedAt time.Time `json:"received_at"`
}

func idOrderValue(received time.Time, eventID string) []byte {
	v := make([]byte, 8, 8+len(eventID))
	binary.BigEndian.PutUint64(v, uint64(received.UnixNano()))
	return append(v, eventID...)
}

// backfillIDOrder indexes, once, the ids of a store written before the
// dedupe window existed, dating each by its event (or now, if gone).
func backfillIDOrder(tx *bolt.Tx) error {
	order := tx.Bucket(bucketIDOrder)
	if k, _ := order.Cursor().First(); k != nil {
		return nil
	}
	events := tx.Bucket(bucketEvents)
	now := time.Now()
	return tx.Bucket(bucketIDs).ForEach(func(id, seq []byte) error {
		at := now
		if rec := events.Get(seq); rec != nil {
			if meta, _, err := splitRecord(rec); err == nil {
				var h recordHead
				if json.Unmarshal(meta, &h) == nil {
					at = h.ReceivedAt
				}
			}
		}
		return order.Put(append([]byte(nil), seq...), idOrderValue(at, string(id)))
	})
}

// insert stores e's record (assigning e.Seq) unless its event_id is
// already stored, in which case it sets the stored seq and reports dup.
func insert(tx *bolt.Tx, e *Event, rec []byte) (dup bool, err error) {
	ids, events := tx.Bucket(bucketIDs), tx.Bucket(bucketEvents)
	if v := ids.Get([]byte(e.EventID)); v != nil {
		e.Seq = binary.BigEndian.Uint64(v)
		return true, nil
	}
	// Keys only ever grow: full pages split less and waste no space.
	events.FillPercent = 1.0
	seq, err := events.NextSequence()
	if err != nil {
		return false, err
	}
	e.Seq = seq
	key := seqKey(seq)
	if err := events.Put(key, rec); err != nil {
		return false, err
	}
	order := tx.Bucket(bucketIDOrder)
	order.FillPercent = 1.0
	if err := order.Put(key, idOrderValue(e.ReceivedAt, e.EventID)); err != nil {
		return false, err
	}
	return false, ids.Put([]byte(e.EventID), key)
}

// retain deletes the oldest events beyond retainCount or older than
// cutoff (zero = no age limit), then the dedupe index entries of events
// that are gone and older than dedupeCutoff, at most retentionBatch of
// each per call. With dryRun it only counts them, so an idle relay can
// check in a read transaction and skip an empty commit (and its fsyncs).
func retain(tx *bolt.Tx, retainCount int, cutoff, dedupeCutoff time.Time, dryRun bool) (int, error) {
	n, err := retainEvents(tx, retainCount, cutoff, dryRun)
	if err != nil {
		return 0, err
	}
	m, err := retainIDs(tx, dedupeCutoff, dryRun)
	return n + m, err
}

// retainIDs forgets event ids received before dedupeCutoff whose event
// retention has already dropped: a redelivery within the window stays a
// duplicate even after its body is gone.
func retainIDs(tx *bolt.Tx, dedupeCutoff time.Time, dryRun bool) (int, error) {
	order, ids, events := tx.Bucket(bucketIDOrder), tx.Bucket(bucketIDs), tx.Bucket(bucketEvents)
	var victims [][]byte
	c := order.Cursor()
	for k, v := c.First(); k != nil && len(victims) < retentionBatch; k, v = c.Next() {
		if len(v) < 8 || !time.Unix(0, int64(binary.BigEndian.Uint64(v))).Before(dedupeCutoff) || events.Get(k) != nil { //nolint:gosec // unix nanos fit int64 until 2262
			break
		}
		victims = append(victims, append([]byte(nil), k...))
	}
	if dryRun {
		return len(victims), nil
	}
	for _, k := range victims {
		v := order.Get(k)
		if id := v[8:]; bytes.Equal(ids.Get(id), k) {
			if err := ids.Delete(id); err != nil {
				return 0, err
			}
		}
		if err := order.Delete(k); err != nil {
			return 0, err
		}
	}
	return len(victims), nil
}

func retainEvents(tx *bolt.Tx, retainCount int, cutoff time.Time, dryRun bool) (int, error) {
	if retainCount <= 0 && cutoff.IsZero() {
		return 0, nil
	}
	events := tx.Bucket(bucketEvents)
	c := events.Cursor()
	first, _ := c.First()
	last, _ := c.Last()
	if first == nil {
		return 0, nil
	}
	// Seqs are contiguous: each stored event takes the next one and only
	// the oldest are ever deleted, so the count needs no scan.
	count := binary.BigEndian.Uint64(last) - binary.BigEndian.Uint64(first) + 1
	var excess uint64
	if retainCount > 0 && count > uint64(retainCount) {
		excess = count - uint64(retainCount)
	}
	var victims [][]byte
	for k, v := c.First(); k != nil && len(victims) < retentionBatch; k, v = c.Next() {
		if uint64(len(victims)) >= excess {
			if cutoff.IsZero() {
				break
			}
		}
		meta, _, err := splitRecord(v)
		if err != nil {
			return 0, err
		}
		var h recordHead
		if err := json.Unmarshal(meta, &h); err != nil {
			return 0, fmt.Errorf("relay store record %d: %w", binary.BigEndian.Uint64(k), err)
		}
		if uint64(len(victims)) >= excess && !h.ReceivedAt.Before(cutoff) {
			break
		}
		victims = append(victims, append([]byte(nil), k...))
	}
	if dryRun {
		return len(victims), nil
	}
	// The ids stay in the dedupe index until retainIDs drops them.
	for _, k := range victims {
		if err := events.Delete(k); err != nil {
			return 0, err
		}
	}
	return len(victims), nil
}

// scanLook bounds the records one scan looks at, matching or not.
const scanLook = 4096

// scanRaw calls fn with each record after seq `after`, in order, in one
// short read transaction (rec is only valid during the call), stopping
// when fn returns false or after scanLook records. It returns the last seq
// it looked at, so callers page with it. Short read transactions keep
// bbolt free to grow and reuse pages while a long backlog is being sent.
func (s *store) scanRaw(after uint64, fn func(seq uint64, rec []byte) (more bool, err error)) (lastSeen uint64, err error) {
	lastSeen = after
	if after == math.MaxUint64 {
		return after, nil
	}
	err = s.db.View(func(tx *bolt.Tx) error {
		c := tx.Bucket(bucketEvents).Cursor()
		looked := 0
		for k, v := c.Seek(seqKey(after + 1)); k != nil && looked < scanLook; k, v = c.Next() {
			looked++
			lastSeen = binary.BigEndian.Uint64(k)
			more, err := fn(lastSeen, v)
			if err != nil {
				return fmt.Errorf("relay store record %d: %w", lastSeen, err)
			}
			if !more {
				return nil
			}
		}
		return nil
	})
	return lastSeen, err
}

// Splice points of a record's JSON fields.
var (
	bodyNull  = []byte(`"body":null`)
	seqZero   = []byte(`{"seq":0`)
	seqPrefix = seqZero[:len(seqZero)-1]
)

// appendEventFrame appends the websocket text frame streaming the record
// stored under seq: its JSON fields with the seq filled in and the raw body
// spliced in where they hold "body":null. This sends the body byte for
// byte and costs no JSON decoding or encoding per event and client.
func appendEventFrame(dst []byte, seq uint64, rec []byte) ([]byte, error) {
	meta, body, err := splitRecord(rec)
	if err != nil {
		return dst, err
	}
	// Only the Event's own "body" member can match: inside JSON strings
	// the quotes would be escaped.
	i := bytes.LastIndex(meta, bodyNull)
	if i < 0 || len(body) == 0 || !bytes.HasPrefix(meta, seqZero) {
		return dst, errors.New("relay store record has an unknown layout")
	}
	var num [20]byte
	digits := strconv.AppendUint(num[:0], seq, 10)
	head := meta[len(seqZero) : i+len(bodyNull)-len("null")] // ,"event_id":..."body":
	tail := meta[i+len(bodyNull):]
	n := len(seqPrefix) + len(digits) + len(head) + len(body) + len(tail)
	dst = slices.Grow(dst, maxFrameHeader+n)
	dst = appendTextFrameHeader(dst, n)
	dst = append(dst, seqPrefix...)
	dst = append(dst, digits...)
	dst = append(dst, head...)
	dst = append(dst, body...)
	return append(dst, tail...), nil
}

// bounds returns the first and last stored seq (0, 0 when empty) and the
// highest seq ever assigned.
func (s *store) bounds() (first, last, assigned uint64, err error) {
	err = s.db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketEvents)
		c := b.Cursor()
		if k, _ := c.First(); k != nil {
			first = binary.BigEndian.Uint64(k)
		}
		if k, _ := c.Last(); k != nil {
			last = binary.BigEndian.Uint64(k)
		}
		assigned = b.Sequence()
		return nil
	})
	return first, last, assigned, err
}
