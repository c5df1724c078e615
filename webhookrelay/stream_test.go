package webhookrelay

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/webhookrelay/relayclient"
)

func postN(t testing.TB, tr *testRelay, prefix string, from, to int, bodySize int) []string {
	t.Helper()
	pad := strings.Repeat("p", bodySize)
	var ids []string
	for i := from; i < to; i++ {
		id := fmt.Sprintf("%s-%04d", prefix, i)
		body := paymentsWebhook(id, api.EventPayoutExecuted, "po-"+id, map[string]any{"pad": pad})
		if resp := tr.post(t, body, http.Header{}); resp.status != http.StatusOK {
			t.Fatalf("post %s: %d %s", id, resp.status, resp.body)
		}
		ids = append(ids, id)
	}
	return ids
}

func TestStreamSendsBacklogThenLiveWithoutGapOrRepeat(t *testing.T) {
	tr := startRelay(t, Config{})
	ids := postN(t, tr, "ev", 0, 5, 0)

	sub := relayclient.NewSubscriber(relayclient.SubscriberConfig{URL: tr.wsURL(), Since: 2})
	runSubscriber(t, sub)
	// Live events race with the backlog on purpose.
	done := make(chan []string)
	go func() { done <- postN(t, tr, "ev", 5, 40, 0) }()
	live := <-done
	got := receive(t, sub, 3+len(live))
	checkExactlyOnce(t, got, append(ids[2:], live...))
	if got[0].Seq != 3 {
		t.Errorf("first event has seq %d, want 3 (since=2)", got[0].Seq)
	}
	select {
	case e := <-sub.Events():
		t.Errorf("extra event %+v", e)
	case <-time.After(50 * time.Millisecond):
	}
}

func TestStreamTypeFilter(t *testing.T) {
	tr := startRelay(t, Config{})
	postN(t, tr, "exec", 0, 3, 0)
	fail := paymentsWebhook("fail-1", api.EventPaymentsPayoutFailed, "po", map[string]any{"failure_reason": "returned"})
	if resp := tr.post(t, fail, http.Header{}); resp.status != http.StatusOK {
		t.Fatal(resp.status)
	}
	sub := relayclient.NewSubscriber(relayclient.SubscriberConfig{URL: tr.wsURL(), Types: []string{api.EventPaymentsPayoutFailed}})
	runSubscriber(t, sub)
	got := receive(t, sub, 1)
	if got[0].EventID != "fail-1" || got[0].Reason != "returned" {
		t.Errorf("got %+v, want fail-1 with reason", got[0])
	}
	postN(t, tr, "exec", 3, 5, 0)
	fail2 := paymentsWebhook("fail-2", api.EventPaymentsPayoutFailed, "po", nil)
	if resp := tr.post(t, fail2, http.Header{}); resp.status != http.StatusOK {
		t.Fatal(resp.status)
	}
	if got := receive(t, sub, 1); got[0].EventID != "fail-2" {
		t.Errorf("got %s, want fail-2", got[0].EventID)
	}
}

// smallBuffers shrinks the kernel socket buffers of accepted connections
// so a client that stops reading backs up into the relay's queue after a
// few events instead of after megabytes.
type smallBuffers struct{ net.Listener }

func (l smallBuffers) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetWriteBuffer(4 << 10)
	}
	return c, err
}

func smallReadBuffer(network, address string, c syscall.RawConn) error {
	var serr error
	err := c.Control(func(fd uintptr) {
		serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4<<10)
	})
	if err != nil {
		return err
	}
	return serr
}

func TestSlowClientIsClosedAndResumesWithNothingLost(t *testing.T) {
	r, err := Open(Config{StorePath: filepath.Join(t.TempDir(), "relay.db"), ClientQueue: 4})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	tr := serveRelay(t, r, smallBuffers{ln})

	sub := relayclient.NewSubscriber(relayclient.SubscriberConfig{URL: tr.wsURL(), Buffer: 1, MinBackoff: 10 * time.Millisecond, MaxBackoff: 50 * time.Millisecond,
		Dialer: &websocket.Dialer{NetDialContext: (&net.Dialer{Control: smallReadBuffer}).DialContext, ReadBufferSize: 1024, HandshakeTimeout: 10 * time.Second}})
	runSubscriber(t, sub)
	waitFor(t, "the subscriber to connect", func() bool { return tr.Metrics().Clients == 1 })

	// Nobody reads sub.Events() while the relay takes events, so the
	// client's queue overflows.
	var ids []string
	for i := 0; tr.Metrics().SlowConsumerCloses == 0; i += 10 {
		if i >= 2000 {
			t.Fatal("the relay never closed the stalled client")
		}
		ids = append(ids, postN(t, tr, "ev", i, i+10, 2048)...)
	}
	var sawReason bool
	var got []Event
	timeout := time.After(20 * time.Second)
	for len(got) < len(ids) {
		select {
		case e := <-sub.Events():
			got = append(got, e)
		case st := <-sub.States():
			if st.Err != nil && strings.Contains(st.Err.Error(), "slow consumer: queue full, resume with since=") {
				sawReason = true
			}
		case <-timeout:
			t.Fatalf("got %d of %d events", len(got), len(ids))
		}
	}
	checkExactlyOnce(t, got, ids)
	if !sawReason {
		t.Error("the subscriber never reported the slow-consumer close reason")
	}
}

