package ui

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/webhookrelay"
	"github.com/paydash/paydash/webhookrelay/relayclient"
	"github.com/paydash/paydash/webhookrelay/relaytest"
)

// latePayout is authorised 60s before fixedNow and never settles.
const latePayout = "cccccccc-2222-4333-8444-555555555555"

// workbenchEvents are testEvents plus a payout whose final webhook never
// came, its authorisation forwarded to a handler that answered 500.
func workbenchEvents() []relayclient.Event {
	evs := testEvents()
	at := fixedNow.Add(-60 * time.Second)
	evs = append(evs, relayclient.Event{Seq: 6, EventID: "ev-6", Family: relayclient.FamilyPayout, Type: api.EventPayoutAuthorised,
		PayoutID: latePayout, State: api.StateAuthorised, ReceivedAt: at, Path: "/webhooks",
		Headers: map[string]string{"Content-Type": "application/json", "X-Svc-Webhook-Timestamp": at.Format(api.WebhookTimeLayout)},
		Body:    []byte(`{"event_type":"payout_authorised","event_id":"ev-6","event_body":{"transaction_id":"` + latePayout + `"}}`),
		Forward: &relayclient.ForwardResult{URL: "http://127.0.0.1:3000/webhooks", Attempts: 3, StatusCode: 500,
			Error: "http://127.0.0.1:3000/webhooks answered HTTP 500 (retrying until it answers)", At: at,
			Answer: &relayclient.Answer{URL: "http://127.0.0.1:3000/webhooks", Status: 500, LatencyMS: 12.4,
				Headers: http.Header{"Content-Type": {"application/json"}}, Body: `{"error":"handler crashed: nil map"}`, At: at}}})
	return evs
}

func workbenchOpts(o *Options) {
	o.Events = closedEvents(workbenchEvents())
	o.Workbench = &Workbench{WebhookLate: func(string) time.Duration { return 30 * time.Second }}
}

// TestWorkbenchGolden: the Events view with a failed forward and a late
// payout, and the inspector of the failed forward (found with x), at
// 80x24 and 120x40. Update with: go test ./ui -run TestWorkbenchGolden -update
func TestWorkbenchGolden(t *testing.T) {
	scenarios := []goldenScenario{
		{name: "events_failed_forward_late_payout", opts: workbenchOpts, drive: func(h *harness) { h.key("4") }},
		{name: "inspector_failed_forward", opts: workbenchOpts, drive: func(h *harness) { h.key("4"); h.key("x"); h.key("enter") }},
	}
	for _, sc := range scenarios {
		for _, sz := range []struct {
			name string
			w, h int
		}{{"120x40", 120, 40}, {"80x24", 80, 24}} {
			t.Run(sc.name+"/"+sz.name, func(t *testing.T) {
				out := sc.render(t, sz.w, sz.h)
				checkFrame(t, out, sz.w, sz.h)
				golden.RequireEqual(t, []byte(out))
			})
		}
	}
}

// TestLateMarkSetAndCleared: the tracker and the Events view mark the
// payout whose final webhook is past webhook_late; when it comes, the
// mark goes and the status line says how late it came.
func TestLateMarkSetAndCleared(t *testing.T) {
	opts := Options{Backend: newFake(300), States: liveState()}
	workbenchOpts(&opts)
	h := newHarness(t, opts, 120, 40)
	h.key("3")
	mustContain(t, h.view(), "LATE 30s · authorised 09:29:00", "authorised · LATE 30s")
	h.key("4")
	mustContain(t, h.view(), "⚠ webhook LATE 30s: payout cccccccc… · report: not in it yet · expects settled/failed/rejected")
	h.send(relayEventsMsg{events: []relayclient.Event{{Seq: 7, EventID: "ev-7", Family: relayclient.FamilyPayout, Type: api.EventPayoutSettled,
		PayoutID: latePayout, State: api.StateSettled, ReceivedAt: fixedNow}}})
	out := h.view()
	mustContain(t, out, "payout cccccccc…: payout_settled came 30s late (late mark cleared)")
	if strings.Contains(out, "webhook LATE") {
		t.Fatalf("banner still shown:\n%s", out)
	}
	h.key("3")
	if strings.Contains(h.view(), "LATE") {
		t.Fatalf("tracker still marks it late:\n%s", h.view())
	}
}

