package auditlog

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/payout"
	"github.com/paydash/paydash/internal/platform/natsstream"
)

// StreamFormat is the audit stream's format, named in its description
// (natsstream.WithFormat): one audit line per message. A stream of a
// newer format is refused.
const StreamFormat = 1

// Config places the record.
type Config struct {
	// Name names the stream (<Name>_AUDIT) and its subject.
	Name string
	// Profile is the send profile the record belongs to.
	Profile string
	// Replicas is the stream's replica count.
	Replicas int
	// WriteTimeout bounds one append across leader elections (default
	// 20s).
	WriteTimeout time.Duration
	// Wait runs a set-up step until it succeeds (the relay's
	// JetStreamConn.WaitFor); nil runs it once.
	Wait natsstream.Wait
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Hold is how far back (from the newest line) lines are held in
	// memory for the duplicate check; 0 means payout.DefaultWindow. A
	// check over a longer window reads the whole record.
	Hold time.Duration
}

// Log is the record on the stream.
type Log struct {
	cfg     Config
	stream  jetstream.Stream
	js      jetstream.JetStream
	subject string

	// mu makes check and append one step at this hub.
	mu sync.Mutex
	// follow keeps held current from the stream.
	follow *natsstream.Follower

	// viewMu guards what the follower has read: the lines held, read up
	// to the stream's sequence last.
	viewMu  sync.Mutex
	last    uint64
	entries []payout.Entry
	newest  time.Time
	applied int
}

var _ payout.Record = (*Log)(nil)

// Open opens (creating when missing) the record on the cluster js is
// connected to.
func Open(ctx context.Context, js jetstream.JetStream, cfg Config) (*Log, error) {
	if err := natsstream.CheckName("audit record name", cfg.Name, natsstream.MaxRecordName); err != nil {
		return nil, err
	}
	cfg.Replicas, cfg.WriteTimeout = natsstream.RecordDefaults(cfg.Replicas, cfg.WriteTimeout)
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Hold <= 0 {
		cfg.Hold = payout.DefaultWindow
	}
	l := &Log{cfg: cfg, js: js, subject: "paydash.hub." + cfg.Name + ".audit"}
	// The record is what the duplicate check reads: kept whole.
	sc := natsstream.WithFormat(natsstream.RecordConfig(cfg.Name+"_AUDIT", []string{l.subject, l.subject + ".init"}, cfg.Replicas), "hub audit record", StreamFormat)
	var err error
	if l.stream, err = natsstream.Create(ctx, js, sc, cfg.Wait, "the hub's audit record", l.subject+".init"); err != nil {
		return nil, fmt.Errorf("audit record: %w", err)
	}
	// Only the lines stored within the hold (and a day to spare) are
	// replayed: a hub's start costs the duplicate window, not the
	// record's history. An older payout's outcome still open is not
	// closed by FinalOutcome at this hub (it follows payouts for their
	// webhook_late, far shorter).
	since := time.Now().Add(-cfg.Hold - 24*time.Hour)
	if l.follow, err = natsstream.Follow(ctx, l.stream, natsstream.FollowConfig{Since: since}, l.apply); err != nil {
		return nil, fmt.Errorf("audit record: %w", err)
	}
	if err := l.refresh(ctx); err != nil {
		l.follow.Stop()
		return nil, err
	}
	return l, nil
}

// Close stops following the stream (the connection stays the caller's).
func (l *Log) Close() { l.follow.Stop() }

// apply holds a line the follower read, and now and then lets go of the
// lines the duplicate check no longer reads.
func (l *Log) apply(m natsstream.Message) {
	l.viewMu.Lock()
	defer l.viewMu.Unlock()
	l.last = m.Seq
	if m.Subject != l.subject {
		return // the first message, not a line
	}
	var e payout.Entry
	if err := json.Unmarshal(m.Data, &e); err != nil {
		return // reported by Entries, which reads every line
	}
	l.entries = append(l.entries, e)
	if e.At.After(l.newest) {
		l.newest = e.At
	}
	if l.applied++; l.applied >= 1024 {
		l.applied = 0
		l.entries = l.prune(l.entries)
	}
}

// prune keeps the lines within Hold of the newest. A payout whose final
// state never came stays "accepted" in the record for ever: holding every
// such line would make memory follow the history again. FinalOutcome
// closes the payouts the hub follows, for their webhook_late, far within
// the hold.
func (l *Log) prune(es []payout.Entry) []payout.Entry {
	from := l.newest.Add(-l.cfg.Hold)
	kept := es[:0]
	for _, e := range es {
		if !e.At.Before(from) {
			kept = append(kept, e)
		}
	}
	return slices.Clip(kept)
}

// held is what the follower has read: the lines held and the stream's
// sequence they are read up to.
func (l *Log) held() ([]payout.Entry, uint64) {
	l.viewMu.Lock()
	defer l.viewMu.Unlock()
	return slices.Clone(l.entries), l.last
}

// Profile is the profile the record belongs to.
func (l *Log) Profile() string { return l.cfg.Profile }

