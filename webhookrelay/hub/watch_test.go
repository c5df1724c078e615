package hub_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/paydash/paydash/webhookrelay/hub/hubapi"
	"github.com/paydash/paydash/webhookrelay/hub/hubclient"
	"github.com/paydash/paydash/webhookrelay/hub/store"
)

// feedWait bounds how long a pushed change may take to arrive.
const feedWait = 5 * time.Second

// feed is one subscriber of a hub's approvals feed, through hubclient.
type feed struct {
	changes chan hubapi.Change
	states  chan hubclient.FeedState
}

// watch subscribes c to its hub's feed and waits until it is up.
func watch(t *testing.T, c *hubclient.Client) *feed {
	t.Helper()
	f := &feed{changes: make(chan hubapi.Change, 64), states: make(chan hubclient.FeedState, 16)}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = c.Watch(ctx, func(ch hubapi.Change) {
			select {
			case f.changes <- ch:
			case <-ctx.Done():
			}
		}, func(s hubclient.FeedState) {
			select {
			case f.states <- s:
			case <-ctx.Done():
			}
		})
	}()
	t.Cleanup(func() { cancel(); <-done })
	select {
	case s := <-f.states:
		if !s.Up {
			t.Fatalf("the feed did not come up: %v", s.Err)
		}
	case <-time.After(feedWait):
		t.Fatal("the feed did not come up")
	}
	return f
}

// next waits for the change of request id to status.
func (f *feed) next(t *testing.T, id, status string) hubapi.Change {
	t.Helper()
	deadline := time.After(feedWait)
	for {
		select {
		case ch := <-f.changes:
			if ch.ID == id && ch.Status == status {
				return ch
			}
		case <-deadline:
			t.Fatalf("no change of %s to %s pushed within %s", id, status, feedWait)
		}
	}
}

// each waits for the change of every one of ids to status, in any order.
func (f *feed) each(t *testing.T, ids []string, status string) []hubapi.Change {
	t.Helper()
	var got []hubapi.Change
	seen := map[string]bool{}
	deadline := time.After(feedWait)
	for len(seen) < len(ids) {
		select {
		case ch := <-f.changes:
			if ch.Status == status && slices.Contains(ids, ch.ID) && !seen[ch.ID] {
				seen[ch.ID] = true
				got = append(got, ch)
			}
		case <-deadline:
			t.Fatalf("changes to %s pushed for %v of %v", status, seen, ids)
		}
	}
	return got
}

// exactly wants id's changes to be statuses, in order, each once, and
// nothing more within a second.
func (f *feed) exactly(t *testing.T, id string, statuses ...string) {
	t.Helper()
	var got []string
	deadline := time.After(feedWait)
	for len(got) < len(statuses) {
		select {
		case ch := <-f.changes:
			if ch.ID == id {
				got = append(got, ch.Status)
			}
		case <-deadline:
			t.Fatalf("changes of %s pushed: %v, want %v", id, got, statuses)
		}
	}
	if strings.Join(got, ",") != strings.Join(statuses, ",") {
		t.Fatalf("changes of %s pushed: %v, want %v", id, got, statuses)
	}
	f.quiet(t, time.Second)
}

// quiet fails on any change arriving within d.
func (f *feed) quiet(t *testing.T, d time.Duration) {
	t.Helper()
	select {
	case ch := <-f.changes:
		t.Fatalf("unexpected change pushed: %+v", ch)
	case <-time.After(d):
	}
}

func feedURL(base string) string {
	return "ws" + strings.TrimPrefix(base, "http") + hubapi.PathApprovalsWS
}

