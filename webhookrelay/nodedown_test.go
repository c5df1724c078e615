package webhookrelay

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/nats-io/nats-server/v2/server"

	"github.com/paydash/paydash/webhookrelay/relayclient"
)

// logBuffer collects a relay's log lines for a test to read.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

func (l *logBuffer) logger() *slog.Logger { return slog.New(slog.NewTextHandler(l, nil)) }

// openWithin opens a relay on cfg and fails the test unless it is ready
// within d.
func openWithin(t *testing.T, cfg Config, d time.Duration, logs *logBuffer) *Relay {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	start := time.Now()
	r, err := OpenContext(ctx, cfg)
	if err != nil {
		t.Fatalf("relay did not start within %v (%v): %v\nits log:\n%s", d, time.Since(start).Round(time.Millisecond), err, logs)
	}
	t.Logf("relay ready in %v", time.Since(start).Round(time.Millisecond))
	return r
}

// sendUntilAcked posts d until the relay answers 2xx, as the service
// retries a webhook that was not acknowledged.
func sendUntilAcked(t *testing.T, client *http.Client, url string, d signedDelivery, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		err := send(client, url, d)
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("webhook %s not acknowledged within %v: %v", d.id, within, err)
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestClusteredRelayStartsWithANATSNodeDown: with one node of three down
// (the stream's leader, killed), a relay starts, names the node it could
// not reach, and stores and streams webhooks. With a second node down
// there is no majority: the relay keeps trying with backoff, says what it
// waits for and which nodes it cannot reach, and starts once a node is
// back, instead of failing after a fixed time.
func TestClusteredRelayStartsWithANATSNodeDown(t *testing.T) {
	if testing.Short() {
		t.Skip("starts three-node NATS clusters")
	}
	eachNATSServer(t, func(t *testing.T, nodes natsNodes) {
		key := &testSigningKey(t).PublicKey
		logs := &logBuffer{}
		cfg := func(stream string) Config {
			return Config{VerifyKey: key, Tolerance: time.Hour, Logger: logs.logger(),
				NATS: &NATSConfig{URLs: nodes.URLs(), Stream: stream, Replicas: 3}}
		}
		client := &http.Client{Timeout: 15 * time.Second}
		ds := signDeliveries(t, "nodedown", DefaultPath, 0, 4)

		first := serveRelay(t, openWithin(t, cfg("NODEDOWN"), 30*time.Second, logs), listenLoopback(t))
		sendUntilAcked(t, client, first.base+DefaultPath, ds[0], 20*time.Second)
		first.stop()

		down := streamLeaderNode(t, nodes, "NODEDOWN")
		downURL := nodes.URLs()[down]
		nodes.Kill(t, down)
		t.Logf("killed %s (%s), the stream's leader", nodes.NodeName(down), downURL)

		tr := serveRelay(t, openWithin(t, cfg("NODEDOWN"), 25*time.Second, logs), listenLoopback(t))
		t.Logf("it logged:\n%s", logs)
		if got := logs.String(); !strings.Contains(got, downURL) {
			t.Errorf("the relay's log does not name the node it could not reach (%s):\n%s", downURL, got)
		}
		for _, d := range ds[1:] {
			sendUntilAcked(t, client, tr.base+DefaultPath, d, 20*time.Second)
		}
		var ids []string
		for _, d := range ds {
			ids = append(ids, d.id)
		}
		sub := dialEvents(t, tr.wsURL(), 0)
		checkExactlyOnce(t, sub.waitFor(t, len(ds), 20*time.Second), ids)

		// A second node down leaves no majority: the relay waits, saying
		// what for and which nodes it cannot reach, and starts once a
		// node is back, however long that takes.
		second := (down + 1) % 3
		secondURL := nodes.URLs()[second]
		nodes.Kill(t, second)
		t.Logf("killed %s (%s) too", nodes.NodeName(second), secondURL)
		waitLog := &logBuffer{}
		waitCfg := cfg("NODEDOWN")
		waitCfg.Logger = waitLog.logger()
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		type opened struct {
			r   *Relay
			err error
		}
		done := make(chan opened, 1)
		go func() {
			r, err := OpenContext(ctx, waitCfg)
			done <- opened{r, err}
		}()
		// Waiting longer than a fixed set-up timeout would have allowed.
		waitedFrom := time.Now()
		for strings.Count(waitLog.String(), "waiting for JetStream") < 3 || time.Since(waitedFrom) < 8*time.Second {
			select {
			case o := <-done:
				if o.r != nil {
					o.r.Close()
				}
				t.Fatalf("with two nodes of three down the relay gave up after %v instead of waiting: %v\nits log:\n%s",
					time.Since(waitedFrom).Round(time.Millisecond), o.err, waitLog)
			case <-time.After(50 * time.Millisecond):
			}
			if time.Since(waitedFrom) > 40*time.Second {
				t.Fatalf("the relay did not say what it waits for within 40s:\n%s", waitLog)
			}
		}
		if got := waitLog.String(); !strings.Contains(got, downURL) || !strings.Contains(got, secondURL) {
			t.Errorf("the waiting relay's log should name both nodes it cannot reach (%s, %s):\n%s", downURL, secondURL, got)
		}
		nodes.Restart(t, down)
		t.Logf("restarted %s after the relay waited %v", nodes.NodeName(down), time.Since(waitedFrom).Round(time.Millisecond))
		var back *Relay
		select {
		case o := <-done:
			if o.err != nil {
				t.Fatalf("relay did not start once %s was back: %v\nits log:\n%s", nodes.NodeName(down), o.err, waitLog)
			}
			back = o.r
		case <-time.After(40 * time.Second):
			t.Fatalf("relay did not start within 40s of %s coming back:\n%s", nodes.NodeName(down), waitLog)
		}
		t.Logf("relay started after waiting %v; it logged:\n%s", time.Since(waitedFrom).Round(time.Millisecond), waitLog)
		trBack := serveRelay(t, back, listenLoopback(t))
		checkExactlyOnce(t, dialEvents(t, trBack.wsURL(), 0).waitFor(t, len(ds), 20*time.Second), ids)
	})
}

func listenLoopback(t testing.TB) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return ln
}

