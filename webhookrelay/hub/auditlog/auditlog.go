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
}

// Log is the record on the stream.
type Log struct {
	cfg     Config
	stream  jetstream.Stream
	js      jetstream.JetStream
	subject string

	mu sync.Mutex
	// What has been read: every line up to seq last.
	last    uint64
	entries []payout.Entry
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
	l := &Log{cfg: cfg, js: js, subject: "paydash.hub." + cfg.Name + ".audit"}
	// The record is what the duplicate check reads: kept whole.
	sc := natsstream.RecordConfig(cfg.Name+"_AUDIT", []string{l.subject, l.subject + ".init"}, cfg.Replicas)
	var err error
	if l.stream, err = natsstream.Create(ctx, js, sc, cfg.Wait, "the hub's audit record", l.subject+".init"); err != nil {
		return nil, fmt.Errorf("audit record: %w", err)
	}
	return l, nil
}

// Profile is the profile the record belongs to.
func (l *Log) Profile() string { return l.cfg.Profile }

// Entries reads the whole record.
func (l *Log) Entries() ([]payout.Entry, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.refresh(context.Background()); err != nil {
		return nil, err
	}
	return slices.Clone(l.entries), nil
}

// refresh reads the lines appended since the last read, by any hub.
func (l *Log) refresh(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 3*l.cfg.WriteTimeout)
	defer cancel()
	var info *jetstream.StreamInfo
	err := natsstream.Retry(ctx, func(ctx context.Context) (err error) {
		info, err = l.stream.Info(ctx)
		return err
	})
	if err != nil {
		return fmt.Errorf("audit record: reading the stream: %w (paydash will not send payouts it cannot check for duplicates)", err)
	}
	for seq := l.last + 1; seq <= info.State.LastSeq; seq++ {
		var raw *jetstream.RawStreamMsg
		err := natsstream.Retry(ctx, func(ctx context.Context) (err error) {
			raw, err = l.stream.GetMsg(ctx, seq)
			return err
		})
		if errors.Is(err, jetstream.ErrMsgNotFound) || err == nil && raw.Subject != l.subject {
			l.last = seq // the first message, not a line
			continue
		}
		if err != nil {
			return fmt.Errorf("audit record: reading line %d: %w (paydash will not send payouts it cannot check for duplicates)", seq, err)
		}
		var e payout.Entry
		if err := json.Unmarshal(raw.Data, &e); err != nil {
			return fmt.Errorf("audit record: line %d is damaged (%w); paydash will not send payouts it cannot check for duplicates", seq, err)
		}
		l.entries = append(l.entries, e)
		l.last = seq
	}
	return nil
}

// appendAfter appends e when the record's last line is still the one
// read (the lock); otherwise natsstream.ErrMoved, and the caller reads and decides
// again. Retries through elections carry the same Nats-Msg-Id, and an
// append found to have landed is not made twice.
func (l *Log) appendAfter(ctx context.Context, e payout.Entry) error {
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
	seq, err := natsstream.PublishIf(ctx, l.js, l.stream, msg, l.last)
	switch {
	case errors.Is(err, natsstream.ErrMoved):
		return err
	case err != nil:
		return fmt.Errorf("audit record: JetStream did not take the line within %s: %w", l.cfg.WriteTimeout, err)
	}
	l.noteAppended(seq, e)
	return nil
}

// noteAppended adds a line this hub appended at seq, when it follows the
// lines read (else the next refresh reads it).
func (l *Log) noteAppended(seq uint64, e payout.Entry) {
	if seq == l.last+1 {
		l.entries = append(l.entries, e)
		l.last = seq
	}
}

// locked runs decide over the record as read up to its last line and
// appends what it returns, again and again until no other hub appended in
// between: check and append are one step across the cluster.
func (l *Log) locked(ctx context.Context, decide func() (*payout.Entry, error)) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	for {
		if err := l.refresh(ctx); err != nil {
			return err
		}
		e, err := decide()
		if err != nil || e == nil {
			return err
		}
		err = l.appendAfter(ctx, *e)
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
	err := l.locked(ctx, func() (*payout.Entry, error) {
		req := e.Request()
		matches = payout.Matching(payout.FromRecord(l.entries), &req, l.cfg.Now(), window)
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
	return l.locked(context.Background(), func() (*payout.Entry, error) {
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
	err := l.locked(context.Background(), func() (*payout.Entry, error) {
		wrote = false
		for _, p := range payout.FromRecord(l.entries) {
			if p.TransactionID == transactionID && payout.Pending(p.Outcome) {
				wrote = true
				return &payout.Entry{Event: payout.EventOutcome, TransactionID: transactionID, Outcome: state, Detail: reason}, nil
			}
		}
		return nil, nil
	})
	return wrote && err == nil, err
}