// TestInspectorSearchHighlights: / in the inspector finds the lines
// holding the text and says how many.
func TestInspectorSearchHighlights(t *testing.T) {
	opts := Options{Backend: newFake(300), States: liveState()}
	workbenchOpts(&opts)
	h := newHarness(t, opts, 120, 40)
	h.key("4")
	h.key("enter")
	h.key("/")
	h.typeText("NIL MAP")
	h.key("enter")
	mustContain(t, h.view(), "/NIL MAP · 1 line · n/N next/previous", `{"error":"handler crashed: nil map"}`)
	h.key("Y")
	if !strings.Contains(h.clip.String(), "]52;c;") {
		t.Fatalf("Y copied nothing: %q", h.clip.String())
	}
	mustContain(t, h.view(), "copied event headers to the clipboard", "not there? paydash events show ev-6")
}

// TestDashboardAnswersFilterAndResend: with a real relay forwarding to a
// real handler that answers 500 to payout_failed, the dashboard learns
// each forward's answer from the relay, x shows only the failed one, its
// inspector shows the handler's answer, and R resends it: the handler
// gets the same bytes again and the answer is kept in the history.
func TestDashboardAnswersFilterAndResend(t *testing.T) {
	var (
		mu     sync.Mutex
		bodies [][]byte
	)
	handler := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, b)
		mu.Unlock()
		if strings.Contains(string(b), "payout_failed") {
			w.WriteHeader(http.StatusUnprocessableEntity) // a definite answer: not retried
			_, _ = io.WriteString(w, `{"error":"unknown payout"}`)
		}
	}))
	defer handler.Close()
	rl := relaytest.Start(t, webhookrelay.Config{ForwardURL: handler.URL + "/webhooks"})
	for _, body := range []string{
		`{"type":"payout_executed","event_id":"ok-1","event_version":1,"payout_id":"p-1","executed_at":"2025-03-14T09:29:00Z"}`,
		`{"type":"payout_failed","event_id":"bad-1","event_version":1,"payout_id":"p-2","failed_at":"2025-03-14T09:29:01Z","failure_reason":"scheme_error"}`,
	} {
		resp, err := http.Post(rl.WebhookURL, "application/json", strings.NewReader(body))
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatal(err, resp)
		}
		resp.Body.Close()
	}
	hist := relayclient.History{URL: rl.WSURL}
	deadline := time.Now().Add(10 * time.Second)
	for {
		page, err := hist.Attempts(context.Background(), 0, 10)
		if err == nil && len(page.Attempts) == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("forwards not logged: %+v %v", page, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	var evs []relayclient.Event
	if err := hist.Scan(context.Background(), 0, 1, func(e relayclient.Event) bool {
		e.Forward = nil // as the live stream delivers them: before forwarding
		evs = append(evs, e)
		return true
	}); err != nil {
		t.Fatal(err)
	}
	log := relayclient.ResendLog{Path: t.TempDir() + "/resends.jsonl"}
	h := newHarness(t, Options{Backend: newFake(10), States: liveState(), Events: closedEvents(evs),
		Workbench: &Workbench{Relay: hist, ResendLog: log}}, 120, 40)
	h.key("4")
	h.key("x")
	out := h.view()
	mustContain(t, out, "1 of 2 events", "p-2")
	if strings.Contains(out, "p-1") {
		t.Fatalf("x kept an event the handler took:\n%s", out)
	}
	h.key("enter")
	mustContain(t, ansi.Strip(h.view()), "HTTP 422 in ", `{"error":"unknown payout"}`)
	h.key("R")
	mustContain(t, h.view(), "resent: resend bad-1 "+handler.URL+"/webhooks: 422 in ")
	mu.Lock()
	if len(bodies) != 3 || string(bodies[2]) != string(bodies[1]) {
		t.Fatalf("handler got %q", bodies)
	}
	mu.Unlock()
	kept, err := log.List()
	if err != nil || len(kept) != 1 || kept[0].Status != 422 || kept[0].EventID != "bad-1" {
		t.Fatalf("history %+v %v", kept, err)
	}
	mustContain(t, ansi.Strip(h.view()), "Resent "+handler.URL+"/webhooks")
}

// TestTriggerFromTheEventsView: on the demo, T offers every event type a
// sandbox can send; enter sends it for the selected event's payout.
func TestTriggerFromTheEventsView(t *testing.T) {
	var got struct {
		sync.Mutex
		body string
	}
	sb := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got.Lock()
		got.body = string(b)
		got.Unlock()
		if r.URL.Path != "/sandbox/events" {
			http.NotFound(w, r)
			return
		}
		w.WriteHeader(http.StatusAccepted)
		_, _ = io.WriteString(w, `{"event_id":"new-1","event_type":"payout_settled","payout_id":"`+latePayout+`","moved":true}`)
	}))
	defer sb.Close()
	opts := Options{Backend: newFake(300), States: liveState()}
	workbenchOpts(&opts)
	opts.Workbench.SandboxURL = sb.URL
	h := newHarness(t, opts, 120, 40)
	h.key("4")
	h.key("T")
	mustContain(t, h.view(), "Trigger a sandbox webhook for payout cccccccc… (its state moves)", "payout_authorised", "external_payment_received")
	h.key("down")
	h.key("down")
	h.key("enter")
	mustContain(t, h.view(), "sandbox sent payout_settled for payout "+latePayout+" (its state moved)")
	got.Lock()
	defer got.Unlock()
	if !strings.Contains(got.body, `"trigger":"payout_settled"`) || !strings.Contains(got.body, `"payout_id":"`+latePayout+`"`) {
		t.Fatalf("sandbox got %s", got.body)
	}
}

