package ui

import (
	"strings"
	"testing"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/webhookrelay/relayclient"
)

// liveLoad feeds the tracker what the live benchmark's load generator
// sends (e2e's trigger): payouts of others in fifty lanes, each going
// authorised → submitted → settled, so they finish in the order they
// arrived and, at the bound, the oldest rows are the ones dropped.
type liveLoad struct {
	h      *harness
	seq, k int
}

// frame delivers n events as one relay batch.
func (l *liveLoad) frame(n int) {
	evs := make([]relayclient.Event, 0, n)
	for range n {
		lane, c := l.k%50, l.k/50
		p := lane + 50*(c/3)
		st := []string{api.StateAuthorised, api.StateSubmitted, api.StateSettled}[c%3]
		l.seq++
		l.k++
		evs = append(evs, payoutEvent(l.seq, otherID(p), st))
	}
	l.h.send(relayEventsMsg{events: evs})
}

// cursorRow is the payout id on the line the tracker marks with its
// cursor, as far as the screen shows it.
func cursorRow(t *testing.T, screen string) string {
	t.Helper()
	for _, l := range strings.Split(screen, "\n") {
		if strings.HasPrefix(l, ">") {
			return strings.Fields(l[1:])[0]
		}
	}
	t.Fatalf("no cursor line on screen:\n%s", screen)
	return ""
}

// Issue 28 item 7: with the Payouts view at its bound (1,000 finished
// kept, older ones dropped) and payouts arriving every frame, j and k
// move the cursor to the neighbouring payout on the next frame, and the
// cursor stays on that payout while more arrive. Before, the arrivals
// carried the selected payout down to the oldest rows, the bound dropped
// it, and the cursor jumped to another payout (or, at the list's end,
// sat still) whatever the operator pressed.
func TestTrackerCursorAtBound(t *testing.T) {
	h := newHarness(t, Options{Backend: newFake(10), States: liveState(), TrackerKeepFinal: 1000}, 120, 40)
	h.key("3")
	load := &liveLoad{h: h}
	for h.m.tracker.droppedFinal == 0 {
		load.frame(3) // about 30 payouts a second at 30 frames a second
	}
	tr := &h.m.tracker
	h.view()
	keys := []string{"j", "j", "k"}
	moved := 0
	for i := range 400 {
		k := keys[i%len(keys)]
		rows := tr.visible()
		at := tr.nav.cursor
		want := rows[at].id
		switch {
		case k == "j" && at+1 < len(rows):
			want = rows[at+1].id
		case k == "k" && at > 0:
			want = rows[at-1].id
		}
		if want != rows[at].id {
			moved++
		}
		h.key(k)
		load.frame(3)
		screen := h.view()
		if got := selectedID(tr); got != want {
			t.Fatalf("press %d (%s, row %d of %d): the next frame selects %s, want %s", i, k, at, len(rows), got, want)
		}
		if got := cursorRow(t, screen); !strings.HasPrefix(want, strings.TrimSuffix(got, "…")) {
			t.Fatalf("press %d (%s): the cursor line shows %s, want %s:\n%s", i, k, got, want, screen)
		}
		mustContain(t, screen, "payout "+want)
		// More arrive while the operator reads: the cursor stays.
		for range 5 {
			load.frame(3)
		}
		h.view()
		if got := selectedID(tr); got != want {
			t.Fatalf("press %d: five frames later the cursor is on %s, want still %s", i, got, want)
		}
	}
	// The arrivals carry the cursor down to the list's end, where j has
	// nowhere to go; most presses still have a row to move to.
	if moved < 250 {
		t.Fatalf("only %d of 400 presses had a row to move to; the test does not exercise the list", moved)
	}
	// The bound still holds: the payout under the cursor and its
	// neighbours are the only finished ones kept beyond it.
	if n := tr.finished.live; n > tr.keepFinal+3 {
		t.Fatalf("%d finished payouts held, bound %d (+3 at the cursor)", n, tr.keepFinal)
	}
}

func selectedID(v *trackerView) string {
	if p := v.selected(); p != nil {
		return p.id
	}
	return "nothing"
}
