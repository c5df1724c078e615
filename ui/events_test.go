package ui

import (
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/webhookrelay/relayclient"
)

// An event from the subscriber moves the payout in the tracker and makes
// the balances refresh at once, without waiting for the poll.
func TestEventUpdatesTrackerAndRefreshesBalances(t *testing.T) {
	fb := newFake(10)
	h := newHarness(t, Options{Backend: fb}, 120, 40)
	fillPayout(h, "Ada", "DE75512108001245126199", "R", "10")
	h.key("y")
	id := fb.payouts[0].TransactionID
	before := fb.balanceCalls
	fb.balances[0].AvailableBalanceInMinor -= 1000 // EUR, the payout's source

	at := fixedNow.Add(time.Second)
	h.send(relayEventsMsg{events: []relayclient.Event{
		{Seq: 10, EventID: "e10", Type: api.EventPayoutAuthorised, PayoutID: id, State: api.StateAuthorised, OccurredAt: at, ReceivedAt: at},
	}})
	p := h.m.tracker.byID[id]
	if p.state != api.StateAuthorised {
		t.Fatalf("tracker state %q after payout_authorised", p.state)
	}
	if fb.balanceCalls != before+1 {
		t.Fatalf("balances fetched %d times after the event, want %d", fb.balanceCalls, before+1)
	}
	if got := h.m.bal.find("EUR", testBalances[0].IBAN); got == nil || got.b.AvailableBalanceInMinor != testBalances[0].AvailableBalanceInMinor-1000 {
		t.Errorf("balances not refreshed: %+v", got)
	}
	h.key("3")
	mustContain(t, h.view(), id[:13], "authorised")

	// Out of order and replayed events never move it backwards; the
	// timeline keeps every step with its time.
	h.send(relayEventsMsg{events: []relayclient.Event{
		{Seq: 12, EventID: "e12", Type: api.EventPayoutSettled, PayoutID: id, State: api.StateSettled, OccurredAt: at.Add(9 * time.Second)},
		{Seq: 11, EventID: "e11", Type: api.EventPayoutSubmitted, PayoutID: id, State: api.StateSubmitted, OccurredAt: at.Add(2 * time.Second)},
		{Seq: 10, EventID: "e10", Type: api.EventPayoutAuthorised, PayoutID: id, State: api.StateAuthorised, OccurredAt: at},
	}})
	if p.state != api.StateSettled {
		t.Errorf("state %q, want settled", p.state)
	}
	var states []string
	for _, s := range p.steps {
		states = append(states, s.state)
	}
	if got := strings.Join(states, ","); got != "sent,authorised,submitted,settled" {
		t.Errorf("timeline %s", got)
	}
	if got := timeline(p, p.steps[0].at.UTC()); got != "sent 09:30:00 → authorised 09:30:01 → submitted 09:30:03 → settled 09:30:10" {
		t.Errorf("timeline %q", got)
	}
	// Seen on a later day, the steps carry their date, once per day.
	if got := timeline(p, p.steps[0].at.UTC().AddDate(0, 3, 0)); got != "sent 2025-03-14 09:30:00 → authorised 09:30:01 → submitted 09:30:03 → settled 09:30:10" {
		t.Errorf("timeline of an old payout %q", got)
	}
	mustContain(t, h.view(), "settled    2025-03-14 09:30:10")
}

func TestRejectedPayoutShowsReason(t *testing.T) {
	h := newHarness(t, Options{Backend: newFake(10), Events: closedEvents(testEvents())}, 120, 40)
	h.key("3")
	p := h.m.tracker.byID["99999999-8888-4777-8666-555555555555"]
	if p == nil || p.state != api.StateRejected || p.reason != api.FailureInsufficientFunds {
		t.Fatalf("rejected payout: %+v", p)
	}
	mustContain(t, h.view(), "rejected", "insufficient_funds")
}

func TestChangedRowsHighlightBriefly(t *testing.T) {
	h := newHarness(t, Options{Backend: newFake(10), Events: closedEvents(testEvents())}, 120, 40)
	h.key("3")
	id := "11111111-2222-4333-8444-555555555555"
	p := h.m.tracker.byID[id]
	if now := h.m.now(); now.Sub(p.changedAt) >= highlightFor {
		t.Fatalf("a payout that just moved is not highlighted (changed %v, now %v)", p.changedAt, now)
	}
	h.advance(highlightFor)
	if h.m.now().Sub(p.changedAt) < highlightFor {
		t.Fatal("the highlight outlasts its two seconds")
	}
}

