package ui

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/webhookrelay/relayclient"
)

// payoutEvent is a relay event moving payout id to state.
func payoutEvent(seq int, id, state string) relayclient.Event {
	typ := map[string]string{api.StateAuthorised: api.EventPayoutAuthorised, api.StateSubmitted: api.EventPayoutSubmitted,
		api.StateSettled: api.EventPayoutSettled, api.StateRejected: api.EventPayoutRejected}[state]
	at := fixedNow.Add(time.Duration(seq) * time.Millisecond)
	return relayclient.Event{Seq: uint64(seq), EventID: "ev-" + strconv.Itoa(seq), Family: relayclient.FamilyPayout, Type: typ,
		PayoutID: id, State: state, OccurredAt: at, ReceivedAt: at}
}

func otherID(i int) string { return fmt.Sprintf("0000%04d-8888-4777-8666-000000000000", i) }

// The tracker keeps what a person follows: the payout sent from this
// dashboard (finished long ago), one followed from the report, payouts
// still in flight (however old), and the latest N finished ones of
// others; older finished ones are dropped, and the screen says how many
// and where they are.
func TestTrackerKeepsOwnInFlightAndLatestFinished(t *testing.T) {
	fb := newFake(10)
	h := newHarness(t, Options{Backend: fb, States: liveState(), TrackerKeepFinal: 3}, 120, 40)
	fillPayout(h, "Ada", "DE75512108001245126199", "R", "10")
	h.key("y")
	mine := fb.payouts[0].TransactionID
	seq := 0
	next := func(id, state string) relayclient.Event { seq++; return payoutEvent(seq, id, state) }
	// Mine settles first, and two others start and never finish.
	h.send(relayEventsMsg{events: []relayclient.Event{next(mine, api.StateSettled),
		next(otherID(900), api.StateAuthorised), next(otherID(901), api.StateSubmitted)}})
	// One from the report, followed with p: settled already.
	picked := genTx(3)
	picked.Status = api.StateSettled
	h.send(trackPayoutMsg{tx: picked})
	// Ten others finish, one event at a time, the last one rejected.
	for i := range 10 {
		state := api.StateSettled
		if i == 9 {
			state = api.StateRejected
		}
		h.send(relayEventsMsg{events: []relayclient.Event{next(otherID(i), api.StateAuthorised), next(otherID(i), state)}})
	}
	tr := &h.m.tracker
	want := []string{mine, picked.TransactionID, otherID(900), otherID(901), otherID(7), otherID(8), otherID(9)}
	for _, id := range want {
		if tr.byID[id] == nil {
			t.Errorf("payout %s was dropped; the tracker keeps its own, those in flight and the latest 3 finished", id)
		}
	}
	for i := range 7 {
		if tr.byID[otherID(i)] != nil {
			t.Errorf("finished payout %s is still held beyond the latest 3", otherID(i))
		}
	}
	if n := tr.payouts.len(); n != len(want) || len(tr.visible()) != len(want) {
		t.Errorf("%d payouts tracked, %d listed; want %d", n, len(tr.visible()), len(want))
	}
	h.key("3")
	mustContain(t, h.view(), "7 payouts followed",
		"7 older finished payouts dropped (latest 3 kept): see 2 Report, or paydash events tail --since 0 --payout <id>")

	// A late event for a dropped payout brings it back as news, and the
	// oldest kept finished one makes room.
	h.send(relayEventsMsg{events: []relayclient.Event{next(otherID(0), api.StateRejected)}})
	if tr.byID[otherID(0)] == nil || tr.byID[otherID(7)] != nil || tr.byID[mine] == nil || tr.byID[picked.TransactionID] == nil {
		t.Errorf("after a late event for a dropped payout: it is held %v, the oldest kept finished one %v, mine %v",
			tr.byID[otherID(0)] != nil, tr.byID[otherID(7)] != nil, tr.byID[mine] != nil)
	}
	// A resent event changes nothing.
	before := len(tr.byID[otherID(9)].steps)
	h.send(relayEventsMsg{events: []relayclient.Event{payoutEvent(seq, otherID(0), api.StateRejected)}})
	h.send(relayEventsMsg{events: []relayclient.Event{payoutEvent(seq-1, otherID(9), api.StateRejected)}})
	if len(tr.byID[otherID(9)].steps) != before || tr.droppedFinal != 8 {
		t.Errorf("a resent event moved the tracker: %d steps (want %d), %d dropped (want 8)", len(tr.byID[otherID(9)].steps), before, tr.droppedFinal)
	}
}

