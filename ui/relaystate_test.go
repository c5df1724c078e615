package ui

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/paydash/paydash/webhookrelay"
	"github.com/paydash/paydash/webhookrelay/relayclient"
	"github.com/paydash/paydash/webhookrelay/relaytest"
)

// firstFailure runs a real Subscriber against url and returns the first
// state that carries an error: what the dashboard is handed.
func firstFailure(t *testing.T, url, token string) relayclient.ConnState {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	sub := relayclient.NewSubscriber(relayclient.SubscriberConfig{URL: url, Token: token, Since: 0})
	go func() { _ = sub.Run(ctx) }()
	for st := range sub.States() {
		if st.Err != nil {
			cancel()
			return st
		}
	}
	t.Fatalf("no failure from %s within 10s", url)
	return relayclient.ConnState{}
}

// TestHeaderSaysWhatARealRelayRefused: the header, handed the states of
// a real Subscriber, says the relay refused the token, or that the relay
// URL is not a relay, instead of "reconnecting" as for a relay that is
// down; at 80 columns the profile stays on screen.
func TestHeaderSaysWhatARealRelayRefused(t *testing.T) {
	relay := relaytest.Start(t, webhookrelay.Config{Token: "right-relay-token-0123"})
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("<html></html>")) }))
	t.Cleanup(page.Close)
	for _, tc := range []struct{ name, url, token, want string }{
		{"wrong token", relay.WSURL, "wrong-relay-token-0123", "relay: token refused (401)"},
		{"no token", relay.WSURL, "", "relay: token refused (401)"},
		{"a web page", "ws" + strings.TrimPrefix(page.URL, "http") + "/ws", "", "relay: URL is not a relay"},
		{"the webhook path", strings.TrimSuffix(relay.WSURL, "/ws") + "/webhooks", "right-relay-token-0123", "relay: URL is not a relay"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			states := make(chan relayclient.ConnState, 1)
			states <- firstFailure(t, tc.url, tc.token)
			close(states)
			h := newHarness(t, Options{Backend: newFake(10), Events: closedEvents(nil), States: states}, 80, 24)
			mustContain(t, h.view(), "paydash · profile demo", tc.want)
		})
	}
}