func TestDrainEventsBatches(t *testing.T) {
	ch := make(chan relayclient.Event, 1200)
	for i := range 1200 {
		ch <- relayclient.Event{Seq: uint64(i + 1)}
	}
	close(ch)
	var sizes []int
	for {
		msg := drainEvents(ch, maxEventBatch)
		sizes = append(sizes, len(msg.events))
		if msg.closed {
			break
		}
	}
	if len(sizes) != 3 || sizes[0] != maxEventBatch || sizes[1] != maxEventBatch || sizes[2] != 1200-2*maxEventBatch {
		t.Errorf("a burst of 1200 came in batches %v, want %d, %d, %d", sizes, maxEventBatch, maxEventBatch, 1200-2*maxEventBatch)
	}
}

func TestEventsView(t *testing.T) {
	h := newHarness(t, Options{Backend: newFake(10), Events: closedEvents(testEvents())}, 120, 40)
	h.key("4")
	v := &h.m.events
	mustContain(t, h.view(), "5 of 5 events", "following", "11111111-2222-4333-8444-555555555555 settled", "external_payment_received", "received 50,000 (minor units)")
	if v.nav.cursor != 4 {
		t.Errorf("following: cursor %d, want the newest (4)", v.nav.cursor)
	}
	// Moving up pauses; new events then count as unseen.
	h.key("up")
	h.send(relayEventsMsg{events: []relayclient.Event{{Seq: 6, EventID: "ev-6", Type: api.EventPayoutSubmitted, PayoutID: "x", State: api.StateSubmitted}}})
	mustContain(t, h.view(), "paused", "1 new")
	if v.nav.cursor != 3 {
		t.Errorf("paused view moved the cursor to %d", v.nav.cursor)
	}
	h.key("f")
	if !v.follow || v.nav.cursor != 5 {
		t.Errorf("f: follow %v cursor %d", v.follow, v.nav.cursor)
	}
	// t cycles the type filter.
	h.key("t")
	if v.typ != api.EventExternalPaymentReceived || len(v.shown) != 1 {
		t.Errorf("type filter %q shows %d", v.typ, len(v.shown))
	}
	h.key("esc")
	// Open one: headers and the pretty body; copy the body.
	h.key("g")
	h.key("enter")
	mustContain(t, h.view(), "Event #1 payout_authorised", "X-Svc-Webhook-Timestamp", `"event_body": {`, `"transaction_id": "11111111`)
	h.key("y")
	m := osc52Seq.FindSubmatch(h.clip.Bytes())
	if m == nil {
		t.Fatal("body not copied")
	}
	if got, _ := base64.StdEncoding.DecodeString(string(m[1])); string(got) != string(testEvents()[0].Body) {
		t.Errorf("copied %s", got)
	}
	h.key("esc")
	h.key("/")
	h.typeText("rejected")
	if len(v.shown) != 1 {
		t.Errorf("text filter shows %d events, want 1", len(v.shown))
	}
}

func TestPrettyJSONColoursWithoutChangingText(t *testing.T) {
	h := newHarness(t, Options{Backend: newFake(1)}, 120, 40)
	got := prettyJSON(h.m.c(), []byte(`{"a":1,"b":[true,null,"x\"y"],"c":{"d":-2.5e3}}`))
	want := "{\n  \"a\": 1,\n  \"b\": [\n    true,\n    null,\n    \"x\\\"y\"\n  ],\n  \"c\": {\n    \"d\": -2.5e3\n  }\n}"
	if got != want {
		t.Errorf("pretty JSON:\n%s\nwant:\n%s", got, want)
	}
	if got := prettyJSON(h.m.c(), []byte("not json \x1b[31m")); got != `not json \x1b[31m` {
		t.Errorf("non-JSON body = %q", got)
	}
}

func TestRelayStateInHeader(t *testing.T) {
	// A closed, empty channel: the state then comes only from the
	// messages below.
	states := make(chan relayclient.ConnState)
	close(states)
	h := newHarness(t, Options{Backend: newFake(1), States: states}, 120, 40)
	mustContain(t, h.view(), "relay: connecting")
	h.send(relayStateMsg{state: relayclient.ConnState{Status: relayclient.StateReconnecting, RetryIn: 5 * time.Second}})
	mustContain(t, h.view(), "relay: reconnecting in 5s")
	h.advance(2 * time.Second)
	mustContain(t, h.view(), "relay: reconnecting in 3s")
	h.send(relayStateMsg{state: relayclient.ConnState{Status: relayclient.StateLive}})
	mustContain(t, h.view(), "relay: live")
	h.send(relayStateMsg{state: relayclient.ConnState{Status: relayclient.StateOffline}})
	mustContain(t, h.view(), "relay: offline")
}

