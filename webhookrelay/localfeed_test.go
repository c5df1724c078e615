package webhookrelay

import (
	"context"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/webhookrelay/relayclient"
)

// readFeed reads n events from ch, failing after a generous timeout or
// when ch closes first.
func readFeed(t *testing.T, ch <-chan Event, n int) []Event {
	t.Helper()
	var got []Event
	deadline := time.After(20 * time.Second)
	for len(got) < n {
		select {
		case e, ok := <-ch:
			if !ok {
				t.Fatalf("feed closed after %d of %d events", len(got), n)
			}
			got = append(got, e)
		case <-deadline:
			t.Fatalf("feed gave %d of %d events", len(got), n)
		}
	}
	return got
}

// postFor posts payments-interface events for payout po, named
// prefix-from..prefix-(to-1), and returns their event ids.
func postFor(t *testing.T, tr *testRelay, po, prefix string, from, to int) []string {
	t.Helper()
	var ids []string
	for i := from; i < to; i++ {
		id := fmt.Sprintf("%s-%04d", prefix, i)
		if resp := tr.post(t, paymentsWebhook(id, api.EventPayoutExecuted, po, nil), http.Header{}); resp.status != http.StatusOK {
			t.Fatalf("post %s: %d %s", id, resp.status, resp.body)
		}
		ids = append(ids, id)
	}
	return ids
}

func eventIDs(es []Event) []string {
	ids := make([]string, len(es))
	for i, e := range es {
		ids[i] = e.EventID
	}
	return ids
}

// testLocalFeed: the in-process feed gives one payout's events stored
// after the call, in seq order, none missed and none repeated, even when
// its reader falls further behind than the fan-out queue holds (the
// store has what the fan-out dropped); it closes when the reader stops.
func testLocalFeed(t *testing.T, tr *testRelay) {
	postFor(t, tr, "po-a", "before", 0, 3)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch, err := tr.LocalFeed().PayoutEvents(ctx, "po-a")
	if err != nil {
		t.Fatal(err)
	}
	// Nothing is read while these are stored: the queue (4) overflows.
	var want []string
	for i := range 12 {
		want = append(want, postFor(t, tr, "po-a", "a", i, i+1)...)
		postFor(t, tr, "po-b", "b", i, i+1)
	}
	// Clustered, the fan-out hears each event from the stream after the
	// post is answered: the overflow comes a little later.
	waitFor(t, "the fan-out to drop the follower that read nothing (else the test reads no overflow)", func() bool {
		return tr.Metrics().SlowConsumerCloses > 0
	})
	got := readFeed(t, ch, len(want))
	// Then live, one at a time.
	for i := 12; i < 15; i++ {
		want = append(want, postFor(t, tr, "po-a", "a", i, i+1)...)
		got = append(got, readFeed(t, ch, 1)...)
	}
	if ids := eventIDs(got); !reflect.DeepEqual(ids, want) {
		t.Fatalf("feed gave %v\nwant %v", ids, want)
	}
	for i := 1; i < len(got); i++ {
		if got[i].Seq <= got[i-1].Seq || got[i].PayoutID != "po-a" || len(got[i].Body) == 0 {
			t.Fatalf("event %d: %+v after seq %d", i, got[i], got[i-1].Seq)
		}
	}
	cancel()
	select {
	case e, ok := <-ch:
		if ok {
			t.Fatalf("an event after the reader stopped: %+v", e)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the feed stayed open after its context ended")
	}
}

func TestLocalFeedGivesOnePayoutsEventsFromNowOnWithoutLoss(t *testing.T) {
	testLocalFeed(t, startRelay(t, Config{ClientQueue: 4}))
}

func TestLocalFeedOnJetStream(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a three-node NATS cluster")
	}
	cluster := startNATSCluster(t, 3)
	testLocalFeed(t, startRelay(t, Config{ClientQueue: 4,
		NATS: &NATSConfig{URLs: cluster.ClientURLs(), Stream: "LOCALFEED", Replicas: 3}}))
}

