package devtools

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/api/sandbox"
	"github.com/paydash/paydash/api/testkey"
	"github.com/paydash/paydash/internal/cli/cmdutil"
	"github.com/paydash/paydash/webhookrelay"
	"github.com/paydash/paydash/webhookrelay/relayclient"
	"github.com/paydash/paydash/webhookrelay/relaytest"
)

// delivery is one request a developer's handler got.
type delivery struct {
	path, sig, timestamp string
	body                 []byte
}

// devHandler is the webhook handler a developer is writing, on loopback:
// it records every request and answers as answer says for the nth one
// (status, or 0 to hang until the client gives up).
type devHandler struct {
	mu     sync.Mutex
	got    []delivery
	n      atomic.Int64
	answer func(n int) int
	srv    *httptest.Server
}

func newDevHandler(t *testing.T, answer func(n int) int) *devHandler {
	h := &devHandler{answer: answer}
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		h.mu.Lock()
		h.got = append(h.got, delivery{r.URL.Path, r.Header.Get(api.HeaderPayoutSignature), r.Header.Get(api.HeaderWebhookTimestamp), b})
		h.mu.Unlock()
		status := h.answer(int(h.n.Add(1)))
		if status == 0 {
			<-r.Context().Done()
			return
		}
		w.Header().Set("X-Handler-Version", "dev")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, `{"answer":`+http.StatusText(status)[:2]+`}`)
	}))
	t.Cleanup(h.srv.Close)
	return h
}

func (h *devHandler) deliveries() []delivery {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]delivery(nil), h.got...)
}

// bench is the developer's set-up: the sandbox signs webhooks as the
// service does and sends them to the relay, which verifies them and
// forwards them to the handler.
type bench struct {
	sb      *sandbox.Server
	relay   *relaytest.Relay
	handler *devHandler
}

func newBench(t *testing.T, answer func(int) int, routes ...webhookrelay.Route) *bench {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	sb, err := sandbox.Listen(ctx, "127.0.0.1:0", sandbox.Options{MerchantKey: &testkey.Load(t).PublicKey, MerchantKeyID: "k1", WebhookRetry: []time.Duration{}, StepDelay: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sb.Close() })
	h := newDevHandler(t, answer)
	if len(routes) == 0 {
		routes = []webhookrelay.Route{{URL: h.srv.URL + "/webhooks"}}
	}
	rl := relaytest.Start(t, webhookrelay.Config{JKUAllow: []string{sb.URL + "/.well-known/jwks"}, Routes: routes})
	sb.SetWebhookURI(rl.WebhookURL)
	return &bench{sb: sb, relay: rl, handler: h}
}

func (b *bench) history() relayclient.History { return relayclient.History{URL: b.relay.WSURL} }

