package webhookrelay

import (
	"github.com/paydash/paydash/api/testkey"
	"github.com/paydash/paydash/internal/platform/problem"
	"github.com/paydash/paydash/webhookrelay/relayclient"

	"bytes"
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paydash/paydash/api"
)

const testKeyID = "test-key"

func testSigningKey(t testing.TB) *ecdsa.PrivateKey { return testkey.Load(t) }

// testRelay is a relay served on a loopback port for one test.
type testRelay struct {
	*Relay
	base string // http://127.0.0.1:port
	stop func()
}

// startRelay opens a relay on cfg (StorePath defaults to a temp file) and
// serves it on 127.0.0.1; it is shut down and closed at test end.
func startRelay(t testing.TB, cfg Config) *testRelay {
	t.Helper()
	if cfg.StorePath == "" {
		cfg.StorePath = filepath.Join(t.TempDir(), "relay.db")
	}
	r, err := Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		r.Close()
		t.Fatal(err)
	}
	return serveRelay(t, r, ln)
}

func serveRelay(t testing.TB, r *Relay, ln net.Listener) *testRelay {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Serve(ctx, ln) }()
	tr := &testRelay{Relay: r, base: "http://" + ln.Addr().String()}
	var stopped bool
	tr.stop = func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
		if err := r.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		// The posts share http.DefaultClient: a kept-alive connection to
		// this relay must not be reused for a relay started next at the
		// same address (a POST on it fails with EOF and is not retried).
		http.DefaultClient.CloseIdleConnections()
	}
	t.Cleanup(tr.stop)
	return tr
}

func (tr *testRelay) wsURL() string { return "ws" + strings.TrimPrefix(tr.base, "http") + "/ws" }

// payoutWebhook is a payout-interface envelope.
func payoutWebhook(eventID, eventType, txID string, extra map[string]any) []byte {
	body := map[string]any{"transaction_id": txID}
	for k, v := range extra {
		body[k] = v
	}
	b, _ := json.Marshal(map[string]any{"event_type": eventType, "event_id": eventID, "event_body": body})
	return b
}

// paymentsWebhook is a payments-interface flat event.
func paymentsWebhook(eventID, typ, payoutID string, extra map[string]any) []byte {
	m := map[string]any{"type": typ, "event_id": eventID, "event_version": 1, "payout_id": payoutID}
	for k, v := range extra {
		m[k] = v
	}
	b, _ := json.Marshal(m)
	return b
}

func stampHeader(now time.Time) http.Header {
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set(api.HeaderWebhookTimestamp, now.UTC().Format(api.WebhookTimeLayout))
	return h
}

// sign adds X-Svc-Signature the way the sandbox does.
func sign(t testing.TB, key *ecdsa.PrivateKey, kid, path string, h http.Header, body []byte) http.Header {
	t.Helper()
	var signed []api.SignedHeader
	if ts := h.Get(api.HeaderWebhookTimestamp); ts != "" {
		signed = append(signed, api.SignedHeader{Name: api.HeaderWebhookTimestamp, Value: ts})
	}
	sig, err := api.Sign(key, kid, http.MethodPost, path, signed, body)
	if err != nil {
		t.Fatal(err)
	}
	h.Set(api.HeaderPayoutSignature, sig)
	return h
}

type response struct {
	status int
	body   []byte
}

func (r response) problem(t testing.TB) problem.Body {
	t.Helper()
	var p problem.Body
	if err := json.Unmarshal(r.body, &p); err != nil {
		t.Fatalf("response %d %q is not a problem: %v", r.status, r.body, err)
	}
	return p
}

func do(t testing.TB, client *http.Client, method, url string, h http.Header, body []byte) response {
	t.Helper()
	req, err := http.NewRequest(method, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range h {
		req.Header[k] = v
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return response{resp.StatusCode, b}
}

// post sends a webhook, as application/json unless h says otherwise.
func (tr *testRelay) post(t testing.TB, body []byte, h http.Header) response {
	t.Helper()
	if h.Get("Content-Type") == "" {
		h = h.Clone()
		if h == nil {
			h = http.Header{}
		}
		h.Set("Content-Type", "application/json")
	}
	return do(t, http.DefaultClient, http.MethodPost, tr.base+DefaultPath, h, body)
}

// history reads every stored event through GET /events.
func (tr *testRelay) history(t testing.TB, token string) []Event {
	t.Helper()
	return history(t, tr.base, token)
}

func history(t testing.TB, base, token string) []Event {
	t.Helper()
	var all []Event
	since := uint64(0)
	h := http.Header{}
	if token != "" {
		h.Set("Authorization", "Bearer "+token)
	}
	for {
		resp := do(t, http.DefaultClient, http.MethodGet, fmt.Sprintf("%s/events?since=%d&limit=1000", base, since), h, nil)
		if resp.status != http.StatusOK {
			t.Fatalf("GET /events: %d %s", resp.status, resp.body)
		}
		var page History
		if err := json.Unmarshal(resp.body, &page); err != nil {
			t.Fatal(err)
		}
		all = append(all, page.Events...)
		if page.NextSince == since || page.NextSince >= page.LastSeq {
			return all
		}
		since = page.NextSince
	}
}

// receive reads n events from s, failing after a generous timeout.
func receive(t testing.TB, s *relayclient.Subscriber, n int) []Event {
	t.Helper()
	var got []Event
	timeout := time.After(20 * time.Second)
	for len(got) < n {
		select {
		case e, ok := <-s.Events():
			if !ok {
				t.Fatalf("events closed after %d of %d", len(got), n)
			}
			got = append(got, e)
		case <-timeout:
			t.Fatalf("timed out after %d of %d events", len(got), n)
		}
	}
	return got
}

// runSubscriber starts s and stops it at test end.
func runSubscriber(t testing.TB, s *relayclient.Subscriber) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = s.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		for range s.Events() {
		}
		<-done
	})
}

// waitFor polls cond (for conditions reached by other goroutines).
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// checkExactlyOnce verifies events are in increasing seq order and hold
// each wanted id exactly once and nothing else.
func checkExactlyOnce(t testing.TB, events []Event, want []string) {
	t.Helper()
	seen := map[string]int{}
	var last uint64
	for _, e := range events {
		if e.Seq <= last {
			t.Fatalf("seq %d after %d: out of order or repeated", e.Seq, last)
		}
		last = e.Seq
		seen[e.EventID]++
	}
	for _, id := range want {
		if seen[id] != 1 {
			t.Errorf("event %s seen %d times, want once", id, seen[id])
		}
		delete(seen, id)
	}
	for id, n := range seen {
		t.Errorf("unexpected event %s seen %d times", id, n)
	}
}

func bytesReader(b []byte) io.Reader { return bytes.NewReader(b) }

// doReq sends a prepared request.
func doReq(t testing.TB, req *http.Request) response {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return response{resp.StatusCode, b}
}
