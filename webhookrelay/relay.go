package webhookrelay

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/platform/bearer"
	"github.com/paydash/paydash/internal/platform/graceful"
	"github.com/paydash/paydash/internal/platform/problem"
)

// Relay receives, stores and streams webhooks. Create it with Open, serve
// it with Serve, and Close it.
type Relay struct {
	cfg Config
	be  backend
	// store and writer are the bbolt backend's parts (nil in clustered
	// mode), used by the forwarder and by tests.
	store          *store
	writer         *writer
	verifier       *verifier
	fan            *fanout
	forwarders     []*forwarder
	m              *metrics
	log            *slog.Logger
	guard          *guard
	clients        atomic.Int64
	tokenHash      [32]byte
	upgrader       websocket.Upgrader
	handler        http.Handler
	metricsHandler http.Handler

	closeOnce sync.Once
	closeErr  error
}

// Open validates cfg, opens (or creates) the store and starts the writer
// and, if configured, the forwarder. It refuses a non-loopback Listen
// without a Token.
func Open(cfg Config) (*Relay, error) { return OpenContext(context.Background(), cfg) }

// OpenContext is Open whose waiting ends with ctx: in clustered mode the
// relay waits for the JetStream cluster (a node down, an election) until
// it can set up its stream and consumer, logging what it waits for.
func OpenContext(ctx context.Context, cfg Config) (*Relay, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	g, err := newGuard(cfg.Listen, cfg.AllowedHosts, cfg.AllowedOrigins)
	if err != nil {
		return nil, err
	}
	r := &Relay{cfg: cfg, verifier: newVerifier(cfg), fan: newFanout(), m: newMetrics(), log: cfg.Logger, guard: g}
	r.tokenHash = bearer.Sum(cfg.Token)
	r.upgrader = r.newUpgrader()
	if cfg.NATS != nil {
		if r.be, err = openNATS(ctx, cfg, r.fan, r.m); err != nil {
			return nil, err
		}
	} else if err := r.openBolt(); err != nil {
		return nil, err
	}
	r.registerMetrics()
	mux := http.NewServeMux()
	// Every endpoint refuses what only a browser would send: a Host that
	// is not this relay's (DNS rebinding) and a foreign Origin.
	mux.HandleFunc("POST "+cfg.Path, r.handleWebhook)
	mux.HandleFunc("GET /ws", r.handleWS)
	mux.HandleFunc("GET /events", r.handleHistory)
	mux.HandleFunc("GET /events/{id}", r.handleEvent)
	mux.HandleFunc("GET /attempts", r.handleAttempts)
	mux.HandleFunc("POST /events/{id}/resends", r.handleResendReport)
	mux.HandleFunc("GET /healthz", r.handleHealth)
	mux.HandleFunc("GET /metrics", r.handleMetrics)
	for pattern, h := range cfg.Mounts {
		mux.Handle(pattern, h)
	}
	r.handler = r.guard.wrap(mux, r.refuse)
	return r, nil
}

// openBolt opens the bbolt store and starts its writer and, if
// configured, the forwarder.
func (r *Relay) openBolt() error {
	cfg := r.cfg
	st, err := openStore(cfg.StorePath)
	if err != nil {
		return err
	}
	_, _, assigned, err := st.bounds()
	if err != nil {
		st.close()
		return fmt.Errorf("read relay store %s: %w", cfg.StorePath, err)
	}
	r.store = st
	r.writer = newWriter(st, r.fan, r.m, cfg, assigned)
	if err := r.startForwarders(); err != nil {
		r.writer.conns.close()
		st.close()
		return fmt.Errorf("relay store %s: %w", cfg.StorePath, err)
	}
	go r.writer.run()
	r.be = &boltBackend{st: st, w: r.writer}
	return nil
}

