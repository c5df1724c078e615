package ui

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/webhookrelay/relayclient"
)

// randomEvent is one of the relay's event kinds with ids and reasons
// drawn from a small alphabet, so typed filters match some and not
// others.
func randomEvent(r *rand.Rand, seq int) relayclient.Event {
	ids := []string{"aa11", "ab12", "ba21", "bb22", "c3"}
	id := ids[r.IntN(len(ids))] + "-" + strconv.Itoa(r.IntN(50))
	at := fixedNow.Add(time.Duration(seq) * time.Second)
	switch r.IntN(4) {
	case 0:
		return relayclient.Event{Seq: uint64(seq), EventID: "ev-" + strconv.Itoa(seq), Family: relayclient.FamilyPayments,
			Type: api.EventExternalPaymentReceived, ReceivedAt: at,
			Body: []byte(`{"type":"external_payment_received","amount_in_minor":` + strconv.Itoa(r.IntN(100000)) + `,"currency":"GBP"}`)}
	case 1:
		return relayclient.Event{Seq: uint64(seq), EventID: "ev-" + strconv.Itoa(seq), Family: relayclient.FamilyPayout,
			Type: api.EventPayoutRejected, PayoutID: id, State: api.StateRejected, Reason: []string{"Insufficient_Funds", "aml_check_failed"}[r.IntN(2)], ReceivedAt: at}
	default:
		st := []string{api.StateAuthorised, api.StateSubmitted, api.StateSettled}[r.IntN(3)]
		return payoutEvent(seq, id, st)
	}
}

// shownByFullSearch is what the Events view must show: every held event
// of the type whose summary, made from scratch, contains the query.
func shownByFullSearch(v *eventsView) []int {
	q := v.filter.query()
	var out []int
	for n := v.dropped(); n < v.total; n++ {
		ev := v.at(n)
		if v.typ != "" && ev.Type != v.typ {
			continue
		}
		if v.wb.failedOnly && !forwardFailed(ev) {
			continue
		}
		if q != "" && !strings.Contains(strings.ToLower(ev.Type+" "+ev.EventID+" "+ev.PayoutID+" "+eventSummary(ev)), q) {
			continue
		}
		out = append(out, n)
	}
	return out
}

// Whatever order keys are typed in, events arrive and forwards are
// answered, the incremental filter (narrowing as the text grows, new
// events checked one by one, the oldest dropped at the cap) shows
// exactly what a full search shows.
func TestEventsFilterEqualsFullSearch(t *testing.T) {
	for seed := range uint64(20) {
		r := rand.New(rand.NewPCG(seed, 7))
		h := newHarness(t, Options{Backend: newFake(10), States: liveState()}, 120, 40)
		v := &h.m.events
		v.heldEvents = newHeldEvents(60) // small cap, so it is crossed often
		h.key("4")
		seq := 0
		for step := range 300 {
			switch k := r.IntN(12); {
			case k < 4:
				var batch []relayclient.Event
				for range 1 + r.IntN(8) {
					seq++
					batch = append(batch, randomEvent(r, seq))
				}
				h.send(relayEventsMsg{events: batch})
			case k < 8:
				if !v.filter.active {
					h.key("/")
				}
				if r.IntN(4) == 0 && v.filter.value() != "" {
					h.key("backspace")
				} else {
					h.typeText(string("abc12-_ ifsAR"[r.IntN(13)]))
				}
			case k == 8:
				if v.filter.active {
					h.key("enter")
				}
				h.key("t")
			case k == 9:
				if v.filter.active {
					h.key("enter")
				}
				h.key("x") // only failed forwards, or all again
			case k == 10 && v.held() > 0:
				// A forward's answer arrives for a held event.
				n := v.dropped() + r.IntN(v.held())
				fr := &relayclient.ForwardResult{URL: "http://127.0.0.1:9/hook", Attempts: 1, StatusCode: []int{200, 500}[r.IntN(2)]}
				v.setForward(n, fr)
				v.refilter()
			default:
				if v.filter.active {
					h.key("esc")
				}
			}
			if got, want := v.shown, shownByFullSearch(v); !slices.Equal(got, want) {
				t.Fatalf("seed %d step %d, filter %q type %q: shown %v, a full search shows %v", seed, step, v.filter.query(), v.typ, got, want)
			}
			// The summaries made on arrival are those made from scratch.
			for n := v.dropped(); n < v.total; n++ {
				for _, withID := range []bool{true, false} {
					if got, want := v.summary(n, withID), listSummary(v.at(n), withID); got != want {
						t.Fatalf("event %d summary %q, made from scratch %q", n, got, want)
					}
				}
			}
		}
	}
}