func TestBalancesChangeAndLowAlert(t *testing.T) {
	fb := newFake(1)
	h := newHarness(t, Options{Backend: fb, LowBalance: map[string]int64{"GBP": 100_000_00}}, 120, 40)
	out := h.view()
	if strings.Contains(out, "low balance") {
		t.Fatal("alert while above the threshold")
	}
	fb.balances[1].AvailableBalanceInMinor = 99_999_99
	fb.balances[1].CurrentBalanceInMinor = 100_500_00
	h.send(balanceTickMsg{})
	out = h.view()
	mustContain(t, out, "⚠ low balance: GBP £99,999.99", "-£20,000.01")
	if n := fb.balanceCalls; n != 2 {
		t.Errorf("balance calls %d", n)
	}
	h.key("down") // select GBP (second, as the service lists them): its detail shows reserved and change
	mustContain(t, h.view(), "reserved £500.01", "change since start -£20,000.01")
	if r := h.m.bal.find("GBP", testBalances[1].IBAN); len(r.hist) != 2 || sparkline(r.hist, 10) != "█▇" {
		t.Errorf("history %v sparkline %q", r.hist, sparkline(r.hist, 10))
	}
}

// A refresh asked for while one is in flight runs once that one returns.
func TestBalanceFetchCoalesces(t *testing.T) {
	fb := newFake(1)
	h := newHarness(t, Options{Backend: fb}, 120, 40)
	start := fb.balanceCalls
	c1 := h.m.bal.fetch(h.m.c())
	if c2 := h.m.bal.fetch(h.m.c()); c2 != nil {
		t.Fatal("a second fetch started while one was in flight")
	}
	h.run(c1)
	if got := fb.balanceCalls - start; got != 2 {
		t.Errorf("%d fetches, want the one in flight and one pending", got)
	}
}

// The relay resends events after a reconnect; one applied twice must not
// add a second step, while events without an id are never merged.
func TestTrackerDedupesByEventID(t *testing.T) {
	h := newHarness(t, Options{Backend: newFake(1)}, 120, 40)
	ev := relayclient.Event{EventID: "e1", PayoutID: "p1", State: api.StateAuthorised, OccurredAt: fixedNow}
	h.send(relayEventsMsg{events: []relayclient.Event{ev, ev}})
	if n := len(h.m.tracker.byID["p1"].steps); n != 1 {
		t.Errorf("a replayed event added %d steps, want 1", n)
	}
	noID := relayclient.Event{PayoutID: "p2", State: api.StateAuthorised, OccurredAt: fixedNow}
	h.send(relayEventsMsg{events: []relayclient.Event{noID, {PayoutID: "p3", State: api.StateSubmitted}}})
	if h.m.tracker.byID["p2"] == nil || h.m.tracker.byID["p3"] == nil {
		t.Error("events without an id were dropped")
	}
}

// A payout seen only through the relay (another operator's) shows its
// beneficiary and amount from the report the dashboard already holds; one
// that the report does not have yet is filled in when r reloads it on the
// tracker.
func TestRelayOnlyPayoutFilledFromReport(t *testing.T) {
	fb := newFake(50)
	// Row 50 is not in the loaded report; it is the newest payout (the
	// report refreshes from its newest row on).
	at := fixedNow.Add(time.Second)
	fb.txs = func(i int) api.Transaction {
		t := genTx(i)
		if i == 50 {
			t.AuthorisedAt = api.NewReportTime(at)
			t.SubmittedAt, t.SettledAt, t.Status = api.ReportTime{}, api.ReportTime{}, api.StateAuthorised
		}
		return t
	}
	h := newHarness(t, Options{Backend: fb}, 120, 40)
	known, later := fb.txs(7), fb.txs(50)
	h.send(relayEventsMsg{events: []relayclient.Event{
		{Seq: 1, EventID: "e1", Type: api.EventPayoutSettled, PayoutID: known.TransactionID, State: api.StateSettled, OccurredAt: at},
		{Seq: 2, EventID: "e2", Type: api.EventPayoutAuthorised, PayoutID: later.TransactionID, State: api.StateAuthorised, OccurredAt: at},
	}})
	h.key("3")
	row := func(tx api.Transaction) string {
		l, _ := line(h.view(), tx.TransactionID[:13])
		return l
	}
	if l := row(known); !strings.Contains(l, known.BeneficiaryName) || !strings.Contains(l, api.FormatAmount(known.AmountInMinor, known.Currency)) {
		t.Errorf("payout in the report shown without its details: %q", l)
	}
	if l := row(later); strings.Contains(l, later.BeneficiaryName) {
		t.Errorf("payout not in the report shows details: %q", l)
	}
	mustContain(t, h.view(), "1 not in the loaded report")
	calls := fb.reportCalls()

	fb.setRows(51)
	h.key("r")
	if fb.reportCalls() != calls+1 {
		t.Fatalf("r on the tracker made %d report calls, want 1", fb.reportCalls()-calls)
	}
	if l := row(later); !strings.Contains(l, later.BeneficiaryName) || !strings.Contains(l, api.FormatAmount(later.AmountInMinor, later.Currency)) {
		t.Errorf("payout still without details after the report reload: %q", l)
	}
	if strings.Contains(h.view(), "not in the loaded report") {
		t.Error("tracker still reports payouts missing from the report")
	}
	// Nothing unknown any more: r refreshes balances only.
	h.key("r")
	if fb.reportCalls() != calls+1 {
		t.Error("r reloaded the report with every payout already described")
	}
}

