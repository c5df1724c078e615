package webhookrelay

import (
	"crypto/ecdsa"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/paydash/paydash/internal/platform/clock"
)

// Defaults applied by Open to zero Config fields.
const (
	DefaultListen      = "127.0.0.1:8787"
	DefaultPath        = "/webhooks"
	DefaultTolerance   = 5 * time.Minute
	DefaultMaxClients  = 64
	DefaultClientQueue = 1024
	// MaxBodyBytes is the largest webhook body accepted (413 beyond).
	MaxBodyBytes = 1 << 20
)

// Config configures a Relay. Zero fields take the defaults above.
type Config struct {
	// Listen is the host:port the relay command binds (default 127.0.0.1:8787).
	Listen string
	// Path is where webhooks are POSTed (default /webhooks).
	Path string
	// StorePath is the bbolt file; its directory is created 0700 and the
	// file 0600.
	StorePath string
	// Token is the bearer token /ws, /events and /metrics require. It is
	// required when Listen is not a loopback address. Webhooks themselves
	// are authenticated by their signature, not by this token.
	Token string
	// Tolerance is how far X-Svc-Webhook-Timestamp may be from now, either
	// way (default 5m).
	Tolerance time.Duration
	// VerifyKey verifies X-Svc-Signature with api.Verify. If neither it nor
	// JWKSURL is set, signatures are not checked (see Warnings).
	VerifyKey *ecdsa.PublicKey
	// JWKSURL is fetched for verification keys; the set is cached and
	// refetched (rate limited) when a signature names an unknown kid.
	JWKSURL string
	// ForwardURL, when set, receives every new event re-posted with its
	// original headers and body.
	ForwardURL string
	// Routes forward events by type, each to its own URL (first match
	// wins); ForwardURL, if also set, is a catch-all after them.
	Routes []Route
	// RetainCount keeps at most this many events (0 = unlimited).
	RetainCount int
	// RetainAge drops events received longer ago than this (0 = unlimited).
	RetainAge time.Duration
	// MaxClients caps concurrent websocket clients (default 64).
	MaxClients int
	// ClientQueue is each websocket client's bounded queue (default 1024).
	ClientQueue int
	// DedupeWindow is how long an event_id stays a duplicate, even after
	// retention dropped the event's body (default 72h, the service's retry
	// window).
	DedupeWindow time.Duration
	// JKUAllow lists the JWKS URLs a signature's jku header may name; the
	// relay fetches keys from a jku only when it is listed, and refuses
	// signatures naming any other jku.
	//
	// An entry matches a jku that is the same URL spelled otherwise (case,
	// trailing dot, default port, IDN, escapes of plain characters); keys
	// are fetched from the entry itself, with no proxy and no redirect,
	// from the addresses its host name had at the first fetch (see jku.go).
	JKUAllow []string
	// Resolver looks up the host names of JKUAllow and JWKSURL (default
	// net.DefaultResolver).
	Resolver Resolver
	// NATS, when set, keeps events in a NATS JetStream stream shared by
	// every relay instance configured alike (clustered mode) instead of the
	// bbolt file at StorePath.
	NATS *NATSConfig
	// AllowedOrigins lists browser Origins ("https://host:port", or "*")
	// allowed on /ws besides the relay's own host. Requests without an
	// Origin header (non-browser clients) are always allowed.
	AllowedOrigins []string
	// AllowedHosts are host names accepted in the Host header besides
	// loopback names and the listen address: the public name of a tunnel
	// or load balancer in front of the relay.
	AllowedHosts []string
	// Mounts serves more handlers on the relay's listener, behind the
	// same Host and Origin guard: a ServeMux pattern ("/hub/") to its
	// handler. Team mode mounts its hub here; its requests never touch
	// the event store.
	Mounts map[string]http.Handler
	// ReaderAllowed, when set, accepts more bearer tokens than Token on
	// the reading endpoints (/ws, /events, /metrics): team mode's users.
	// A relay with it always requires a token, even on loopback.
	ReaderAllowed func(token string) bool
	// WriterAllowed, beside ReaderAllowed, says which bearer tokens may
	// write what every reader then sees: a resend's answer reported into
	// the attempt log (POST /events/{id}/resends). Team mode gives it its
	// users holding the request role; the relay's shared token and
	// view-only users read and never write. Nil with ReaderAllowed set:
	// nobody writes. Without ReaderAllowed the relay's one token writes,
	// as it reads.
	WriterAllowed func(token string) bool
	Clock         clock.Clock
	Logger        *slog.Logger

	// jwksTimeout bounds one key set fetch (default jwksFetchTimeout);
	// tests shorten it.
	jwksTimeout time.Duration
}

