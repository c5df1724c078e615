package headless

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/paydash/paydash/internal/cli/cmdutil"
	"github.com/paydash/paydash/webhookrelay"
	"github.com/paydash/paydash/webhookrelay/relayclient"
	"github.com/paydash/paydash/webhookrelay/relaytest"
)

// TestTailPrintsEachForwardAttempt: under the events, tail prints one line
// per forward attempt with the handler's answer; --failed keeps only the
// attempts the handler did not take, and --json carries them whole.
func TestTailPrintsEachForwardAttempt(t *testing.T) {
	handler := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if strings.Contains(string(b), "payout_failed") {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, "signature check failed\x1b[2J")
			return
		}
		_, _ = io.WriteString(w, `{"ok":true}`)
	}))
	defer handler.Close()
	rl := relaytest.Start(t, webhookrelay.Config{ForwardURL: handler.URL + "/hooks"})
	for _, body := range []string{
		`{"type":"payout_executed","event_id":"ok-1","event_version":1,"payout_id":"p-1"}`,
		`{"type":"payout_failed","event_id":"bad-1","event_version":1,"payout_id":"p-2","failure_reason":"scheme_error"}`,
	} {
		resp, err := http.Post(rl.WebhookURL, "application/json", strings.NewReader(body))
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatal(err, resp)
		}
		resp.Body.Close()
	}
	run := func(o *TailOptions, until string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		var out syncBuffer
		s := &cmdutil.Streams{In: strings.NewReader(""), Out: &out, Err: &syncBuffer{}}
		done := make(chan error, 1)
		go func() { done <- Tail(ctx, s, rl.WSURL, "", o) }()
		for !strings.Contains(out.String(), until) && ctx.Err() == nil {
			time.Sleep(10 * time.Millisecond)
		}
		cancel()
		<-done
		return out.String()
	}
	got := run(&TailOptions{Since: "0"}, "forward #1 bad-1")
	for _, want := range []string{"ok-1", "  -> forward #1 ok-1 " + handler.URL + "/hooks: 200 in ", `{"ok":true}`,
		"  -> forward #1 bad-1 " + handler.URL + "/hooks: 400 in ", "signature check failed\\x1b[2J"} {
		if !strings.Contains(got, want) {
			t.Errorf("tail lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "\x1b") {
		t.Errorf("a handler's body reached the terminal raw:\n%q", got)
	}
	failed := run(&TailOptions{Since: "0", Failed: true}, "forward #1 bad-1")
	if strings.Contains(failed, "ok-1") || !strings.Contains(failed, "bad-1") {
		t.Errorf("--failed printed:\n%s", failed)
	}
	js := run(&TailOptions{Since: "0", Failed: true, JSON: true}, `"kind":"forward"`)
	var a relayclient.Attempt
	if err := json.Unmarshal([]byte(strings.SplitN(js, "\n", 2)[0]), &a); err != nil || a.Status != 400 || a.EventID != "bad-1" || a.Body == "" || a.Headers == nil {
		t.Fatalf("--json attempt %q: %+v %v", js, a, err)
	}
}
