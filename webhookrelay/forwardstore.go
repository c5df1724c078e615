package webhookrelay

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"

	bolt "go.etcd.io/bbolt"

	"github.com/paydash/paydash/webhookrelay/relayclient"
)

// Attempt is one forward of an event and the handler's answer.
type Attempt = relayclient.Attempt

// bucketAttempts logs every forward attempt with its answer, in order:
// 8-byte big-endian attempt seq -> JSON Attempt. It is what `events tail`
// and the dashboard follow to show each attempt as it happens.
var bucketAttempts = []byte("attempts")

// maxAttempts bounds the attempt log; the oldest go first. The last
// answer of each event also stays on the event itself.
const maxAttempts = 10000

// routeCursorKey names a route's forwarding cursor in the meta bucket.
// A catch-all route alone keeps the key forwarding used before routes,
// so a relay upgraded in place resumes where it stopped.
func routeCursorKey(routes []Route, i int) []byte {
	if len(routes) == 1 && len(routes[0].Patterns) == 0 {
		return keyForwarded
	}
	return []byte("forwarded:" + routes[i].String())
}

// routeCursor returns route i's cursor, or ok=false when that route has
// never run on this store.
func (s *store) routeCursor(key []byte) (seq uint64, ok bool, err error) {
	err = s.db.View(func(tx *bolt.Tx) error {
		if v := tx.Bucket(bucketMeta).Get(key); len(v) == 8 {
			seq, ok = decodeSeq(v), true
		}
		return nil
	})
	return seq, ok, err
}

func decodeSeq(v []byte) uint64 { return binary.BigEndian.Uint64(v) }

// keepRouteCursors deletes the cursors of routes no longer configured, so
// a route added again later starts from new events, not from whatever
// arrived while it was off.
func (s *store) keepRouteCursors(keep [][]byte) error {
	return s.db.Update(func(tx *bolt.Tx) error {
		meta := tx.Bucket(bucketMeta)
		var stale [][]byte
		c := meta.Cursor()
		for k, _ := c.Seek(keyForwarded); k != nil && bytes.HasPrefix(k, keyForwarded); k, _ = c.Next() {
			if !containsKey(keep, k) {
				stale = append(stale, append([]byte(nil), k...))
			}
		}
		for _, k := range stale {
			if err := meta.Delete(k); err != nil {
				return err
			}
		}
		return nil
	})
}

func containsKey(keys [][]byte, k []byte) bool {
	for _, x := range keys {
		if bytes.Equal(x, k) {
			return true
		}
	}
	return false
}

// setRouteCursor sets where a route's forwarding resumes.
func (s *store) setRouteCursor(key []byte, seq uint64) error {
	return s.db.Update(func(tx *bolt.Tx) error { return tx.Bucket(bucketMeta).Put(key, seqKey(seq)) })
}

// setForward records one forward attempt: in the attempt log and, when
// update is set, as the event's forwarding outcome (if retention has not
// removed the event meanwhile); finished also moves the route's cursor
// past the event (an outcome noted while the endpoint is still being
// retried must not: a restart retries that event). One transaction.
func (s *store) setForward(key []byte, seq uint64, fr ForwardResult, a *Attempt, update, finished bool) error {
	return s.db.Update(func(tx *bolt.Tx) error {
		if a != nil {
			if err := logAttempt(tx, a); err != nil {
				return err
			}
		}
		if update {
			events := tx.Bucket(bucketEvents)
			k := seqKey(seq)
			if v := events.Get(k); v != nil {
				e, err := decodeRecord(v)
				if err != nil {
					return err
				}
				e.Seq = seq
				e.Forward = &fr
				rec, err := encodeRecord(&e)
				if err != nil {
					return err
				}
				if err := events.Put(k, rec); err != nil {
					return err
				}
			}
		}
		if !finished {
			return nil
		}
		return tx.Bucket(bucketMeta).Put(key, seqKey(seq))
	})
}

// logAttempt appends a to the attempt log (setting a.Seq) and drops the
// oldest entries beyond maxAttempts.
func logAttempt(tx *bolt.Tx, a *Attempt) error {
	b, err := tx.CreateBucketIfNotExists(bucketAttempts)
	if err != nil {
		return err
	}
	b.FillPercent = 1.0
	if a.Seq, err = b.NextSequence(); err != nil {
		return err
	}
	v, err := json.Marshal(a)
	if err != nil {
		return err
	}
	if err := b.Put(seqKey(a.Seq), v); err != nil {
		return err
	}
	if a.Seq <= maxAttempts {
		return nil
	}
	c := b.Cursor()
	for k, _ := c.First(); k != nil && decodeSeq(k) <= a.Seq-maxAttempts; k, _ = c.First() {
		if err := b.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

// logResend appends a client's resend and its answer to the attempt log.
func (s *store) logResend(a *Attempt) error {
	return s.db.Update(func(tx *bolt.Tx) error { return logAttempt(tx, a) })
}

// attempts returns up to limit logged attempts after seq since (of one
// event when eventID is set), and the newest attempt seq.
func (s *store) attempts(since uint64, limit int, eventID string) ([]Attempt, uint64, error) {
	out := []Attempt{}
	var last uint64
	// Attempts are stored as json.Marshal wrote them, so the id's
	// encoding in the record is exactly this.
	quoted, _ := json.Marshal(eventID)
	needle := append([]byte(`"event_id":`), quoted...)
	err := s.db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketAttempts)
		if b == nil {
			return nil
		}
		last = b.Sequence()
		c := b.Cursor()
		for k, v := c.Seek(seqKey(since + 1)); k != nil && len(out) < limit; k, v = c.Next() {
			if eventID != "" && !bytes.Contains(v, needle) {
				continue // cheap pre-check; the decoded id decides
			}
			var a Attempt
			if err := json.Unmarshal(v, &a); err != nil {
				return fmt.Errorf("attempt %d: %w", decodeSeq(k), err)
			}
			if eventID == "" || a.EventID == eventID {
				out = append(out, a)
			}
		}
		return nil
	})
	return out, last, err
}