// Entries reads the whole record, in pulled batches.
func (l *Log) Entries() ([]payout.Entry, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*l.cfg.WriteTimeout)
	defer cancel()
	var out []payout.Entry
	err := natsstream.Scan(ctx, l.stream, jetstream.ConsumerConfig{DeliverPolicy: jetstream.DeliverAllPolicy, FilterSubject: l.subject},
		func(m natsstream.Message) (bool, error) {
			var e payout.Entry
			if err := json.Unmarshal(m.Data, &e); err != nil {
				return false, fmt.Errorf("audit record: line %d is damaged (%w); paydash will not send payouts it cannot check for duplicates", m.Seq, err)
			}
			out = append(out, e)
			return true, nil
		})
	if err != nil {
		return nil, fmt.Errorf("audit record: reading the stream: %w (paydash will not send payouts it cannot check for duplicates)", err)
	}
	return out, nil
}

// refresh waits until the lines appended by any hub before it was called
// are read.
func (l *Log) refresh(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 3*l.cfg.WriteTimeout)
	defer cancel()
	if _, err := l.follow.Sync(ctx); err != nil {
		return fmt.Errorf("audit record: reading the stream: %w (paydash will not send payouts it cannot check for duplicates)", err)
	}
	return nil
}

// appendAfter appends e when the record's last line is still the one
// read (the lock); otherwise natsstream.ErrMoved, and the caller reads and decides
// again. Retries through elections carry the same Nats-Msg-Id, and an
// append found to have landed is not made twice.
func (l *Log) appendAfter(ctx context.Context, last uint64, e payout.Entry) error {
	if e.At.IsZero() {
		e.At = l.cfg.Now()
	}
	e.At = e.At.UTC()
	e.Profile = l.cfg.Profile
	data, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("audit record: %w", err)
	}
	msg := nats.NewMsg(l.subject)
	msg.Data = data
	var nonce [16]byte
	_, _ = rand.Read(nonce[:])
	id := hex.EncodeToString(nonce[:])
	msg.Header.Set(jetstream.MsgIDHeader, id)
	ctx, cancel := context.WithTimeout(ctx, l.cfg.WriteTimeout)
	defer cancel()
	_, err = natsstream.PublishIf(ctx, l.js, l.stream, msg, last)
	switch {
	case errors.Is(err, natsstream.ErrMoved):
		return err
	case err != nil:
		return fmt.Errorf("audit record: JetStream did not take the line within %s: %w", l.cfg.WriteTimeout, err)
	}
	return nil
}

// locked runs decide over the record as read up to its last line and
// appends what it returns, again and again until no other hub appended in
// between: check and append are one step across the cluster.
func (l *Log) locked(ctx context.Context, decide func(es []payout.Entry) (*payout.Entry, error)) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	for {
		if err := l.refresh(ctx); err != nil {
			return err
		}
		es, last := l.held()
		e, err := decide(es)
		if err != nil || e == nil {
			return err
		}
		err = l.appendAfter(ctx, last, *e)
		if errors.Is(err, natsstream.ErrMoved) {
			continue
		}
		return err
	}
}

// ReserveIf is payout.Log.ReserveIf on the stream: the matches are read
// from every hub's lines, and the attempt is appended only if none was
// appended since.
func (l *Log) ReserveIf(ctx context.Context, e payout.Entry, window time.Duration, allow func([]payout.Payment) bool) ([]payout.Payment, error) {
	var matches []payout.Payment
	err := l.locked(ctx, func(es []payout.Entry) (*payout.Entry, error) {
		if window <= 0 || window > l.cfg.Hold {
			// Further back than the lines held: the whole record.
			all, err := l.Entries()
			if err != nil {
				return nil, err
			}
			es = all
		}
		req := e.Request()
		matches = payout.Matching(payout.FromRecord(es), &req, l.cfg.Now(), window)
		if len(matches) > 0 && !allow(matches) {
			return nil, nil
		}
		a := e
		a.Event = payout.EventAttempt
		a.AllowedDuplicate = a.AllowedDuplicate || len(matches) > 0
		return &a, nil
	})
	return matches, err
}

// Outcome appends the outcome of a payout sent under transactionID.
func (l *Log) Outcome(transactionID, outcome, detail string) error {
	return l.locked(context.Background(), func([]payout.Entry) (*payout.Entry, error) {
		return &payout.Entry{Event: payout.EventOutcome, TransactionID: transactionID, Outcome: outcome, Detail: detail}, nil
	})
}

// FinalOutcome appends a final state for a payout the record holds whose
// outcome is still open; it reports whether a line was written.
func (l *Log) FinalOutcome(transactionID, state, reason string) (bool, error) {
	if !api.IsFinalState(state) {
		return false, nil
	}
	wrote := false
	err := l.locked(context.Background(), func(es []payout.Entry) (*payout.Entry, error) {
		wrote = false
		for _, p := range payout.FromRecord(es) {
			if p.TransactionID == transactionID && payout.Pending(p.Outcome) {
				wrote = true
				return &payout.Entry{Event: payout.EventOutcome, TransactionID: transactionID, Outcome: state, Detail: reason}, nil
			}
		}
		return nil, nil
	})
	return wrote && err == nil, err
}