// The status line keeps "N of M events" and, once the cap is crossed,
// says how many older events were dropped and how to read them.
func TestEventsStatusLineSaysWhatWasDropped(t *testing.T) {
	h := newHarness(t, Options{Backend: newFake(10), Events: closedEvents(nil), States: liveState()}, 120, 40)
	v := &h.m.events
	v.heldEvents = newHeldEvents(5)
	h.key("4")
	var evs []relayclient.Event
	for i := range 3 {
		evs = append(evs, payoutEvent(i+1, otherID(i), api.StateSettled))
	}
	h.send(relayEventsMsg{events: evs})
	mustContain(t, h.view(), "3 of 3 events · following")
	evs = evs[:0]
	for i := 3; i < 9; i++ {
		evs = append(evs, payoutEvent(i+1, otherID(i), api.StateSettled))
	}
	h.send(relayEventsMsg{events: evs})
	mustContain(t, h.view(), "5 of 5 events · 4 older dropped: events tail --since 0 · following")
	h.key("/")
	h.typeText(otherID(8)[:8])
	h.key("enter")
	mustContain(t, h.view(), "1 of 5 events · 4 older dropped: events tail --since 0 · following")
}

// BenchmarkEventsFilterKeystroke types a payout id into the Events
// filter with 20,000 events held, one keystroke per op, through the
// dashboard's Update and View as a keystroke runs.
//
//	go test ./ui -run '^$' -bench EventsFilterKeystroke -benchmem
func BenchmarkEventsFilterKeystroke(b *testing.B) {
	h := newHarness(b, Options{Backend: newFake(10), States: liveState()}, 120, 40)
	r := rand.New(rand.NewPCG(1, 2))
	batch := make([]relayclient.Event, 0, 500)
	for seq := 1; seq <= maxEvents+5000; seq++ {
		batch = append(batch, randomEvent(r, seq))
		if len(batch) == cap(batch) {
			h.send(relayEventsMsg{events: batch})
			batch = batch[:0]
		}
	}
	h.key("4")
	query := "bb22-4"
	var worst time.Duration
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if i%(len(query)+1) == 0 {
			b.StopTimer()
			h.key("esc")
			h.key("/")
			b.StartTimer()
		}
		start := time.Now()
		if k := i % (len(query) + 1); k < len(query) {
			h.send(keyMsg(string(query[k])))
		} else {
			h.send(keyMsg("backspace"))
		}
		_ = h.m.View()
		worst = max(worst, time.Since(start))
		i++
	}
	b.ReportMetric(float64(worst.Microseconds())/1000, "worst-ms")
	b.ReportMetric(float64(h.m.events.held()), "held")
}

// shownIndexOfSeq finds an event's line among those shown, so a
// selection kept by id survives filtering and the oldest being dropped.
func TestEventsShownIndexOfSeq(t *testing.T) {
	h := newHarness(t, Options{Backend: newFake(10), Events: closedEvents(nil), States: liveState()}, 120, 40)
	v := &h.m.events
	v.heldEvents = newHeldEvents(4)
	var evs []relayclient.Event
	for i := range 6 {
		evs = append(evs, payoutEvent(i+1, otherID(i), api.StateSettled))
	}
	h.send(relayEventsMsg{events: evs})
	if got := v.shownIndexOfSeq(3); got != 0 {
		t.Errorf("seq 3, the oldest held, at line %d, want 0", got)
	}
	if got := v.shownIndexOfSeq(1); got != -1 {
		t.Errorf("seq 1 was dropped but is at line %d", got)
	}
	h.key("4")
	h.key("/")
	h.typeText(otherID(4)[:8])
	if got, gone := v.shownIndexOfSeq(5), v.shownIndexOfSeq(6); got != 0 || gone != -1 {
		t.Errorf("filtered: seq 5 at line %d (want 0), seq 6 at %d (want -1)", got, gone)
	}
}

// liveEvent is an event as the relay streams it at a busy hour: a
// payout's state, or now and then an external payment, with the
// delivery's headers and body.
func liveEvent(seq int) relayclient.Event {
	ev := payoutEvent(seq, fmt.Sprintf("%08x-1ive-4000-8000-%012d", seq*2654435761%(1<<32), seq/3),
		[]string{api.StateAuthorised, api.StateSubmitted, api.StateSettled}[seq%3])
	if seq%25 == 24 {
		ev = relayclient.Event{Seq: uint64(seq), EventID: "ev-" + strconv.Itoa(seq), Family: relayclient.FamilyPayments,
			Type: api.EventExternalPaymentReceived, ReceivedAt: ev.ReceivedAt}
	}
	ev.Body = []byte(`{"event_id":"` + ev.EventID + `","type":"` + ev.Type + `","payout_id":"` + ev.PayoutID + `","amount_in_minor":` + strconv.Itoa(1000+seq) + `,"currency":"GBP"}`)
	ev.Headers = map[string]string{"Content-Type": "application/json", "User-Agent": "sandbox-webhooks/1",
		"X-Svc-Webhook-Timestamp": strconv.Itoa(1_700_000_000 + seq),
		"X-Svc-Webhook-Signature": strings.Repeat(strconv.Itoa(seq%10), 176)}
	return ev
}

