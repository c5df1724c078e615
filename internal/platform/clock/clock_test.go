package clock

import (
	"testing"
	"time"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// Time-driven tests across the project (token expiry, retry backoff, payout
// steps) rely on these semantics of the fake.
func TestFakeFiresInTimeOrderAndOnlyWhenDue(t *testing.T) {
	f := NewFake(t0)
	var got []string
	var at []time.Time
	f.AfterFunc(3*time.Second, func() { got = append(got, "c"); at = append(at, f.Now()) })
	f.AfterFunc(1*time.Second, func() { got = append(got, "a"); at = append(at, f.Now()) })
	f.AfterFunc(2*time.Second, func() { got = append(got, "b"); at = append(at, f.Now()) })

	f.Advance(1500 * time.Millisecond)
	if len(got) != 1 || got[0] != "a" {
		t.Fatalf("after 1.5s fired %v, want [a]", got)
	}
	f.Advance(10 * time.Second)
	if want := "abc"; got[0]+got[1]+got[2] != want {
		t.Fatalf("order %v, want a b c", got)
	}
	for i, d := range []time.Duration{1, 2, 3} {
		if !at[i].Equal(t0.Add(d * time.Second)) {
			t.Errorf("timer %d saw Now()=%v, want %v", i, at[i], t0.Add(d*time.Second))
		}
	}
	if !f.Now().Equal(t0.Add(11500 * time.Millisecond)) {
		t.Errorf("Now() = %v after advancing 11.5s", f.Now())
	}
}

func TestFakeChainedTimersWithinWindowFire(t *testing.T) {
	f := NewFake(t0)
	steps := 0
	var step func()
	step = func() {
		steps++
		if steps < 3 {
			f.AfterFunc(time.Second, step)
		}
	}
	f.AfterFunc(time.Second, step)
	f.Advance(5 * time.Second)
	if steps != 3 {
		t.Fatalf("chained steps fired %d times, want 3", steps)
	}
	if f.Pending() != 0 {
		t.Fatalf("Pending() = %d, want 0", f.Pending())
	}
}

func TestFakeZeroDelayWaitsForAdvanceAndStopCancels(t *testing.T) {
	f := NewFake(t0)
	fired := false
	f.AfterFunc(0, func() { fired = true })
	if fired {
		t.Fatal("AfterFunc(0) ran before Advance")
	}
	f.Advance(0)
	if !fired {
		t.Fatal("AfterFunc(0) did not run on Advance(0)")
	}

	stopped := f.AfterFunc(time.Second, func() { t.Error("stopped timer ran") })
	if !stopped.Stop() {
		t.Fatal("Stop on a pending timer returned false")
	}
	if stopped.Stop() {
		t.Fatal("second Stop returned true")
	}
	ch := f.After(time.Second)
	f.Advance(time.Second)
	select {
	case got := <-ch:
		if !got.Equal(t0.Add(time.Second)) {
			t.Fatalf("After delivered %v", got)
		}
	default:
		t.Fatal("After channel empty after the clock passed it")
	}
}
