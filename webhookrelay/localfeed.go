package webhookrelay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/paydash/paydash/api"
)

// LocalFeed is this relay's store and fan-out read in-process, by what
// runs inside the relay: the team hub it mounts follows each payout it
// sends with it (it is the hub pipeline's payout.EventSource) rather than
// connecting back to its own listener with a health probe, a token and a
// websocket per payout. It reads what /ws and /events serve, the same
// way: from the bbolt file or the JetStream stream alike.
type LocalFeed struct{ r *Relay }

// LocalFeed is the relay's in-process feed; it ends with the relay.
func (r *Relay) LocalFeed() LocalFeed { return LocalFeed{r: r} }

// PayoutEvents streams payout id's events stored after the call, in seq
// order and none missed: what a /ws subscriber from the relay's current
// end is sent, less the network. The channel is closed when ctx ends, the
// relay closes, or its store cannot be read.
func (l LocalFeed) PayoutEvents(ctx context.Context, id string) (<-chan Event, error) {
	// The current end, as GET /healthz gives a subscriber its since=.
	_, last, err := l.r.be.bounds()
	if err != nil {
		return nil, err
	}
	sub, err := l.r.fan.Subscribe(l.r.cfg.ClientQueue)
	if err != nil {
		return nil, errRelayClosed
	}
	out := make(chan Event)
	go l.feed(ctx, sub, last, payoutIs(id), out)
	return out, nil
}

// feed is PayoutEvents' loop, a /ws connection's (wsClient.serve) with a
// channel for the socket: subscribed before reading the backlog, so
// nothing committed meanwhile is missed, and queued events the backlog
// already had are skipped by seq. A queue that fills while the reader
// dawdles is dropped by the fan-out (the writer never waits for it) and
// read again from the store.
func (l LocalFeed) feed(ctx context.Context, sub *fanoutSub, last uint64, keep func(*Event) bool, out chan<- Event) {
	defer close(out)
	fan := l.r.fan
	defer func() { fan.Unsubscribe(sub) }()
	send := func(e Event) bool {
		select {
		case out <- e:
			return true
		case <-ctx.Done():
		case <-fan.Done():
		}
		return false
	}
	for {
		var err error
		if last, err = l.backlog(last, keep, send); err != nil {
			if ctx.Err() == nil && !errors.Is(err, errFeedStopped) {
				l.r.cfg.Logger.Error("relay cannot read the store for the hub's follower; it follows the report instead", "err", err)
			}
			return
		}
		resubscribe := false
		for !resubscribe {
			select {
			case m := <-sub.Queue:
				if m.seq <= last {
					continue
				}
				e, err := frameEvent(m.frame)
				if err != nil {
					// Not expected of a frame the relay built; the store
					// has the event, so read it from there.
					resubscribe = true
					continue
				}
				last = m.seq
				if keep(&e) && !send(e) {
					return
				}
			case <-sub.Overflow:
				// The fan-out dropped this reader: the store has every
				// event after last, queued or not.
				resubscribe = true
			case <-ctx.Done():
				return
			case <-fan.Done():
				return
			}
		}
		fan.Unsubscribe(sub)
		if sub, err = fan.Subscribe(l.r.cfg.ClientQueue); err != nil {
			return
		}
	}
}

// errFeedStopped is backlog's answer when send refused an event (the
// reader or the relay is gone).
var errFeedStopped = errors.New("in-process feed stopped")

// backlog sends the stored events after seq last that keep accepts, page
// by page until it has caught up with the store, and returns the last seq
// it read. Each page is read before any of it is sent, so a slow reader
// never holds the store's read transaction open.
func (l LocalFeed) backlog(last uint64, keep func(*Event) bool, send func(Event) bool) (uint64, error) {
	for {
		var page []Event
		seen, err := scanEvents(l.r.be, last, backlogPage, backlogPageBytes, keep, func(e Event) bool {
			page = append(page, e)
			return true
		})
		if err != nil {
			return last, err
		}
		for _, e := range page {
			if !send(e) {
				return last, errFeedStopped
			}
		}
		if seen == last {
			return last, nil
		}
		last = seen
	}
}

// FinalState returns the last final state (settled, executed, rejected,
// failed) the relay stored for payout id, and its reason: what
// relayclient.History.FinalState reads from GET /events, less the
// network. ok is false when the store holds none (yet).
func (l LocalFeed) FinalState(ctx context.Context, id string) (state, reason string, ok bool, err error) {
	id = strings.TrimSpace(id)
	if id == "" {
		return "", "", false, nil
	}
	keep := payoutIs(id)
	var after uint64
	for {
		if err := ctx.Err(); err != nil {
			return "", "", false, err
		}
		seen, err := scanEvents(l.r.be, after, maxHistoryLimit, backlogPageBytes, keep, func(e Event) bool {
			if api.IsFinalState(e.State) {
				state, reason, ok = e.State, e.Reason, true
			}
			return true
		})
		if err != nil {
			return "", "", false, err
		}
		if seen == after {
			return state, reason, ok, nil
		}
		after = seen
	}
}

// payoutIs keeps the events of payout id, matched exactly as GET /events
// matches payout_id= and the follower matches its own.
func payoutIs(id string) func(*Event) bool {
	return func(e *Event) bool { return e.PayoutID == id }
}

// frameEvent decodes the event in a websocket frame the relay built for
// its fan-out (appendEventFrame, or the writer's slow path): one
// unmasked text frame whose payload is the event's JSON.
func frameEvent(frame []byte) (Event, error) {
	if len(frame) < 2 {
		return Event{}, errors.New("relay frame too short")
	}
	payload := frame[2:]
	switch frame[1] & 0x7F {
	case 126:
		if len(payload) < 2 {
			return Event{}, errors.New("relay frame too short")
		}
		payload = payload[2:]
	case 127:
		if len(payload) < 8 {
			return Event{}, errors.New("relay frame too short")
		}
		payload = payload[8:]
	}
	var e Event
	if err := json.Unmarshal(payload, &e); err != nil {
		return Event{}, fmt.Errorf("relay frame: %w", err)
	}
	return e, nil
}