func TestSubscriberResumesAcrossRelayRestart(t *testing.T) {
	store := filepath.Join(t.TempDir(), "relay.db")
	tr1 := startRelay(t, Config{StorePath: store})
	addr := strings.TrimPrefix(tr1.base, "http://")
	sub := relayclient.NewSubscriber(relayclient.SubscriberConfig{URL: tr1.wsURL(), MinBackoff: 20 * time.Millisecond, MaxBackoff: 100 * time.Millisecond})
	runSubscriber(t, sub)
	before := postN(t, tr1, "a", 0, 10, 0)
	got := receive(t, sub, 10)
	tr1.stop()

	waitFor(t, "the subscriber to notice", func() bool {
		select {
		case st := <-sub.States():
			return st.Status == relayclient.StateReconnecting
		default:
			return false
		}
	})
	// Same store, same address, new process state.
	tr2 := startRelayAt(t, addr, Config{StorePath: store})
	after := postN(t, tr2, "b", 0, 10, 0)
	got = append(got, receive(t, sub, 10)...)
	checkExactlyOnce(t, got, append(before, after...))
	if got[10].Seq != 11 {
		t.Errorf("seq after restart = %d, want 11 (numbering continues)", got[10].Seq)
	}
}

func TestStreamSecurity(t *testing.T) {
	tr := startRelay(t, Config{Token: "s3cret", MaxClients: 1, AllowedOrigins: []string{"https://dash.example"}})
	dial := func(h http.Header, query string) (*websocket.Conn, int) {
		c, resp, err := websocket.DefaultDialer.Dial(tr.wsURL()+query, h)
		if err != nil {
			if resp == nil {
				t.Fatal(err)
			}
			return nil, resp.StatusCode
		}
		return c, http.StatusSwitchingProtocols
	}
	bearer := http.Header{"Authorization": {"Bearer s3cret"}}
	with := func(k, v string) http.Header { h := bearer.Clone(); h.Set(k, v); return h }
	cases := []struct {
		name   string
		header http.Header
		query  string
		want   int
	}{
		{"no token", nil, "", http.StatusUnauthorized},
		{"wrong token", http.Header{"Authorization": {"Bearer s3cre"}}, "", http.StatusUnauthorized},
		{"wrong scheme", http.Header{"Authorization": {"Basic s3cret"}}, "", http.StatusUnauthorized},
		{"token in query", nil, "?token=s3cret", http.StatusSwitchingProtocols},
		{"foreign origin", with("Origin", "https://evil.example"), "", http.StatusForbidden},
		{"same loopback origin", with("Origin", "http://"+strings.TrimPrefix(tr.base, "http://")), "", http.StatusSwitchingProtocols},
		{"allowed origin", with("Origin", "https://dash.example"), "", http.StatusSwitchingProtocols},
		{"bad since", bearer, "?since=-1", http.StatusBadRequest},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, status := dial(tc.header, tc.query)
			if status != tc.want {
				t.Fatalf("status %d, want %d", status, tc.want)
			}
			if c != nil {
				c.Close()
				waitFor(t, "the relay to drop the client", func() bool { return tr.Metrics().Clients == 0 })
			}
		})
	}
	t.Run("client limit", func(t *testing.T) {
		c, status := dial(bearer, "")
		if status != http.StatusSwitchingProtocols {
			t.Fatal(status)
		}
		defer c.Close()
		if _, status := dial(bearer, ""); status != http.StatusServiceUnavailable {
			t.Errorf("second client: status %d, want 503", status)
		}
	})
	for _, path := range []string{"/events", "/metrics"} {
		if resp := do(t, http.DefaultClient, http.MethodGet, tr.base+path, nil, nil); resp.status != http.StatusUnauthorized {
			t.Errorf("GET %s without token: %d, want 401", path, resp.status)
		}
		if resp := do(t, http.DefaultClient, http.MethodGet, tr.base+path, bearer, nil); resp.status != http.StatusOK {
			t.Errorf("GET %s with token: %d, want 200", path, resp.status)
		}
	}
}

