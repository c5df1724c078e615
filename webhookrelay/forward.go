package webhookrelay

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/paydash/paydash/api/clock"
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

// forwarder re-posts each new event to the developer's URL, in seq order,
// off the ingest path: it follows the store (from a persisted cursor), so
// it never holds events in memory, never slows the writer, and after a
// crash carries on where it stopped.
type forwarder struct {
	url    string
	client *http.Client
	store  *store
	clock  clock.Clock
	m      *metrics
	log    *slog.Logger
	wake   <-chan struct{}
	cursor uint64

	ctx     context.Context
	cancel  context.CancelFunc
	stopped chan struct{}
}

func newForwarder(cfg Config, s *store, m *metrics, wake <-chan struct{}, cursor uint64) *forwarder {
	ctx, cancel := context.WithCancel(context.Background())
	return &forwarder{
		url: cfg.ForwardURL, client: &http.Client{Timeout: forwardTimeout},
		store: s, clock: cfg.Clock, m: m, log: cfg.Logger, wake: wake, cursor: cursor,
		ctx: ctx, cancel: cancel, stopped: make(chan struct{}),
	}
}

func (f *forwarder) stop() {
	f.cancel()
	<-f.stopped
}

func (f *forwarder) run() {
	defer close(f.stopped)
	for {
		var pending []Event
		_, err := scanEvents(f.store, f.cursor, forwardScanWindow, 8<<20, nil, func(e Event) bool {
			pending = append(pending, e)
			return true
		})
		if err != nil {
			f.log.Error("forwarder cannot read the store", "err", err)
		}
		for _, e := range pending {
			start := time.Now()
			res := f.forward(e, func(failing ForwardResult) {
				// Still down: say so on the event and in the log; the
				// cursor stays, and this event goes first when it is up.
				failing.Error += " (retrying until it answers)"
				if err := f.store.setForward(e.Seq, failing, false); err != nil {
					f.log.Error("cannot record forward outcome", "seq", e.Seq, "err", err)
				}
				f.log.Warn("forwarding failing; retrying until the endpoint answers, in order", "seq", e.Seq, "url", f.url, "attempts", failing.Attempts, "err", failing.Error)
			})
			if f.ctx.Err() != nil {
				return // shutting down: the cursor stays, so this event is retried next start
			}
			if err := f.store.setForward(e.Seq, res, true); err != nil {
				f.log.Error("cannot record forward outcome", "seq", e.Seq, "err", err)
			}
			if res.Error == "" {
				f.m.forwardedOK.Add(1)
				f.log.Debug("webhook forwarded", "seq", e.Seq, "event_id", e.EventID, "type", e.Type, "url", f.url, "status", res.StatusCode, "elapsed", time.Since(start))
			} else {
				f.m.forwardedFailed.Add(1)
				f.log.Warn("forwarding refused by the endpoint", "seq", e.Seq, "url", f.url, "attempts", res.Attempts, "err", res.Error)
			}
			f.cursor = e.Seq
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
// definite 4xx (or the relay stops), calling stillFailing every
// forwardAttempts failed tries, and returns the outcome.
func (f *forwarder) forward(e Event, stillFailing func(ForwardResult)) ForwardResult {
	res := ForwardResult{URL: f.url}
	delay := forwardBaseDelay
	for {
		res.Attempts++
		status, err := f.post(e)
		res.StatusCode, res.At = status, f.clock.Now()
		res.Error = ""
		if err != nil {
			res.Error = err.Error()
		}
		if err == nil && status >= 200 && status < 300 {
			return res
		}
		if err == nil {
			res.Error = fmt.Sprintf("%s answered HTTP %d", f.url, status)
			// Other 4xx answers will not change on retry.
			if status < 500 && status != http.StatusTooManyRequests && status != http.StatusRequestTimeout {
				return res
			}
		}
		if res.Attempts%forwardAttempts == 0 {
			stillFailing(res)
		}
		select {
		case <-f.clock.After(delay):
		case <-f.ctx.Done():
			return res
		}
		delay = min(2*delay, forwardMaxDelay)
	}
}

func (f *forwarder) post(e Event) (int, error) {
	req, err := http.NewRequestWithContext(f.ctx, http.MethodPost, f.url, bytes.NewReader(e.Body))
	if err != nil {
		return 0, err
	}
	for k, v := range e.Headers {
		req.Header.Set(k, v)
	}
	if req.Header.Get("Content-Type") == "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := f.client.Do(req)
	if err != nil {
		return 0, err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	return resp.StatusCode, nil
}
