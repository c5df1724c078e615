package serve

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/paydash/paydash/internal/cli/cmdutil"
)

// TestRelayClusteredStartsWithANATSServerDown: `paydash relay --nats`
// given a server that is down among its --nats list starts, names that
// server on stderr, and stores and serves webhooks through the others.
// (webhookrelay's TestClusteredRelayStartsWithANATSNodeDown does the same
// with three-node clusters, in process and as nats-server processes.)
func TestRelayClusteredStartsWithANATSServerDown(t *testing.T) {
	s, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: server.RANDOM_PORT, JetStream: true, StoreDir: t.TempDir(), NoLog: true, NoSigs: true})
	if err != nil {
		t.Fatal(err)
	}
	go s.Start()
	t.Cleanup(s.Shutdown)
	if !s.ReadyForConnections(10 * time.Second) {
		t.Fatal("NATS server not ready")
	}
	down := "nats://" + freeAddr(t)
	start := time.Now()
	run, err := startRelay(t, &cmdutil.Global{}, nil, "--listen", "127.0.0.1:0", "--nats", down+","+s.ClientURL(), "--nats-replicas", "1")
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("relay took %v to start with one server down", took.Round(time.Millisecond))
	}
	if got := run.log(); !strings.Contains(got, "unreachable") || !strings.Contains(got, down) {
		t.Errorf("stderr does not name the server it could not reach (%s):\n%s", down, got)
	}
	resp, err := http.Post(run.info.WebhookURL, "application/json", strings.NewReader(`{"type":"payout_executed","event_id":"down-1"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("webhook answered %d, want 200", resp.StatusCode)
	}
	resp, err = http.Get(run.info.EventsURL)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), `"down-1"`) {
		t.Errorf("/events does not hold the webhook: %s", body)
	}
}
