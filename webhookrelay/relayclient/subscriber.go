package relayclient

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"

	"github.com/paydash/paydash/internal/platform/backoff"
	"github.com/paydash/paydash/internal/platform/clock"
)

// Subscriber defaults.
const (
	DefaultMinBackoff       = 250 * time.Millisecond
	DefaultMaxBackoff       = 30 * time.Second
	DefaultSubscriberBuffer = 256
	// subscriberReadLimit bounds one message: a 1 MiB body plus its event
	// fields and JSON escaping.
	subscriberReadLimit = 4 << 20
	// subscriberReadWait is how long a silent connection is trusted; the
	// relay pings every pingPeriod, well inside it.
	subscriberReadWait = relayPongWait + 15*time.Second
	// relayPongWait mirrors the relay's ping schedule (it pings well inside
	// 60 s); kept here so the client does not import the server.
	relayPongWait = 60 * time.Second
	// closeWriteWait bounds writing the close frame on the way out.
	closeWriteWait = 10 * time.Second
)

// SubscriberConfig configures a Subscriber.
type SubscriberConfig struct {
	// URL is the relay's websocket endpoint, ws://host:port/ws.
	URL string
	// Token is sent as Authorization: Bearer, never in the URL.
	Token string
	// Since is the last seq already seen; 0 streams everything stored.
	Since uint64
	// MinBackoff and MaxBackoff bound the reconnect delay (defaults 250ms
	// and 30s); each failed attempt doubles it, with jitter.
	MinBackoff, MaxBackoff time.Duration
	Clock                  clock.Clock
	// Buffer is the Events channel's capacity (default 256).
	Buffer int
	// Types, when set, limits the stream to these event types.
	Types []string
	// PayoutID, when set, limits the stream to one payout's events.
	PayoutID string
	// Dialer, when set, replaces the default websocket dialer (for a
	// proxy, TLS settings, or socket options).
	Dialer *websocket.Dialer
}

// Subscriber follows a relay's event stream: it connects, resumes from the
// last seq it delivered, reconnects forever with capped exponential backoff
// and jitter, and delivers each event exactly once, in order, on Events.
type Subscriber struct {
	cfg    SubscriberConfig
	keep   func(*Event) bool
	events chan Event
	states chan ConnState
	last   atomic.Uint64
	// store is the relay store the seqs delivered so far came from (its
	// HeaderStore), sent back on reconnect; only session touches it.
	store  string
	dialer *websocket.Dialer
}

// HeaderStore is the websocket handshake's answer header naming the
// relay's store. A subscriber resuming sends it back as store=; a relay
// whose store is another (replaced, or a new file) answers 409, and the
// subscriber starts again from 0 instead of skipping the new store's
// first events, however far that store has got.
const HeaderStore = "Paydash-Relay-Store"

// NewSubscriber returns a Subscriber; call Run to start it.
func NewSubscriber(cfg SubscriberConfig) *Subscriber {
	if cfg.MinBackoff <= 0 {
		cfg.MinBackoff = DefaultMinBackoff
	}
	if cfg.MaxBackoff < cfg.MinBackoff {
		cfg.MaxBackoff = max(DefaultMaxBackoff, cfg.MinBackoff)
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.Real()
	}
	if cfg.Buffer <= 0 {
		cfg.Buffer = DefaultSubscriberBuffer
	}
	s := &Subscriber{
		cfg:    cfg,
		keep:   both(TypeFilter(cfg.Types), PayoutFilter(cfg.PayoutID)),
		events: make(chan Event, cfg.Buffer),
		states: make(chan ConnState, 1),
		dialer: cfg.Dialer,
	}
	if s.dialer == nil {
		// A large read buffer takes a whole batch of events per syscall.
		s.dialer = &websocket.Dialer{HandshakeTimeout: 10 * time.Second, Proxy: http.ProxyFromEnvironment, ReadBufferSize: 64 << 10}
	}
	s.last.Store(cfg.Since)
	return s
}

// Events delivers events in seq order, each once. It is closed when Run
// returns.
func (s *Subscriber) Events() <-chan Event { return s.events }

// States delivers connection-state changes, latest wins: a reader that
// falls behind sees the newest state, and the subscriber never waits for
// it. It is closed when Run returns, after a final offline state.
func (s *Subscriber) States() <-chan ConnState { return s.states }

// LastSeq is the seq of the last event delivered on Events.
func (s *Subscriber) LastSeq() uint64 { return s.last.Load() }

