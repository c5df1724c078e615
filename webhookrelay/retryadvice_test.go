package webhookrelay

import (
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/paydash/paydash/api"
)

// TestStoreDownAdviceRetryIsSafeToFollow: with its JetStream store
// unreachable, the clustered relay answers a webhook and a history read
// with 503 and "retry". Followed once the store is back (the sender
// re-posts the same webhook, the reader asks again), the webhook is
// stored, the one stored before is still there, and each is there once.
func TestStoreDownAdviceRetryIsSafeToFollow(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a NATS server")
	}
	opts := &server.Options{Host: "127.0.0.1", Port: server.RANDOM_PORT, JetStream: true, StoreDir: t.TempDir(), NoLog: true, NoSigs: true}
	var s *server.Server
	start := func() {
		t.Helper()
		var err error
		if s, err = server.NewServer(opts); err != nil {
			t.Fatal(err)
		}
		go s.Start()
		if !s.ReadyForConnections(10 * time.Second) {
			t.Fatal("NATS server not ready")
		}
	}
	start()
	t.Cleanup(func() { s.Shutdown() })
	opts.Port = s.Addr().(*net.TCPAddr).Port // the same port on restart

	tr := startRelay(t, Config{NATS: &NATSConfig{URLs: []string{s.ClientURL()}, Stream: "RETRYTEST", Replicas: 1,
		// Short waits: the store stays down longer than either.
		PublishTimeout: 2 * time.Second, ReadWait: 2 * time.Second}})
	before := paymentsWebhook("ev-before", api.EventPayoutExecuted, "po-1", nil)
	if resp := tr.post(t, before, http.Header{}); resp.status != http.StatusOK {
		t.Fatalf("first webhook: %d %s", resp.status, resp.body)
	}

	s.Shutdown()
	s.WaitForShutdown()
	during := paymentsWebhook("ev-during", api.EventPayoutExecuted, "po-2", nil)
	if resp := tr.post(t, during, http.Header{}); resp.status != http.StatusServiceUnavailable || !strings.Contains(string(resp.body), "retry") {
		t.Fatalf("a webhook with the store down: %d %s, want 503 and retry", resp.status, resp.body)
	}
	read := do(t, http.DefaultClient, http.MethodGet, tr.base+"/events?since=0", http.Header{}, nil)
	if read.status != http.StatusServiceUnavailable || !strings.Contains(string(read.body), "retry") {
		t.Fatalf("a history read with the store down: %d %s, want 503 and retry", read.status, read.body)
	}

	// Follow it: the store back, the same webhook again, the read again.
	start()
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp := tr.post(t, during, http.Header{})
		if resp.status == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the re-sent webhook still refused 30 s after the store came back: %d %s", resp.status, resp.body)
		}
		time.Sleep(200 * time.Millisecond)
	}
	checkExactlyOnce(t, tr.history(t, ""), []string{"ev-before", "ev-during"})
}
