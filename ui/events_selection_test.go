package ui

import (
	"testing"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/webhookrelay/relayclient"
)

// Issue 22 item 1 on the Events view: paused on an event, new events
// arriving leave the selection on it (what enter opens and y copies).
func TestEventsSelectionFollowsItsEvent(t *testing.T) {
	h := newHarness(t, Options{Backend: newFake(10), Events: closedEvents(testEvents()), States: liveState()}, 120, 40)
	h.key("4")
	h.key("up")
	h.key("up")
	h.view()
	want := h.m.events.at(h.m.events.shown[h.m.events.nav.cursor]).EventID
	h.send(relayEventsMsg{events: []relayclient.Event{
		payoutEvent(30, "aaaaaaaa-0000-4000-8000-000000000030", api.StateAuthorised),
		payoutEvent(31, "aaaaaaaa-0000-4000-8000-000000000031", api.StateAuthorised),
	}})
	h.view()
	if got := h.m.events.at(h.m.events.shown[h.m.events.nav.cursor]).EventID; got != want {
		t.Fatalf("new events moved the selection from %s to %s", want, got)
	}
	mustContain(t, h.view(), "2 new")
}