// rawSubscriber is one websocket connection to /ws, read by a goroutine,
// never reconnected: what it receives is what that one connection carried.
type rawSubscriber struct {
	mu     sync.Mutex
	events []Event
	// closed is why the connection ended (nil while it is open).
	closed error
	// pause, while set, stops reading (a subscriber falling behind).
	pause atomic.Bool
	conn  *websocket.Conn
}

func dialEvents(t testing.TB, wsURL string, since uint64) *rawSubscriber {
	t.Helper()
	return dialEventsWith(t, websocket.DefaultDialer, wsURL, since)
}

// dialEventsSmallBuffer connects with a 4 KiB socket receive buffer: a
// subscriber on a slow link, whose unread events pile up at the relay.
func dialEventsSmallBuffer(t testing.TB, wsURL string, since uint64) *rawSubscriber {
	t.Helper()
	d := *websocket.DefaultDialer
	d.NetDialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		if tc, ok := c.(*net.TCPConn); ok {
			_ = tc.SetReadBuffer(4 << 10)
		}
		return c, err
	}
	return dialEventsWith(t, &d, wsURL, since)
}

// smallSendBufferListener gives the next connection it accepts after
// shrinkNext is set a 8 KiB send buffer (the relay's side of a slow link).
type smallSendBufferListener struct {
	net.Listener
	shrinkNext atomic.Bool
}

func (l *smallSendBufferListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok && l.shrinkNext.CompareAndSwap(true, false) {
		_ = tc.SetWriteBuffer(8 << 10)
	}
	return c, err
}

func dialEventsWith(t testing.TB, d *websocket.Dialer, wsURL string, since uint64) *rawSubscriber {
	t.Helper()
	conn, resp, err := d.Dial(fmt.Sprintf("%s?since=%d", wsURL, since), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	s := &rawSubscriber{conn: conn}
	t.Cleanup(func() { conn.Close() })
	go func() {
		for {
			for s.pause.Load() {
				time.Sleep(5 * time.Millisecond)
			}
			_, data, err := conn.ReadMessage()
			s.mu.Lock()
			if err != nil {
				s.closed = err
				s.mu.Unlock()
				return
			}
			var e Event
			if err := json.Unmarshal(data, &e); err != nil {
				s.closed = err
				s.mu.Unlock()
				return
			}
			s.events = append(s.events, e)
			s.mu.Unlock()
		}
	}()
	return s
}

func (s *rawSubscriber) state() ([]Event, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Event(nil), s.events...), s.closed
}