// Closing the relay ends its followers (they follow the report from
// then on) and refuses new ones.
func TestLocalFeedEndsWithTheRelay(t *testing.T) {
	tr := startRelay(t, Config{})
	ch, err := tr.LocalFeed().PayoutEvents(context.Background(), "po-a")
	if err != nil {
		t.Fatal(err)
	}
	tr.stop()
	select {
	case _, ok := <-ch:
		if ok {
			t.Fatal("an event from a closed relay")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the feed stayed open after the relay closed")
	}
	if _, err := tr.LocalFeed().PayoutEvents(context.Background(), "po-a"); err == nil {
		t.Fatal("a closed relay gave a feed")
	}
}

// The duplicate check asks the feed what became of an earlier payout:
// it answers as GET /events does (relayclient.History), the last final
// state and its reason.
func TestLocalFeedFinalStateAgreesWithHistory(t *testing.T) {
	tr := startRelay(t, Config{})
	post := func(id, typ, tx string, extra map[string]any) {
		t.Helper()
		if resp := tr.post(t, payoutWebhook(id, typ, tx, extra), stampHeader(time.Now())); resp.status != http.StatusOK {
			t.Fatalf("post %s: %d %s", id, resp.status, resp.body)
		}
	}
	post("f1", api.EventPayoutAuthorised, "tx-failed", nil)
	post("s1", api.EventPayoutAuthorised, "tx-settled", nil)
	post("f2", api.EventPayoutSubmitted, "tx-failed", nil)
	post("s2", api.EventPayoutSettled, "tx-settled", nil)
	post("f3", api.EventPayoutFailed, "tx-failed", map[string]any{"failure_reason": "returned"})
	post("p1", api.EventPayoutAuthorised, "tx-pending", nil)
	postFor(t, tr, "po-other", "o", 0, 5)
	post("r1", api.EventPayoutRejected, "TX-REJECTED", map[string]any{"reason": "aml_check_failed"})

	ctx := context.Background()
	for _, c := range []struct{ id, state, reason string }{
		{"tx-failed", api.StateFailed, "returned"},
		{"tx-settled", api.StateSettled, ""},
		{"TX-REJECTED", api.StateRejected, "aml_check_failed"},
		{"tx-rejected", "", ""},
		{"tx-pending", "", ""},
		{"tx-unknown", "", ""},
	} {
		state, reason, ok, err := tr.LocalFeed().FinalState(ctx, c.id)
		if err != nil || state != c.state || reason != c.reason || ok != (c.state != "") {
			t.Errorf("FinalState(%s) = %q %q %v %v, want %q %q", c.id, state, reason, ok, err, c.state, c.reason)
		}
		hs, hr, hok, herr := relayclient.History{URL: tr.base}.FinalState(ctx, c.id)
		if herr != nil || hs != state || hr != reason || hok != ok {
			t.Errorf("%s: History says %q %q %v %v, the feed %q %q %v", c.id, hs, hr, hok, herr, state, reason, ok)
		}
	}
}

// The fan-out carries websocket frames; the feed reads the event back
// out of them, whatever the length of the frame's header.
func TestFrameEventReadsWhatTheFanOutCarries(t *testing.T) {
	for _, size := range []int{0, 10, 125, 200, 70_000} {
		e := Event{EventID: "ev-1", Family: FamilyPayout, Type: api.EventPayoutRejected, PayoutID: "tx-1", State: api.StateRejected,
			Reason: "aml_check_failed", ReceivedAt: time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC), Headers: map[string]string{"Content-Type": "application/json"},
			Body: []byte(`{"pad":"` + strings.Repeat("p", size) + `"}`)}
		rec, err := encodeRecord(&e)
		if err != nil {
			t.Fatal(err)
		}
		frame, err := appendEventFrame(nil, 42, rec)
		if err != nil {
			t.Fatal(err)
		}
		got, err := frameEvent(frame)
		e.Seq = 42
		if err != nil || !reflect.DeepEqual(got, e) {
			t.Fatalf("size %d: %+v %v\nwant %+v", size, got, err, e)
		}
	}
	if _, err := frameEvent([]byte{0x81, 126, 1}); err == nil {
		t.Fatal("a truncated frame decoded")
	}
}
