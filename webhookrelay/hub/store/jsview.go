package store

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"time"

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

	follow *natsstream.Follower
}

// startView replays the stream into a new view and waits until it holds
// everything the stream held at its start.
func (b *jsBackend) startView(ctx context.Context) error {
	v := &jsView{reqs: map[string]*Request{}, batches: map[string]*batchMessage{}}
	reqs, batches := b.prefix+".req.", b.prefix+".batch."
	apply := func(subject string, data []byte, _ uint64, at time.Time) {
		switch {
		case strings.HasPrefix(subject, reqs):
			var m jsMessage
			if json.Unmarshal(data, &m) != nil || m.Request == nil {
				return
			}
			m.Request.WrittenAt = at
			v.putRequest(m.Request)
		case strings.HasPrefix(subject, batches):
			var m jsMessage
			if json.Unmarshal(data, &m) != nil || m.Batch == nil {
				return
			}
			m.Batch.IDs = nil
			v.mu.Lock()
			v.batches[strings.TrimPrefix(subject, batches)] = m.Batch
			v.mu.Unlock()
		}
	}
	f, err := natsstream.Follow(ctx, b.stream, natsstream.FollowConfig{Filter: b.prefix + ".>", LastPerSubject: true}, apply)
	if err != nil {
		return err
	}
	v.follow = f
	if _, err := f.Sync(ctx); err != nil {
		f.Stop()
		return err
	}
	b.view = v
	return nil
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
	if _, err := b.view.follow.Sync(ctx); err != nil {
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