// line returns the first line of s containing every one of parts.
func line(s string, parts ...string) (string, bool) {
	for _, l := range strings.Split(s, "\n") {
		ok := true
		for _, p := range parts {
			if !strings.Contains(l, p) {
				ok = false
				break
			}
		}
		if ok {
			return l, true
		}
	}
	return "", false
}

// The payout form's result follows the webhooks: once the payout is
// rejected, the headline says so with the reason instead of a green tick.
func TestPayoutResultFollowsWebhooks(t *testing.T) {
	cases := []struct {
		state, reason string
		want          string
	}{
		{"", "", "✓ Payout accepted (202): the outcome arrives by webhook (relay live)"},
		{api.StateRejected, api.FailureInsufficientFunds, "✗ Payout accepted (202), then rejected: insufficient_funds"},
		{api.StateSettled, "", "✓ Payout accepted (202) and settled"},
	}
	for _, c := range cases {
		t.Run(c.state, func(t *testing.T) {
			fb := newFake(10)
			h := newHarness(t, Options{Backend: fb, States: liveState()}, 120, 40)
			fillPayout(h, "Ada", "DE75512108001245126199", "R", "10")
			h.key("y")
			if c.state != "" {
				h.send(relayEventsMsg{events: []relayclient.Event{{Seq: 1, EventID: "e1", PayoutID: fb.payouts[0].TransactionID,
					State: c.state, Reason: c.reason, OccurredAt: fixedNow}}})
			}
			mustContain(t, h.view(), c.want)
		})
	}
}

// Changing the events filter keeps the selected event selected, not the
// same line number (which would now be another event).
func TestEventsFilterKeepsSelection(t *testing.T) {
	h := newHarness(t, Options{Backend: newFake(10), Events: closedEvents(testEvents())}, 120, 40)
	h.key("4")
	v := &h.m.events
	selected := func() uint64 { return v.at(v.shown[v.nav.cursor]).Seq }
	h.key("up") // seq 4, and following pauses
	if selected() != 4 {
		t.Fatalf("selected seq %d, want 4", selected())
	}
	h.key("/")
	h.typeText("11111111") // payout a: seqs 1, 2, 4
	if len(v.shown) != 3 || selected() != 4 {
		t.Errorf("filtered: %d shown, seq %d selected; want 3 and seq 4", len(v.shown), selected())
	}
	h.key("esc")
	if len(v.shown) != 5 || selected() != 4 {
		t.Errorf("cleared: %d shown, seq %d selected; want 5 and seq 4", len(v.shown), selected())
	}
	h.key("t") // the first type, external_payment_received: seq 5 only
	h.key("esc")
	if selected() != 5 {
		t.Errorf("after the type filter: seq %d selected, want 5", selected())
	}
}

// TestHeaderSaysTheRelayRefusedTheToken: a relay that refuses the token
// is not "reconnecting" like one that is down: retrying will not fix it,
// so the header says what will.
func TestHeaderSaysTheRelayRefusedTheToken(t *testing.T) {
	states := make(chan relayclient.ConnState, 1)
	states <- relayclient.ConnState{Status: relayclient.StateReconnecting, RetryIn: 5 * time.Second,
		Err: refusedErr{}}
	close(states)
	h := newHarness(t, Options{Backend: newFake(10), Events: closedEvents(nil), States: states}, 80, 24)
	mustContain(t, h.view(), "paydash · profile demo", "relay: token refused (401)")
}

// refusedErr is what a Subscriber reports for a 401.
type refusedErr struct{}

func (refusedErr) Error() string        { return "relay refused the token (HTTP 401): check the relay token" }
func (refusedErr) Is(target error) bool { return target == relayclient.ErrRefused }

// TestDashboardSaysWhatTheRelayDropped: events the relay's retention
// dropped while the dashboard was away are said, not skipped silently.
func TestDashboardSaysWhatTheRelayDropped(t *testing.T) {
	states := make(chan relayclient.ConnState, 1)
	states <- relayclient.ConnState{Status: relayclient.StateLive, Missed: [2]uint64{12, 40}}
	close(states)
	h := newHarness(t, Options{Backend: newFake(10), Events: closedEvents(nil), States: states}, 160, 40)
	mustContain(t, h.view(), "relay: events 12–40 were dropped by the relay's retention")
}
