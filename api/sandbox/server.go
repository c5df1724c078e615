package sandbox

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/paydash/paydash/internal/platform/graceful"
	"github.com/paydash/paydash/internal/platform/httpguard"
)

// shutdownGrace is how long Close lets requests in flight (a long report)
// finish before cutting them off.
const shutdownGrace = 5 * time.Second

// maxHeaderBytes caps the request line and headers: ample for a bearer
// token, a signature and a report query, and far below net/http's 1 MB.
const maxHeaderBytes = 64 << 10

// Server is a Sandbox served over HTTP on a listener of its own.
type Server struct {
	*Sandbox
	// URL is the server's base, e.g. http://127.0.0.1:8080; the auth,
	// payments and payouts interfaces all live under it.
	URL string

	srv       *http.Server
	served    chan struct{}
	closeOnce sync.Once
	closeErr  error
	conns     *graceful.Tracker
}

// Info is what a client needs to talk to a Server.
type Info struct {
	AuthURL      string `json:"auth_url"`
	BaseURL      string `json:"base_url"`
	PayoutsURL   string `json:"payouts_url"`
	JWKSURL      string `json:"jwks_url"`
	ControlURL   string `json:"control_url"`
	ClientID     string `json:"client_id"`
	ClientSecret string `json:"client_secret"`
}

// Listen builds a Sandbox and serves it on addr ("127.0.0.1:0" picks a
// free port). The server runs until Close is called or ctx is done.
func Listen(ctx context.Context, addr string, opts Options) (*Server, error) {
	sb, err := New(opts)
	if err != nil {
		return nil, err
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		sb.Close()
		return nil, fmt.Errorf("sandbox: listen on %s: %w", addr, err)
	}
	// The Host check learns the address actually bound (":0" resolved).
	g, err := httpguard.New(httpguard.Options{Listen: ln.Addr().String(), AllowedHosts: opts.AllowedHosts})
	if err != nil {
		ln.Close()
		sb.Close()
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	sb.guard.Store(g)
	t := opts.Timeouts.withDefaults()
	sb.writeIdle.Store(int64(t.Write))
	s := &Server{
		Sandbox: sb,
		URL:     "http://" + dialAddr(ln.Addr()),
		srv: &http.Server{
			Handler:           sb.Handler(),
			ReadHeaderTimeout: t.ReadHeader,
			ReadTimeout:       t.Read,
			WriteTimeout:      t.Write,
			IdleTimeout:       t.Idle,
			MaxHeaderBytes:    maxHeaderBytes,
			ErrorLog:          slog.NewLogLogger(sb.log.Handler(), slog.LevelWarn),
		},
		served: make(chan struct{}),
	}
	s.conns = graceful.Track(s.srv)
	if opts.WebhookJKU == "" {
		sb.hooks.setJKU(s.URL + "/.well-known/jwks")
	}
	go func() {
		defer close(s.served)
		if err := s.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			sb.log.Error("sandbox server stopped", "error", err)
		}
	}()
	go func() {
		select {
		case <-ctx.Done():
			_ = s.Close()
		case <-s.served:
		}
	}()
	return s, nil
}

// dialAddr turns a listening address into one a client can dial: an
// unspecified host (":8080", "0.0.0.0") becomes loopback.
func dialAddr(a net.Addr) string {
	tcp, ok := a.(*net.TCPAddr)
	if !ok {
		return a.String()
	}
	host := tcp.IP.String()
	if tcp.IP == nil || tcp.IP.IsUnspecified() {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, strconv.Itoa(tcp.Port))
}

// Info returns the URLs and credentials for a client (all three service
// URLs are this server).
func (s *Server) Info() Info {
	id, secret := s.Credentials()
	return Info{AuthURL: s.URL, BaseURL: s.URL, PayoutsURL: s.URL,
		JWKSURL: s.URL + "/.well-known/jwks", ControlURL: s.URL + "/sandbox",
		ClientID: id, ClientSecret: secret}
}

// Close shuts the HTTP server down (letting requests in flight finish for
// up to 5 s), waits for it, and closes the Sandbox. It is safe to call
// more than once.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
		defer cancel()
		// Requests in flight get shutdownGrace; a connection that sent
		// none is not waited for (see graceful).
		err := s.conns.Shutdown(ctx)
		if err != nil {
			s.closeErr = fmt.Errorf("sandbox: shutdown: %w", err)
			_ = s.srv.Close()
		}
		<-s.served
		s.Sandbox.Close()
	})
	return s.closeErr
}