// indexOf finds a payout's line among the rows shown, filtered or not,
// so a selection kept by id survives rows coming and going.
func TestTrackerIndexOf(t *testing.T) {
	h := newHarness(t, Options{Backend: newFake(10), States: liveState()}, 120, 40)
	for i := range 5 {
		h.send(relayEventsMsg{events: []relayclient.Event{payoutEvent(i+1, otherID(i), api.StateAuthorised)}})
	}
	tr := &h.m.tracker
	if got := tr.indexOf(otherID(4)); got != 0 {
		t.Errorf("newest payout at line %d, want 0", got)
	}
	if got := tr.indexOf(otherID(0)); got != 4 {
		t.Errorf("oldest payout at line %d, want 4", got)
	}
	tr.filter.set(otherID(2))
	if got, gone := tr.indexOf(otherID(2)), tr.indexOf(otherID(3)); got != 0 || gone != -1 {
		t.Errorf("filtered: line %d (want 0), a payout filtered out at %d (want -1)", got, gone)
	}
}

// BenchmarkTrackerEvent is the payout tracker's cost of a payout event
// (apply, lookup, recordOutcomes: what runs on the Update path; two
// events per payout, authorised then settled) after 100 and after
// 100,000 payouts seen: each op is 1,000 new payouts after that many, on
// a fresh tracker. Bounded and indexed, both cost the same per event.
//
//	go test ./ui -run '^$' -bench 'TrackerEvent|LiveEventUpdate' -benchmem -benchtime 5x -count 3
func BenchmarkTrackerEvent(b *testing.B) {
	benchEvents(b, func(m *model, evs []relayclient.Event) {
		c := m.c()
		m.tracker.apply(c, evs)
		_ = m.tracker.lookup(c, m.tx.store)
		m.tracker.lookupBusy = false // as when its answer arrives
		_ = m.tracker.recordOutcomes(c)
	})
}

// BenchmarkLiveEventUpdate is the same through the dashboard's whole
// path for relay events (Events view, tracker, late-webhook book,
// balance refresh) and the frame drawn after each, on the Events view.
func BenchmarkLiveEventUpdate(b *testing.B) {
	benchEvents(b, func(m *model, evs []relayclient.Event) {
		_ = m.onEvents(relayEventsMsg{events: evs})
		_ = m.View()
	})
}

func benchEvents(b *testing.B, feed func(*model, []relayclient.Event)) {
	const measured = 1000
	for _, seen := range []int{100, 100_000} {
		b.Run(strconv.Itoa(seen)+"-seen", func(b *testing.B) {
			id := func(i int) string { return fmt.Sprintf("%08d-0000-4000-8000-000000000000", i) }
			b.ReportAllocs()
			var held int
			for b.Loop() {
				b.StopTimer()
				h := newHarness(b, Options{Backend: newFake(10), States: liveState(), Workbench: &Workbench{}}, 120, 40)
				h.key("4")
				m := h.m
				seq := 0
				payout := func(id string) {
					for _, st := range []string{api.StateAuthorised, api.StateSettled} {
						seq++
						feed(m, []relayclient.Event{payoutEvent(seq, id, st)})
					}
				}
				for i := range seen {
					payout(id(i))
				}
				b.StartTimer()
				for i := range measured {
					payout(id(seen + i))
				}
				b.StopTimer()
				held = m.tracker.payouts.len()
				b.StartTimer()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(2*measured*b.N), "ns/event")
			b.ReportMetric(float64(held), "payouts-held")
		})
	}
}
