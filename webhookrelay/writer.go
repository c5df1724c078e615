package webhookrelay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/paydash/paydash/internal/platform/clock"
)

// maxBatch caps one group commit. Larger batches amortise the fsync
// further but make everyone in them wait for the slowest part.
const maxBatch = 1024

// maxGatherWait bounds how long the writer holds a group commit open for
// webhooks still on their way (see gather). Every commit costs two
// fsyncs, page writes, and one wake-up and websocket write per client;
// the profile showed these per-commit costs dominating at ~7 events per
// commit, and ~25 per commit cut the relay's CPU per event by about a
// quarter. A webhook waits at most this much longer for its 2xx.
const maxGatherWait = 2 * time.Millisecond

// backlogGatherWait replaces maxGatherWait when at least backlogMin
// webhooks are waiting to be read or checked as the writer starts to
// gather: the relay is behind, each of them already waits for the ones
// ahead, and one commit for many of them is what lets it catch up. On
// one core (one signature check at a time, ~2-3 ms each) 2 ms, counting
// the unread, gathered about five webhooks per commit, whose two fsyncs
// (during which the core runs nothing: the runtime rarely hands the
// waiting thread's P over within a 0.25 ms sync) and ~0.35 ms of CPU
// then cost ~5 % of each webhook's time; 12 ms gathered 7-10, 24 ms 9-15
// (~3 % and ~2 %). Eight waiting on one core are already ~20 ms of
// checks queued, so the longer wait is of the order of the queue the
// webhook is in. At a steady half of capacity fewer than backlogMin are
// ever waiting, so the latency target's path is as before: a short
// wait, and only for webhooks being checked (waiting for one unread
// costs the webhook before it a whole check on one core).
const (
	backlogGatherWait = 24 * time.Millisecond
	backlogMin        = 8
)

// lingerMinBatch is the previous commit's size from which the writer
// takes the relay to be under concurrent load and waits for about as many
// webhooks again. Light traffic (the latency benchmark's 1,000 events/s
// commits one or two at a time) never waits for webhooks that may not come.
const lingerMinBatch = 4

// retentionTick is how often an idle relay applies age retention and
// works off a retention backlog.
const retentionTick = time.Second

var errRelayClosed = errors.New("relay is closed")

type writeReq struct {
	ev   *Event
	rec  []byte           // encodeRecord(ev), made by the handler
	done chan writeResult // buffered: the writer never waits on a handler
}

type writeResult struct {
	seq uint64
	dup bool
	err error
}

// writer is the store's single writer: it group-commits every pending
// webhook in one bbolt transaction (one fsync for all of them), then
// publishes the new events to the fan-out in seq order and answers the
// handlers. Retention runs inside the same transactions.
type writer struct {
	store       *store
	fan         *fanout
	m           *metrics
	log         *slog.Logger
	clock       clock.Clock
	retainCount int
	retainAge   time.Duration
	dedupe      time.Duration
	// stored is notified (non-blocking) after each commit with new events.
	stored chan struct{}

	reqs    chan *writeReq
	quit    chan struct{}
	stopped chan struct{}
	lastSeq atomic.Uint64
	// arriving counts webhooks being checked by handlers that will be
	// queued (or refused) shortly.
	arriving atomic.Int64
	// conns counts webhooks that have reached the relay's connections but
	// are not read yet (see connWatch).
	conns *connWatch
	// lastBatch is the size of the previous group commit: under steady
	// load about as many webhooks arrive again while it is answered.
	lastBatch int
	// gatherTimer bounds one gather; only the writer goroutine uses it.
	gatherTimer *time.Timer
}

func newWriter(s *store, f *fanout, m *metrics, cfg Config, lastSeq uint64) *writer {
	w := &writer{
		store: s, fan: f, m: m, log: cfg.Logger, clock: cfg.Clock,
		retainCount: cfg.RetainCount, retainAge: cfg.RetainAge, dedupe: cfg.DedupeWindow,
		stored:  make(chan struct{}, 1),
		reqs:    make(chan *writeReq, 4*maxBatch),
		quit:    make(chan struct{}),
		stopped: make(chan struct{}),
		conns:   newConnWatch(),
	}
	w.lastSeq.Store(lastSeq)
	w.gatherTimer = time.NewTimer(time.Hour)
	w.gatherTimer.Stop()
	return w
}

// submit stores e durably (assigning e.Seq) and returns once it is
// committed, or reports that it was a duplicate. arrived says the caller
// counted e in w.arriving, which submit undoes as it queues e.
func (w *writer) submit(ctx context.Context, e *Event, arrived bool) writeResult {
	// Encoding here, in the caller's goroutine, keeps it off the single
	// writer's serial path.
	rec, err := encodeRecord(e)
	if arrived {
		// Before the send: the writer must never wait for a webhook
		// that it has already taken.
		w.arriving.Add(-1)
	}
	if err != nil {
		return writeResult{err: fmt.Errorf("encode event: %w", err)}
	}
	req := &writeReq{ev: e, rec: rec, done: make(chan writeResult, 1)}
	select {
	case w.reqs <- req:
	case <-ctx.Done():
		return writeResult{err: ctx.Err()}
	case <-w.stopped:
		return writeResult{err: errRelayClosed}
	}
	// Once queued the request is committed or failed by the writer; the
	// caller's context is not consulted, so a disconnecting sender cannot
	// leave a stored event unanswered in the counters.
	select {
	case res := <-req.done:
		return res
	case <-w.stopped:
		select {
		case res := <-req.done:
			return res
		default:
			return writeResult{err: errRelayClosed}
		}
	}
}