// Run follows the stream until ctx is done, then reports offline, closes
// both channels and returns nil. Call it once.
func (s *Subscriber) Run(ctx context.Context) error {
	defer close(s.events)
	defer close(s.states)
	if _, err := s.streamURL(); err != nil {
		s.setState(ConnState{Status: StateOffline, Err: err})
		return err
	}
	attempt := 0
	for {
		s.setState(ConnState{Status: StateConnecting})
		connected, err := s.session(ctx)
		if ctx.Err() != nil {
			s.setState(ConnState{Status: StateOffline})
			return nil
		}
		if connected {
			attempt = 0
		}
		delay := s.backoff(attempt)
		attempt++
		s.setState(ConnState{Status: StateReconnecting, RetryIn: delay, Err: err})
		if backoff.Sleep(ctx, s.cfg.Clock, delay) != nil {
			s.setState(ConnState{Status: StateOffline, Err: err})
			return nil
		}
	}
}

// backoff is the delay before reconnect attempt n (0-based): MinBackoff
// doubled n times, capped at MaxBackoff, then "equal jitter" (between half
// and all of it) so many subscribers of a restarted relay do not reconnect
// in lockstep.
func (s *Subscriber) backoff(n int) time.Duration {
	return backoff.Policy{Base: s.cfg.MinBackoff, Max: s.cfg.MaxBackoff, Jitter: backoff.Equal}.Delay(n + 1)
}

func (s *Subscriber) setState(st ConnState) {
	st.LastSeq = s.last.Load()
	for {
		select {
		case s.states <- st:
			return
		default:
		}
		select {
		case <-s.states: // drop the stale state nobody read
		default:
		}
	}
}

func (s *Subscriber) streamURL() (string, error) {
	u, err := url.Parse(s.cfg.URL)
	if err != nil || (u.Scheme != "ws" && u.Scheme != "wss") || u.Host == "" {
		return "", fmt.Errorf("relay URL %q must look like ws://127.0.0.1:8787/ws", s.cfg.URL)
	}
	q := u.Query()
	q.Set("since", strconv.FormatUint(s.last.Load(), 10))
	if s.store != "" {
		q.Set("store", s.store)
	}
	if len(s.cfg.Types) > 0 {
		q.Set("type", strings.Join(s.cfg.Types, ","))
	}
	u.RawQuery = q.Encode()
	return u.String(), nil
}

// session runs one connection; connected reports whether the handshake
// succeeded. The returned error says why the connection ended.
func (s *Subscriber) session(ctx context.Context) (connected bool, err error) {
	target, err := s.streamURL()
	if err != nil {
		return false, err
	}
	header := http.Header{}
	if s.cfg.Token != "" {
		header.Set("Authorization", "Bearer "+s.cfg.Token)
	}
	conn, resp, err := s.dialer.DialContext(ctx, target, header)
	if err != nil {
		if resp != nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusConflict {
				// The relay's store is not the one our seqs came from
				// (another store id, or our last seq is past its end):
				// its events are new to us, so start again from 0.
				s.last.Store(0)
				s.store = ""
				return false, errors.New("relay store is not the one our last seq came from (replaced, or --since is past its end): replaying it from the start")
			}
			return false, handshakeError(resp.StatusCode)
		}
		if wrong := wrongProtocol(err); wrong != nil {
			return false, wrong
		}
		return false, fmt.Errorf("cannot reach the relay: %w", err)
	}
	defer conn.Close()
	if id := resp.Header.Get(HeaderStore); id != "" {
		s.store = id
	}
	s.setState(ConnState{Status: StateLive})

	// Closing the connection is what unblocks a read when ctx ends.
	stop := context.AfterFunc(ctx, func() {
		_ = conn.WriteControl(websocket.CloseMessage,
			websocket.FormatCloseMessage(websocket.CloseNormalClosure, "subscriber stopping"), time.Now().Add(time.Second))
		conn.Close()
	})
	defer stop()

	conn.SetReadLimit(subscriberReadLimit)
	_ = conn.SetReadDeadline(time.Now().Add(subscriberReadWait))
	conn.SetPingHandler(func(data string) error {
		_ = conn.SetReadDeadline(time.Now().Add(subscriberReadWait))
		err := conn.WriteControl(websocket.PongMessage, []byte(data), time.Now().Add(closeWriteWait))
		if errors.Is(err, websocket.ErrCloseSent) {
			return nil
		}
		return err
	})
	// One buffer serves every message: json.Unmarshal copies what it keeps.
	var (
		buf        bytes.Buffer
		deadlineAt = time.Now()
	)
	for {
		_, r, err := conn.NextReader()
		if err == nil {
			buf.Reset()
			_, err = buf.ReadFrom(r)
		}
		if err != nil {
			return true, streamError(err)
		}
		data := buf.Bytes()
		// Moving the deadline costs a timer update; once a second keeps
		// it within a second of "subscriberReadWait after the last message".
		if now := time.Now(); now.Sub(deadlineAt) >= time.Second {
			deadlineAt = now
			_ = conn.SetReadDeadline(now.Add(subscriberReadWait))
		}
		// A fresh Event each time: Unmarshal would otherwise keep members
		// of the previous event that this message lacks.
		e := Event{}
		if err := json.Unmarshal(data, &e); err != nil {
			return true, notARelay("the relay URL sent a message that is not a relay event (" + err.Error() + "): it is not a paydash relay's /ws")
		}
		// Across reconnects the relay resends from since=last; anything at
		// or below it was delivered already.
		if e.Seq <= s.last.Load() {
			continue
		}
		// Without a type filter the relay sends every seq it holds, so a
		// jump means events it no longer has (retention dropped them
		// while this subscriber was away): said, not silently skipped.
		if last := s.last.Load(); len(s.cfg.Types) == 0 && last > 0 && e.Seq > last+1 {
			s.setState(ConnState{Status: StateLive, Missed: [2]uint64{last + 1, e.Seq - 1}})
		}
		if s.keep != nil && !s.keep(&e) {
			s.last.Store(e.Seq)
			continue
		}
		select {
		case s.events <- e:
			s.last.Store(e.Seq)
		case <-ctx.Done():
			return true, ctx.Err()
		}
	}
}

