package webhooklate

import (
	"strconv"
	"testing"
	"time"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/relayclient"
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