// A viewer (view role only: neither request nor approve is needed) hears
// each change of a request's status as it is committed, with nothing from
// before it connected, and each message carries the request's id and
// status, never the payee or amount.
func TestApprovalsFeedPushesEachChangeToAViewer(t *testing.T) {
	e := startEnv(t, opts{})
	ctx := context.Background()
	// A request made before the viewer connects is not sent to it.
	old, err := e.as("bob").Submit(ctx, sub("FEED-OLD", payeeIBAN, 2000_00))
	if err != nil {
		t.Fatal(err)
	}
	f := watch(t, e.as("vic"))
	res, err := e.as("bob").Submit(ctx, sub("FEED-1", payeeIBAN, 5000_00))
	if err != nil || res.Status != hubapi.StatusAwaitingApproval {
		t.Fatalf("submit: %+v %v", res, err)
	}
	id := res.ApprovalID
	if ch := f.next(t, id, store.StatusPending); ch.UpdatedAt.IsZero() {
		t.Fatalf("change without updated_at: %+v", ch)
	}
	// A refused change commits nothing, and nothing is pushed.
	_, err = e.as("bob").Approve(ctx, id)
	wantReason(t, err, "own_request")
	f.quiet(t, 300*time.Millisecond)
	if _, err := e.as("cy").Approve(ctx, id); err != nil {
		t.Fatal(err)
	}
	f.next(t, id, store.StatusApproved)
	f.next(t, id, store.StatusSending)
	if ch := f.next(t, id, store.StatusSent); ch.PayoutState != "accepted" {
		t.Fatalf("sent without its payout state: %+v", ch)
	}
	// Once each, at a single hub too.
	f.quiet(t, 300*time.Millisecond)
	if _, err := e.as("cy").Reject(ctx, old.ApprovalID, "wrong payee"); err != nil {
		t.Fatal(err)
	}
	f.next(t, old.ApprovalID, store.StatusRejected)

	// What one message carries, read off the wire.
	h := http.Header{"Authorization": {"Bearer " + e.tokens["vic"]}}
	conn, _, err := websocket.DefaultDialer.Dial(feedURL(e.srv.URL), h)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	res, err = e.as("ada").Submit(ctx, sub("FEED-2", otherIBAN, 3000_00))
	if err != nil {
		t.Fatal(err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(feedWait))
	_, data, err := conn.ReadMessage()
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	for k := range m {
		switch k {
		case "id", "batch", "status", "payout_state", "updated_at":
		default:
			t.Fatalf("the feed's message carries %q: %s", k, data)
		}
	}
	if m["id"] != res.ApprovalID || m["status"] != store.StatusPending {
		t.Fatalf("message %s, want request %s pending", data, res.ApprovalID)
	}
}

// The feed is the hub's like every endpoint: no token, or a token in the
// URL (which ends up in proxies' and shells' histories) is refused before
// the websocket opens.
func TestApprovalsFeedRefusesNoTokenAndATokenInTheURL(t *testing.T) {
	e := startEnv(t, opts{})
	for _, c := range []struct {
		name   string
		url    string
		header http.Header
		status int
		reason string
	}{
		{"no token", feedURL(e.srv.URL), nil, http.StatusUnauthorized, "unauthorized"},
		{"token in the query", feedURL(e.srv.URL) + "?token=" + e.tokens["vic"], nil, http.StatusBadRequest, "token_in_url"},
		{"token in the query and the header", feedURL(e.srv.URL) + "?token=" + e.tokens["vic"],
			http.Header{"Authorization": {"Bearer " + e.tokens["vic"]}}, http.StatusBadRequest, "token_in_url"},
		{"unknown token", feedURL(e.srv.URL), http.Header{"Authorization": {"Bearer not-a-users-token-0123456789abcdef"}}, http.StatusUnauthorized, "unauthorized"},
	} {
		conn, resp, err := websocket.DefaultDialer.Dial(c.url, c.header)
		if err == nil {
			conn.Close()
			t.Fatalf("%s: the feed opened", c.name)
		}
		if resp == nil || resp.StatusCode != c.status {
			t.Fatalf("%s: %v %v, want %d", c.name, resp, err, c.status)
		}
		var p hubapi.Problem
		_ = json.NewDecoder(resp.Body).Decode(&p)
		resp.Body.Close()
		if p.Reason != c.reason {
			t.Fatalf("%s: reason %q, want %q", c.name, p.Reason, c.reason)
		}
	}
	// Through the client: the refusal is the state it reports, not a
	// feed that looks up.
	ctx, cancel := context.WithTimeout(context.Background(), feedWait)
	defer cancel()
	states := make(chan hubclient.FeedState, 4)
	go func() {
		_ = (&hubclient.Client{BaseURL: e.srv.URL}).Watch(ctx, func(hubapi.Change) {}, func(s hubclient.FeedState) { states <- s })
	}()
	select {
	case s := <-states:
		if s.Up || !hubclient.IsReason(s.Err, "unauthorized") {
			t.Fatalf("watch without a token: %+v", s)
		}
	case <-ctx.Done():
		t.Fatal("no state reported")
	}
}

// A hub shutting down closes its subscribers' feeds, saying so (going
// away), rather than leaving them open or holding up its stop.
func TestApprovalsFeedClosesWhenTheHubStops(t *testing.T) {
	e := startEnv(t, opts{})
	h := http.Header{"Authorization": {"Bearer " + e.tokens["vic"]}}
	conn, _, err := websocket.DefaultDialer.Dial(feedURL(e.srv.URL), h)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	stopped := make(chan struct{})
	go func() { defer close(stopped); e.close() }()
	_ = conn.SetReadDeadline(time.Now().Add(feedWait))
	_, _, err = conn.ReadMessage()
	if !websocket.IsCloseError(err, websocket.CloseGoingAway) {
		t.Fatalf("feed at the hub's stop: %v, want a going-away close", err)
	}
	select {
	case <-stopped:
	case <-time.After(feedWait):
		t.Fatal("the hub's stop waited on an open feed")
	}
}

// A lapse and a batch's decision are changes like any other: a lapse
// noticed at an approval is pushed, and each row of a batch approved whole
// is pushed with its batch id, through to sent.
func TestApprovalsFeedPushesALapseAndABatchDecision(t *testing.T) {
	e := startEnv(t, opts{})
	ctx := context.Background()
	f := watch(t, e.as("vic"))
	lapsing, err := e.as("ada").Submit(ctx, sub("FEED-LAPSE", payeeIBAN, 5000_00))
	if err != nil {
		t.Fatal(err)
	}
	f.next(t, lapsing.ApprovalID, store.StatusPending)
	e.clk.Advance(time.Hour)
	_, err = e.as("cy").Approve(ctx, lapsing.ApprovalID)
	wantReason(t, err, "lapsed")
	f.next(t, lapsing.ApprovalID, store.StatusLapsed)

	b, err := e.as("ada").SubmitBatch(ctx, batchSub("feed.csv", row(2, "FB-1", payeeIBAN, 600_00), row(3, "FB-2", otherIBAN, 600_00)))
	if err != nil || b.Status != hubapi.StatusAwaitingApproval || len(b.Rows) != 2 {
		t.Fatalf("batch: %+v %v", b, err)
	}
	ids := []string{b.Rows[0].ID, b.Rows[1].ID}
	for _, ch := range f.each(t, ids, store.StatusPending) {
		if ch.Batch != b.BatchID {
			t.Fatalf("row %s pushed with batch %q, want %s", ch.ID, ch.Batch, b.BatchID)
		}
	}
	if _, err := e.as("cy").ApproveBatch(ctx, b.BatchID); err != nil {
		t.Fatal(err)
	}
	f.each(t, ids, store.StatusSent)
}

// A subscriber that cannot keep up is dropped, never waited for: a batch
// of 100 rows commits 100 changes at once into a queue of 2, and the
// subscriber gets a close saying to list again (code 4000); the hub went
// on with the batch meanwhile.
func TestApprovalsFeedDropsASlowSubscriberSayingSo(t *testing.T) {
	e := startEnv(t, opts{feedQueue: 2})
	h := http.Header{"Authorization": {"Bearer " + e.tokens["vic"]}}
	conn, _, err := websocket.DefaultDialer.Dial(feedURL(e.srv.URL), h)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	rows := make([]hubapi.BatchRow, 100)
	for i := range rows {
		rows[i] = row(i+2, fmt.Sprintf("SLOW-%d", i), payeeIBAN, 1500_00)
	}
	b, err := e.as("ada").SubmitBatch(context.Background(), batchSub("slow.csv", rows...))
	if err != nil || b.Status != hubapi.StatusAwaitingApproval || len(b.Rows) != len(rows) {
		t.Fatalf("batch: %s %v", b.Status, err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(feedWait))
	n := 0
	for {
		_, _, err = conn.ReadMessage()
		if err != nil {
			break
		}
		n++
	}
	var ce *websocket.CloseError
	if !errors.As(err, &ce) || ce.Code != 4000 || ce.Text != hubapi.CloseReasonSlow {
		t.Fatalf("after %d changes: %v, want a close 4000 %q", n, err, hubapi.CloseReasonSlow)
	}
	if n >= len(rows) {
		t.Fatalf("%d changes read before the close: the subscriber was not behind", n)
	}
}
