package webhookrelay

import (
	"bytes"
	"crypto/ecdsa"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/platform/clock"
)

// TestByteIdenticalRedeliveryIsADuplicateWithoutVerifying: the service
// redelivers the same bytes; that changes nothing, so it is answered from
// the store without a signature check. Anything else naming a stored
// event_id is verified first.
func TestByteIdenticalRedeliveryIsADuplicateWithoutVerifying(t *testing.T) {
	key := testSigningKey(t)
	tr := startRelay(t, Config{VerifyKey: &key.PublicKey})
	body := payoutWebhook("rd-1", api.EventPayoutSettled, "tx-1", nil)
	if resp := tr.post(t, body, sign(t, key, testKeyID, DefaultPath, stampHeader(time.Now()), body)); resp.status != 200 || string(resp.body) != "{\"seq\":1}\n" {
		t.Fatalf("first delivery: %d %s", resp.status, resp.body)
	}
	verifies := func() uint64 {
		return uint64(metricValue(t, tr, "paydash_relay_verify_seconds", nil))
	}
	if verifies() != 1 {
		t.Fatalf("verify histogram count %d after one delivery", verifies())
	}
	garbage := stampHeader(time.Now())
	garbage.Set(api.HeaderPayoutSignature, "not-a-signature")
	if resp := tr.post(t, body, garbage); resp.status != 200 || string(resp.body) != "{\"seq\":1,\"duplicate\":true}\n" {
		t.Fatalf("byte-identical redelivery: %d %s, want a duplicate of seq 1", resp.status, resp.body)
	}
	if verifies() != 1 {
		t.Errorf("the byte-identical redelivery was verified (%d verifications)", verifies())
	}
	// Same event_id, other bytes: verified, so a forgery is refused...
	forged := payoutWebhook("rd-1", api.EventPayoutRejected, "tx-1", nil)
	if resp := tr.post(t, forged, garbage); resp.status != http.StatusUnauthorized {
		t.Errorf("changed body under a stored event_id with a bad signature: %d %s, want 401", resp.status, resp.body)
	}
	// ...and a genuine one is a verified duplicate.
	reworded := append(bytes.Clone(body[:len(body)-1]), ` }`...)
	if resp := tr.post(t, reworded, sign(t, key, testKeyID, DefaultPath, stampHeader(time.Now()), reworded)); resp.status != 200 || !strings.Contains(string(resp.body), `"duplicate":true`) {
		t.Errorf("signed redelivery with other bytes: %d %s", resp.status, resp.body)
	}
	if verifies() != 3 {
		t.Errorf("%d verifications, want 3 (first, forged, reworded)", verifies())
	}
	m := tr.Metrics()
	if m.Stored != 1 || m.Duplicates != 2 || m.DuplicatesUnverified != 1 {
		t.Errorf("stored %d duplicates %d unverified %d, want 1, 2, 1", m.Stored, m.Duplicates, m.DuplicatesUnverified)
	}
	checkExactlyOnce(t, tr.history(t, ""), []string{"rd-1"})
}

// metricValue scrapes /metrics, parses it as the Prometheus text format,
// and returns the named sample (a histogram's count) with labels.
func metricValue(t testing.TB, tr *testRelay, name string, labels map[string]string) float64 {
	t.Helper()
	resp, err := http.Get(tr.base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
		t.Fatalf("/metrics Content-Type %q, want the text format", ct)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("/metrics is not Prometheus text: %v", err)
	}
	f, ok := families[name]
	if !ok {
		t.Fatalf("/metrics has no %s", name)
	}
next:
	for _, m := range f.GetMetric() {
		for k, v := range labels {
			found := false
			for _, lp := range m.GetLabel() {
				found = found || (lp.GetName() == k && lp.GetValue() == v)
			}
			if !found {
				continue next
			}
		}
		switch {
		case m.Counter != nil:
			return m.GetCounter().GetValue()
		case m.Gauge != nil:
			return m.GetGauge().GetValue()
		case m.Histogram != nil:
			return float64(m.GetHistogram().GetSampleCount())
		}
	}
	t.Fatalf("/metrics has no %s with %v", name, labels)
	return 0
}

func TestMetricsArePrometheusText(t *testing.T) {
	key := testSigningKey(t)
	tr := startRelay(t, Config{VerifyKey: &key.PublicKey})
	body := payoutWebhook("m-1", api.EventPayoutSettled, "tx", nil)
	tr.post(t, body, sign(t, key, testKeyID, DefaultPath, stampHeader(time.Now()), body))
	tr.post(t, body, stampHeader(time.Now()))                                                    // duplicate, unverified
	tr.post(t, payoutWebhook("m-2", api.EventPayoutSettled, "tx", nil), stampHeader(time.Now())) // unsigned
	for _, c := range []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"paydash_relay_webhooks_received_total", nil, 3},
		{"paydash_relay_events_stored_total", nil, 1},
		{"paydash_relay_duplicates_total", nil, 1},
		{"paydash_relay_rejected_total", map[string]string{"reason": RejectSignature}, 1},
		{"paydash_relay_rejected_total", map[string]string{"reason": RejectBadJSON}, 0},
		{"paydash_relay_verify_seconds", nil, 2},
		{"paydash_relay_publish_seconds", nil, 1},
		{"paydash_relay_subscribers", nil, 0},
		{"paydash_relay_slow_client_disconnects_total", nil, 0},
	} {
		if got := metricValue(t, tr, c.name, c.labels); got != c.want {
			t.Errorf("%s%v = %v, want %v", c.name, c.labels, got, c.want)
		}
	}
	if metricValue(t, tr, "process_cpu_seconds_total", nil) <= 0 {
		t.Error("process_cpu_seconds_total missing: CPU per event cannot be read")
	}
}

