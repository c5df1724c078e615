package store

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/paydash/paydash/internal/platform/natsstream"
)

// jsView is one hub's materialized view of a JetStream store: the live
// requests (Live) and those made within RecentKept, with each batch's
// decision, kept current by a natsstream.Follower reading every new
// message, from every hub. Lists, sums and lapses read the view after a
// Sync (one round trip), so their cost follows what is live, not the
// stream's history. Status changes never read it: each is a
// compare-and-swap on the request read from the stream itself.
//
// A hub starts from the stream's last snapshot (<prefix>.snapshot: a
// view as of a sequence, written by whichever hub sees SnapshotEvery
// messages pass since the last one) and follows from the sequence after
// it, so its start costs what is live and recent, not the history. A
// stream with no snapshot yet (one written before them) is replayed
// once: the last message of each request's and batch's subject, a
// finished request older than the window passed over unread (its
// message's headers say so).
type jsView struct {
	mu   sync.Mutex
	reqs map[string]*Request
	// batches are the batches' decisions (their rows' ids left out).
	batches map[string]*batchMessage
	// newest is the latest request time seen: the window is judged on
	// the hubs' request times, never on this process's clock.
	newest time.Time
	// applied counts messages since the last prune.
	applied int
	// seq is the last stream sequence applied; snapSeq the sequence the
	// last snapshot (this hub's or another's) was taken at; snapping is
	// set while this hub writes one.
	seq, snapSeq uint64
	snapping     bool

	b      *jsBackend
	follow *natsstream.Follower
}

// DefaultSnapshotEvery is how many messages pass between two snapshots: a hub
// starting replays at most about this many.
const DefaultSnapshotEvery uint64 = 2000

// viewSnapshot is a view as of stream sequence Seq.
type viewSnapshot struct {
	Seq      uint64                   `json:"seq"`
	Newest   time.Time                `json:"newest"`
	Requests []*Request               `json:"requests"`
	Batches  map[string]*batchMessage `json:"batches"`
	// Written is each request's stream time (Request.WrittenAt, which
	// its JSON leaves out): a claim's lease runs on it.
	Written map[string]time.Time `json:"written"`
}

func (b *jsBackend) snapshotSubject() string { return b.prefix + ".snapshot" }

// stop stops following.
func (v *jsView) stop() {
	if v.follow != nil {
		v.follow.Stop()
	}
}

// sync waits until the view holds everything the stream held when
// called.
func (v *jsView) sync(ctx context.Context) error {
	_, err := v.follow.Sync(ctx)
	return err
}

// startView loads the last snapshot (or replays the stream when there is
// none), follows from there, and waits until the view holds everything
// the stream held at its start.
func (b *jsBackend) startView(ctx context.Context) error {
	v := &jsView{reqs: map[string]*Request{}, batches: map[string]*batchMessage{}, b: b}
	from, err := v.load(ctx)
	if err != nil {
		return err
	}
	f, err := natsstream.Follow(ctx, b.stream, natsstream.FollowConfig{Filter: b.prefix + ".>", From: from}, v.apply)
	if err != nil {
		return err
	}
	v.follow = f
	if err := v.sync(ctx); err != nil {
		v.stop()
		return err
	}
	b.view = v
	return nil
}

// load fills the view from the last snapshot, or from a replay of the
// stream's last messages per subject, and returns the sequence to follow
// from.
func (v *jsView) load(ctx context.Context) (uint64, error) {
	b := v.b
	var raw *jetstream.RawStreamMsg
	err := natsstream.Retry(ctx, func(ctx context.Context) (err error) {
		raw, err = b.stream.GetLastMsgForSubject(ctx, b.snapshotSubject())
		return err
	})
	switch {
	case err == nil:
		var snap viewSnapshot
		if json.Unmarshal(raw.Data, &snap) == nil {
			for _, r := range snap.Requests {
				r.WrittenAt = snap.Written[r.ID]
				v.reqs[r.ID] = r
			}
			if snap.Batches != nil {
				v.batches = snap.Batches
			}
			v.newest, v.seq, v.snapSeq = snap.Newest, snap.Seq, snap.Seq
			return snap.Seq + 1, nil
		}
		// A damaged snapshot: replayed as if there were none.
	case !errors.Is(err, jetstream.ErrMsgNotFound):
		return 0, err
	}
	// No snapshot: the stream's last sequence now, then the last message
	// of each request and batch (a replay through the same apply; what is
	// written meanwhile is read again by the follower, in order).
	var info *jetstream.StreamInfo
	if err := natsstream.Retry(ctx, func(ctx context.Context) (err error) {
		info, err = b.stream.Info(ctx)
		return err
	}); err != nil {
		return 0, err
	}
	last := info.State.LastSeq
	for _, filter := range []string{b.prefix + ".req.>", b.prefix + ".batch.>"} {
		err := natsstream.Scan(ctx, b.stream, jetstream.ConsumerConfig{DeliverPolicy: jetstream.DeliverLastPerSubjectPolicy, FilterSubject: filter},
			func(m natsstream.Message) (bool, error) {
				v.applyState(m)
				return true, nil
			})
		if err != nil {
			return 0, err
		}
	}
	v.mu.Lock()
	v.seq = last
	v.mu.Unlock()
	return last + 1, nil
}

