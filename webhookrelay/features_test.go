package webhookrelay

import (
	"crypto/ecdsa"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/platform/clock"
)

func TestHistoryFiltersAndPages(t *testing.T) {
	tr := startRelay(t, Config{})
	for i, typ := range []string{api.EventPayoutExecuted, api.EventPaymentsPayoutFailed, api.EventPayoutExecuted, api.EventPayoutExecuted} {
		body := paymentsWebhook(fmt.Sprintf("e%d", i+1), typ, fmt.Sprintf("po-%d", i%2), nil)
		if resp := tr.post(t, body, http.Header{}); resp.status != http.StatusOK {
			t.Fatal(resp.status)
		}
	}
	cases := []struct {
		query    string
		wantIDs  string
		wantNext uint64
	}{
		{"", "e1 e2 e3 e4", 4},
		{"?since=2", "e3 e4", 4},
		{"?limit=2", "e1 e2", 2},
		{"?since=1&limit=1", "e2", 2},
		{"?type=payout_failed", "e2", 4},
		{"?payout_id=po-0", "e1 e3", 4},
		{"?payout_id=po-0&type=payout_failed", "", 4},
		{"?type=payout_executed,payout_failed&limit=3", "e1 e2 e3", 3},
	}
	for _, tc := range cases {
		t.Run(tc.query, func(t *testing.T) {
			resp := do(t, http.DefaultClient, http.MethodGet, tr.base+"/events"+tc.query, nil, nil)
			var h History
			if err := json.Unmarshal(resp.body, &h); err != nil {
				t.Fatalf("%d %s: %v", resp.status, resp.body, err)
			}
			var ids []string
			for _, e := range h.Events {
				ids = append(ids, e.EventID)
			}
			if got := strings.Join(ids, " "); got != tc.wantIDs || h.NextSince != tc.wantNext || h.LastSeq != 4 {
				t.Errorf("got %q next %d last %d, want %q next %d last 4", got, h.NextSince, h.LastSeq, tc.wantIDs, tc.wantNext)
			}
		})
	}
	for _, q := range []string{"?limit=0", "?limit=1001", "?since=x"} {
		if resp := do(t, http.DefaultClient, http.MethodGet, tr.base+"/events"+q, nil, nil); resp.status != http.StatusBadRequest {
			t.Errorf("%s: %d, want 400", q, resp.status)
		}
	}
	var health Health
	resp := do(t, http.DefaultClient, http.MethodGet, tr.base+"/healthz", nil, nil)
	if err := json.Unmarshal(resp.body, &health); err != nil || health.FirstSeq != 1 || health.LastSeq != 4 {
		t.Errorf("healthz %s: %+v %v", resp.body, health, err)
	}
}

func TestRetentionByCountAndAge(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clk := clock.NewFake(start)
	tr := startRelay(t, Config{Clock: clk, RetainCount: 3, RetainAge: time.Hour})
	postN(t, tr, "old", 0, 5, 0)
	if got := tr.history(t, ""); len(got) != 3 || got[0].EventID != "old-0002" {
		t.Fatalf("after 5 events with RetainCount 3: %d events, first %v", len(got), got)
	}
	// Retention dropped old-0000's body, but the service retries for 72
	// hours: within the dedupe window its redelivery is still a duplicate.
	redeliver := func() string {
		return string(tr.post(t, paymentsWebhook("old-0000", api.EventPayoutExecuted, "po", nil), http.Header{}).body)
	}
	if got := redeliver(); !strings.Contains(got, `{"seq":1,"duplicate":true}`) {
		t.Errorf("re-delivery of a retained-out event within the dedupe window: %s, want a duplicate of seq 1", got)
	}
	if tr.writer.retentionDue() {
		t.Error("retention due with nothing to delete")
	}
	clk.Advance(2 * time.Hour)
	if !tr.writer.retentionDue() {
		t.Error("retention not due after every event aged out")
	}
	postN(t, tr, "new", 0, 1, 0)
	got := tr.history(t, "")
	checkExactlyOnce(t, got, []string{"new-0000"})
	if got := redeliver(); !strings.Contains(got, `"duplicate":true`) {
		t.Errorf("re-delivery 2h later (body gone, window 72h): %s, want a duplicate", got)
	}
	// Past the window the id is forgotten (the index does not grow for
	// ever): a delivery then is a new event.
	clk.Advance(DefaultDedupeWindow)
	waitFor(t, "the dedupe index to drop ids past the window", func() bool { return !tr.writer.retentionDue() })
	if got := redeliver(); strings.Contains(got, "duplicate") {
		t.Errorf("re-delivery after the dedupe window: %s, want it stored anew", got)
	}
	info, err := os.Stat(tr.cfg.StorePath)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("store file mode %v (%v), want 0600", info.Mode().Perm(), err)
	}
	dir, err := os.Stat(filepath.Dir(tr.cfg.StorePath))
	if err != nil || !dir.IsDir() {
		t.Fatal(err)
	}
}

