package batch

import (
	"context"
	"sync"
	"time"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/payout"
	"github.com/paydash/paydash/internal/platform/clock"
	"github.com/paydash/paydash/webhookrelay/relayclient"
)

// watcher records the payout states webhooks report for the batch's rows.
type watcher struct {
	j       *Journal
	clk     clock.Clock
	ids     map[string]bool
	changed chan struct{}
	// onFinal, when set, hears each row's final state once.
	onFinal func(id, state, reason string)

	mu       sync.Mutex
	firstErr error
}

func newWatcher(j *Journal, f *File, clk clock.Clock) *watcher {
	w := &watcher{j: j, clk: clk, ids: map[string]bool{}, changed: make(chan struct{}, 1)}
	for _, r := range f.Rows {
		w.ids[j.TransactionID(r.Line)] = true
	}
	return w
}

func (w *watcher) watch(ctx context.Context, events <-chan relayclient.Event) {
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-events:
			if !ok {
				return
			}
			w.handle(ev)
		}
	}
}

func (w *watcher) handle(ev relayclient.Event) {
	// A late or replayed webhook (a subscriber resuming from the relay's
	// backlog replays every earlier state) never moves a row backwards.
	if !w.ids[ev.PayoutID] || api.StateRank(ev.State) == 0 {
		return
	}
	cur, _ := w.j.State(ev.PayoutID)
	if !api.Later(ev.State, cur.State) {
		return
	}
	at := ev.OccurredAt
	if at.IsZero() {
		at = w.clk.Now()
	}
	if err := w.j.RecordState(ev.PayoutID, StateRecord{State: ev.State, Reason: ev.Reason}, at); err != nil {
		w.mu.Lock()
		if w.firstErr == nil {
			w.firstErr = err
		}
		w.mu.Unlock()
		return
	}
	if api.IsFinalState(ev.State) && w.onFinal != nil {
		w.onFinal(ev.PayoutID, ev.State, ev.Reason)
	}
	select {
	case w.changed <- struct{}{}:
	default:
	}
}

func (w *watcher) err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.firstErr
}

// allFinal reports whether every accepted row has reached a final state.
func (w *watcher) allFinal() bool {
	w.j.mu.Lock()
	defer w.j.mu.Unlock()
	for line, s := range w.j.sent {
		if s.Outcome != payout.OutcomeAccepted {
			continue
		}
		if !api.IsFinalState(w.j.states[w.j.ids[line]].State) {
			return false
		}
	}
	return true
}

// waitFinal waits up to d for every accepted row to reach a final state.
func (w *watcher) waitFinal(ctx context.Context, d time.Duration) {
	deadline := w.clk.After(d)
	for !w.allFinal() {
		select {
		case <-ctx.Done():
			return
		case <-deadline:
			return
		case <-w.changed:
		}
	}
}