func (w *writer) run() {
	defer close(w.stopped)
	// Retention always runs: even without event retention, ids leave the
	// dedupe index once the dedupe window has passed.
	t := time.NewTicker(retentionTick)
	defer t.Stop()
	tick := t.C
	batch := make([]*writeReq, 0, maxBatch)
	for {
		batch = batch[:0]
		select {
		case req := <-w.reqs:
			batch = append(batch, req)
		case <-tick:
			if w.retentionDue() {
				w.commit(nil)
			}
			continue
		case <-w.quit:
			w.failPending()
			return
		}
		batch = w.gather(batch)
		w.lastBatch = len(batch)
		w.commit(batch)
	}
}

// gather adds the requests already waiting, up to maxBatch. It then keeps
// waiting, up to maxGatherWait, while handlers are still checking
// webhooks that will be queued next, or while, under load, the batch is
// smaller than the previous one: the senders answered by the previous
// commit are sending their next webhooks. When the relay is behind (at
// least backlogMin webhooks being checked or waiting unread on their
// connections: on one core the runtime reads them only once the running
// check is done) it waits up to backlogGatherWait, for those unread too.
func (w *writer) gather(batch []*writeReq) []*writeReq {
	waiting, behind := false, false
	defer func() {
		if waiting {
			w.gatherTimer.Stop()
		}
	}()
	for len(batch) < maxBatch {
		select {
		case req := <-w.reqs:
			batch = append(batch, req)
			continue
		default:
		}
		pending := w.arriving.Load()
		// One epoll_wait at the start of the gather (is the relay
		// behind?), and while behind once nothing is being checked (is
		// any webhook still unread?).
		if !waiting || behind && pending <= 0 {
			limit := 1
			if !waiting {
				limit = backlogMin
			}
			unread := int64(w.conns.unread(limit))
			behind = behind || pending+unread >= backlogMin
			if behind {
				pending += unread
			}
		}
		if pending <= 0 && (w.lastBatch < lingerMinBatch || len(batch) >= w.lastBatch) {
			return batch
		}
		if !waiting {
			waiting = true
			wait := maxGatherWait
			if behind {
				wait = backlogGatherWait
			}
			w.gatherTimer.Reset(wait)
		}
		select {
		case req := <-w.reqs:
			batch = append(batch, req)
		case <-w.gatherTimer.C:
			waiting = false
			return batch
		case <-w.quit:
			return batch
		}
	}
	return batch
}

func (w *writer) failPending() {
	for {
		select {
		case req := <-w.reqs:
			req.done <- writeResult{err: errRelayClosed}
		default:
			return
		}
	}
}

func (w *writer) stop() {
	close(w.quit)
	<-w.stopped
	w.conns.close()
}

// retentionDue reports whether retention has anything to delete now.
func (w *writer) retentionDue() bool {
	n := 0
	err := w.store.db.View(func(tx *bolt.Tx) error {
		var err error
		n, err = retain(tx, w.retainCount, w.cutoff(), w.dedupeCutoff(), true)
		return err
	})
	return err != nil || n > 0
}

func (w *writer) dedupeCutoff() time.Time { return w.clock.Now().Add(-w.dedupe) }

func (w *writer) cutoff() time.Time {
	if w.retainAge <= 0 {
		return time.Time{}
	}
	return w.clock.Now().Add(-w.retainAge)
}

// commit writes batch (possibly empty, for retention only) in one
// transaction, then publishes and answers.
func (w *writer) commit(batch []*writeReq) {
	cutoff, dedupeCutoff := w.cutoff(), w.dedupeCutoff()
	dups := make([]bool, len(batch))
	err := w.store.db.Update(func(tx *bolt.Tx) error {
		for i, req := range batch {
			dup, err := insert(tx, req.ev, req.rec)
			if err != nil {
				return err
			}
			dups[i] = dup
		}
		_, err := retain(tx, w.retainCount, cutoff, dedupeCutoff, false)
		return err
	})
	if err != nil {
		w.log.Error("relay store commit failed; senders get 503 and will retry", "events", len(batch), "err", err)
		for _, req := range batch {
			req.done <- writeResult{err: fmt.Errorf("store: %w", err)}
		}
		return
	}
	if len(batch) > 0 {
		w.m.commits.Add(1)
	}
	msgs := make([]fanoutMsg, 0, len(batch))
	for i, req := range batch {
		if dups[i] {
			continue
		}
		w.lastSeq.Store(req.ev.Seq)
		frame, err := appendEventFrame(nil, req.ev.Seq, req.rec)
		if err != nil {
			// Not expected for a record just encoded; encoding the event
			// the slow way keeps live clients complete regardless.
			data, merr := json.Marshal(req.ev)
			if merr != nil {
				w.log.Error("relay cannot encode event for streaming; clients get it on resume", "seq", req.ev.Seq, "err", merr)
				continue
			}
			frame = append(appendTextFrameHeader(nil, len(data)), data...)
		}
		msgs = append(msgs, fanoutMsg{seq: req.ev.Seq, typ: req.ev.Type, frame: frame})
	}
	w.fan.Publish(msgs...)
	if len(msgs) > 0 {
		select {
		case w.stored <- struct{}{}:
		default:
		}
	}
	for i, req := range batch {
		dup := dups[i]
		if dup {
			w.m.duplicates.Add(1)
		} else {
			w.m.stored.Add(1)
		}
		req.done <- writeResult{seq: req.ev.Seq, dup: dup}
	}
}
