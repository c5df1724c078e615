package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/paydash/paydash/internal/platform/backoff"
	"github.com/paydash/paydash/internal/platform/clock"
	"github.com/paydash/paydash/internal/platform/natsstream"
)

// JetStreamConfig places the hub's store on a JetStream cluster, shared
// by every hub given the same servers and name.
type JetStreamConfig struct {
	// Name names the stream (<Name>_APPROVALS) and its subjects.
	Name string
	// Replicas is the stream's replica count (1 for a single server).
	Replicas int
	// WriteTimeout bounds one read or write across leader elections
	// (default natsstream.RecordWriteTimeout, 20s): past it the change is
	// refused and may be asked again.
	WriteTimeout time.Duration
	// Wait runs a set-up step until it succeeds (the relay's
	// JetStreamConn.WaitFor: retried with backoff while the cluster
	// cannot answer); nil runs it once.
	Wait natsstream.Wait
	// SnapshotEvery is how many messages pass between two snapshots of
	// the view (jsview.go); 0 means DefaultSnapshotEvery.
	SnapshotEvery uint64
}

// JetStreamFormat is the approvals stream's format, named in its
// description (natsstream.WithFormat). Format 1 (before store versions)
// had no snapshots of the view and no live/requested-at headers; it is
// read as it is (old messages are decoded whole). A stream of a newer
// format is refused.
const JetStreamFormat = 2

// jsBackend keeps the store in one JetStream stream laid out as a
// key-value bucket whose history is never cut:
//
//   - <prefix>.req.<id>: the request; the last message on the subject is
//     its value and that message's stream sequence its revision. Each
//     message also carries the record line of the change that wrote it,
//     so a change and its record line are one write.
//   - <prefix>.tx.<hash of the transaction id>: the request holding it.
//   - <prefix>.note: record lines that belong to no request.
//   - <prefix>.batch.<id>: a batch's rows and its decision (batchMessage),
//     each decision with its record line under the batch's id.
//   - <prefix>.lock: the submission lock (LockSubmissions).
//   - <prefix>.init: the stream's first message (see OpenJetStream).
//   - <prefix>.clock: an empty message written to read the stream's time
//     (Store.Now), only while a request is being sent.
//
// Every change is a compare-and-swap on the stream's revision: the hub
// reads the stream's last sequence, then the request (whose own message
// is no later), and publishes the change expecting that last sequence
// still (Nats-Expected-Last-Sequence): of two hubs changing one request
// at the same moment one wins and the other reads again. This is the
// key-value revision made stream-wide, and not the per-key check
// KeyValue.Update sends (Nats-Expected-Last-Subject-Sequence), because
// nats-server before 2.9.21 does not serialize that check in a clustered
// stream (nats-io/nats-server#4320): on Debian's 2.9.10 two hubs both
// won it. The stream-wide check is made by the stream's leader in order.
// Writes to other requests meanwhile only make a hub read again.
//
// The stream keeps every message, so read in order it is the record
// (`approvals log`), and each line's Seq is its message's stream
// sequence. Nothing is answered before a majority of the replicas hold
// it.
type jsBackend struct {
	name    string
	js      jetstream.JetStream
	stream  jetstream.Stream
	prefix  string
	timeout time.Duration
	// snapshotEvery is JetStreamConfig.SnapshotEvery, defaulted.
	snapshotEvery uint64
	// view is this hub's materialized view of the stream (jsview.go).
	view *jsView
}

// jsMessage is one message of the stream.
type jsMessage struct {
	Request *Request `json:"request,omitempty"`
	Entry   *Entry   `json:"entry,omitempty"`
	// Holder is the request id a transaction id message names.
	Holder string `json:"holder,omitempty"`
	// Lock is the submission lock (LockSubmissions).
	Lock *lockMessage `json:"lock,omitempty"`
	// Batch is a batch: its rows and its decision.
	Batch *batchMessage `json:"batch,omitempty"`
}

