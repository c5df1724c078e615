package webhookrelay

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paydash/paydash/webhookrelay/relayclient"
)

func TestParseRoute(t *testing.T) {
	for _, tc := range []struct {
		spec, want, err string
	}{
		{"http://localhost:3000/other", "http://localhost:3000/other", ""},
		{"payout_failed,payout_*=http://localhost:3000/payouts", "payout_failed,payout_*=http://localhost:3000/payouts", ""},
		{" payout_settled = http://127.0.0.1:1/x ", "payout_settled=http://127.0.0.1:1/x", ""},
		{"payout_[=http://127.0.0.1:1/x", "", "syntax error in pattern"},
		{"=http://127.0.0.1:1/x", "", "names no event type"},
		{"payout_settled", "", "want URL or TYPES=URL"},
		{"payout_settled=localhost:3000", "", "absolute http(s) URL"},
	} {
		r, err := ParseRoute(tc.spec)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseRoute(%q) = %v, want error containing %q", tc.spec, err, tc.err)
			}
			continue
		}
		if err != nil || r.String() != tc.want {
			t.Errorf("ParseRoute(%q) = %q, %v; want %q", tc.spec, r, err, tc.want)
		}
	}
	routes := []Route{{Patterns: []string{"payout_failed", "payout_*"}, URL: "http://a"}, {URL: "http://b"}}
	for typ, want := range map[string]int{"payout_failed": 0, "payout_settled": 0, "external_payment_received": 1} {
		if got := routeFor(routes, typ); got != want {
			t.Errorf("routeFor(%s) = %d, want %d", typ, got, want)
		}
	}
	if _, err := Open(Config{StorePath: t.TempDir() + "/r.db", Routes: []Route{{URL: "http://b"}, {Patterns: []string{"x"}, URL: "http://a"}}}); err == nil || !strings.Contains(err.Error(), "put it last") {
		t.Errorf("a catch-all before another route: %v, want refused", err)
	}
}

// handlerLog is a developer's webhook handler on loopback: it records
// what it got and answers as told.
type handlerLog struct {
	mu     sync.Mutex
	ids    []string
	bodies [][]byte
	answer atomic.Value // func(n int) int: status for the nth request
	n      atomic.Int64
	srv    *httptest.Server
}

func newHandler(t *testing.T, answer func(n int) int) *handlerLog {
	h := &handlerLog{}
	h.answer.Store(answer)
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		n := int(h.n.Add(1))
		status := h.answer.Load().(func(int) int)(n)
		if status >= 200 && status < 300 {
			h.mu.Lock()
			h.bodies = append(h.bodies, b)
			h.ids = append(h.ids, eventIDOf(b))
			h.mu.Unlock()
		}
		w.Header().Set("X-Handler", "test")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, `{"handled":`+strings.Repeat(" ", 3000)+`"x"}`)
	}))
	t.Cleanup(h.srv.Close)
	return h
}

func eventIDOf(b []byte) string {
	_, after, _ := strings.Cut(string(b), `"event_id":"`)
	id, _, _ := strings.Cut(after, `"`)
	return id
}

func (h *handlerLog) got() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return strings.Join(h.ids, ",")
}

