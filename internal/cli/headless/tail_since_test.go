package headless

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/cli/cmdutil"
	"github.com/paydash/paydash/webhookrelay"
	"github.com/paydash/paydash/webhookrelay/relaytest"
)

// postEvent posts one unsigned payout webhook to a relay (relaytest's
// relay takes any).
func postEvent(t *testing.T, url, eventType, eventID, payoutID string) {
	t.Helper()
	body, _ := json.Marshal(api.PayoutWebhook{EventType: eventType, EventID: eventID,
		EventBody: json.RawMessage(`{"transaction_id":"` + payoutID + `"}`)})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(api.HeaderWebhookTimestamp, time.Now().UTC().Format(api.WebhookTimeLayout))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		t.Fatalf("relay answered %d", resp.StatusCode)
	}
}

// tailFor runs events tail until it has printed want (or 10 s pass) and
// returns stdout and stderr.
func tailFor(t *testing.T, wsURL string, outTerminal bool, o *TailOptions, want string) (string, string) {
	t.Helper()
	var out, errb syncBuffer
	s := &cmdutil.Streams{In: strings.NewReader(""), Out: &out, Err: &errb, OutTerminal: outTerminal}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Tail(ctx, s, wsURL, "", o) }()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(out.String(), want) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil && cmdutil.ExitCode(err) != 0 {
		t.Fatalf("tail: %v", err)
	}
	return out.String(), errb.String()
}

// TestTailSinceTakesATimeOrASequenceAndSaysWhich: --since takes what
// every --since takes (7d, "7 days", today, a time) and a relay sequence
// number, and says on stderr which it read; a bad value says what is
// accepted.
func TestTailSinceTakesATimeOrASequenceAndSaysWhich(t *testing.T) {
	rl := relaytest.Start(t, webhookrelay.Config{})
	postEvent(t, rl.WebhookURL, api.EventPayoutSettled, "11111111-1111-4111-8111-111111111111", "aaaaaaaa-0000-4000-8000-000000000001")
	postEvent(t, rl.WebhookURL, api.EventPayoutSettled, "22222222-2222-4222-8222-222222222222", "aaaaaaaa-0000-4000-8000-000000000002")

	out, errOut := tailFor(t, rl.WSURL, false, &TailOptions{Since: "7 days"}, "aaaaaaaa-0000-4000-8000-000000000002")
	if !strings.Contains(out, "aaaaaaaa-0000-4000-8000-000000000001") || !strings.Contains(errOut, "--since 7 days: read as a time: events received since ") {
		t.Errorf("--since '7 days': stdout %q stderr %q", out, errOut)
	}
	out, errOut = tailFor(t, rl.WSURL, false, &TailOptions{Since: "1"}, "aaaaaaaa-0000-4000-8000-000000000002")
	if strings.Contains(out, "aaaaaaaa-0000-4000-8000-000000000001") || !strings.Contains(errOut, "--since 1: read as a relay sequence number: events after 1") {
		t.Errorf("--since 1: stdout %q stderr %q", out, errOut)
	}
	_, _, err := readTailSince(context.Background(), &cmdutil.Streams{Err: &bytes.Buffer{}}, rl.WSURL, "soon", time.Now())
	if cmdutil.ExitCode(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), "7 days") || !strings.Contains(err.Error(), "sequence number") {
		t.Errorf("--since soon: %v", err)
	}
}

// TestTailHeaderOnlyOnATerminal: the columns are named for a person at a
// terminal; a pipe and --json get events only, and notices stay on
// stderr.
func TestTailHeaderOnlyOnATerminal(t *testing.T) {
	rl := relaytest.Start(t, webhookrelay.Config{})
	postEvent(t, rl.WebhookURL, api.EventPayoutSettled, "11111111-1111-4111-8111-111111111111", "aaaaaaaa-0000-4000-8000-000000000001")
	out, _ := tailFor(t, rl.WSURL, true, &TailOptions{Since: "0"}, "aaaaaaaa")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "SEQ     RECEIVED (UTC)        TYPE") || !strings.HasPrefix(lines[1], "1       ") {
		t.Errorf("terminal: want a header then the event, columns aligned:\n%s", out)
	}
	if i, j := strings.Index(lines[0], "EVENT ID"), strings.Index(lines[1], "11111111"); i != j {
		t.Errorf("EVENT ID at column %d, the id at %d:\n%s", i, j, out)
	}
	for _, o := range []*TailOptions{{Since: "0"}, {Since: "0", JSON: true}} {
		terminal := o.JSON
		out, _ := tailFor(t, rl.WSURL, terminal, o, "aaaaaaaa")
		if strings.Contains(out, "SEQ") || strings.Count(strings.TrimSpace(out), "\n") != 0 {
			t.Errorf("pipe or --json (json %v): want the event only:\n%s", o.JSON, out)
		}
	}
}