// trigger asks the sandbox for an event over its control endpoint and
// returns the event id.
func (b *bench) trigger(t *testing.T, body string) string {
	t.Helper()
	resp, err := http.Post(b.sb.URL+"/sandbox/events", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		EventID string `json:"event_id"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != http.StatusAccepted {
		t.Fatalf("trigger %s: %d %v", body, resp.StatusCode, err)
	}
	return out.EventID
}

func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

type outBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (o *outBuf) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.b.Write(p)
}

func (o *outBuf) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.b.String()
}

func streams() (*cmdutil.Streams, *outBuf, *outBuf) {
	out, errb := &outBuf{}, &outBuf{}
	return &cmdutil.Streams{In: strings.NewReader(""), Out: out, Err: errb, Getenv: func(string) string { return "" }}, out, errb
}

// TestResendIsByteForByteTheFirstDelivery: the handler answers 500, then
// 200; the relay's forward retries and records both answers; a resend
// posts the same body and signature header as the first delivery, is
// kept in the history with the handler's answer, and --json carries it.
func TestResendIsByteForByteTheFirstDelivery(t *testing.T) {
	b := newBench(t, func(n int) int {
		if n == 1 {
			return http.StatusInternalServerError
		}
		return http.StatusOK
	})
	id := b.trigger(t, `{"trigger":"payout_settled"}`)
	waitUntil(t, "the forward retried after the 500", func() bool { return len(b.handler.deliveries()) == 2 })
	first := b.handler.deliveries()[0]
	if first.sig == "" || first.path != "/webhooks" || !strings.Contains(string(first.body), id) {
		t.Fatalf("first delivery %+v", first)
	}

	var ev relayclient.StoredEvent
	waitUntil(t, "the forward's outcome stored", func() bool {
		var err error
		ev, err = b.history().Event(context.Background(), id)
		return err == nil && ev.Forward != nil && ev.Forward.Answer != nil && ev.Forward.Answer.Status == 200
	})
	if ev.Forward.Attempts != 2 || ev.Forward.Answer.Headers.Get("X-Handler-Version") != "dev" || ev.Forward.Answer.Body != `{"answer":OK}` {
		t.Fatalf("recorded forward %+v answer %+v", ev.Forward, ev.Forward.Answer)
	}
	page, err := b.history().Attempts(context.Background(), 0, 10)
	if err != nil || len(page.Attempts) != 2 || page.Attempts[0].Status != 500 || page.Attempts[0].Body != `{"answer":In}` || page.Attempts[1].Status != 200 {
		t.Fatalf("attempt log %+v %v", page.Attempts, err)
	}

	s, out, errb := streams()
	log := relayclient.ResendLog{Path: filepath.Join(t.TempDir(), "resends.jsonl")}
	if err := Resend(context.Background(), s, b.history(), log, id, &ResendOptions{JSON: true, Timeout: 5 * time.Second}); err != nil {
		t.Fatal(err, errb.String())
	}
	got := b.handler.deliveries()
	again := got[len(got)-1]
	if !bytes.Equal(again.body, first.body) || again.sig != first.sig || again.timestamp != first.timestamp || again.path != first.path {
		t.Fatalf("resend differs from the first delivery:\n first %+v\n again %+v", first, again)
	}
	if errb.String() != "" {
		t.Errorf("a fresh resend to the original path warned: %s", errb.String())
	}
	var printed relayclient.Attempt
	if err := json.Unmarshal([]byte(out.String()), &printed); err != nil || printed.Status != 200 || printed.Kind != relayclient.AttemptResend || printed.EventID != id {
		t.Fatalf("--json printed %q (%v)", out.String(), err)
	}
	hist, err := log.List()
	if err != nil || len(hist) != 1 || hist[0].Status != 200 || hist[0].URL != b.handler.srv.URL+"/webhooks" || hist[0].Headers.Get("X-Handler-Version") != "dev" {
		t.Fatalf("history %+v %v", hist, err)
	}
	// The relay keeps the resend's answer with the event's forwards.
	kept, err := b.history().EventAttempts(context.Background(), id)
	if err != nil || len(kept) != 3 || kept[2].Kind != relayclient.AttemptResend || kept[2].Status != 200 || kept[2].EventSeq != ev.Seq {
		t.Fatalf("relay's attempts at the event: %+v %v", kept, err)
	}
}

// TestResendToAHandlerThatFailsOrHangs: a 500 and a hang are both shown,
// kept in the history, and end the command with a failure. A target
// beyond loopback is refused with the advice to pass --allow-remote;
// followed, the event is delivered there once.
func TestResendToAHandlerThatFailsOrHangs(t *testing.T) {
	b := newBench(t, func(int) int { return http.StatusOK })
	id := b.trigger(t, `{"trigger":"payout_failed","reason":"account_closed"}`)
	waitUntil(t, "the forward", func() bool { return len(b.handler.deliveries()) == 1 })
	failing := newDevHandler(t, func(int) int { return http.StatusInternalServerError })
	hanging := newDevHandler(t, func(int) int { return 0 })
	log := relayclient.ResendLog{Path: filepath.Join(t.TempDir(), "resends.jsonl")}

	s, out, errb := streams()
	err := Resend(context.Background(), s, b.history(), log, id, &ResendOptions{To: failing.srv.URL + "/hooks/payouts", Timeout: 5 * time.Second})
	if cmdutil.ExitCode(err) != cmdutil.ExitFailure || !strings.Contains(out.String(), ": 500 in ") {
		t.Fatalf("resend to a 500: %v, printed %q", err, out.String())
	}
	if !strings.Contains(errb.String(), "the signature covers the original path /webhooks") {
		t.Errorf("no warning about the other path: %q", errb.String())
	}
	s, out, _ = streams()
	start := time.Now()
	err = Resend(context.Background(), s, b.history(), log, id, &ResendOptions{To: hanging.srv.URL + "/webhooks", Timeout: 300 * time.Millisecond})
	if cmdutil.ExitCode(err) != cmdutil.ExitFailure || !strings.Contains(out.String(), "no answer") || time.Since(start) > 5*time.Second {
		t.Fatalf("resend to a hanging handler: %v, printed %q", err, out.String())
	}
	hist, _ := log.List()
	if len(hist) != 2 || hist[0].Status != 500 || hist[1].Status != 0 || hist[1].Error == "" {
		t.Fatalf("history %+v", hist)
	}
	// Beyond loopback is refused without --allow-remote, before sending.
	s, _, _ = streams()
	err = Resend(context.Background(), s, b.history(), log, id, &ResendOptions{To: "http://192.0.2.10/webhooks", Timeout: time.Second})
	if cmdutil.ExitCode(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), "--allow-remote") {
		t.Fatalf("remote --to: %v", err)
	}
	if hist, _ := log.List(); len(hist) != 2 {
		t.Fatalf("a refused resend was recorded: %+v", hist)
	}
	// Follow the advice: pass --allow-remote. The "remote" host is
	// reached on loopback (tests touch nothing else); it gets the event
	// once, and the history keeps that one attempt.
	remote := newDevHandler(t, func(int) int { return http.StatusOK })
	s, _, _ = streams()
	before := len(remote.deliveries())
	err = Resend(context.Background(), s, b.history(), log, id, &ResendOptions{To: "http://192.0.2.10/webhooks", AllowRemote: true,
		Timeout: 5 * time.Second, transport: dialOnly(remote.srv.Listener.Addr().String())})
	if err != nil {
		t.Fatalf("resend with --allow-remote: %v", err)
	}
	if got := remote.deliveries(); len(got)-before != 1 || !strings.Contains(string(got[len(got)-1].body), id) {
		t.Fatalf("the remote handler got %d deliveries, want the event once", len(got)-before)
	}
	if hist, _ := log.List(); len(hist) != 3 || hist[2].URL != "http://192.0.2.10/webhooks" || hist[2].Status != 200 {
		t.Fatalf("history after the remote resend %+v", hist)
	}
}

// dialOnly is a transport that connects every request to addr, so a
// test can stand a loopback server in for a host beyond this machine.
func dialOnly(addr string) http.RoundTripper {
	return &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, network, addr)
	}}
}

// TestResendWarnsOfAnOldTimestamp: past the 5-minute tolerance the
// developer is told why a verifying handler will refuse it.
func TestResendWarnsOfAnOldTimestamp(t *testing.T) {
	ev := relayclient.StoredEvent{Event: relayclient.Event{Path: "/webhooks", Headers: map[string]string{
		api.HeaderWebhookTimestamp: time.Now().Add(-7 * time.Minute).UTC().Format(api.WebhookTimeLayout)}}}
	w := relayclient.ResendWarnings(ev, "http://127.0.0.1:3000/webhooks", time.Now())
	if len(w) != 1 || !strings.Contains(w[0], "beyond the usual 5m0s tolerance") {
		t.Fatalf("warnings %q", w)
	}
	if w := relayclient.ResendWarnings(ev, "http://127.0.0.1:3000/webhooks", time.Now().Add(-6*time.Minute)); len(w) != 0 {
		t.Fatalf("a fresh event warned: %q", w)
	}
}

// TestShowRawIsTheBodyByteForByte: `events show ID --raw > event.json`
// saves exactly what was delivered.
func TestShowRawIsTheBodyByteForByte(t *testing.T) {
	b := newBench(t, func(int) int { return http.StatusOK })
	id := b.trigger(t, `{"trigger":"payout_executed"}`)
	waitUntil(t, "the forward's answer recorded", func() bool {
		ev, err := b.history().Event(context.Background(), id)
		return err == nil && ev.Forward != nil
	})
	s, out, _ := streams()
	if err := Show(context.Background(), s, b.history(), id, &ShowOptions{Raw: true}); err != nil {
		t.Fatal(err)
	}
	if out.String() != string(b.handler.deliveries()[0].body) {
		t.Fatalf("--raw %q, delivered %q", out.String(), b.handler.deliveries()[0].body)
	}
	s, out, _ = streams()
	if err := Show(context.Background(), s, b.history(), id, &ShowOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"type         payout_executed", "X-Svc-Signature: ", "answer       200 in ", "X-Handler-Version: dev", `"type": "payout_executed"`,
		"attempts\n", "Z -> forward #1 " + id + " " + b.handler.srv.URL + "/webhooks: 200 in "} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("show lacks %q:\n%s", want, out.String())
		}
	}
	s, _, _ = streams()
	if err := Show(context.Background(), s, b.history(), "no-such-event", &ShowOptions{}); err == nil || !strings.Contains(err.Error(), "holds no such event") {
		t.Fatalf("unknown id: %v", err)
	}
}

// Issue 28 item 8: a resend the handler refuses, with --json, answers in
// the one error shape of every --json failure (error.class, message,
// field; exit_code), the attempt beside it; a taken one is the attempt.
func TestResendJSONFailureHasTheOneErrorShape(t *testing.T) {
	b := newBench(t, func(int) int { return http.StatusOK })
	id := b.trigger(t, `{"trigger":"payout_settled"}`)
	waitUntil(t, "the forward", func() bool { return len(b.handler.deliveries()) == 1 })
	failing := newDevHandler(t, func(int) int { return http.StatusInternalServerError })
	log := relayclient.ResendLog{Path: filepath.Join(t.TempDir(), "resends.jsonl")}
	s, out, _ := streams()
	err := Resend(context.Background(), s, b.history(), log, id, &ResendOptions{To: failing.srv.URL + "/webhooks", Timeout: 5 * time.Second, JSON: true})
	if cmdutil.ExitCode(err) != cmdutil.ExitFailure {
		t.Fatalf("exit %d %v", cmdutil.ExitCode(err), err)
	}
	var got struct {
		Error struct {
			Class   string  `json:"class"`
			Message string  `json:"message"`
			Field   *string `json:"field"`
		} `json:"error"`
		ExitCode int `json:"exit_code"`
		Resend   struct {
			EventID string `json:"event_id"`
			Status  int    `json:"status"`
		} `json:"resend"`
	}
	if err := json.Unmarshal([]byte(out.String()), &got); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if got.Error.Class != cmdutil.ClassFailed || !strings.Contains(got.Error.Message, "HTTP 500") || got.ExitCode != 1 ||
		got.Resend.EventID != id || got.Resend.Status != 500 {
		t.Fatalf("JSON %+v\n%s", got, out)
	}
}