// TestRoutesByTypeOneDownHoldsBackOnlyItsOwn: payouts go to one handler,
// everything else to another; while the payouts handler answers 500 the
// other keeps receiving, and once it is up it gets its events in order.
// Every attempt is logged with the handler's answer.
func TestRoutesByTypeOneDownHoldsBackOnlyItsOwn(t *testing.T) {
	base, maxDelay := forwardBaseDelay, forwardMaxDelay
	forwardBaseDelay, forwardMaxDelay = time.Millisecond, 5*time.Millisecond
	t.Cleanup(func() { forwardBaseDelay, forwardMaxDelay = base, maxDelay })
	var payoutsUp atomic.Bool
	payouts := newHandler(t, func(int) int {
		if payoutsUp.Load() {
			return http.StatusOK
		}
		return http.StatusInternalServerError
	})
	other := newHandler(t, func(int) int { return http.StatusOK })
	r1, _ := ParseRoute("payout_failed,payout_*=" + payouts.srv.URL + "/payouts")
	r2, _ := ParseRoute(other.srv.URL + "/other")
	tr := startRelay(t, Config{Routes: []Route{r1, r2}})
	post := func(body []byte) {
		t.Helper()
		if resp := tr.post(t, body, http.Header{}); resp.status != http.StatusOK {
			t.Fatal(resp.status, string(resp.body))
		}
	}
	post(paymentsWebhook("p-1", "payout_failed", "po-1", nil))
	post(paymentsWebhook("x-1", "external_payment_received", "", nil))
	post(paymentsWebhook("p-2", "payout_executed", "po-2", nil))
	post(paymentsWebhook("x-2", "mandate_revoked", "", nil))
	waitFor(t, "the other route's events forwarded while payouts is down", func() bool { return other.got() == "x-1,x-2" })
	waitFor(t, "payouts retried", func() bool { return payouts.n.Load() >= 3 })
	if got := payouts.got(); got != "" {
		t.Fatalf("payouts handler took %q while answering 500", got)
	}
	payoutsUp.Store(true)
	waitFor(t, "payouts forwarded once up", func() bool { return payouts.got() == "p-1,p-2" })

	// Each event records which route took it and the handler's last answer.
	byID := map[string]Event{}
	for _, e := range tr.history(t, "") {
		byID[e.EventID] = e
	}
	waitFor(t, "p-2's outcome recorded", func() bool {
		for _, e := range tr.history(t, "") {
			if e.EventID == "p-2" && e.Forward != nil {
				byID["p-2"] = e
				return true
			}
		}
		return false
	})
	f := byID["p-1"].Forward
	if f == nil || f.Route != r1.String() || f.Attempts < 2 || f.Answer == nil || f.Answer.Status != 200 ||
		f.Answer.Headers.Get("X-Handler") != "test" || len(f.Answer.Body) != relayclient.AnswerBodyMax || !f.Answer.BodyTruncated {
		t.Fatalf("p-1 forward %+v", f)
	}
	if f := byID["x-1"].Forward; f == nil || f.Route != r2.String() || f.URL != other.srv.URL+"/other" || f.Attempts != 1 {
		t.Fatalf("x-1 forward %+v", f)
	}

	// The attempt log holds the failed tries with their 500s, in order.
	h := relayclient.History{URL: tr.wsURL()}
	page, err := h.Attempts(context.Background(), 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	var fails, finals int
	for i, a := range page.Attempts {
		if i > 0 && a.Seq <= page.Attempts[i-1].Seq {
			t.Fatalf("attempt log out of order: %+v", page.Attempts)
		}
		if a.EventID == "p-1" && a.Status == 500 && !a.Final && a.Body != "" && a.Kind == relayclient.AttemptForward {
			fails++
		}
		if a.Final {
			finals++
		}
	}
	if fails < 2 || finals != 4 {
		t.Fatalf("attempt log: %d failing attempts at p-1, %d final (want >= 2, 4): %+v", fails, finals, page.Attempts)
	}
	line := relayclient.AttemptLine(page.Attempts[0])
	if !strings.Contains(line, "forward #1") || !strings.Contains(line, "in ") || strings.ContainsAny(line, "\n\x1b") {
		t.Errorf("attempt line %q", line)
	}
}

// TestForwardToAHangingHandlerGivesUpOnThatAttempt: a handler that never
// answers costs one attempt its timeout, recorded as no answer, and the
// event is tried again.
func TestForwardToAHangingHandlerIsRecordedAsNoAnswer(t *testing.T) {
	release := make(chan struct{})
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			select {
			case <-release:
			case <-r.Context().Done():
			}
			return
		}
	}))
	defer srv.Close()
	defer close(release)
	tr := startRelay(t, Config{ForwardURL: srv.URL})
	tr.forwarders[0].client.Timeout = 100 * time.Millisecond
	if resp := tr.post(t, paymentsWebhook("h-1", "payout_executed", "po", nil), http.Header{}); resp.status != http.StatusOK {
		t.Fatal(resp.status)
	}
	h := relayclient.History{URL: tr.wsURL()}
	var page relayclient.AttemptPage
	waitFor(t, "the retry after the hang taken", func() bool {
		var err error
		page, err = h.Attempts(context.Background(), 0, 10)
		return err == nil && len(page.Attempts) == 2
	})
	if a := page.Attempts[0]; a.Status != 0 || a.Error == "" || a.Final || a.LatencyMS < 100 {
		t.Errorf("hung attempt %+v, want no answer after the timeout", a)
	}
	if a := page.Attempts[1]; a.Status != 200 || !a.Final || a.N != 2 {
		t.Errorf("second attempt %+v", a)
	}
}

