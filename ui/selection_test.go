package ui

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/webhookrelay/relayclient"
)

// lastCopied is the text of the latest OSC 52 copy.
func lastCopied(t *testing.T, h *harness) string {
	t.Helper()
	all := osc52Seq.FindAllSubmatch(h.clip.Bytes(), -1)
	if len(all) == 0 {
		t.Fatal("nothing copied")
	}
	got, err := base64.StdEncoding.DecodeString(string(all[len(all)-1][1]))
	if err != nil {
		t.Fatal(err)
	}
	return string(got)
}

// Issue 22 item 1: new payouts arriving above the selected one leave the
// selection on it: y copies its id and the detail pane shows it, at every
// position of the list, the first row too.
func TestTrackerSelectionFollowsItsPayout(t *testing.T) {
	for _, downs := range []int{0, 1} {
		h := newHarness(t, Options{Backend: newFake(10), Events: closedEvents(testEvents()), States: liveState()}, 120, 40)
		h.key("3")
		for range downs {
			h.key("down")
		}
		h.key("y")
		want := lastCopied(t, h)
		h.view()
		// Two payouts from other operators arrive while the operator reads.
		h.send(relayEventsMsg{events: []relayclient.Event{
			payoutEvent(10, "aaaaaaaa-0000-4000-8000-000000000010", api.StateAuthorised),
			payoutEvent(11, "aaaaaaaa-0000-4000-8000-000000000011", api.StateAuthorised),
		}})
		view := h.view()
		h.key("y")
		if got := lastCopied(t, h); got != want {
			t.Fatalf("row %d: y copied %s after new payouts arrived, want the selected %s", downs, got, want)
		}
		_, detail, _ := strings.Cut(view, strings.Repeat("─", 40))
		if !strings.Contains(detail, "payout "+want) {
			t.Fatalf("row %d: the detail pane no longer shows %s:\n%s", downs, want, view)
		}
	}
}

// A payout sent from the form is the one selected when the operator opens
// the tracker, whatever was selected there before.
func TestTrackerSelectsThePayoutJustSent(t *testing.T) {
	h := newHarness(t, Options{Backend: newFake(10), Events: closedEvents(testEvents()), States: liveState()}, 120, 40)
	h.key("3")
	h.key("down")
	fillPayout(h, "Ada Lovelace", "DE75512108001245126199", "INV-1", "12.34")
	h.key("y")
	h.key("3")
	h.view()
	if p := h.m.tracker.selected(); p == nil || p.id != h.be.payouts[0].TransactionID {
		t.Fatalf("the tracker opened on %v, want the payout just sent", p)
	}
}