// withDefaults returns cfg with zero fields defaulted, or an error saying
// which setting is wrong and how to fix it.
func (cfg Config) withDefaults() (Config, error) {
	if cfg.Listen == "" {
		cfg.Listen = DefaultListen
	}
	if cfg.Path == "" {
		cfg.Path = DefaultPath
	}
	if !strings.HasPrefix(cfg.Path, "/") {
		return cfg, fmt.Errorf("webhook path %q must start with /", cfg.Path)
	}
	switch cfg.Path {
	case "/ws", "/events", "/healthz", "/metrics":
		return cfg, fmt.Errorf("webhook path %q clashes with the relay's own endpoint; choose another, e.g. /webhooks", cfg.Path)
	}
	for m := range cfg.Mounts {
		if strings.HasPrefix(cfg.Path, strings.TrimSuffix(m, "/")+"/") || cfg.Path == strings.TrimSuffix(m, "/") {
			return cfg, fmt.Errorf("webhook path %q clashes with %s, served beside the relay; choose another, e.g. /webhooks", cfg.Path, m)
		}
	}
	if cfg.StorePath == "" && cfg.NATS == nil {
		return cfg, errors.New("relay store path is empty: give a file path for the event store")
	}
	if cfg.DedupeWindow < 0 {
		return cfg, errors.New("dedupe window must not be negative")
	}
	if cfg.DedupeWindow == 0 {
		cfg.DedupeWindow = DefaultDedupeWindow
	}
	for _, u := range cfg.JKUAllow {
		if _, err := canonicalJKU(u); err != nil {
			return cfg, fmt.Errorf("allowed jku %q %s: give the absolute http(s) URL of the key set, like https://keys.example.com/jwks", u, err.Error())
		}
	}
	if cfg.JWKSURL != "" {
		if _, err := canonicalJKU(cfg.JWKSURL); err != nil {
			return cfg, fmt.Errorf("JWKS URL %q %s: give the absolute http(s) URL of the key set, like https://keys.example.com/jwks", cfg.JWKSURL, err.Error())
		}
	}
	if cfg.NATS != nil {
		n, err := cfg.NATS.withDefaults()
		if err != nil {
			return cfg, err
		}
		cfg.NATS = &n
		if cfg.ForwardURL != "" {
			return cfg, errors.New("forwarding (--forward-to) is not available in clustered mode (--nats): run one relay with a bbolt store to forward")
		}
	}
	if cfg.Tolerance <= 0 {
		cfg.Tolerance = DefaultTolerance
	}
	if cfg.MaxClients <= 0 {
		cfg.MaxClients = DefaultMaxClients
	}
	if cfg.ClientQueue <= 0 {
		cfg.ClientQueue = DefaultClientQueue
	}
	if cfg.RetainCount < 0 || cfg.RetainAge < 0 {
		return cfg, errors.New("retention count and age must not be negative (0 means unlimited)")
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.Real()
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	for _, u := range []struct{ name, v string }{{"JWKS URL", cfg.JWKSURL}, {"forward URL", cfg.ForwardURL}} {
		if u.v == "" {
			continue
		}
		p, err := url.Parse(u.v)
		if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
			return cfg, fmt.Errorf("%s %q must be an absolute http(s) URL", u.name, u.v)
		}
	}
	if _, err := effectiveRoutes(cfg); err != nil {
		return cfg, err
	}
	if cfg.VerifyKey != nil && cfg.JWKSURL != "" {
		return cfg, errors.New("give either a verification key or a JWKS URL, not both")
	}
	host, _, err := net.SplitHostPort(cfg.Listen)
	if err != nil {
		return cfg, fmt.Errorf("listen address %q: want host:port, e.g. 127.0.0.1:8787: %w", cfg.Listen, err)
	}
	if !isLoopbackHost(host) && cfg.Token == "" && cfg.ReaderAllowed == nil {
		return cfg, fmt.Errorf("listen address %q is reachable beyond this machine: set a token (clients then send Authorization: Bearer <token>) or listen on 127.0.0.1", cfg.Listen)
	}
	return cfg, nil
}

// isLoopbackHost reports whether host (from host:port) only accepts
// connections from this machine. An empty host or 0.0.0.0 means "every
// interface", which is not loopback.
func isLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// isLoopbackAddr reports whether a listener's address is loopback.
func isLoopbackAddr(a net.Addr) bool {
	if tcp, ok := a.(*net.TCPAddr); ok {
		return tcp.IP.IsLoopback()
	}
	host, _, err := net.SplitHostPort(a.String())
	return err == nil && isLoopbackHost(host)
}
