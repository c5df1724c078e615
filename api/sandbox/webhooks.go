package sandbox

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/platform/clock"
)

// maxConcurrentDeliveries bounds attempts in flight across all payouts,
// so a burst of payouts does not open a connection each to the receiver.
const maxConcurrentDeliveries = 16

// UserAgent is the User-Agent of webhook deliveries.
const UserAgent = "paydash-sandbox/1 (webhooks)"

// errNoWebhookURI: an event was dropped because no URI is registered.
var errNoWebhookURI = errors.New("no webhook_uri registered: register one with PUT /sandbox/webhook (or SetWebhookURI) first")

// Delivery is one attempt to deliver one webhook (or, with Attempt 0, an
// event dropped because no webhook URI was registered).
type Delivery struct {
	EventID   string `json:"event_id"`
	EventType string `json:"event_type"`
	// PayoutID is the payout the event is about, when it is about one;
	// events of one payout are delivered in order.
	PayoutID string `json:"payout_id,omitempty"`
	// URL is the webhook URI without its query (which may hold a token).
	URL        string    `json:"url"`
	Attempt    int       `json:"attempt"`
	At         time.Time `json:"at"`
	StatusCode int       `json:"status_code,omitempty"`
	Error      string    `json:"error,omitempty"`
	Delivered  bool      `json:"delivered"`
	// Final is true when no further attempt of this event follows
	// (delivered, retries exhausted, or dropped).
	Final bool `json:"final"`
	// NextAttemptAt is when the retry is due, for a failed non-final attempt.
	NextAttemptAt time.Time `json:"next_attempt_at,omitzero"`
	// Headers are the headers sent: timestamp, signature, content type.
	Headers map[string]string `json:"headers,omitempty"`
	Body    string            `json:"body"`
}

// event is one webhook waiting for delivery.
type event struct {
	id, typ  string
	payoutID string
	// key orders delivery: events with one key go out one after another.
	key    string
	body   []byte
	header http.Header // headers given to InjectEvent
	url    string      // the webhook URI when the event was queued
}

// webhooks delivers events: one queue and worker goroutine per ordering
// key (the payout's transaction_id), so one payout's events arrive in
// order while a failing payout does not hold up the others; at most
// maxConcurrentDeliveries attempts run at once.
type webhooks struct {
	mu      sync.Mutex
	uri     string
	queues  map[string][]*event
	log     []Delivery
	logSize int
	closed  bool

	sem    chan struct{}
	wg     sync.WaitGroup
	ctx    context.Context
	cancel context.CancelFunc
	client *http.Client
	clock  clock.Clock
	retry  []time.Duration
	key    *ecdsa.PrivateKey
	kid    string
	jku    string // guarded by mu
	logger *slog.Logger
}

func newWebhooks(o Options, key *ecdsa.PrivateKey, kid string) *webhooks {
	ctx, cancel := context.WithCancel(context.Background())
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = maxConcurrentDeliveries
	return &webhooks{
		uri:     o.WebhookURI,
		queues:  map[string][]*event{},
		logSize: o.DeliveryLogSize,
		sem:     make(chan struct{}, maxConcurrentDeliveries),
		ctx:     ctx,
		cancel:  cancel,
		client: &http.Client{
			Transport: tr,
			Timeout:   o.WebhookTimeout,
			// A redirect is a failed delivery: the receiver must answer 2xx.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
		clock:  o.Clock,
		retry:  o.WebhookRetry,
		key:    key,
		kid:    kid,
		jku:    o.WebhookJKU,
		logger: o.Logger,
	}
}

func (w *webhooks) setURI(uri string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.uri = uri
}

// setJKU sets the JWKS URL signatures name (Listen knows it only once it
// listens).
func (w *webhooks) setJKU(jku string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.jku = jku
}

func (w *webhooks) getJKU() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.jku
}

func (w *webhooks) getURI() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.uri
}

