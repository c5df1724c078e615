package store

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/paydash/paydash/internal/platform/backoff"
	"github.com/paydash/paydash/internal/platform/clock"
)

// Change is one change of a request's status, as Watch tells it: which
// request (and batch), its status and payout state, and when. The hub's
// approvals feed sends it on as a hubapi.Change.
type Change struct {
	ID          string    `json:"id,omitempty"`
	Batch       string    `json:"batch,omitempty"`
	Status      string    `json:"status"`
	PayoutState string    `json:"payout_state,omitempty"`
	UpdatedAt   time.Time `json:"updated_at"`
}

func changeOf(r *Request) Change {
	return Change{ID: r.ID, Batch: r.Batch, Status: r.Status, PayoutState: r.PayoutState, UpdatedAt: r.UpdatedAt}
}

// watchers are the functions a bbolt store calls after each committed
// change.
type watchers struct {
	mu   sync.Mutex
	next int
	fns  map[int]func(Change)
}

// committed tells the watchers of rs, once their transaction has
// committed: never from inside it, so a slow watcher holds up no write
// and a rolled-back change is never told.
func (s *Store) committed(rs ...*Request) {
	s.watch.mu.Lock()
	defer s.watch.mu.Unlock()
	for _, fn := range s.watch.fns {
		for _, r := range rs {
			fn(changeOf(r))
		}
	}
}

// Watch calls fn with every change of a request's status from now on,
// until stop is called. A bbolt store is changed only by this process and
// calls fn after each commit. A JetStream store is changed by every hub
// of the cluster, so it reads the changes from the stream (an ordered
// consumer, new messages only): each hub hears every change once, its own
// included, and from no other source. fn must not block for long.
func (s *Store) Watch(fn func(Change)) (stop func()) {
	if s.js != nil {
		ctx, cancel := context.WithCancel(context.Background())
		// The consumer is made before Watch returns when the cluster
		// answers within watchStartWait: a hub's subscribers then hear
		// every change from its start. Past it, it goes on trying.
		cc := s.js.follow(ctx, fn, watchStartWait)
		done := make(chan struct{})
		go func() {
			defer close(done)
			if cc == nil {
				cc = s.js.followRetrying(ctx, fn)
			}
			<-ctx.Done()
			if cc != nil {
				cc.Stop()
			}
		}()
		return func() { cancel(); <-done }
	}
	s.watch.mu.Lock()
	defer s.watch.mu.Unlock()
	if s.watch.fns == nil {
		s.watch.fns = map[int]func(Change){}
	}
	id := s.watch.next
	s.watch.next++
	s.watch.fns[id] = fn
	return func() {
		s.watch.mu.Lock()
		delete(s.watch.fns, id)
		s.watch.mu.Unlock()
	}
}

// watchStartWait bounds how long Watch waits for the cluster to make its
// consumer before leaving that to the background.
const watchStartWait = 5 * time.Second

// follow starts an ordered consumer of the stream's new messages handing
// request and batch changes to fn; nil when the cluster did not make one
// within wait. The ordered consumer makes itself again from where it was
// after a leader election or a lost connection, so no change is skipped.
func (b *jsBackend) follow(ctx context.Context, fn func(Change), wait time.Duration) jetstream.ConsumeContext {
	reqs, batches := b.prefix+".req.", b.prefix+".batch."
	handle := func(msg jetstream.Msg) {
		subj := msg.Subject()
		if !strings.HasPrefix(subj, reqs) && !strings.HasPrefix(subj, batches) {
			return
		}
		var m jsMessage
		if json.Unmarshal(msg.Data(), &m) != nil {
			return
		}
		switch {
		case m.Request != nil:
			fn(changeOf(m.Request))
		case m.Batch != nil:
			fn(Change{Batch: strings.TrimPrefix(subj, batches), Status: m.Batch.Status, UpdatedAt: m.Batch.At})
		}
	}
	wctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	// No subject filter (FilterSubjects needs a server of 2.10 or later):
	// the few other messages (locks, notes) are skipped above.
	cons, err := b.stream.OrderedConsumer(wctx, jetstream.OrderedConsumerConfig{DeliverPolicy: jetstream.DeliverNewPolicy})
	if err != nil {
		return nil
	}
	cc, err := cons.Consume(handle)
	if err != nil {
		return nil
	}
	return cc
}

// followRetrying tries follow, pausing longer each time, until it starts
// or ctx is done (nil then).
func (b *jsBackend) followRetrying(ctx context.Context, fn func(Change)) jetstream.ConsumeContext {
	// On the real clock: it waits for a real cluster.
	pause := backoff.New(backoff.Policy{Base: 100 * time.Millisecond, Max: 5 * time.Second}, clock.Real())
	for ctx.Err() == nil {
		if cc := b.follow(ctx, fn, b.timeout); cc != nil {
			return cc
		}
		_ = pause.Wait(ctx) // an ended ctx ends the loop
	}
	return nil
}
