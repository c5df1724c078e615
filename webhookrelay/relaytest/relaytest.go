// Package relaytest runs a real webhook relay on loopback for tests, as
// net/http/httptest runs a real server: a test of a command that follows
// the relay gets the product's relay, not a stand-in.
package relaytest

import (
	"context"
	"net"
	"path/filepath"
	"testing"

	"github.com/paydash/paydash/webhookrelay"
)

// Relay is a running relay; it stops when the test ends.
type Relay struct {
	*webhookrelay.Relay
	// BaseURL is http://127.0.0.1:PORT; WebhookURL is where senders post;
	// WSURL is the stream a Subscriber follows.
	BaseURL, WebhookURL, WSURL string
}

// Start serves a relay on a free loopback port with its store in a
// temporary directory. cfg's Listen and StorePath are filled in when empty.
func Start(t testing.TB, cfg webhookrelay.Config) *Relay {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Listen == "" {
		cfg.Listen = ln.Addr().String()
	}
	if cfg.StorePath == "" {
		cfg.StorePath = filepath.Join(t.TempDir(), "events.db")
	}
	r, err := webhookrelay.Open(cfg)
	if err != nil {
		ln.Close()
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = r.Serve(ctx, ln) }()
	t.Cleanup(func() { cancel(); <-done; r.Close() })
	path := cfg.Path
	if path == "" {
		path = webhookrelay.DefaultPath
	}
	base := "http://" + ln.Addr().String()
	return &Relay{Relay: r, BaseURL: base, WebhookURL: base + path, WSURL: "ws://" + ln.Addr().String() + "/ws"}
}