func TestWithoutTokenOnlyLoopbackHostNamesAreServed(t *testing.T) {
	tr := startRelay(t, Config{})
	for host, want := range map[string]int{"": http.StatusOK, "localhost:8787": http.StatusOK, "evil.example:8787": http.StatusMisdirectedRequest} {
		req, _ := http.NewRequest(http.MethodGet, tr.base+"/events", nil)
		if host != "" {
			req.Host = host
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("Host %q: %d, want %d", host, resp.StatusCode, want)
		}
	}
}

func TestOpenRefusesUnsafeConfig(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name string
		cfg  Config
		want string
	}{
		{"non-loopback without token", Config{Listen: "0.0.0.0:8787"}, "set a token"},
		{"all interfaces without token", Config{Listen: ":8787"}, "set a token"},
		{"relative path", Config{Path: "hooks"}, "must start with /"},
		{"path clashes", Config{Path: "/ws"}, "clashes"},
		{"bad forward URL", Config{ForwardURL: "localhost:9000"}, "absolute http(s) URL"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.StorePath = filepath.Join(dir, "r.db")
			r, err := Open(tc.cfg)
			if err == nil {
				r.Close()
				t.Fatal("Open accepted the config")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not say %q", err, tc.want)
			}
		})
	}
	r, err := Open(Config{Listen: "0.0.0.0:8787", Token: "t", StorePath: filepath.Join(dir, "ok.db")})
	if err != nil {
		t.Fatalf("non-loopback with token: %v", err)
	}
	defer r.Close()
	if _, err := Open(Config{StorePath: filepath.Join(dir, "ok.db")}); err == nil || !strings.Contains(err.Error(), "in use by another relay") {
		t.Errorf("second relay on the same store: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	r2, err := Open(Config{StorePath: filepath.Join(dir, "loop.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	if w := strings.Join(r2.Warnings(), "\n"); !strings.Contains(w, "signature verification is OFF") {
		t.Errorf("warnings %q do not mention verification", w)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := r2.Serve(ctx, ln); err != nil {
		t.Errorf("Serve on loopback: %v", err)
	}
}

func TestStreamCarriesBodiesByteForByte(t *testing.T) {
	tr := startRelay(t, Config{})
	sub := relayclient.NewSubscriber(relayclient.SubscriberConfig{URL: tr.wsURL()})
	runSubscriber(t, sub)
	var want [][]byte
	// Sizes straddle the websocket frame-length encodings (125, 65535).
	for i, n := range []int{0, 60, 200, 70000} {
		body := []byte(fmt.Sprintf("{\n  \"type\": \"payout_executed\",\n  \"event_id\": \"b%d\",\n  \"pad\": %q\n}", i, strings.Repeat("é", n/2)))
		if resp := tr.post(t, body, http.Header{}); resp.status != http.StatusOK {
			t.Fatalf("%d bytes: %d %s", len(body), resp.status, resp.body)
		}
		want = append(want, body)
	}
	live := receive(t, sub, len(want))
	// A second subscriber gets the same from the store (the backlog path).
	late := relayclient.NewSubscriber(relayclient.SubscriberConfig{URL: tr.wsURL()})
	runSubscriber(t, late)
	backlog := receive(t, late, len(want))
	for i := range want {
		for name, got := range map[string]Event{"live": live[i], "backlog": backlog[i]} {
			if string(got.Body) != string(want[i]) {
				t.Errorf("%s event %d: body %d bytes, want the %d bytes sent", name, i, len(got.Body), len(want[i]))
			}
		}
	}
}

func TestSubscriberReportsConnectionStates(t *testing.T) {
	tr := startRelay(t, Config{})
	sub := relayclient.NewSubscriber(relayclient.SubscriberConfig{URL: tr.wsURL(), MinBackoff: 50 * time.Millisecond, MaxBackoff: 100 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- sub.Run(ctx) }()
	next := func(want string) relayclient.ConnState {
		t.Helper()
		timeout := time.After(10 * time.Second)
		for {
			select {
			case st := <-sub.States():
				if st.Status == want {
					return st
				}
			case <-timeout:
				t.Fatalf("never reported %s", want)
			}
		}
	}
	next(relayclient.StateLive)
	postN(t, tr, "s", 0, 1, 0)
	receive(t, sub, 1)
	tr.stop()
	st := next(relayclient.StateReconnecting)
	if st.RetryIn <= 0 || st.RetryIn > 100*time.Millisecond || st.Err == nil || st.LastSeq != 1 {
		t.Errorf("reconnecting state %+v: want RetryIn in (0, 100ms], an error and LastSeq 1", st)
	}
	cancel()
	for range sub.Events() {
	}
	if err := <-done; err != nil {
		t.Errorf("Run returned %v after cancel", err)
	}
	var last relayclient.ConnState
	for st := range sub.States() {
		last = st
	}
	if last.Status != relayclient.StateOffline {
		t.Errorf("final state %q, want offline", last.Status)
	}
}

func TestSubscriberStartsOverWhenTheRelayStoreIsReplaced(t *testing.T) {
	addr, sub := subscribedThenStopped(t, 5)

	tr2 := startRelayAt(t, addr, Config{StorePath: filepath.Join(t.TempDir(), "fresh.db")})
	fresh := postN(t, tr2, "new", 0, 2, 0)
	got := receive(t, sub, 2)
	checkExactlyOnce(t, got, fresh)
}

// TestSubscriberReplaysAReplacedStoreThatCaughtUp: the relay comes back
// on a new store that already holds more events than the subscriber had
// seen (the walkthrough's lost payout: a few webhooks arrive while the
// subscriber backs off). Its seq alone cannot tell; the store id can, and
// every event of the new store is delivered, once, in order.
func TestSubscriberReplaysAReplacedStoreThatCaughtUp(t *testing.T) {
	addr, sub := subscribedThenStopped(t, 3)

	// The new store fills up elsewhere first, past seq 3.
	fresh := filepath.Join(t.TempDir(), "fresh.db")
	elsewhere := startRelay(t, Config{StorePath: fresh})
	ids := postN(t, elsewhere, "new", 0, 6, 0)
	elsewhere.stop()

	startRelayAt(t, addr, Config{StorePath: fresh})
	got := receive(t, sub, 6)
	checkExactlyOnce(t, got, ids)
	if got[0].Seq != 1 {
		t.Fatalf("the subscriber resumed at seq %d of the new store, want 1", got[0].Seq)
	}
}

// subscribedThenStopped runs a relay, a subscriber that has seen its
// first n events, then stops the relay: the subscriber keeps trying its
// address, which is returned.
func subscribedThenStopped(t *testing.T, n int) (string, *relayclient.Subscriber) {
	t.Helper()
	tr := startRelay(t, Config{})
	sub := relayclient.NewSubscriber(relayclient.SubscriberConfig{URL: tr.wsURL(), MinBackoff: 20 * time.Millisecond, MaxBackoff: 50 * time.Millisecond})
	runSubscriber(t, sub)
	postN(t, tr, "old", 0, n, 0)
	receive(t, sub, n)
	tr.stop()
	return strings.TrimPrefix(tr.base, "http://"), sub
}

// startRelayAt serves a relay on a given loopback address (that of a
// stopped relay, so subscribers find it where they were).
func startRelayAt(t *testing.T, addr string, cfg Config) *testRelay {
	t.Helper()
	r, err := Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		r.Close()
		t.Fatal(err)
	}
	return serveRelay(t, r, ln)
}

// TestSubscriberSaysWhatRetentionDropped: resuming after seq 1 from a
// relay whose retention kept only the last three of six events, the
// subscriber gets seq 4-6 and says that 2-3 are gone (a silent jump
// looked like nothing had happened).
func TestSubscriberSaysWhatRetentionDropped(t *testing.T) {
	tr := startRelay(t, Config{RetainCount: 3})
	postN(t, tr, "ret", 0, 6, 0)
	waitFor(t, "retention down to three events", func() bool {
		first, _, err := tr.be.bounds()
		return err == nil && first == 4
	})
	sub := relayclient.NewSubscriber(relayclient.SubscriberConfig{URL: tr.wsURL(), Since: 1, MinBackoff: 20 * time.Millisecond, MaxBackoff: 50 * time.Millisecond})
	runSubscriber(t, sub)
	got := receive(t, sub, 3)
	if got[0].Seq != 4 {
		t.Fatalf("first event seq %d, want 4", got[0].Seq)
	}
	deadline := time.After(10 * time.Second)
	for {
		select {
		case st := <-sub.States():
			if st.Missed == [2]uint64{2, 3} {
				return
			}
		case <-deadline:
			t.Fatal("the subscriber never said events 2-3 were dropped")
		}
	}
}