// The late-webhook book keeps what the tracker keeps: through any number
// of other operators' payouts that finish, it holds the payouts still
// expecting their final webhook and the latest tracker_keep_final
// finished ones, and the late payout stays on the banner.
func TestLateBookBoundedLikeTheTracker(t *testing.T) {
	opts := Options{Backend: newFake(300), States: liveState(), TrackerKeepFinal: 3}
	workbenchOpts(&opts)
	h := newHarness(t, opts, 120, 40)
	h.key("4")
	for i := range 500 {
		id := otherID(i)
		h.send(relayEventsMsg{events: []relayclient.Event{payoutEvent(100+2*i, id, api.StateAuthorised)}})
		h.send(relayEventsMsg{events: []relayclient.Event{payoutEvent(101+2*i, id, api.StateSettled)}})
		book := h.m.wb.book
		if book.Len() > 3+book.Pending() {
			t.Fatalf("after %d payouts the book holds %d (%d expecting their final webhook), the tracker keeps 3 finished", i+1, book.Len(), book.Pending())
		}
		if n, bound := len(h.m.wb.fed)+len(h.m.wb.report), 2*(h.m.tracker.payouts.len()+3); n > bound {
			t.Fatalf("after %d payouts the workbench remembers %d of the tracker's payouts, bound %d", i+1, n, bound)
		}
	}
	if got := h.m.wb.book.Pending(); got != 1 {
		t.Fatalf("%d payouts expecting their final webhook, want the late one", got)
	}
	h.clock.Advance(time.Second) // the banner checks the book once a second
	mustContain(t, h.view(), "⚠ webhook LATE 31s: payout cccccccc…")
}

// A dashboard catching up on a backlog (the relay took the events a
// minute ago) does not take a final webhook that came in time for a
// late one: lateness is as of when the relay took each event.
func TestCatchingUpIsNotLate(t *testing.T) {
	opts := Options{Backend: newFake(300), States: liveState()}
	workbenchOpts(&opts) // webhook_late 30s
	h := newHarness(t, opts, 120, 40)
	h.key("4")
	id := otherID(1)
	auth := payoutEvent(100, id, api.StateAuthorised)
	settled := payoutEvent(101, id, api.StateSettled)
	auth.ReceivedAt, settled.ReceivedAt = fixedNow.Add(-time.Minute), fixedNow.Add(-time.Minute+time.Second)
	h.send(relayEventsMsg{events: []relayclient.Event{auth}})
	h.send(relayEventsMsg{events: []relayclient.Event{settled}})
	if out := h.view(); strings.Contains(out, "came") {
		t.Fatalf("a final webhook that came a second after its payout is said to be late:\n%s", out)
	}
	if st, ok := h.m.wb.book.Get(id, fixedNow); !ok || st.Final == "" || st.ArrivedLate {
		t.Fatalf("book: %+v (known %v), want settled in time", st, ok)
	}
}