// TestEventEndpointServesTheBodyByteForByte: JSON would re-encode a body
// (drop whitespace, escape <), so GET /events/{id} carries it raw.
func TestEventEndpointServesTheBodyByteForByte(t *testing.T) {
	tr := startRelay(t, Config{})
	body := []byte("{\n  \"type\": \"payout_failed\", \"event_id\": \"raw-1\",\n  \"failure_reason\": \"<b>&amp;</b>\"\n}")
	if resp := tr.post(t, body, http.Header{}); resp.status != http.StatusOK {
		t.Fatal(resp.status)
	}
	ev, err := relayclient.History{URL: tr.wsURL()}.Event(context.Background(), "raw-1")
	if err != nil || string(ev.Raw) != string(body) || ev.Path != DefaultPath || ev.Type != "payout_failed" {
		t.Fatalf("event %+v raw %q: %v", ev.Event, ev.Raw, err)
	}
	if _, err := (relayclient.History{URL: tr.wsURL()}).Event(context.Background(), "nope/../x"); !errors.Is(err, relayclient.ErrNoEvent) {
		t.Fatalf("unknown id: %v", err)
	}
}

// TestWorkbenchEndpointsNeedTheToken: the attempt log and single events
// are read like the rest of the history: with the relay's token.
func TestWorkbenchEndpointsNeedTheToken(t *testing.T) {
	const token = "workbench-token-0123456789"
	tr := startRelay(t, Config{Token: token})
	bearer := http.Header{"Authorization": {"Bearer " + token}}
	for path, withToken := range map[string]int{"/attempts": http.StatusOK, "/events/some-id": http.StatusNotFound} {
		if resp := do(t, http.DefaultClient, http.MethodGet, tr.base+path, nil, nil); resp.status != http.StatusUnauthorized {
			t.Errorf("GET %s without token: %d, want 401", path, resp.status)
		}
		if resp := do(t, http.DefaultClient, http.MethodGet, tr.base+path, bearer, nil); resp.status != withToken {
			t.Errorf("GET %s with token: %d, want %d", path, resp.status, withToken)
		}
	}
	// The attempt log pages like the event history: a limit out of range
	// is refused, a good one read.
	for q, want := range map[string]int{"?limit=0": http.StatusBadRequest, "?limit=1001": http.StatusBadRequest, "?limit=x": http.StatusBadRequest, "?limit=1000": http.StatusOK} {
		if resp := do(t, http.DefaultClient, http.MethodGet, tr.base+"/attempts"+q, bearer, nil); resp.status != want {
			t.Errorf("GET /attempts%s: %d, want %d", q, resp.status, want)
		}
	}
}