// enqueue queues ev for the URI registered now. Without a URI the event
// is logged as dropped and errNoWebhookURI returned.
func (w *webhooks) enqueue(ev *event) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return errors.New("sandbox: closed")
	}
	if w.uri == "" {
		w.record(Delivery{EventID: ev.id, EventType: ev.typ, PayoutID: ev.payoutID, At: w.clock.Now(),
			Final: true, Error: errNoWebhookURI.Error(), Body: string(ev.body)})
		return errNoWebhookURI
	}
	ev.url = w.uri
	if ev.key == "" {
		ev.key = ev.id
	}
	if _, busy := w.queues[ev.key]; !busy {
		w.wg.Add(1)
		go w.run(ev.key)
	}
	w.queues[ev.key] = append(w.queues[ev.key], ev)
	return nil
}

// enqueueLogged queues a state-change event; with no URI registered the
// drop is in the delivery log, which is all a payout needs.
func (w *webhooks) enqueueLogged(ev *event) { _ = w.enqueue(ev) }

// run delivers key's queue in order and exits when it is empty. The map
// entry stays while an event is in flight, so enqueue appends to this
// worker rather than starting a second one.
func (w *webhooks) run(key string) {
	defer w.wg.Done()
	for {
		w.mu.Lock()
		q := w.queues[key]
		if len(q) == 0 || w.closed {
			delete(w.queues, key)
			w.mu.Unlock()
			return
		}
		ev := q[0]
		w.queues[key] = q[1:]
		w.mu.Unlock()
		if !w.deliver(ev) {
			return
		}
	}
}

// deliver makes the first attempt and the retries of one event; false
// means the sandbox is closing.
func (w *webhooks) deliver(ev *event) bool {
	for attempt := 1; ; attempt++ {
		select {
		case w.sem <- struct{}{}:
		case <-w.ctx.Done():
			return false
		}
		d := w.attempt(ev, attempt)
		<-w.sem
		retry := !d.Delivered && attempt <= len(w.retry)
		var wait <-chan time.Time
		if retry {
			// The timer exists before the attempt is logged, so a test that
			// sees the log entry can advance a fake clock past it.
			wait = w.clock.After(w.retry[attempt-1])
			d.NextAttemptAt = w.clock.Now().Add(w.retry[attempt-1])
		}
		d.Final = !retry
		w.mu.Lock()
		w.record(d)
		w.mu.Unlock()
		w.logger.Info("webhook delivery", "event_id", d.EventID, "event_type", d.EventType, "url", d.URL,
			"attempt", attempt, "status", d.StatusCode, "error", d.Error, "final", d.Final)
		if !retry {
			return true
		}
		select {
		case <-wait:
		case <-w.ctx.Done():
			return false
		}
	}
}

// attempt signs and posts ev once. Each attempt carries a fresh
// X-Svc-Webhook-Timestamp (unless InjectEvent fixed one) and a signature
// over POST, the URI's path, that header and the body.
func (w *webhooks) attempt(ev *event, n int) Delivery {
	now := w.clock.Now()
	d := Delivery{EventID: ev.id, EventType: ev.typ, PayoutID: ev.payoutID, URL: displayURL(ev.url),
		Attempt: n, At: now, Body: string(ev.body)}
	u, err := url.Parse(ev.url)
	if err != nil {
		d.Error = "webhook URI is not a URL: " + err.Error()
		return d
	}
	h := http.Header{}
	h.Set("Content-Type", api.ContentTypeJSON)
	h.Set("User-Agent", UserAgent)
	h.Set(api.HeaderWebhookTimestamp, now.UTC().Format(api.WebhookTimeLayout))
	for k, vs := range ev.header {
		h[http.CanonicalHeaderKey(k)] = vs
	}
	if h.Get(api.HeaderPayoutSignature) == "" {
		path := u.Path
		if path == "" {
			path = "/"
		}
		sig, err := api.SignJKU(w.key, w.kid, w.getJKU(), http.MethodPost, path,
			[]api.SignedHeader{{Name: api.HeaderWebhookTimestamp, Value: h.Get(api.HeaderWebhookTimestamp)}}, ev.body)
		if err != nil {
			d.Error = "signing: " + err.Error()
			return d
		}
		h.Set(api.HeaderPayoutSignature, sig)
	}
	d.Headers = map[string]string{}
	for k := range h {
		d.Headers[k] = h.Get(k)
	}
	req, err := http.NewRequestWithContext(w.ctx, http.MethodPost, ev.url, bytes.NewReader(ev.body))
	if err != nil {
		d.Error = err.Error()
		return d
	}
	req.Header = h
	resp, err := w.client.Do(req)
	if err != nil {
		d.Error = err.Error()
		var ue *url.Error
		if errors.As(err, &ue) {
			d.Error = ue.Err.Error()
		}
		return d
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	d.StatusCode = resp.StatusCode
	d.Delivered = resp.StatusCode >= 200 && resp.StatusCode < 300
	if !d.Delivered {
		d.Error = fmt.Sprintf("receiver answered %d %s; want 2xx", resp.StatusCode, http.StatusText(resp.StatusCode))
	}
	return d
}

// displayURL drops the query, which may carry a receiver's token.
func displayURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(invalid URL)"
	}
	u.RawQuery, u.Fragment, u.User = "", "", nil
	return u.String()
}