// TestJKUIsFollowedOnlyWhenAllowed: the service names its JWKS in each
// signature's jku. The relay fetches keys from an allowed jku (cached,
// refetched on an unknown kid at most once per interval) and refuses a
// signature naming any other jku without fetching it.
func TestJKUIsFollowedOnlyWhenAllowed(t *testing.T) {
	key := testSigningKey(t)
	jwksServer := func(pub *ecdsa.PublicKey, kid string) (*httptest.Server, *atomic.Int64) {
		var n atomic.Int64
		set, _ := api.PublicJWKS(pub, kid)
		s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			n.Add(1)
			_, _ = w.Write(set)
		}))
		t.Cleanup(s.Close)
		return s, &n
	}
	allowed, allowedFetches := jwksServer(&key.PublicKey, "svc-1")
	attacker, _ := api.GenerateSigningKey()
	foreign, foreignFetches := jwksServer(&attacker.PublicKey, "svc-1")
	clk := clock.NewFake(time.Now())
	tr := startRelay(t, Config{JKUAllow: []string{allowed.URL + "/jwks"}, Clock: clk})
	deliver := func(k *ecdsa.PrivateKey, kid, jku, id string) response {
		body := payoutWebhook(id, api.EventPayoutSettled, "tx", nil)
		h := stampHeader(clk.Now())
		sig, err := api.SignJKU(k, kid, jku, http.MethodPost, DefaultPath, []api.SignedHeader{{Name: api.HeaderWebhookTimestamp, Value: h.Get(api.HeaderWebhookTimestamp)}}, body)
		if err != nil {
			t.Fatal(err)
		}
		h.Set(api.HeaderPayoutSignature, sig)
		return tr.post(t, body, h)
	}
	if r := deliver(key, "svc-1", allowed.URL+"/jwks", "j-1"); r.status != 200 {
		t.Fatalf("allowed jku: %d %s", r.status, r.body)
	}
	if r := deliver(key, "svc-1", allowed.URL+"/jwks", "j-2"); r.status != 200 || allowedFetches.Load() != 1 {
		t.Errorf("cached jku: %d, %d fetches, want 200 and 1", r.status, allowedFetches.Load())
	}
	r := deliver(attacker, "svc-1", foreign.URL+"/jwks", "j-3")
	if r.status != http.StatusUnauthorized || !strings.Contains(string(r.body), "not an allowed") || foreignFetches.Load() != 0 {
		t.Errorf("foreign jku: %d %s, %d fetches of it; want 401 and none", r.status, r.body, foreignFetches.Load())
	}
	// An unknown kid refetches the allowed set at most once per interval:
	// not right after the last fetch, once after the interval.
	for i := range 3 {
		if r := deliver(attacker, "rotated", allowed.URL+"/jwks", fmt.Sprintf("k-%d", i)); r.status != http.StatusUnauthorized {
			t.Errorf("unknown kid: %d", r.status)
		}
	}
	if n := allowedFetches.Load(); n != 1 {
		t.Errorf("%d fetches after three unknown kids within the interval, want 1", n)
	}
	clk.Advance(jwksMinRefetch)
	deliver(attacker, "rotated", allowed.URL+"/jwks", "k-8")
	deliver(attacker, "rotated", allowed.URL+"/jwks", "k-9")
	if n := allowedFetches.Load(); n != 2 {
		t.Errorf("%d fetches after the interval, want 2", n)
	}
	checkExactlyOnce(t, tr.history(t, ""), []string{"j-1", "j-2"})
}

// TestVerboseLogsEveryWebhook: with -v (debug level) each webhook gets a
// line saying accepted, duplicate or rejected with the reason.
func TestVerboseLogsEveryWebhook(t *testing.T) {
	var (
		mu  sync.Mutex
		buf bytes.Buffer
	)
	logger := slog.New(slog.NewTextHandler(lockedWriter{&mu, &buf}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	tr := startRelay(t, Config{Logger: logger})
	body := paymentsWebhook("log-1", api.EventPayoutExecuted, "po", nil)
	tr.post(t, body, http.Header{})
	tr.post(t, body, http.Header{})
	tr.post(t, []byte(`{"no":"id"}`), http.Header{})
	mu.Lock()
	out := buf.String()
	mu.Unlock()
	for _, want := range []string{
		`msg="webhook accepted" event_id=log-1`,
		`msg="webhook duplicate" event_id=log-1`,
		`msg="webhook rejected" status=400 reason=no_event_id`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %q:\n%s", want, out)
		}
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	b  *bytes.Buffer
}

func (w lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}