// batchMessage is a batch: its rows, and the decision taken on it whole
// (status, approvals, rejection). A batch is decided in one write, of
// this message; each row still pending reads the decision from it until
// the row is written with it (at once after the decision, or by the
// row's next change if the hub died in between).
type batchMessage struct {
	IDs        []string   `json:"ids"`
	Status     string     `json:"status"`
	ApprovedBy []string   `json:"approved_by"`
	Approvals  []Approval `json:"approvals,omitempty"`
	RejectedBy string     `json:"rejected_by,omitempty"`
	Reason     string     `json:"reason,omitempty"`
	At         time.Time  `json:"at"`
}

// overlay gives a pending row its batch's decision.
func (bm *batchMessage) overlay(r *Request) {
	if r.Batch == "" || r.Status != StatusPending || bm == nil {
		return
	}
	if bm.Status == StatusPending && len(bm.ApprovedBy) == len(r.ApprovedBy) {
		return
	}
	r.Status = bm.Status
	r.ApprovedBy = slices.Clone(bm.ApprovedBy)
	r.Approvals = slices.Clone(bm.Approvals)
	r.RejectedBy, r.Reason = bm.RejectedBy, bm.Reason
	if r.UpdatedAt.Before(bm.At) {
		r.UpdatedAt = bm.At
	}
	r.overlaid = true
}