// refuse answers a request the guard turned away, counting refused
// webhooks by reason.
func (r *Relay) refuse(w http.ResponseWriter, req *http.Request, status int, reason, detail string) {
	if req.Method == http.MethodPost && req.URL.Path == r.cfg.Path {
		r.m.received.Add(1)
		r.rejectLogged(w, req, status, reason, detail)
		return
	}
	writeProblem(w, status, reason, detail)
}

// Warnings lists what an operator must know at start, to print loudly.
func (r *Relay) Warnings() []string {
	var w []string
	if r.verifier == nil {
		w = append(w, "webhook signature verification is OFF: anyone who can reach "+r.cfg.Path+" can inject events; give the relay the service's key: --verify-key FILE (PEM public key), --jwks-url URL or --jku-allow URL")
	}
	if r.cfg.Token == "" && r.cfg.ReaderAllowed == nil {
		w = append(w, "no relay token: any local process can read events on /ws and /events; set a token to require Authorization: Bearer")
	}
	if r.cfg.RetainCount == 0 && r.cfg.RetainAge == 0 && r.cfg.NATS == nil {
		w = append(w, "event retention is unlimited: the store at "+r.cfg.StorePath+" grows without bound; set a retention count or age")
	}
	return w
}

// Serve serves on ln until ctx is done, then shuts down gracefully:
// in-flight webhooks are answered and websocket clients get a close frame
// (1001) so they resume elsewhere or later.
func (r *Relay) Serve(ctx context.Context, ln net.Listener) error {
	if r.cfg.Token == "" && r.cfg.ReaderAllowed == nil && !isLoopbackAddr(ln.Addr()) {
		return fmt.Errorf("listener %s is reachable beyond this machine: set a relay token or listen on 127.0.0.1", ln.Addr())
	}
	if r.writer != nil {
		// The writer holds a group commit open for webhooks waiting
		// unread on these connections.
		ln = r.writer.conns.listener(ln)
	}
	closing := make(chan struct{})
	srv := r.httpServer()
	conns := graceful.Track(srv) // a client's unused spare connection does not hold the stop
	srv.BaseContext = func(net.Listener) context.Context {
		return context.WithValue(context.Background(), closingKey{}, (<-chan struct{})(closing))
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		close(closing)
		return fmt.Errorf("relay server on %s: %w", ln.Addr(), err)
	case <-ctx.Done():
	}
	close(closing)
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := conns.Shutdown(sctx)
	if serr := <-errc; serr != nil && !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	if err != nil {
		return fmt.Errorf("relay shutdown: %w", err)
	}
	return nil
}

// httpServer is the relay's server with every timeout set, so a client
// that sends slowly, reads slowly or idles cannot hold a connection (and
// its goroutine) for ever. Websockets are hijacked and keep their own
// deadlines (ws.go).
func (r *Relay) httpServer() *http.Server {
	return &http.Server{
		Handler:           r.handler,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(r.cfg.Logger.Handler(), slog.LevelDebug),
	}
}

// Close closes websocket clients, stops the writer (pending webhooks get
// 503) and the forwarder, and closes the store. It is safe to call twice.
func (r *Relay) Close() error {
	r.closeOnce.Do(func() {
		r.fan.Shutdown()
		for _, f := range r.forwarders {
			f.stop()
		}
		r.closeErr = r.be.close()
	})
	return r.closeErr
}

