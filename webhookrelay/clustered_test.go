package webhookrelay

import (
	"context"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paydash/paydash/webhookrelay/relayclient"
)

// startKillableRelay serves a relay whose kill closes its listener and
// every connection at once (no graceful shutdown) and then the relay.
func startKillableRelay(t *testing.T, cfg Config) (*testRelay, func()) {
	t.Helper()
	r, err := Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := r.httpServer()
	go func() { _ = srv.Serve(ln) }()
	var once sync.Once
	kill := func() {
		once.Do(func() {
			srv.Close()
			r.Close()
		})
	}
	t.Cleanup(kill)
	return &testRelay{Relay: r, base: "http://" + ln.Addr().String()}, kill
}

// TestClusteredRelaysLoseNothingWhenARelayAndTheStreamLeaderDie runs two
// relay instances on one three-node JetStream cluster. A sender spreads
// signed webhooks across both, sends every tenth to both at once, and
// retries whatever is not acknowledged on the other relay. A third of the
// way through, relay A is killed (connections cut) and the stream's leader
// node is shut down. Every event must end up acknowledged and stored
// exactly once; a subscriber on relay B sees each once, in order; and a
// subscriber that was on relay A resumes on B from its last seq and sees
// the rest, each once, in order.
func TestClusteredRelaysLoseNothingWhenARelayAndTheStreamLeaderDie(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a three-node NATS cluster")
	}
	cluster := startNATSCluster(t, 3)
	key := &testSigningKey(t).PublicKey
	const stream = "RELAYTEST"
	cfg := func() Config {
		return Config{VerifyKey: key, Tolerance: time.Hour,
			NATS: &NATSConfig{URLs: cluster.ClientURLs(), Stream: stream, Replicas: 3}}
	}
	a, killA := startKillableRelay(t, cfg())
	b := startRelay(t, cfg())

	n := int64(240)
	if raceEnabled {
		n = 90
	}
	ds := signDeliveries(t, "cl", DefaultPath, 0, n)
	ids := make([]string, n)
	for i, d := range ds {
		ids[i] = d.id
	}

	subB := relayclient.NewSubscriber(relayclient.SubscriberConfig{URL: b.wsURL(), MinBackoff: 20 * time.Millisecond, MaxBackoff: 200 * time.Millisecond, Buffer: int(n)})
	runSubscriber(t, subB)
	subA := relayclient.NewSubscriber(relayclient.SubscriberConfig{URL: a.wsURL(), MinBackoff: 20 * time.Millisecond, MaxBackoff: 200 * time.Millisecond, Buffer: int(n)})
	ctxA, cancelA := context.WithCancel(context.Background())
	defer cancelA()
	runADone := make(chan struct{})
	go func() { defer close(runADone); _ = subA.Run(ctxA) }()
	var seenA []Event
	readADone := make(chan struct{})
	go func() {
		defer close(readADone)
		for e := range subA.Events() {
			seenA = append(seenA, e)
		}
	}()
	waitFor(t, "both subscribers to connect", func() bool { return a.Metrics().Clients == 1 && b.Metrics().Clients == 1 })

	var (
		acked    atomic.Int64
		killed   = make(chan struct{})
		killOnce sync.Once
		aDead    atomic.Bool
	)
	kill := func() {
		killOnce.Do(func() {
			killA()
			aDead.Store(true)
			if leader := cluster.StreamLeader(stream); leader != nil {
				t.Logf("killing relay A and stream leader %s after %d acknowledged", leader.Name(), acked.Load())
				leader.Shutdown()
			} else {
				t.Error("no stream leader to kill")
			}
			close(killed)
		})
	}
	client := &http.Client{Timeout: 15 * time.Second}
	deliver := func(i int) bool {
		d := ds[i]
		targets := []string{a.base, b.base}
		if i%2 == 1 {
			targets = []string{b.base, a.base}
		}
		if i%10 == 0 {
			// Both at once: each verifies and publishes; JetStream keeps one.
			var wg sync.WaitGroup
			var ok atomic.Bool
			for _, base := range targets {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if send(client, base+DefaultPath, d) == nil {
						ok.Store(true)
					}
				}()
			}
			wg.Wait()
			if ok.Load() {
				return true
			}
		}
		// Otherwise the first target, then the other, until acknowledged,
		// as the service retries a webhook that was not answered 2xx.
		deadline := time.Now().Add(30 * time.Second)
		for attempt := 0; time.Now().Before(deadline); attempt++ {
			base := targets[attempt%2]
			if aDead.Load() && base == a.base {
				continue
			}
			if send(client, base+DefaultPath, d) == nil {
				return true
			}
			time.Sleep(20 * time.Millisecond)
		}
		return false
	}
	work := make(chan int)
	var wg sync.WaitGroup
	var failed atomic.Int64
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				if !deliver(i) {
					failed.Add(1)
					continue
				}
				if acked.Add(1) == n/3 {
					go kill()
				}
			}
		}()
	}
	start := time.Now()
	for i := range ds {
		work <- i
	}
	close(work)
	wg.Wait()
	<-killed
	t.Logf("%d events acknowledged in %v", acked.Load(), time.Since(start).Round(time.Millisecond))
	if f := failed.Load(); f > 0 {
		t.Fatalf("%d events never acknowledged", f)
	}

	// Every acknowledged event is in the stream exactly once, in one order
	// that any instance serves.
	checkExactlyOnce(t, b.history(t, ""), ids)
	checkExactlyOnce(t, receive(t, subB, int(n)), ids)

	// The subscriber that was on A resumes on B from the last seq it saw.
	cancelA()
	<-runADone
	<-readADone
	resumed := relayclient.NewSubscriber(relayclient.SubscriberConfig{URL: b.wsURL(), Since: subA.LastSeq(), MinBackoff: 20 * time.Millisecond, Buffer: int(n)})
	runSubscriber(t, resumed)
	rest := receive(t, resumed, int(n)-len(seenA))
	t.Logf("subscriber on A saw %d before the kill, %d after resuming on B", len(seenA), len(rest))
	checkExactlyOnce(t, append(seenA, rest...), ids)

	// A byte-identical redelivery is found through the stream's subject
	// index and answered duplicate without a signature check; a changed
	// body under the same event_id is verified (and refused unsigned).
	redo := ds[n-1]
	redo.header = redo.header.Clone()
	redo.header.Set("X-Svc-Signature", "not-a-signature")
	before := b.Metrics().DuplicatesUnverified
	if err := send(client, b.base+DefaultPath, redo); err != nil {
		t.Errorf("byte-identical redelivery in clustered mode: %v", err)
	}
	if got := b.Metrics().DuplicatesUnverified; got != before+1 {
		t.Errorf("unverified duplicates %d, want %d", got, before+1)
	}
	redo.body = append(redo.body[:len(redo.body):len(redo.body)], ' ')
	if err := send(client, b.base+DefaultPath, redo); err == nil || !strings.Contains(err.Error(), "401") {
		t.Errorf("changed body with a bad signature in clustered mode: %v, want HTTP 401", err)
	}
	checkExactlyOnce(t, b.history(t, ""), ids)
}