// waitFor returns the events once n arrived; it fails the test if the
// connection ends first or d passes.
func (s *rawSubscriber) waitFor(t testing.TB, n int, d time.Duration) []Event {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		events, closed := s.state()
		if len(events) >= n {
			return events
		}
		if closed != nil {
			t.Fatalf("websocket ended after %d of %d events: %v", len(events), n, closed)
		}
		if time.Now().After(deadline) {
			t.Fatalf("websocket had %d of %d events after %v", len(events), n, d)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestClusteredSubscribersStreamOnWhenTheStreamLeaderDies: two relays on
// one cluster; the stream's leader node, the one relay A is connected
// to, is killed mid-load. Relay A's
// websocket subscribers, each one connection never reconnected, keep
// receiving live events: every acknowledged event arrives on every
// connection once, in order. On relay B a subscriber that stops reading
// is told it fell behind (close 4000 with the since= to resume from);
// resuming there, across the leader's death, it gets the rest with
// nothing lost or doubled.
func TestClusteredSubscribersStreamOnWhenTheStreamLeaderDies(t *testing.T) {
	if testing.Short() {
		t.Skip("starts three-node NATS clusters")
	}
	eachNATSServer(t, func(t *testing.T, nodes natsNodes) {
		const stream = "LEADERDIES"
		logs := &logBuffer{}
		cfg := Config{VerifyKey: &testSigningKey(t).PublicKey, Tolerance: time.Hour, Logger: logs.logger(),
			NATS: &NATSConfig{URLs: nodes.URLs(), Stream: stream, Replicas: 3}}
		// Relay B keeps at most 8 events queued per subscriber, and its
		// paused subscriber's socket buffers are small: it falls behind
		// after a few events.
		cfgB := cfg
		cfgB.ClientQueue = 8
		lnB := &smallSendBufferListener{Listener: listenLoopback(t)}
		b := serveRelay(t, openWithin(t, cfgB, 30*time.Second, logs), lnB)
		// Relay A is given the leader's URL alone, so its connection is
		// to the node that dies (it learns the others from the cluster
		// and reconnects to one): the case where its live feed stalled.
		leader := streamLeaderNode(t, nodes, stream)
		cfgA := cfg
		cfgA.NATS = &NATSConfig{URLs: []string{nodes.URLs()[leader]}, Stream: stream, Replicas: 3}
		a := serveRelay(t, openWithin(t, cfgA, 30*time.Second, logs), listenLoopback(t))
		t.Cleanup(func() {
			if t.Failed() {
				t.Logf("relays' log:\n%s", logs)
			}
		})

		n := 150
		if raceEnabled {
			n = 90
		}
		// Events of 4 KiB, so what the paused subscriber does not read
		// soon outgrows its socket buffers.
		pad := strings.Repeat("x", 4<<10)
		ds := signDeliveriesOf(t, "leader", DefaultPath, 0, int64(n), func(run string, i int64) []byte {
			return fmt.Appendf(nil, `{"event_type":"payout_settled","event_id":"%s-%09d","event_body":{"transaction_id":"3f2a9c1e-5b7d-4e8f-9a0b-%012d","note":"%s"}}`, run, i, i, pad)
		})
		ids := make([]string, n)
		for i, d := range ds {
			ids[i] = d.id
		}
		subs := make([]*rawSubscriber, 4)
		for i := range subs {
			subs[i] = dialEvents(t, a.wsURL(), 0)
		}
		lnB.shrinkNext.Store(true)
		slow := dialEventsSmallBuffer(t, b.wsURL(), 0)
		slow.pause.Store(true)
		waitFor(t, "subscribers to connect", func() bool { return a.Metrics().Clients == int64(len(subs)) && b.Metrics().Clients == 1 })
		// The paused subscriber reads again once relay B gave up on it,
		// well within the relay's write timeout, and resumes from where
		// the close says.
		resumedCh := make(chan *relayclient.Subscriber, 1)
		var slowSeen []Event
		var slowClose *websocket.CloseError
		go func() {
			defer close(resumedCh)
			for b.Metrics().SlowConsumerCloses == 0 {
				time.Sleep(5 * time.Millisecond)
			}
			slow.pause.Store(false)
			deadline := time.Now().Add(20 * time.Second)
			var closed error
			for closed == nil && time.Now().Before(deadline) {
				time.Sleep(5 * time.Millisecond)
				slowSeen, closed = slow.state()
			}
			if !errors.As(closed, &slowClose) || slowClose.Code != CloseSlowConsumer || !strings.Contains(slowClose.Text, "resume with since=") {
				t.Errorf("paused subscriber's connection ended with %v, want close %d saying where to resume", closed, CloseSlowConsumer)
				return
			}
			var since uint64
			if _, err := fmt.Sscanf(slowClose.Text[strings.Index(slowClose.Text, "since=")+len("since="):], "%d", &since); err != nil {
				t.Errorf("close reason %q: %v", slowClose.Text, err)
				return
			}
			if len(slowSeen) > 0 && slowSeen[len(slowSeen)-1].Seq != since {
				t.Errorf("told to resume with since=%d, but its last event was seq %d", since, slowSeen[len(slowSeen)-1].Seq)
			}
			// Resumed as relayclient does: again from its last seq
			// whenever told it fell behind.
			sub := relayclient.NewSubscriber(relayclient.SubscriberConfig{URL: b.wsURL(), Since: since, MinBackoff: 20 * time.Millisecond, MaxBackoff: 200 * time.Millisecond, Buffer: n})
			runSubscriber(t, sub)
			resumedCh <- sub
		}()

		client := &http.Client{Timeout: 15 * time.Second}
		var (
			acked    atomic.Int64
			killOnce sync.Once
			killed   = make(chan struct{})
			wg       sync.WaitGroup
			next     atomic.Int64
		)
		start := time.Now()
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := next.Add(1) - 1; i < int64(n); i = next.Add(1) - 1 {
					sendUntilAcked(t, client, a.base+DefaultPath, ds[i], 30*time.Second)
					if acked.Add(1) == int64(n/3) {
						killOnce.Do(func() {
							t.Logf("killing %s, the stream's leader, after %d acknowledged", nodes.NodeName(leader), acked.Load())
							nodes.Kill(t, leader)
							close(killed)
						})
					}
					// A steady stream, so events keep arriving through
					// the election rather than all before it.
					time.Sleep(10 * time.Millisecond)
				}
			}()
		}
		wg.Wait()
		<-killed
		t.Logf("%d events acknowledged in %v", acked.Load(), time.Since(start).Round(time.Millisecond))
		if t.Failed() {
			t.FailNow()
		}
		for i, s := range subs {
			got := s.waitFor(t, n, 30*time.Second)
			t.Logf("relay A subscriber %d: %d events on one connection", i, len(got))
			checkExactlyOnce(t, got, ids)
		}
		resumed := <-resumedCh
		if resumed == nil {
			t.FailNow()
		}
		t.Logf("relay B's paused subscriber: %d events, then %q", len(slowSeen), slowClose.Text)
		rest := receive(t, resumed, n-len(slowSeen))
		checkExactlyOnce(t, append(slowSeen, rest...), ids)
		t.Logf("live feed restarted by the watchdog: relay A %d times, relay B %d times",
			a.be.(*natsBackend).restarts.Load(), b.be.(*natsBackend).restarts.Load())
	})
}

// TestClusteredRelayRefusesAtOnceWhatWaitingCannotFix: waiting is for a
// cluster short of nodes; a setting the cluster refuses as such (three
// replicas asked of a single server) fails the start at once, saying why.
func TestClusteredRelayRefusesAtOnceWhatWaitingCannotFix(t *testing.T) {
	s, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: server.RANDOM_PORT, JetStream: true, StoreDir: t.TempDir(), NoLog: true, NoSigs: true})
	if err != nil {
		t.Fatal(err)
	}
	go s.Start()
	t.Cleanup(s.Shutdown)
	if !s.ReadyForConnections(10 * time.Second) {
		t.Fatal("NATS server not ready")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	start := time.Now()
	r, err := OpenContext(ctx, Config{NATS: &NATSConfig{URLs: []string{s.ClientURL()}, Replicas: 3}})
	if err == nil {
		r.Close()
		t.Fatal("a relay asking a single server for three replicas started")
	}
	if took := time.Since(start); took > 10*time.Second || !strings.Contains(err.Error(), "replicas") {
		t.Errorf("after %v: %v; want a prompt error about the replicas", took.Round(time.Millisecond), err)
	}
}
