package webhookrelay

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/paydash/paydash/internal/platform/backoff"
	"github.com/paydash/paydash/internal/platform/clock"
	"github.com/paydash/paydash/webhookrelay/relayclient"
)

// Forwarding retry policy. An endpoint that is down (no connection, 5xx,
// 408, 429) is retried with capped exponential backoff until it answers,
// in seq order, so a developer restarting their server loses nothing;
// every forwardAttempts failed tries the failure is recorded on the event
// and logged, saying it is retried. Any other 4xx is the endpoint's
// answer: recorded, and the next event goes.
const (
	forwardAttempts   = 5
	forwardTimeout    = 10 * time.Second
	forwardScanWindow = 64
)

// The backoff bounds; variables so a test can run a long outage fast.
var (
	forwardBaseDelay = 200 * time.Millisecond
	forwardMaxDelay  = 10 * time.Second
)

// forwarder re-posts the events of one route to its URL, in seq order,
// off the ingest path: it follows the store (from a persisted cursor of
// its own), so it never holds events in memory, never slows the writer,
// after a crash carries on where it stopped, and an endpoint that is down
// holds back only its own route's events.
type forwarder struct {
	routes []Route // every route, for first-match-wins
	index  int     // this forwarder's route
	key    []byte  // its cursor in the store
	client *http.Client
	store  *store
	clock  clock.Clock
	m      *metrics
	log    *slog.Logger
	wake   chan struct{}
	cursor uint64

	ctx     context.Context
	cancel  context.CancelFunc
	stopped chan struct{}
}

func (f *forwarder) url() string { return f.routes[f.index].URL }

// mine reports whether e goes to this forwarder's route.
func (f *forwarder) mine(e *Event) bool { return routeFor(f.routes, e.Type) == f.index }

func (f *forwarder) stop() {
	f.cancel()
	<-f.stopped
}

func (f *forwarder) run() {
	defer close(f.stopped)
	for {
		var pending []Event
		last, err := scanEvents(f.store, f.cursor, forwardScanWindow, 8<<20, f.mine, func(e Event) bool {
			pending = append(pending, e)
			return true
		})
		if err != nil {
			f.log.Error("forwarder cannot read the store", "err", err)
		}
		for _, e := range pending {
			start := time.Now()
			res := f.forward(e)
			if f.ctx.Err() != nil {
				return // shutting down: the cursor stays, so this event is retried next start
			}
			if res.Error == "" {
				f.m.forwardedOK.Add(1)
				f.log.Debug("webhook forwarded", "seq", e.Seq, "event_id", e.EventID, "type", e.Type, "url", f.url(), "status", res.StatusCode, "elapsed", time.Since(start))
			} else {
				f.m.forwardedFailed.Add(1)
				f.log.Warn("forwarding refused by the endpoint", "seq", e.Seq, "url", f.url(), "attempts", res.Attempts, "err", res.Error)
			}
			f.cursor = e.Seq
		}
		if len(pending) == 0 && last > f.cursor && err == nil {
			// Only other routes' events: move past them for good.
			f.cursor = last
			if err := f.store.setRouteCursor(f.key, last); err != nil {
				f.log.Error("cannot record forward cursor", "err", err)
			}
			continue
		}
		if len(pending) > 0 {
			continue
		}
		select {
		case <-f.wake:
		case <-f.ctx.Done():
			return
		}
	}
}

// forward posts one event until the endpoint takes it or answers a
// definite 4xx (or the relay stops), logging every attempt with its
// answer, noting on the event every forwardAttempts failed tries that it
// is still retried, and returns the outcome it recorded last.
func (f *forwarder) forward(e Event) ForwardResult {
	res := ForwardResult{URL: f.url(), Route: f.routes[f.index].String()}
	retry := backoff.New(backoff.Policy{Base: forwardBaseDelay, Max: forwardMaxDelay}, f.clock)
	for {
		res.Attempts++
		ans := f.post(e)
		res.StatusCode, res.At, res.Answer = ans.Status, ans.At, &ans
		res.Error = ans.Error
		final := false
		switch {
		case ans.OK():
			final = true
		case ans.Error == "":
			res.Error = fmt.Sprintf("%s answered HTTP %d", f.url(), ans.Status)
			// Other 4xx answers will not change on retry.
			final = ans.Status < 500 && ans.Status != http.StatusTooManyRequests && ans.Status != http.StatusRequestTimeout
		}
		a := &Attempt{Kind: relayclient.AttemptForward, EventSeq: e.Seq, EventID: e.EventID, Type: e.Type, N: res.Attempts, Final: final, Answer: ans}
		noteFailing := !final && res.Attempts%forwardAttempts == 0
		out := res
		if noteFailing {
			// Still down: say so on the event and in the log; the
			// cursor stays, and this event goes first when it is up.
			out.Error += relayclient.ForwardRetrying
			f.log.Warn("forwarding failing; retrying until the endpoint answers, in order", "seq", e.Seq, "url", f.url(), "attempts", res.Attempts, "err", res.Error)
		}
		if f.ctx.Err() != nil {
			return res
		}
		if err := f.store.setForward(f.key, e.Seq, out, a, final || noteFailing, final); err != nil {
			f.log.Error("cannot record forward outcome", "seq", e.Seq, "err", err)
		}
		if final {
			return res
		}
		if retry.Wait(f.ctx) != nil {
			return res
		}
	}
}

// post sends e to the route's URL with its original headers and body and
// returns the handler's answer: status, latency, headers and the first
// relayclient.AnswerBodyMax bytes of its body.
func (f *forwarder) post(e Event) relayclient.Answer {
	return relayclient.PostEvent(f.ctx, f.client, f.url(), e.Headers, e.Body, f.clock)
}