func handshakeError(status int) error {
	switch status {
	case http.StatusUnauthorized:
		return refused("relay refused the token (HTTP 401): check the relay token")
	case http.StatusForbidden:
		return refused("relay refused the connection (HTTP 403): check the Origin or host name, or set a token")
	case http.StatusServiceUnavailable:
		return errors.New("relay is at its client limit (HTTP 503)")
	case http.StatusTooManyRequests:
		return errors.New("relay is busy (HTTP 429)")
	}
	if status >= 500 {
		// A proxy in front of a relay that is down: worth retrying.
		return fmt.Errorf("relay unavailable (HTTP %d)", status)
	}
	return notARelay(fmt.Sprintf("the relay URL answered HTTP %d where a paydash relay's /ws opens a websocket: it is not a paydash relay's /ws (check the relay URL)", status))
}

// wrongProtocol recognises a handshake answered in another protocol: TLS
// spoken to a plain server (wss:// to ws), or a server whose answer is not
// HTTP at all (ws:// to a TLS port, or to another service). Retrying will
// not fix either. Anything else (refused, reset, timed out) is a relay
// that may come back.
func wrongProtocol(err error) error {
	var rh tls.RecordHeaderError
	if errors.As(err, &rh) {
		return notARelay("the relay URL's server does not speak TLS, so it is not a paydash relay at wss://: use ws:// (" + err.Error() + ")")
	}
	// net/http's "malformed HTTP response" has no exported type.
	if strings.Contains(err.Error(), "malformed HTTP") {
		return notARelay("the relay URL's server does not answer in HTTP, so it is not a paydash relay (a TLS port needs wss://, or it is another service): " + err.Error())
	}
	return nil
}

func streamError(err error) error {
	var ce *websocket.CloseError
	if errors.As(err, &ce) {
		if ce.Text != "" {
			return fmt.Errorf("relay closed the stream: %s (code %d)", ce.Text, ce.Code)
		}
		return fmt.Errorf("relay closed the stream (code %d)", ce.Code)
	}
	return fmt.Errorf("stream interrupted: %w", err)
}

// TypeFilter returns a filter for a comma-separated type list, or nil.
// The relay applies it to ?type= and the subscriber to its Types, so both
// read the list the same way.
func TypeFilter(list []string) func(*Event) bool {
	set := map[string]bool{}
	for _, item := range list {
		for _, t := range strings.Split(item, ",") {
			if t = strings.TrimSpace(t); t != "" {
				set[t] = true
			}
		}
	}
	if len(set) == 0 {
		return nil
	}
	return func(e *Event) bool { return set[e.Type] }
}

// PayoutFilter keeps the events of one payout (nil keeps all).
func PayoutFilter(id string) func(*Event) bool {
	id = strings.TrimSpace(id)
	if id == "" {
		return nil
	}
	return func(e *Event) bool { return strings.EqualFold(e.PayoutID, id) }
}

// both keeps what every non-nil filter keeps (nil when none is set).
func both(a, b func(*Event) bool) func(*Event) bool {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	return func(e *Event) bool { return a(e) && b(e) }
}
