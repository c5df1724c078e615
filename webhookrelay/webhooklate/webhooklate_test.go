package webhooklate

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/webhookrelay/relayclient"
)

func limits(cur string) time.Duration {
	if cur == "GBP" {
		return 15 * time.Minute
	}
	return 48 * time.Hour
}

func TestLateMarkSetAndClearedWithHowLate(t *testing.T) {
	t0 := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	b := New(limits)
	b.Sent(Payout{ID: "gbp-1", Currency: "GBP", Amount: 500, Since: t0})
	b.Sent(Payout{ID: "eur-1", Currency: "EUR", Amount: 700, Since: t0})
	b.Observe(relayclient.Event{PayoutID: "gbp-1", Type: api.EventPayoutAuthorised, State: api.StateAuthorised, Family: relayclient.FamilyPayout, ReceivedAt: t0.Add(time.Second)})
	if late := b.Check(t0.Add(14 * time.Minute)); len(late) != 0 {
		t.Fatalf("late before the deadline: %+v", late)
	}
	late := b.Check(t0.Add(20 * time.Minute))
	if len(late) != 1 || late[0].ID != "gbp-1" || late[0].LateBy != 5*time.Minute || late[0].LastSeen != api.StateAuthorised {
		t.Fatalf("late at +20m: %+v", late)
	}
	if ExpectsText(late[0]) != "payout_settled, payout_failed or payout_rejected" {
		t.Errorf("expects %q", ExpectsText(late[0]))
	}
	st, final := b.Observe(relayclient.Event{PayoutID: "GBP-1", Type: api.EventPayoutSettled, State: api.StateSettled, Family: relayclient.FamilyPayout, ReceivedAt: t0.Add(22 * time.Minute)})
	if !final || !st.ArrivedLate || st.LateBy != 7*time.Minute || st.Late {
		t.Fatalf("final after the mark: %+v %v", st, final)
	}
	if late := b.Check(t0.Add(30 * time.Minute)); len(late) != 0 {
		t.Fatalf("mark not cleared: %+v", late)
	}
	if _, again := b.Observe(relayclient.Event{PayoutID: "gbp-1", Type: api.EventPayoutSettled, State: api.StateSettled, ReceivedAt: t0.Add(23 * time.Minute)}); again {
		t.Fatal("a redelivered final counted twice")
	}
	// A payout seen only by the relay is expected from its authorisation;
	// its currency is unknown, so the default for other rails applies.
	b.Observe(relayclient.Event{PayoutID: "relay-1", Type: api.EventPayoutExecuted, State: "executed", Family: relayclient.FamilyPayments, ReceivedAt: t0})
	b.Observe(relayclient.Event{PayoutID: "relay-2", Type: api.EventPayoutAuthorised, State: api.StateAuthorised, Family: relayclient.FamilyPayout, ReceivedAt: t0})
	late = b.Check(t0.Add(49 * time.Hour))
	if len(late) != 2 || late[0].ID != "eur-1" || late[1].ID != "relay-2" || late[1].Source != SourceAuthorised {
		t.Fatalf("late at +49h: %+v", late)
	}
}

func TestPruneForgetsSettledPayoutsOnly(t *testing.T) {
	t0 := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	b := New(limits)
	for i, id := range []string{"a", "b", "c", "d"} {
		b.Sent(Payout{ID: id, Currency: "GBP", Since: t0})
		if id != "d" {
			b.Observe(relayclient.Event{PayoutID: id, Type: api.EventPayoutSettled, State: api.StateSettled, ReceivedAt: t0.Add(time.Duration(i) * time.Minute)})
		}
	}
	b.Prune(2)
	if b.Len() != 2 {
		t.Fatalf("len %d after prune to 2", b.Len())
	}
	if _, ok := b.Get("d", t0); !ok {
		t.Fatal("the payout still expected was forgotten")
	}
	if _, ok := b.Get("c", t0); !ok {
		t.Fatal("the newest settled payout was forgotten before older ones")
	}
}

// A dashboard's book pruned to its bound after every event stays at the
// bound through any number of settled payouts, and still reports the
// one payout whose final webhook never came.
func TestPrunedBookStaysBoundedAndKeepsTheMissing(t *testing.T) {
	t0 := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	b := New(limits)
	b.Sent(Payout{ID: "missing", Currency: "GBP", Since: t0})
	for i := range 10_000 {
		id := "p" + strconv.Itoa(i)
		at := t0.Add(time.Duration(i) * time.Millisecond)
		b.Observe(relayclient.Event{PayoutID: id, Type: api.EventPayoutAuthorised, State: api.StateAuthorised, ReceivedAt: at})
		b.Observe(relayclient.Event{PayoutID: id, Type: api.EventPayoutSettled, State: api.StateSettled, ReceivedAt: at})
		b.Prune(100)
		if b.Len() > 100 {
			t.Fatalf("after %d payouts the book holds %d, bound 100", i+1, b.Len())
		}
	}
	if _, ok := b.Get("p9999", t0); !ok {
		t.Fatal("the latest settled payout was forgotten")
	}
	late := b.Check(t0.Add(time.Hour))
	if len(late) != 1 || late[0].ID != "missing" || b.Pending() != 1 {
		t.Fatalf("late = %+v (pending %d), want only the payout whose final webhook never came", late, b.Pending())
	}
}

// BenchmarkBookEvent is the late-webhook book's cost of a payout event
// (Observe, then Prune to the dashboard's bound: 1,000 finished payouts
// and those in flight; every 3rd event a new payout, its final two
// events later, 50 in flight) after 100 and after 100,000 payouts seen,
// side by side: bounded and queued, an event costs the same. Each op is
// 1,000 payouts (3,000 events) on a fresh book; allocations are per op.
//
//	go test ./webhookrelay/webhooklate -run '^$' -bench BookEvent -benchmem
func BenchmarkBookEvent(b *testing.B) {
	t0 := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	states := []string{api.StateAuthorised, api.StateSubmitted, api.StateSettled}
	types := []string{api.EventPayoutAuthorised, api.EventPayoutSubmitted, api.EventPayoutSettled}
	const inFlight = 50
	ids := make([]string, 4096)
	for i := range ids {
		ids[i] = fmt.Sprintf("%08x-1ive-4000-8000-%012d", i, i)
	}
	event := func(k int) relayclient.Event {
		lane, c := k%inFlight, k/inFlight
		p := lane + inFlight*(c/3)
		return relayclient.Event{PayoutID: ids[p%len(ids)] + strconv.Itoa(p/len(ids)), Type: types[c%3], State: states[c%3],
			ReceivedAt: t0.Add(time.Duration(k) * 10 * time.Millisecond)}
	}
	for _, seen := range []int{100, 100_000} {
		b.Run(strconv.Itoa(seen)+"-seen", func(b *testing.B) {
			const measured = 3000 // 1,000 payouts
			b.ReportAllocs()
			held := 0
			for b.Loop() {
				b.StopTimer()
				book := New(limits)
				k := 0
				for ; k < 3*seen; k++ {
					book.Observe(event(k))
					book.Prune(1000 + book.Pending())
				}
				b.StartTimer()
				for range measured {
					book.Observe(event(k))
					book.Prune(1000 + book.Pending())
					k++
				}
				held = book.Len()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(measured*b.N), "ns/event")
			b.ReportMetric(float64(held), "held")
		})
	}
}