func TestStoreDirectoryIsCreatedPrivate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "paydash", "relay.db")
	r, err := Open(Config{StorePath: path})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for p, want := range map[string]os.FileMode{path: 0o600, filepath.Dir(path): 0o700} {
		info, err := os.Stat(p)
		if err != nil || info.Mode().Perm() != want {
			t.Errorf("%s mode %v (%v), want %v", p, info.Mode().Perm(), err, want)
		}
	}
}

func TestForwardRepostsOriginalBytesRetriesAndRecordsOutcome(t *testing.T) {
	var (
		mu       sync.Mutex
		bodies   [][]byte
		sigs     []string
		attempts atomic.Int64
	)
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if attempts.Add(1) == 1 {
			w.WriteHeader(http.StatusBadGateway) // the first try fails
			return
		}
		mu.Lock()
		bodies, sigs = append(bodies, b), append(sigs, r.Header.Get(api.HeaderPayoutSignature))
		mu.Unlock()
		if strings.Contains(string(b), "reject-me") {
			w.WriteHeader(http.StatusBadRequest)
		}
	}))
	defer target.Close()
	tr := startRelay(t, Config{ForwardURL: target.URL + "/hook"})
	body := []byte("{\n  \"type\": \"payout_executed\",  \"event_id\": \"fw-1\"\n}")
	h := http.Header{api.HeaderPayoutSignature: {"sig-1"}, "Authorization": {"Bearer must-not-leak"}}
	if resp := tr.post(t, body, h); resp.status != http.StatusOK {
		t.Fatal(resp.status)
	}
	rejected := []byte(`{"type":"payout_executed","event_id":"fw-2","note":"reject-me"}`)
	if resp := tr.post(t, rejected, http.Header{}); resp.status != http.StatusOK {
		t.Fatal(resp.status)
	}
	waitFor(t, "both forwards recorded", func() bool {
		m := tr.Metrics()
		return m.ForwardedOK == 1 && m.ForwardedFailed == 1
	})
	mu.Lock()
	if len(bodies) < 1 || string(bodies[0]) != string(body) || sigs[0] != "sig-1" {
		t.Errorf("forwarded %q with signature %q, want the original bytes and header", bodies, sigs)
	}
	mu.Unlock()
	got := tr.history(t, "")
	if f := got[0].Forward; f == nil || f.Attempts != 2 || f.StatusCode != 200 || f.Error != "" || f.URL != target.URL+"/hook" {
		t.Errorf("first outcome %+v, want 2 attempts ending in 200", f)
	}
	if f := got[1].Forward; f == nil || f.Attempts != 1 || f.StatusCode != 400 || !strings.Contains(f.Error, "HTTP 400") {
		t.Errorf("second outcome %+v, want one attempt, 400 not retried", f)
	}
	if string(got[0].Body) == "" || got[0].Headers["Authorization"] != "" {
		t.Errorf("stored headers %v", got[0].Headers)
	}
}

