package store

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/paydash/paydash/internal/platform/natsstream"
)

// jsView is one hub's materialized view of a JetStream store: the live
// requests (Live) and those made within RecentKept, with each batch's
// decision, kept current by a natsstream.Follower replaying the last
// message of every subject at start and then every new message, from
// every hub. Lists, sums and lapses read it after one Sync (one round
// trip), so their cost follows what is live, not the stream's history;
// finished requests older than the window are dropped as they are read.
// Status changes never read it: each is a compare-and-swap on the
// request read from the stream itself.
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

	// follows read the requests' subjects and the batches' (two
	// consumers: the transaction id claims, half the stream, are never
	// read).
	follows [2]*natsstream.Follower
}

// stop stops following.
func (v *jsView) stop() {
	for _, f := range v.follows {
		if f != nil {
			f.Stop()
		}
	}
}

// sync waits until the view holds everything the stream held when
// called.
func (v *jsView) sync(ctx context.Context) error {
	for _, f := range v.follows {
		if _, err := f.Sync(ctx); err != nil {
			return err
		}
	}
	return nil
}

// startView replays the stream into a new view and waits until it holds
// everything the stream held at its start.
func (b *jsBackend) startView(ctx context.Context) error {
	v := &jsView{reqs: map[string]*Request{}, batches: map[string]*batchMessage{}}
	reqs, batches := b.prefix+".req.", b.prefix+".batch."
	apply := func(msg natsstream.Message) {
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
	for i, filter := range []string{reqs + ">", batches + ">"} {
		f, err := natsstream.Follow(ctx, b.stream, natsstream.FollowConfig{Filter: filter, LastPerSubject: true, Partial: true}, apply)
		if err != nil {
			v.stop()
			return err
		}
		v.follows[i] = f
	}
	if err := v.sync(ctx); err != nil {
		v.stop()
		return err
	}
	b.view = v
	return nil
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