// Addr-independent authorisation of the reading endpoints (/ws, /events,
// /metrics): the bearer token when one is set; without a token, only
// requests addressed to a loopback host name, which shuts out DNS
// rebinding pages.
func (r *Relay) allowRead(w http.ResponseWriter, req *http.Request) bool {
	if r.cfg.Token == "" && r.cfg.ReaderAllowed == nil {
		host := req.Host
		if h, _, err := net.SplitHostPort(host); err == nil {
			host = h
		}
		if !isLoopbackHost(strings.Trim(host, "[]")) {
			writeProblem(w, http.StatusForbidden, "host_not_allowed",
				"without a relay token only loopback host names (127.0.0.1, localhost) are served; set a token to serve other names")
			return false
		}
		return true
	}
	got, ok := bearer.FromRequest(req)
	if !ok {
		// Browsers cannot set headers on a websocket, hence ?token=.
		got = req.URL.Query().Get("token")
	}
	shared := r.cfg.Token != "" && bearer.Matches(got, r.tokenHash)
	if got == "" || !shared && (r.cfg.ReaderAllowed == nil || !r.cfg.ReaderAllowed(got)) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="paydash relay"`)
		writeProblem(w, http.StatusUnauthorized, "unauthorized", "missing or wrong relay token: send Authorization: Bearer <token>")
		return false
	}
	return true
}

// writeProblem answers a refusal with its problem.Body.
func writeProblem(w http.ResponseWriter, status int, reason, detail string) {
	problem.Write(w, status, reason, detail)
}

// Receipt is the body of a 200 answer to a webhook.
type Receipt struct {
	Seq       uint64 `json:"seq"`
	Duplicate bool   `json:"duplicate,omitempty"`
}

func (r *Relay) reject(w http.ResponseWriter, status int, reason, detail string) {
	r.m.rejected[reason].Add(1)
	writeProblem(w, status, reason, detail)
}

// rejectLogged rejects and, with -v, logs the refusal.
func (r *Relay) rejectLogged(w http.ResponseWriter, req *http.Request, status int, reason, detail string) {
	r.reject(w, status, reason, detail)
	if r.log.Enabled(req.Context(), slog.LevelDebug) {
		r.log.Debug("webhook rejected", "status", status, "reason", reason, "detail", detail, "remote", req.RemoteAddr)
	}
}

// admitted is a delivery that passed admit: to be stored, or (dup) a
// byte-identical redelivery of a stored event, answered without storing.
type admitted struct {
	e   Event
	seq uint64 // the stored seq, when dup
	dup bool   // byte-identical redelivery: answered without verifying
}

func (r *Relay) handleWebhook(w http.ResponseWriter, req *http.Request) {
	received := r.cfg.Clock.Now()
	r.m.received.Add(1)
	// The interface promises no Content-Type on deliveries, so a webhook
	// whose signature verifies is taken whatever it declares. Where
	// nothing is verified (no key configured), a body not declared JSON is
	// refused: a browser sends text/plain or form bodies cross-origin
	// without asking first, and JSON never arrives that way.
	if err := requireJSON(req); err != nil && r.verifier == nil {
		status, reason, detail := refusalReason(err)
		r.rejectLogged(w, req, status, reason, detail)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, req.Body, MaxBodyBytes))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			r.rejectLogged(w, req, http.StatusRequestEntityTooLarge, RejectTooLarge, fmt.Sprintf("webhook body is larger than %d bytes", MaxBodyBytes))
			return
		}
		r.rejectLogged(w, req, http.StatusBadRequest, RejectReadFailed, "could not read the webhook body: "+err.Error())
		return
	}
	// From here until it is queued (or refused) the webhook counts as
	// arriving, which lets the writer hold a group commit open for it.
	r.be.arriving(1)
	a, ok := r.admit(w, req, body, received)
	if !ok {
		r.be.arriving(-1)
		return
	}
	a.e.Path = req.URL.Path
	res := writeResult{seq: a.seq, dup: true}
	if a.dup {
		r.be.arriving(-1)
		r.m.duplicates.Add(1)
		r.m.dupUnverified.Add(1)
	} else {
		start := time.Now()
		res = r.be.submit(req.Context(), &a.e, true)
		r.m.publishSeconds.Observe(time.Since(start).Seconds())
		if res.err != nil {
			r.log.Error("webhook not stored; the sender gets 503 and retries", "event_id", a.e.EventID, "err", res.err)
			w.Header().Set("Retry-After", "1")
			r.reject(w, http.StatusServiceUnavailable, RejectStoreFailed, "the relay could not store the webhook durably; retry")
			return
		}
	}
	if r.log.Enabled(req.Context(), slog.LevelDebug) {
		msg := "webhook accepted"
		if res.dup {
			msg = "webhook duplicate"
		}
		r.log.Debug(msg, "event_id", a.e.EventID, "type", a.e.Type, "seq", res.seq, "verified", !a.dup)
	}
	// The receipt is written by hand: it is on every webhook's path.
	out := make([]byte, 0, 48)
	out = strconv.AppendUint(append(out, `{"seq":`...), res.seq, 10)
	if res.dup {
		out = append(out, `,"duplicate":true`...)
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(append(out, "}\n"...))
}

// admit parses and checks a webhook body, answering the sender itself
// when it refuses the delivery. A redelivery whose body is byte for byte
// the stored event's is a duplicate without its signature being checked:
// it changes nothing, so nothing in it is trusted. Every other delivery,
// including one reusing a stored event_id with another body, is verified.
func (r *Relay) admit(w http.ResponseWriter, req *http.Request, body []byte, received time.Time) (admitted, bool) {
	e, envelope, err := parseWebhook(body, req.Header, received)
	switch {
	case errors.Is(err, ErrNoEventID):
		r.rejectLogged(w, req, http.StatusBadRequest, RejectNoEventID, err.Error())
		return admitted{}, false
	case err != nil:
		r.rejectLogged(w, req, http.StatusBadRequest, RejectBadJSON, err.Error())
		return admitted{}, false
	}
	// The payout interface stamps its deliveries; a stamp on any delivery
	// is checked, since it is what makes a captured delivery expire.
	if envelope || req.Header.Get(api.HeaderWebhookTimestamp) != "" {
		if err := checkTimestamp(req.Header, received, r.cfg.Tolerance); err != nil {
			r.rejectLogged(w, req, http.StatusBadRequest, RejectTimestamp, err.Error())
			return admitted{}, false
		}
	}
	seq, stored, found, err := r.be.lookup(req.Context(), e.EventID)
	if err != nil {
		// Verifying and submitting still dedupes; only the shortcut is lost.
		r.log.Warn("relay cannot look up an event id; verifying the delivery", "event_id", e.EventID, "err", err)
	}
	// The unverified duplicate shortcut is only for deliveries declared
	// JSON, so that no browser-made post is ever answered unverified.
	if found && stored != nil && bytes.Equal(stored, body) && requireJSON(req) == nil {
		return admitted{e: e, seq: seq, dup: true}, true
	}
	if r.verifier != nil {
		start := time.Now()
		err := r.verifier.verify(req.Context(), req.URL.Path, req.Header, body)
		r.m.verifySeconds.Observe(time.Since(start).Seconds())
		if err != nil {
			if errors.Is(err, errKeysUnavailable) {
				r.log.Error("webhook verification keys unavailable; the sender gets 503 and retries", "err", err)
				w.Header().Set("Retry-After", "5")
				r.rejectLogged(w, req, http.StatusServiceUnavailable, RejectKeysUnavailable, err.Error())
				return admitted{}, false
			}
			r.rejectLogged(w, req, http.StatusUnauthorized, RejectSignature, "webhook signature rejected: "+err.Error())
			return admitted{}, false
		}
	}
	return admitted{e: e}, true
}

// Health is the body of GET /healthz.
type Health struct {
	Status   string `json:"status"`
	FirstSeq uint64 `json:"first_seq"`
	LastSeq  uint64 `json:"last_seq"`
}

func (r *Relay) handleHealth(w http.ResponseWriter, req *http.Request) {
	first, last, err := r.be.bounds()
	if err != nil {
		writeProblem(w, http.StatusServiceUnavailable, RejectStoreFailed, "the relay store cannot be read")
		return
	}
	writeJSON(w, http.StatusOK, Health{Status: "ok", FirstSeq: first, LastSeq: last})
}