// subject-safe request ids: NewID's, or any made of letters, digits, _
// and -.
var jsIDRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,128}$`)

// OpenJetStream opens (creating when missing) the hub's store on the
// cluster js is connected to. The connection stays the caller's.
func OpenJetStream(ctx context.Context, js jetstream.JetStream, cfg JetStreamConfig) (*Store, error) {
	if err := natsstream.CheckName("approvals store name", cfg.Name, natsstream.MaxRecordName); err != nil {
		return nil, err
	}
	cfg.Replicas, cfg.WriteTimeout = natsstream.RecordDefaults(cfg.Replicas, cfg.WriteTimeout)
	if cfg.SnapshotEvery == 0 {
		cfg.SnapshotEvery = DefaultSnapshotEvery
	}
	b := &jsBackend{name: cfg.Name, js: js, prefix: "paydash.hub." + cfg.Name + ".approvals", timeout: cfg.WriteTimeout, snapshotEvery: cfg.SnapshotEvery}
	// The record is kept whole: no age, count or size limit.
	sc := natsstream.WithFormat(natsstream.RecordConfig(cfg.Name+"_APPROVALS", []string{b.prefix + ".>"}, cfg.Replicas), "hub approvals", JetStreamFormat)
	var err error
	if b.stream, err = natsstream.Create(ctx, js, sc, cfg.Wait, "the hub's approvals", b.prefix+".init"); err != nil {
		return nil, fmt.Errorf("approvals store: %w", err)
	}
	vctx, cancel := context.WithTimeout(ctx, 3*cfg.WriteTimeout)
	defer cancel()
	if err := b.startView(vctx); err != nil {
		return nil, fmt.Errorf("approvals store: reading the stream: %w", err)
	}
	return &Store{js: b}, nil
}

// errConflict is a write that lost its compare-and-swap.
var errConflict = errors.New("approvals store: changed by another hub meanwhile")

// put publishes m on subject when the stream's last sequence is still
// rev, the one its message was read at (readAt). It retries through elections and lost answers
// with the same Nats-Msg-Id, so a publish that landed is never written
// twice: JetStream answers its retry as a duplicate, or the subject's
// last message is found to be this very one.
func (b *jsBackend) put(subject string, rev uint64, m jsMessage) (uint64, error) {
	msg, err := requestMsg(subject, m)
	if err != nil {
		return 0, err
	}
	id := NewID() + NewID()
	msg.Header.Set(jetstream.MsgIDHeader, id)
	ctx, cancel := context.WithTimeout(context.Background(), b.timeout)
	defer cancel()
	seq, err := natsstream.PublishIf(ctx, b.js, b.stream, msg, rev)
	switch {
	case errors.Is(err, natsstream.ErrMoved):
		return 0, errConflict
	case err != nil:
		return 0, fmt.Errorf("approvals store: JetStream did not take the write within %s (a majority of the cluster down?): %w", b.timeout, err)
	}
	return seq, nil
}

// readAt returns the last message on subject and the stream's last
// sequence rev it was read at: the message is no later than rev, so a
// put expecting rev fails if anything changed since. found is false when
// the subject has no message.
func (b *jsBackend) readAt(subject string) (m jsMessage, rev uint64, found bool, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), b.timeout)
	defer cancel()
	err = natsstream.Retry(ctx, func(ctx context.Context) (err error) {
		m, rev, found, err = b.tryReadAt(ctx, subject)
		if errors.Is(err, errDamaged) {
			return natsstream.Stop(err)
		}
		return err
	})
	switch {
	case errors.Is(err, errDamaged):
		return m, 0, false, err
	case err != nil:
		return m, 0, false, fmt.Errorf("approvals store: reading %s: %w", subject, err)
	}
	return m, rev, found, nil
}

var errDamaged = errors.New("damaged")

// errMovedOn is a message written after the last sequence read: read
// again.
var errMovedOn = errors.New("written to meanwhile")

func (b *jsBackend) tryReadAt(ctx context.Context, subject string) (jsMessage, uint64, bool, error) {
	var m jsMessage
	info, err := b.stream.Info(ctx)
	if err != nil {
		return m, 0, false, err
	}
	rev := info.State.LastSeq
	raw, err := b.stream.GetLastMsgForSubject(ctx, subject)
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return m, rev, false, nil
	}
	if err != nil {
		return m, 0, false, err
	}
	if raw.Sequence > rev {
		return m, 0, false, errMovedOn
	}
	if err := json.Unmarshal(raw.Data, &m); err != nil {
		return m, 0, false, fmt.Errorf("approvals store: message %d is %w: %w", raw.Sequence, errDamaged, err)
	}
	return m, rev, true, nil
}

func (b *jsBackend) reqSubject(id string) string { return b.prefix + ".req." + id }

func (b *jsBackend) txSubject(txid string) string {
	sum := sha256.Sum256([]byte(txid))
	return b.prefix + ".tx." + hex.EncodeToString(sum[:16])
}

func (b *jsBackend) get(id string) (*Request, uint64, error) {
	if !jsIDRE.MatchString(id) {
		return nil, 0, fmt.Errorf("%w %q", ErrNotFound, id)
	}
	for {
		m, rev, ok, err := b.readAt(b.reqSubject(id))
		if err != nil {
			return nil, 0, err
		}
		if !ok || m.Request == nil {
			return nil, 0, fmt.Errorf("%w %q", ErrNotFound, id)
		}
		r := m.Request
		if r.Batch == "" || r.Status != StatusPending {
			return r, rev, nil
		}
		bm, seq, err := b.batch(r.Batch)
		if err != nil {
			return nil, 0, err
		}
		if seq > rev {
			continue // decided since: read again at the later revision
		}
		bm.overlay(r)
		return r, rev, nil
	}
}

func (b *jsBackend) batchSubject(id string) string { return b.prefix + ".batch." + id }

// batch reads a batch's message and its sequence.
func (b *jsBackend) batch(id string) (*batchMessage, uint64, error) {
	if !jsIDRE.MatchString(id) {
		return nil, 0, fmt.Errorf("%w: no batch %q", ErrNotFound, id)
	}
	ctx, cancel := context.WithTimeout(context.Background(), b.timeout)
	defer cancel()
	var raw *jetstream.RawStreamMsg
	err := natsstream.Retry(ctx, func(ctx context.Context) (err error) {
		raw, err = b.stream.GetLastMsgForSubject(ctx, b.batchSubject(id))
		return err
	})
	switch {
	case errors.Is(err, jetstream.ErrMsgNotFound):
		return nil, 0, fmt.Errorf("%w: no batch %q", ErrNotFound, id)
	case err != nil:
		return nil, 0, fmt.Errorf("approvals store: reading batch %s: %w", id, err)
	}
	var m jsMessage
	if err := json.Unmarshal(raw.Data, &m); err != nil || m.Batch == nil {
		return nil, 0, fmt.Errorf("approvals store: batch %s is damaged (message %d)", id, raw.Sequence)
	}
	return m.Batch, raw.Sequence, nil
}

// createBatch writes the batch (its id new), then each row as create
// does. A hub killed part way leaves a batch some of whose rows do not
// exist: it can be neither approved nor sent (its rows cannot all be
// read) and lapses.
func (b *jsBackend) createBatch(batch string, rs []*Request) error {
	entries := make([]Entry, len(rs))
	ids := make([]string, len(rs))
	for i, r := range rs {
		r.Batch = batch
		e, err := prepare(r)
		if err != nil {
			return fmt.Errorf("line %d: %w", r.Line, err)
		}
		entries[i], ids[i] = e, r.ID
	}
	bm := batchMessage{IDs: ids, Status: rs[0].Status, ApprovedBy: []string{}, At: rs[0].RequestedAt}
	for {
		_, rev, found, err := b.readAt(b.batchSubject(batch))
		if err != nil {
			return err
		}
		if found {
			return fmt.Errorf("approvals store: batch id %s exists", batch)
		}
		if _, err = b.put(b.batchSubject(batch), rev, jsMessage{Batch: &bm}); errors.Is(err, errConflict) {
			continue
		}
		if err != nil {
			return err
		}
		break
	}
	for i, r := range rs {
		if err := b.create(r, entries[i]); err != nil {
			return fmt.Errorf("line %d: %w", r.Line, err)
		}
	}
	return nil
}

// batchAt reads a batch and its rows, each row with the batch's decision,
// all as of the stream's last sequence rev.
func (b *jsBackend) batchAt(batch string) (*batchMessage, uint64, []*Request, error) {
	for {
		m, rev, found, err := b.readAt(b.batchSubject(batch))
		if err != nil {
			return nil, 0, nil, err
		}
		if !found || m.Batch == nil {
			return nil, 0, nil, fmt.Errorf("%w: no batch %q", ErrNotFound, batch)
		}
		rows, moved, err := b.rowsAt(m.Batch, rev)
		if err != nil {
			return nil, 0, nil, err
		}
		if moved {
			continue
		}
		return m.Batch, rev, rows, nil
	}
}

// rowsAt reads the rows of bm, reporting moved when one was written after
// rev (the caller reads again).
func (b *jsBackend) rowsAt(bm *batchMessage, rev uint64) ([]*Request, bool, error) {
	ctx, cancel := context.WithTimeout(context.Background(), b.timeout)
	defer cancel()
	rows := make([]*Request, 0, len(bm.IDs))
	for _, id := range bm.IDs {
		var raw *jetstream.RawStreamMsg
		err := natsstream.Retry(ctx, func(ctx context.Context) (err error) {
			raw, err = b.stream.GetLastMsgForSubject(ctx, b.reqSubject(id))
			return err
		})
		switch {
		case errors.Is(err, jetstream.ErrMsgNotFound):
			return nil, false, fmt.Errorf("%w %q (a row of a batch its hub did not finish recording)", ErrNotFound, id)
		case err != nil:
			return nil, false, fmt.Errorf("approvals store: reading %s: %w", id, err)
		}
		if raw.Sequence > rev {
			return nil, true, nil
		}
		var m jsMessage
		if err := json.Unmarshal(raw.Data, &m); err != nil || m.Request == nil {
			return nil, false, fmt.Errorf("approvals store: request %s is damaged (message %d)", id, raw.Sequence)
		}
		bm.overlay(m.Request)
		rows = append(rows, m.Request)
	}
	return rows, false, nil
}

// changeBatch is Store.changeBatch on the stream: the batch is decided in
// one write, of its message, expecting the revision its rows were read
// at; then each row is written with the decision and its record line.
func (b *jsBackend) changeBatch(batch string, at time.Time, check func(first *Request) (bool, error), step func(r *Request) *Entry) ([]Request, error) {
	for {
		bm, rev, rows, err := b.batchAt(batch)
		if err != nil {
			return nil, err
		}
		copyOut := func() []Request {
			out := make([]Request, len(rows))
			for i, r := range rows {
				out[i] = *r
			}
			return out
		}
		keep, checkErr := check(rows[0])
		if checkErr != nil && !keep {
			return copyOut(), checkErr
		}
		entries := make([]*Entry, len(rows))
		changed := false
		for i, r := range rows {
			if e := step(r); e != nil {
				r.Rev++
				r.UpdatedAt = at
				e.At, e.RequestID, e.Status = at, r.ID, r.Status
				entries[i], changed = e, true
			}
		}
		if !changed {
			return copyOut(), checkErr
		}
		d := rows[0]
		nb := *bm
		nb.Status, nb.ApprovedBy, nb.Approvals, nb.RejectedBy, nb.Reason, nb.At = d.Status, d.ApprovedBy, d.Approvals, d.RejectedBy, d.Reason, at
		// The decision's own record line, under the batch's id: who and
		// when are kept even if this hub dies before the rows' lines.
		var line *Entry
		for _, e := range entries {
			if e != nil {
				l := *e
				l.RequestID = batch
				line = &l
				break
			}
		}
		if _, err := b.put(b.batchSubject(batch), rev, jsMessage{Batch: &nb, Entry: line}); errors.Is(err, errConflict) {
			continue
		} else if err != nil {
			return nil, err
		}
		// Decided. Each row is now written with the decision and its
		// record line; a row this hub does not reach (it died) reads the
		// decision from the batch until its next change writes it.
		for i, r := range rows {
			if entries[i] != nil {
				b.materialize(r.ID, *entries[i])
			}
		}
		return copyOut(), checkErr
	}
}

// materialize writes a row still reading its batch's decision with it,
// and its record line; a row written since is left as it is.
func (b *jsBackend) materialize(id string, e Entry) {
	_, _ = b.change(id, e.At, func(r *Request) (*Entry, bool, error) {
		if !r.overlaid {
			return nil, false, nil
		}
		line := e
		return &line, false, nil
	})
}

// create claims the transaction id, then writes the request with its
// first record line, each a compare-and-swap. A hub killed between the
// two leaves the id claimed by a request that does not exist; the next
// request with that id (the requester's retry after the answer was lost)
// takes the claim over: requests are made under the submission lock, so
// a claim without its request is not one being made at another hub.
func (b *jsBackend) create(r *Request, e Entry) error {
	if !jsIDRE.MatchString(r.ID) {
		return fmt.Errorf("approvals store: request id %q: use letters, digits, _ and -", r.ID)
	}
	for {
		m, rev, found, err := b.readAt(b.txSubject(r.TransactionID))
		if err != nil {
			return err
		}
		if found {
			_, _, held, err := b.readAt(b.reqSubject(m.Holder))
			if err != nil {
				return err
			}
			if held || m.Holder == r.ID {
				return fmt.Errorf("%w (%s)", ErrDuplicateTxID, m.Holder)
			}
		}
		if _, err = b.put(b.txSubject(r.TransactionID), rev, jsMessage{Holder: r.ID}); errors.Is(err, errConflict) {
			continue
		}
		if err != nil {
			return err
		}
		break
	}
	for {
		_, rev, found, err := b.readAt(b.reqSubject(r.ID))
		if err != nil {
			return err
		}
		if found {
			return fmt.Errorf("approvals store: request id %s exists", r.ID)
		}
		if _, err = b.put(b.reqSubject(r.ID), rev, jsMessage{Request: r, Entry: &e}); errors.Is(err, errConflict) {
			continue
		}
		return err
	}
}

// change is Store.change on the stream: read, step, write expecting the
// revision read; a write that lost to another hub's reads again and
// steps again on what that hub wrote.
func (b *jsBackend) change(id string, at time.Time, step func(r *Request) (*Entry, bool, error)) (Request, error) {
	for {
		r, rev, err := b.get(id)
		if err != nil {
			return Request{}, err
		}
		e, keep, stepErr := step(r)
		if stepErr != nil && !keep {
			return *r, stepErr
		}
		if e == nil {
			return *r, stepErr
		}
		r.Rev++
		r.UpdatedAt = at
		e.At, e.RequestID, e.Status = at, r.ID, r.Status
		if _, err := b.put(b.reqSubject(id), rev, jsMessage{Request: r, Entry: e}); err != nil {
			if errors.Is(err, errConflict) {
				continue
			}
			return Request{}, err
		}
		return *r, stepErr
	}
}

// now writes an empty message and returns the time the stream stored it.
func (b *jsBackend) now() (time.Time, error) {
	seq, err := b.putAny(b.prefix+".clock", jsMessage{})
	if err != nil {
		return time.Time{}, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), b.timeout)
	defer cancel()
	var raw *jetstream.RawStreamMsg
	if err := natsstream.Retry(ctx, func(ctx context.Context) (err error) {
		raw, err = b.stream.GetMsg(ctx, seq)
		return err
	}); err != nil {
		return time.Time{}, fmt.Errorf("approvals store: reading the stream's time: %w", err)
	}
	return raw.Time, nil
}

func (b *jsBackend) note(e Entry) error {
	_, err := b.putAny(b.prefix+".note", jsMessage{Entry: &e})
	return err
}

// putAny publishes without a compare-and-swap (record lines of no
// request), deduplicated across retries by its Nats-Msg-Id.
func (b *jsBackend) putAny(subject string, m jsMessage) (uint64, error) {
	msg, err := requestMsg(subject, m)
	if err != nil {
		return 0, err
	}
	msg.Header.Set(jetstream.MsgIDHeader, NewID()+NewID())
	ctx, cancel := context.WithTimeout(context.Background(), b.timeout)
	defer cancel()
	seq, err := natsstream.Publish(ctx, b.js, msg)
	if err != nil {
		return 0, fmt.Errorf("approvals store: JetStream did not take the write within %s: %w", b.timeout, err)
	}
	return seq, nil
}

// list reads every request's last message, in pulled batches of an
// ephemeral consumer delivering the last message of each subject: it
// costs what the store holds, and only `approvals list --all` asks it.
func (b *jsBackend) list() ([]Request, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*b.timeout)
	defer cancel()
	reqs, batches := b.prefix+".req.", b.prefix+".batch."
	var out []Request
	bms := map[string]*batchMessage{}
	err := b.scan(ctx, jetstream.ConsumerConfig{DeliverPolicy: jetstream.DeliverLastPerSubjectPolicy, FilterSubject: b.prefix + ".>"},
		func(subject string, _ uint64, data []byte) (bool, error) {
			if !strings.HasPrefix(subject, reqs) && !strings.HasPrefix(subject, batches) {
				return true, nil
			}
			var m jsMessage
			if err := json.Unmarshal(data, &m); err != nil {
				return false, fmt.Errorf("approvals store: message on %s is damaged: %w", subject, err)
			}
			switch {
			case m.Request != nil:
				out = append(out, *m.Request)
			case m.Batch != nil:
				bms[strings.TrimPrefix(subject, batches)] = m.Batch
			}
			return true, nil
		})
	if err != nil {
		return nil, fmt.Errorf("approvals store: listing requests: %w", err)
	}
	for i := range out {
		if r := &out[i]; r.Batch != "" && r.Status == StatusPending {
			bms[r.Batch].overlay(r)
		}
	}
	return out, nil
}

// scan is natsstream.Scan on the store's stream.
func (b *jsBackend) scan(ctx context.Context, cc jetstream.ConsumerConfig, fn func(subject string, seq uint64, data []byte) (bool, error)) error {
	return natsstream.Scan(ctx, b.stream, cc, func(m natsstream.Message) (bool, error) {
		return fn(m.Subject, m.Seq, m.Data)
	})
}

// log reads the record lines after seq in stream order, in pulled
// batches; a request's own lines through a consumer of its subjects only.
func (b *jsBackend) log(after uint64, limit int, requestID string) ([]Entry, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*b.timeout)
	defer cancel()
	cc := jetstream.ConsumerConfig{DeliverPolicy: jetstream.DeliverByStartSequencePolicy, OptStartSeq: after + 1, FilterSubject: b.prefix + ".>"}
	if requestID != "" {
		if !jsIDRE.MatchString(requestID) {
			return nil, nil
		}
		// Its request's and its batch's subjects (<prefix>.req.<id>,
		// <prefix>.batch.<id>): no other subject ends in an id.
		cc.FilterSubject = b.prefix + ".*." + requestID
	}
	var out []Entry
	err := b.scan(ctx, cc, func(subject string, seq uint64, data []byte) (bool, error) {
		if !strings.HasPrefix(subject, b.prefix+".req.") && !strings.HasPrefix(subject, b.prefix+".batch.") && subject != b.prefix+".note" {
			return true, nil
		}
		var m jsMessage
		if err := json.Unmarshal(data, &m); err != nil {
			return false, fmt.Errorf("approvals store: record message %d is damaged: %w", seq, err)
		}
		if m.Entry == nil || requestID != "" && m.Entry.RequestID != requestID {
			return true, nil
		}
		e := *m.Entry
		e.Seq = seq
		out = append(out, e)
		return limit <= 0 || len(out) < limit, nil
	})
	if err != nil {
		return out, fmt.Errorf("approvals store: reading the record: %w", err)
	}
	return out, nil
}

func (b *jsBackend) byTransactionID(txid string) (string, bool, error) {
	m, _, ok, err := b.readAt(b.txSubject(txid))
	return m.Holder, ok, err
}

// Name is the name a JetStream store was opened under ("" for a bbolt
// file).
func (s *Store) Name() string {
	if s.js == nil {
		return ""
	}
	return s.js.name
}

// lockMessage is the submission lock: who holds it and until when.
type lockMessage struct {
	Holder string    `json:"holder"`
	Until  time.Time `json:"until"`
}

// lockPoll is how often a hub waiting for the submission lock reads it
// again.
const lockPoll = 20 * time.Millisecond

// LockSubmissions takes the store's submission lock for holder, until
// now()+lease, waiting while another hub holds it unexpired, until ctx
// ends. Held by one hub of a cluster at a time, it makes the checks a
// request is made under (the 24-hour sum, what open requests hold back,
// an open duplicate) see every request made before it at any hub, as
// one hub's mutex does for a bbolt file, on which it does nothing.
// unlock releases it.
func (s *Store) LockSubmissions(ctx context.Context, holder string, lease time.Duration, now func() time.Time) (unlock func(), err error) {
	if s.js == nil {
		return func() {}, nil
	}
	b := s.js
	subject := b.prefix + ".lock"
	// Poll on the real clock: the lock's holder is another hub, in real
	// time.
	poll := backoff.New(backoff.Policy{Base: lockPoll, Max: lockPoll}, clock.Real())
	for {
		m, rev, found, err := b.readLock(subject)
		if err != nil {
			return nil, err
		}
		t := now()
		if !found || m.Holder == "" || !t.Before(m.Until) {
			_, err = b.putLock(subject, rev, lockMessage{Holder: holder, Until: t.Add(lease)})
			if err == nil {
				return func() { b.releaseLock(subject, holder) }, nil
			}
			if !errors.Is(err, errConflict) {
				return nil, err
			}
		}
		if poll.Wait(ctx) != nil {
			return nil, fmt.Errorf("approvals store: another hub holds the submission lock (%s): %w", m.Holder, ctx.Err())
		}
	}
}

func (b *jsBackend) readLock(subject string) (lockMessage, uint64, bool, error) {
	var l lockMessage
	m, rev, found, err := b.readAt(subject)
	if err != nil || !found {
		return l, rev, found, err
	}
	if m.Lock != nil {
		l = *m.Lock
	}
	return l, rev, true, nil
}

func (b *jsBackend) putLock(subject string, rev uint64, l lockMessage) (uint64, error) {
	return b.put(subject, rev, jsMessage{Lock: &l})
}

// releaseLock gives the lock up if holder still holds it; a lock that
// cannot be released lapses at its lease.
func (b *jsBackend) releaseLock(subject, holder string) {
	for range 5 {
		m, rev, found, err := b.readLock(subject)
		if err != nil || !found || m.Holder != holder {
			return
		}
		if _, err := b.putLock(subject, rev, lockMessage{}); !errors.Is(err, errConflict) {
			return
		}
	}
}
