package ui

import (
	"testing"
	"time"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/webhookrelay/relayclient"
)

// A burst of relay events refreshes the balances at once for the first,
// then at most once per balanceNudgeGap, and once more after the last
// event: the balance on screen is the one after the whole burst.
func TestBalancesRefreshOncePerGapUnderABurst(t *testing.T) {
	fb := newFake(10)
	h := newHarness(t, Options{Backend: fb, States: liveState()}, 120, 40)
	start := fb.balanceCalls
	for i := range 50 { // a second of events, 20 ms apart
		h.send(relayEventsMsg{events: []relayclient.Event{payoutEvent(i+1, otherID(i), api.StateAuthorised)}})
		if i == 0 && fb.balanceCalls != start+1 {
			t.Fatalf("balances fetched %d times after the first event, want 1 at once", fb.balanceCalls-start)
		}
		h.advance(20 * time.Millisecond)
	}
	if got := fb.balanceCalls - start; got != 1 {
		t.Fatalf("balances fetched %d times during a one-second burst, want 1", got)
	}
	fb.balances[1].AvailableBalanceInMinor = 12_345_67 // GBP, moved by the burst
	h.advance(balanceNudgeGap)
	if got := fb.balanceCalls - start; got != 2 {
		t.Fatalf("balances fetched %d times after the burst, want one more after its last event", got)
	}
	mustContain(t, h.view(), "£12,345.67")
	h.advance(balanceNudgeGap)
	if got := fb.balanceCalls - start; got != 2 {
		t.Fatalf("balances fetched %d times with no event since, want 2", got)
	}
}
