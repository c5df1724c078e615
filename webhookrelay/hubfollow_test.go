package webhookrelay_test

import (
	"context"
	"net"
	"path/filepath"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/api/sandbox"
	"github.com/paydash/paydash/internal/payout"
	"github.com/paydash/paydash/internal/platform/natstest"
	"github.com/paydash/paydash/webhookrelay"
	"github.com/paydash/paydash/webhookrelay/hub"
)

// The relay's in-process feed is what the hub's follower reads.
var _ payout.EventSource = webhookrelay.LocalFeed{}

// TestTheHubFollowsItsPayoutsInProcess: the team hub's pipeline, pointed
// at the relay's LocalFeed as `paydash relay --users` points it
// (serve/team.go), follows each payout it sends to its final state while
// the relay's listener carries nothing but the service's webhooks: no
// health probe, no history read, no websocket. A rejected payout never
// enters the report, so its state and reason come from the relay's store.
func TestTheHubFollowsItsPayoutsInProcess(t *testing.T) {
	t.Run("bbolt", func(t *testing.T) {
		testHubFollows(t, webhookrelay.Config{StorePath: filepath.Join(t.TempDir(), "relay.db")})
	})
	t.Run("jetstream", func(t *testing.T) {
		if testing.Short() {
			t.Skip("starts a three-node NATS cluster")
		}
		cluster := natstest.StartCluster(t, 3)
		testHubFollows(t, webhookrelay.Config{NATS: &webhookrelay.NATSConfig{URLs: cluster.ClientURLs(), Stream: "HUBFOLLOW", Replicas: 3}})
	})
}

func testHubFollows(t *testing.T, cfg webhookrelay.Config) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r, err := webhookrelay.OpenContext(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		r.Close()
		t.Fatal(err)
	}
	heard := &requestLines{Listener: ln}
	served := make(chan error, 1)
	go func() { served <- r.Serve(ctx, heard) }()
	defer func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("Serve: %v", err)
		}
		r.Close()
	}()

	key, err := api.GenerateSigningKey()
	if err != nil {
		t.Fatal(err)
	}
	sb, err := sandbox.Listen(ctx, "127.0.0.1:0", sandbox.Options{MerchantKey: &key.PublicKey, MerchantKeyID: "k1",
		InitialFunds: map[string]int64{"GBP": 1_000_000_00}, History: 0, WebhookURI: "http://" + ln.Addr().String() + webhookrelay.DefaultPath})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	info := sb.Info()
	svc, err := api.NewClient(api.Config{AuthURL: info.AuthURL, BaseURL: info.BaseURL, PayoutsURL: info.PayoutsURL,
		ClientID: info.ClientID, ClientSecret: info.ClientSecret, SigningKeyID: "k1", SigningKey: key})
	if err != nil {
		t.Fatal(err)
	}
	audit, err := payout.Open(filepath.Join(t.TempDir(), "audit.jsonl"), "hub", nil)
	if err != nil {
		t.Fatal(err)
	}
	pp := hub.NewPayoutPipeline(svc, audit)
	pp.P.Relay = r.LocalFeed()
	pp.FollowFor = 30 * time.Second
	type final struct{ id, state, reason string }
	finals := make(chan final, 4)
	pp.SetFinalHook(func(id, state, reason string) { finals <- final{id, state, reason} })
	defer pp.Wait()

	for _, c := range []struct {
		name  string
		want  string
		why   string
		iban  string
		whose string
	}{
		{"AML Test Ltd", api.StateRejected, sandbox.RejectAMLCheckFailed, "GB33BUKB20201555555555", "rejected: from the relay alone"},
		{"Payee Ltd", api.StateSettled, "", "GB94BARC10201530093459", "settled"},
	} {
		req := &api.PayoutRequest{TransactionID: uuid.NewString(), BeneficiaryName: c.name, BeneficiaryIBAN: c.iban,
			BeneficiaryReference: "FOLLOW-1", Currency: "GBP", AmountInMinor: 12_34, ContextCode: api.ContextCodeWithdrawal}
		out, err := pp.Send(ctx, req, false)
		if err != nil || out.Class != hub.Accepted {
			t.Fatalf("%s: %+v %v", c.whose, out, err)
		}
		select {
		case f := <-finals:
			if f != (final{req.TransactionID, c.want, c.why}) {
				t.Fatalf("%s: followed to %+v, want %s %q", c.whose, f, c.want, c.why)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("%s: never followed to its final state", c.whose)
		}
	}
	lines := heard.lines()
	if len(lines) == 0 {
		t.Fatal("the relay heard no webhook: the test proves nothing")
	}
	for _, l := range lines {
		if l != "POST "+webhookrelay.DefaultPath {
			t.Errorf("the relay's listener heard %q: only the service's webhooks should reach it (%q)", l, lines)
		}
	}
}

// requestLines is a listener that keeps what it read on each of its
// connections, to tell which requests reached it.
type requestLines struct {
	net.Listener
	mu    sync.Mutex
	conns []*heardConn
}

func (l *requestLines) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	hc := &heardConn{Conn: c, l: l}
	l.mu.Lock()
	l.conns = append(l.conns, hc)
	l.mu.Unlock()
	return hc, nil
}

// requestLine matches a request line, also one that follows a body on a
// kept-alive connection (bodies end without a newline).
var requestLine = regexp.MustCompile(`([A-Z]+) (/\S*) HTTP/1\.1\r\n`)

// lines are the request lines read, "METHOD path" each, and "(none)"
// for a connection that sent none.
func (l *requestLines) lines() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, c := range l.conns {
		ms := requestLine.FindAllSubmatch(c.read, -1)
		if len(ms) == 0 {
			out = append(out, "(none)")
		}
		for _, m := range ms {
			out = append(out, string(m[1])+" "+string(m[2]))
		}
	}
	return out
}

type heardConn struct {
	net.Conn
	l    *requestLines
	read []byte
}

func (c *heardConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.l.mu.Lock()
	c.read = append(c.read, p[:n]...)
	c.l.mu.Unlock()
	return n, err
}
