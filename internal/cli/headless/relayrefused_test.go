package headless

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/cli/cmdutil"
	"github.com/paydash/paydash/internal/platform/freeport"
	"github.com/paydash/paydash/webhookrelay"
	"github.com/paydash/paydash/webhookrelay/relaytest"
)

// notRelays are servers a relay URL can point at by mistake, each on
// loopback, with the relay URL that reaches them: each answers, but not
// as a paydash relay.
func notRelays(t *testing.T) map[string]string {
	t.Helper()
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte("<html>a web page</html>"))
	}))
	t.Cleanup(page.Close)
	notFound := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(notFound.Close)
	tlsOnly := httptest.NewTLSServer(http.NotFoundHandler())
	t.Cleanup(tlsOnly.Close)
	// A websocket that speaks something else than relay events.
	up := websocket.Upgrader{}
	otherWS := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/healthz" {
			_, _ = w.Write([]byte(`{"status":"ok","first_seq":0,"last_seq":0}`))
			return
		}
		c, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer c.Close()
		_ = c.WriteMessage(websocket.TextMessage, []byte("hello, I am a chat server"))
		time.Sleep(time.Second)
	}))
	t.Cleanup(otherWS.Close)
	// A server that is not HTTP at all (a NATS port, say).
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_, _ = c.Write([]byte("INFO {\"server_id\":\"x\"}\r\n"))
			time.AfterFunc(time.Second, func() { c.Close() })
		}
	}()
	relay := relaytest.Start(t, webhookrelay.Config{})
	return map[string]string{
		"a web page":                     "ws" + strings.TrimPrefix(page.URL, "http") + "/ws",
		"a server answering 404":         "ws" + strings.TrimPrefix(notFound.URL, "http") + "/ws",
		"ws:// to a TLS server":          "ws" + strings.TrimPrefix(tlsOnly.URL, "https") + "/ws",
		"wss:// to a plain relay":        "wss" + strings.TrimPrefix(relay.WSURL, "ws"),
		"a websocket sending other text": "ws" + strings.TrimPrefix(otherWS.URL, "http") + "/ws",
		"a server that is not HTTP":      "ws://" + ln.Addr().String() + "/ws",
		"the relay's webhook path":       strings.TrimSuffix(relay.WSURL, "/ws") + webhookrelay.DefaultPath,
	}
}

// tailBounded runs `events tail` and returns its error and stderr, or
// fails if it has not stopped within 10 s.
func tailBounded(t *testing.T, url, token, since string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var errb syncBuffer
	s := &cmdutil.Streams{In: strings.NewReader(""), Out: &syncBuffer{}, Err: &errb}
	done := make(chan error, 1)
	go func() { done <- Tail(ctx, s, url, token, &TailOptions{Since: since}) }()
	select {
	case err := <-done:
		return errb.String(), err
	case <-time.After(10 * time.Second):
		t.Fatalf("events tail %s still waiting after 10s; stderr:\n%s", url, errb.String())
		return "", nil
	}
}

// TestTailStopsWhenTheRelayRefusesTheToken: `events tail` given a token
// the relay refuses (or none, where one is needed) exits non-zero at
// once, saying the relay refused the token, from --since now and 0 alike.
func TestTailStopsWhenTheRelayRefusesTheToken(t *testing.T) {
	relay := relaytest.Start(t, webhookrelay.Config{Token: "right-relay-token-0123"})
	for _, token := range []string{"wrong-relay-token-0123", ""} {
		for _, since := range []string{"now", "0"} {
			stderr, err := tailBounded(t, relay.WSURL, token, since)
			if cmdutil.ExitCode(err) != cmdutil.ExitFailure || !strings.Contains(err.Error(), "refused the token") {
				t.Errorf("token %q, --since %s: %v (exit %d), want exit 1 saying the token was refused\nstderr:\n%s", token, since, err, cmdutil.ExitCode(err), stderr)
			}
		}
	}
}

// TestTailStopsWhenTheURLIsNotARelay: a relay URL that answers in another
// protocol (a page, a 404, TLS or plain spoken the wrong way round, a
// websocket of another service, a port that is not HTTP, the relay's own
// webhook path) makes `events tail` exit non-zero at once, saying it is
// not a relay; a relay that is only down is still waited for.
func TestTailStopsWhenTheURLIsNotARelay(t *testing.T) {
	for name, url := range notRelays(t) {
		t.Run(name, func(t *testing.T) {
			for _, since := range []string{"now", "0"} {
				stderr, err := tailBounded(t, url, "", since)
				if cmdutil.ExitCode(err) == 0 {
					t.Errorf("--since %s: %v (exit 0), want a non-zero exit\nstderr:\n%s", since, err, stderr)
				}
				if since == "0" && !strings.Contains(err.Error(), "relay") {
					t.Errorf("--since %s: %v does not say what is wrong", since, err)
				}
			}
		})
	}
	down := "ws://" + freeport.Addr(t) + "/ws" // nothing listens there
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	s := &cmdutil.Streams{In: strings.NewReader(""), Out: &syncBuffer{}, Err: &syncBuffer{}}
	start := time.Now()
	if err := Tail(ctx, s, down, "", &TailOptions{Since: "0"}); err != nil || time.Since(start) < time.Second {
		t.Errorf("a relay that is down: %v after %v, want a wait until stopped", err, time.Since(start))
	}
}

// TestWaitSaysTheRelayURLIsNotARelay: `payout create --wait` whose relay
// URL is not a relay says so and follows the payout through the report.
func TestWaitSaysTheRelayURLIsNotARelay(t *testing.T) {
	e := startCreateEnv(t, 1_000_000, nil)
	urls := notRelays(t)
	for i, name := range []string{"a web page", "a server answering 404", "a websocket sending other text"} {
		o := newPayout("NOTRELAY-"+string(rune('A'+i)), "1.11")
		o.Yes, o.Wait, o.ContextCode = true, 30*time.Second, api.ContextCodeWithdrawal
		s, _, errb := testStreams("")
		start := time.Now()
		err := CreatePayout(context.Background(), s, e.client, Target{Profile: "test", Audit: e.audit, RelayURL: urls[name]}, &o)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !strings.Contains(errb.String(), "not a paydash relay") || !strings.Contains(errb.String(), "state from the service report") || time.Since(start) > 20*time.Second {
			t.Errorf("%s: stderr does not say the relay URL is not a relay, or the report was not followed:\n%s", name, errb)
		}
	}
}