// BenchmarkEventsAppend is one relay event taken by the Events view (its
// summary and filter text made once, checked against the filter, the
// oldest let go): with a ring of 100 and no filter (the anchor), and
// with the cap's 20,000 held and a filter set, side by side in one run.
// Bounded and checked one by one, an event costs the same in each.
//
//	go test ./ui -run '^$' -bench EventsAppend -benchmem
func BenchmarkEventsAppend(b *testing.B) {
	const pool = 4096
	evs := make([]relayclient.Event, pool)
	for i := range evs {
		evs[i] = liveEvent(i + 1)
	}
	for _, c := range []struct {
		name   string
		held   int
		filter string
	}{
		{"100-held", 100, ""},
		{"100-held-filtered", 100, "settled"},
		{"20000-held", maxEvents, ""},
		{"20000-held-filtered", maxEvents, "settled"},
	} {
		b.Run(c.name, func(b *testing.B) {
			v := newEventsView()
			v.heldEvents = newHeldEvents(c.held)
			for i := 0; i < c.held; i += 500 {
				batch := make([]relayclient.Event, 0, 500)
				for k := i; k < min(i+500, c.held); k++ {
					batch = append(batch, evs[k%pool])
				}
				v.add(batch)
			}
			v.filter.set(c.filter)
			v.refilter()
			if v.held() != c.held {
				b.Fatalf("held %d, want %d", v.held(), c.held)
			}
			b.ReportAllocs()
			one := make([]relayclient.Event, 1)
			i := 0
			for b.Loop() {
				one[0] = evs[i%pool]
				v.add(one)
				i++
			}
			b.ReportMetric(float64(v.held()), "held")
			b.ReportMetric(float64(len(v.shown)), "shown")
		})
	}
}

// Held events keep their headers as pairs; the inspector and the copy
// keys get them back exactly as the relay sent them.
func TestHeldEventsGiveTheirHeadersBack(t *testing.T) {
	h := newHeldEvents(3)
	var sent []relayclient.Event
	for seq := 1; seq <= 5; seq++ {
		ev := liveEvent(seq)
		sent = append(sent, ev)
		h.push(ev)
	}
	for n := h.dropped(); n < h.total; n++ {
		if h.at(n).Headers != nil {
			t.Fatalf("event %d holds a header map", n)
		}
		got, want := h.full(n).Headers, sent[n].Headers
		if len(got) != len(want) {
			t.Fatalf("event %d headers %v, sent %v", n, got, want)
		}
		for k, v := range want {
			if got[k] != v {
				t.Fatalf("event %d header %s = %q, sent %q", n, k, got[k], v)
			}
		}
	}
}

// The Events list's rows kept from the frame before are exactly the rows
// drawn afresh, as events arrive, forwards are answered, payouts go late,
// the cursor moves and the window changes width.
func TestEventsRowsKeptAreRowsDrawn(t *testing.T) {
	opts := Options{Backend: newFake(300), States: liveState()}
	workbenchOpts(&opts) // webhook_late 30s, a payout going late
	h := newHarness(t, opts, 120, 40)
	h.key("4")
	r := rand.New(rand.NewPCG(3, 4))
	v := &h.m.events
	seq := 100
	for step := range 200 {
		switch k := r.IntN(10); {
		case k < 5:
			seq++
			ev := randomEvent(r, seq)
			ev.ReceivedAt = h.clock.Now()
			h.send(relayEventsMsg{events: []relayclient.Event{ev}})
		case k == 5 && v.held() > 0:
			n := v.total - 1 - r.IntN(min(v.held(), 30))
			v.setForward(n, &relayclient.ForwardResult{URL: "http://127.0.0.1:9/hook", Attempts: 1, StatusCode: []int{200, 500}[r.IntN(2)]})
		case k == 6:
			h.advance(7 * time.Second) // late marks appear and grow
		case k == 7:
			h.key([]string{"up", "down", "pgup", "end"}[r.IntN(4)])
		case k == 8:
			h.send(tea.WindowSizeMsg{Width: []int{80, 120, 160}[r.IntN(3)], Height: 40})
		}
		kept := h.m.View()
		v.rows = rowMemo{}
		if fresh := h.m.View(); kept != fresh {
			t.Fatalf("step %d: the frame with rows kept differs from one drawn afresh:\n%s\n---\n%s", step, kept, fresh)
		}
	}
}