// apply is the follower's: each new message of the stream.
func (v *jsView) apply(m natsstream.Message) {
	if m.Subject == v.b.snapshotSubject() {
		var snap struct {
			Seq uint64 `json:"seq"`
		}
		if json.Unmarshal(m.Data, &snap) == nil {
			v.mu.Lock()
			v.snapSeq = max(v.snapSeq, snap.Seq)
			v.mu.Unlock()
		}
	} else {
		v.applyState(m)
	}
	v.mu.Lock()
	v.seq = max(v.seq, m.Seq)
	due := !v.snapping && v.seq-v.snapSeq >= v.b.snapshotEvery
	if due {
		v.snapping = true
	}
	v.mu.Unlock()
	if due {
		go v.snapshot()
	}
}

// applyState takes a request's or a batch's message into the view.
func (v *jsView) applyState(msg natsstream.Message) {
	reqs, batches := v.b.prefix+".req.", v.b.prefix+".batch."
	switch {
	case strings.HasPrefix(msg.Subject, reqs):
		if v.skip(strings.TrimPrefix(msg.Subject, reqs), msg.Header) {
			return
		}
		var m jsMessage
		if json.Unmarshal(msg.Data, &m) != nil || m.Request == nil {
			return
		}
		m.Request.WrittenAt = msg.At
		v.putRequest(m.Request)
	case strings.HasPrefix(msg.Subject, batches):
		var m jsMessage
		if json.Unmarshal(msg.Data, &m) != nil || m.Batch == nil {
			return
		}
		m.Batch.IDs = nil
		v.mu.Lock()
		v.batches[strings.TrimPrefix(msg.Subject, batches)] = m.Batch
		v.mu.Unlock()
	}
}

// snapshot writes the view as of the last sequence applied; a snapshot
// that cannot be written is tried again after the next SnapshotEvery
// messages.
func (v *jsView) snapshot() {
	v.mu.Lock()
	snap := viewSnapshot{Seq: v.seq, Newest: v.newest, Batches: map[string]*batchMessage{}, Written: map[string]time.Time{}}
	for _, r := range v.reqs {
		if v.kept(r) {
			snap.Requests = append(snap.Requests, r)
			snap.Written[r.ID] = r.WrittenAt
		}
	}
	// The decisions its pending rows read (overlay); the others are
	// written into their rows already.
	for _, r := range snap.Requests {
		if bm := v.batches[r.Batch]; bm != nil && r.Status == StatusPending {
			snap.Batches[r.Batch] = bm
		}
	}
	data, err := json.Marshal(snap)
	v.mu.Unlock()
	if err == nil {
		msg := nats.NewMsg(v.b.snapshotSubject())
		msg.Data = data
		msg.Header.Set(jetstream.MsgIDHeader, NewID()+NewID())
		ctx, cancel := context.WithTimeout(context.Background(), v.b.timeout)
		_, _ = natsstream.Publish(ctx, v.b.js, msg)
		cancel()
	}
	v.mu.Lock()
	v.snapSeq = max(v.snapSeq, snap.Seq)
	v.snapping = false
	v.mu.Unlock()
}

// skip forgets, without reading it, a request whose message's headers
// say it is finished and older than the window (most of a long history,
// replayed at a hub's start); a message without them is read.
func (v *jsView) skip(id string, h nats.Header) bool {
	if h.Get(hdrLive) != "0" {
		return false
	}
	at, err := time.Parse(time.RFC3339Nano, h.Get(hdrRequestedAt))
	if err != nil {
		return false
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if at.After(v.newest) {
		v.newest = at
	}
	if !at.Before(v.newest.Add(-RecentKept)) {
		return false
	}
	delete(v.reqs, id)
	return true
}

// The headers of a request's message that let a hub's view pass over it
// unread: whether it is live, and when it was requested.
const (
	hdrLive        = "Paydash-Live"
	hdrRequestedAt = "Paydash-Requested-At"
)

// requestMsg is the message m on subject, with the headers of its
// request.
func requestMsg(subject string, m jsMessage) (*nats.Msg, error) {
	data, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	msg := nats.NewMsg(subject)
	msg.Data = data
	if r := m.Request; r != nil {
		live := "0"
		if Live(r.Status) {
			live = "1"
		}
		msg.Header.Set(hdrLive, live)
		msg.Header.Set(hdrRequestedAt, r.RequestedAt.UTC().Format(time.RFC3339Nano))
	}
	return msg, nil
}

// putRequest holds r when it is live or recent, and forgets it
// otherwise.
func (v *jsView) putRequest(r *Request) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if r.RequestedAt.After(v.newest) {
		v.newest = r.RequestedAt
	}
	if v.kept(r) {
		v.reqs[r.ID] = r
	} else {
		delete(v.reqs, r.ID)
	}
	if v.applied++; v.applied >= 1024 {
		v.applied = 0
		for id, r := range v.reqs {
			if !v.kept(r) {
				delete(v.reqs, id)
			}
		}
	}
}

func (v *jsView) kept(r *Request) bool {
	return Live(r.Status) || !r.RequestedAt.Before(v.newest.Add(-RecentKept))
}

// listView reads the view, once it holds everything the stream held when
// called, returning copies of the requests keep selects, each pending
// batch row with its batch's decision.
func (b *jsBackend) listView(keep func(*Request) bool) ([]Request, error) {
	ctx, cancel := context.WithTimeout(context.Background(), b.timeout)
	defer cancel()
	if err := b.view.sync(ctx); err != nil {
		return nil, err
	}
	v := b.view
	v.mu.Lock()
	defer v.mu.Unlock()
	var out []Request
	for _, r := range v.reqs {
		c := *r
		c.ApprovedBy, c.Approvals = slices.Clone(c.ApprovedBy), slices.Clone(c.Approvals)
		if c.Batch != "" && c.Status == StatusPending {
			v.batches[c.Batch].overlay(&c)
		}
		if keep(&c) {
			out = append(out, c)
		}
	}
	return out, nil
}