func TestJWKSVerificationFetchesCachesAndRotates(t *testing.T) {
	key := testSigningKey(t)
	rotated, err := api.GenerateSigningKey()
	if err != nil {
		t.Fatal(err)
	}
	var (
		fetches atomic.Int64
		current atomic.Value
	)
	set, _ := api.PublicJWKS(&key.PublicKey, "k1")
	current.Store(set)
	jwks := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fetches.Add(1)
		_, _ = w.Write(current.Load().([]byte))
	}))
	defer jwks.Close()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clk := clock.NewFake(now)
	tr := startRelay(t, Config{JWKSURL: jwks.URL + "/.well-known/jwks", Clock: clk})
	deliver := func(k *ecdsa.PrivateKey, kid, id string) int {
		body := payoutWebhook(id, api.EventPayoutAuthorised, "tx", nil)
		return tr.post(t, body, sign(t, k, kid, DefaultPath, stampHeader(clk.Now()), body)).status
	}
	steps := []struct {
		name        string
		key         *ecdsa.PrivateKey
		kid         string
		advance     time.Duration
		rotate      bool
		want        int
		wantFetches int64
	}{
		{"first delivery fetches the set", key, "k1", 0, false, 200, 1},
		{"known kid uses the cache", key, "k1", 0, false, 200, 1},
		{"unknown kid right after a fetch is not refetched", rotated, "k2", 0, false, 401, 1},
		{"unknown kid after the interval refetches", rotated, "k2", jwksMinRefetch, false, 401, 2},
		{"rotation within the interval is not seen yet", rotated, "k2", 0, true, 401, 2},
		{"after the interval the rotated key works", rotated, "k2", jwksMinRefetch, false, 200, 3},
		{"a kid signed by the wrong key is refused", key, "k2", 0, false, 401, 3},
	}
	for i, st := range steps {
		if st.rotate {
			set, _ := api.PublicJWKS(&rotated.PublicKey, "k2")
			current.Store(set)
		}
		clk.Advance(st.advance)
		if got := deliver(st.key, st.kid, fmt.Sprintf("j%d", i)); got != st.want || fetches.Load() != st.wantFetches {
			t.Errorf("%s: status %d fetches %d, want %d and %d", st.name, got, fetches.Load(), st.want, st.wantFetches)
		}
	}
}

func TestJWKSUnavailableAnswers503(t *testing.T) {
	key := testSigningKey(t)
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusInternalServerError)
	}))
	defer down.Close()
	tr := startRelay(t, Config{JWKSURL: down.URL})
	body := payoutWebhook("e1", api.EventPayoutAuthorised, "tx", nil)
	resp := tr.post(t, body, sign(t, key, "k1", DefaultPath, stampHeader(time.Now()), body))
	if resp.status != http.StatusServiceUnavailable || resp.problem(t).Reason != RejectKeysUnavailable {
		t.Errorf("got %d %s, want 503 %s", resp.status, resp.body, RejectKeysUnavailable)
	}
}

// TestForwardingOutlastsAnEndpointThatIsDown: the developer's endpoint is
// down for longer than a handful of tries (a server restart), and the
// relay itself restarts meanwhile. Nothing is dropped: every event
// reaches it once it is back, in seq order, and meanwhile the event says
// it is being retried.
func TestForwardingOutlastsAnEndpointThatIsDown(t *testing.T) {
	base, maxDelay := forwardBaseDelay, forwardMaxDelay
	forwardBaseDelay, forwardMaxDelay = time.Millisecond, 5*time.Millisecond
	// Restored after the relay (a later cleanup, so run first) stopped.
	t.Cleanup(func() { forwardBaseDelay, forwardMaxDelay = base, maxDelay })
	var (
		up   atomic.Bool
		mu   sync.Mutex
		seen []string
	)
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !up.Load() {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		var b struct {
			EventID string `json:"event_id"`
		}
		_ = json.NewDecoder(r.Body).Decode(&b)
		mu.Lock()
		seen = append(seen, b.EventID)
		mu.Unlock()
	}))
	defer target.Close()
	store := filepath.Join(t.TempDir(), "relay.db")
	first := startRelay(t, Config{ForwardURL: target.URL + "/hook", StorePath: store})
	for _, id := range []string{"down-1", "down-2", "down-3"} {
		if resp := first.post(t, []byte(`{"type":"payout_executed","event_id":"`+id+`"}`), http.Header{}); resp.status != http.StatusOK {
			t.Fatal(resp.status)
		}
	}
	waitFor(t, "the first event marked as retried", func() bool {
		got := first.history(t, "")
		return len(got) > 0 && got[0].Forward != nil && strings.Contains(got[0].Forward.Error, "retrying until it answers") && got[0].Forward.Attempts >= 2*forwardAttempts
	})
	// The relay restarts during the outage: the event being retried is
	// still first in line afterwards.
	first.stop()
	tr := startRelay(t, Config{ForwardURL: target.URL + "/hook", StorePath: store})
	up.Store(true)
	waitFor(t, "all three forwarded", func() bool { return tr.Metrics().ForwardedOK == 3 })
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(seen, ",") != "down-1,down-2,down-3" || tr.Metrics().ForwardedFailed != 0 {
		t.Fatalf("forwarded %v (failed %d), want each once, in order", seen, tr.Metrics().ForwardedFailed)
	}
	if f := tr.history(t, "")[0].Forward; f == nil || f.Error != "" || f.StatusCode != 200 {
		t.Fatalf("first event's outcome after the endpoint came back: %+v", f)
	}
}