// TestResendReportIsKeptWithTheEvent: a client's resend answer joins the
// event's forwards in the attempt log, its body cut to 2 KiB; a report
// for an unknown event, or not JSON, is refused.
func TestResendReportIsKeptWithTheEvent(t *testing.T) {
	tr := startRelay(t, Config{})
	if resp := tr.post(t, paymentsWebhook("rs-1", "payout_executed", "po", nil), http.Header{}); resp.status != http.StatusOK {
		t.Fatal(resp.status)
	}
	h := relayclient.History{URL: tr.wsURL()}
	long := strings.Repeat("x", 5000)
	if err := h.RecordResend(context.Background(), "rs-1", relayclient.Answer{URL: "http://127.0.0.1:3000/hooks", Status: 503, Body: long}); err != nil {
		t.Fatal(err)
	}
	got, err := h.EventAttempts(context.Background(), "rs-1")
	if err != nil || len(got) != 1 || got[0].Kind != relayclient.AttemptResend || got[0].Status != 503 ||
		len(got[0].Body) != relayclient.AnswerBodyMax || !got[0].BodyTruncated || got[0].Type != "payout_executed" {
		t.Fatalf("attempts %+v %v", got, err)
	}
	if err := h.RecordResend(context.Background(), "nope", relayclient.Answer{Status: 200}); !errors.Is(err, relayclient.ErrNoAttempts) {
		t.Fatalf("unknown event: %v", err)
	}
	if resp := do(t, http.DefaultClient, http.MethodPost, tr.base+"/events/rs-1/resends", http.Header{"Content-Type": {"text/plain"}}, []byte(`{"status":200}`)); resp.status != http.StatusUnsupportedMediaType {
		t.Fatalf("text/plain report: %d", resp.status)
	}
}

// TestRoutesResumeAcrossARestart: with one route's endpoint down across a
// relay restart, each route resumes from its own cursor: the route that
// was up sends nothing twice, the one that was down sends each of its
// events once, in order, once its endpoint is up.
func TestRoutesResumeAcrossARestart(t *testing.T) {
	base, maxDelay := forwardBaseDelay, forwardMaxDelay
	forwardBaseDelay, forwardMaxDelay = time.Millisecond, 5*time.Millisecond
	t.Cleanup(func() { forwardBaseDelay, forwardMaxDelay = base, maxDelay })
	var up atomic.Bool
	failures := newHandler(t, func(int) int {
		if up.Load() {
			return http.StatusOK
		}
		return http.StatusServiceUnavailable
	})
	rest := newHandler(t, func(int) int { return http.StatusOK })
	r1, _ := ParseRoute("payout_failed=" + failures.srv.URL)
	r2, _ := ParseRoute(rest.srv.URL)
	store := t.TempDir() + "/relay.db"
	first := startRelay(t, Config{Routes: []Route{r1, r2}, StorePath: store})
	for _, b := range [][]byte{
		paymentsWebhook("f-1", "payout_failed", "p1", nil), paymentsWebhook("r-1", "payout_executed", "p2", nil),
		paymentsWebhook("f-2", "payout_failed", "p3", nil), paymentsWebhook("r-2", "payout_executed", "p4", nil),
	} {
		if resp := first.post(t, b, http.Header{}); resp.status != http.StatusOK {
			t.Fatal(resp.status)
		}
	}
	waitFor(t, "the up route done", func() bool { return rest.got() == "r-1,r-2" })
	waitFor(t, "the down route retried", func() bool { return failures.n.Load() >= 3 })
	first.stop()
	second := startRelay(t, Config{Routes: []Route{r1, r2}, StorePath: store})
	up.Store(true)
	waitFor(t, "the down route's events once up", func() bool { return failures.got() == "f-1,f-2" })
	if resp := second.post(t, paymentsWebhook("r-3", "payout_executed", "p5", nil), http.Header{}); resp.status != http.StatusOK {
		t.Fatal(resp.status)
	}
	waitFor(t, "a new event on the up route", func() bool { return rest.got() == "r-1,r-2,r-3" })
	time.Sleep(50 * time.Millisecond) // room for a wrong repeat to show
	if got := failures.got(); got != "f-1,f-2" {
		t.Fatalf("down route sent %q, want each once", got)
	}
	if got := rest.got(); got != "r-1,r-2,r-3" {
		t.Fatalf("up route sent %q, want nothing again", got)
	}
}