// record appends to the bounded delivery log; the caller holds mu.
func (w *webhooks) record(d Delivery) {
	w.log = append(w.log, d)
	if len(w.log) >= 2*w.logSize {
		w.log = append(w.log[:0], w.log[len(w.log)-w.logSize:]...)
	}
}

func (w *webhooks) deliveries() []Delivery {
	w.mu.Lock()
	defer w.mu.Unlock()
	from := max(0, len(w.log)-w.logSize)
	out := make([]Delivery, len(w.log)-from)
	copy(out, w.log[from:])
	return out
}

// close stops deliveries: queued events are dropped and in-flight
// attempts cancelled.
func (w *webhooks) close() {
	w.mu.Lock()
	w.closed = true
	w.mu.Unlock()
	w.cancel()
	w.wg.Wait()
	w.client.CloseIdleConnections()
}

// payoutEvent builds a payout-interface webhook: the envelope
// {event_type, event_id, event_body}.
func payoutEvent(eventType, id string, body api.PayoutEventBody) *event {
	eb, _ := json.Marshal(body) // a struct of strings always marshals
	ev := &event{id: uuid.NewString(), typ: eventType, payoutID: id, key: id}
	ev.body, _ = json.Marshal(api.PayoutWebhook{EventType: eventType, EventID: ev.id, EventBody: eb})
	return ev
}

// inject queues a raw body as is. Its ordering key is the payout it names
// (event_body.transaction_id, payout_id or transaction_id), so it queues
// behind that payout's own events; otherwise its event_id.
func (w *webhooks) inject(body []byte, header http.Header) (*event, error) {
	if len(body) == 0 {
		return nil, &invalidError{api.Problems{{Field: "body", Message: "is empty; send the webhook body to deliver"}}}
	}
	var probe struct {
		EventType     string `json:"event_type"`
		Type          string `json:"type"`
		EventID       string `json:"event_id"`
		PayoutID      string `json:"payout_id"`
		TransactionID string `json:"transaction_id"`
		EventBody     struct {
			TransactionID string `json:"transaction_id"`
		} `json:"event_body"`
	}
	_ = json.Unmarshal(body, &probe) // any bytes may be injected; JSON just tells more
	ev := &event{id: probe.EventID, typ: probe.EventType, body: bytes.Clone(body), header: header.Clone()}
	if ev.typ == "" {
		ev.typ = probe.Type
	}
	for _, id := range []string{probe.EventBody.TransactionID, probe.PayoutID, probe.TransactionID} {
		if id != "" {
			ev.payoutID = id
			break
		}
	}
	ev.key = ev.payoutID
	if ev.key == "" {
		ev.key = "inject:" + uuid.NewString()
	}
	return ev, w.enqueue(ev)
}
