package backoff_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/paydash/paydash/internal/platform/backoff"
	"github.com/paydash/paydash/internal/platform/clock"
)

var (
	maxRand  = func(n int64) int64 { return n - 1 }
	zeroRand = func(int64) int64 { return 0 }
)

func TestDelayDoublesUpToTheCap(t *testing.T) {
	p := backoff.Policy{Base: 200 * time.Millisecond, Max: 5 * time.Second}
	for n, want := range map[int]time.Duration{
		0: 200 * time.Millisecond, // before the first retry counts as the first
		1: 200 * time.Millisecond,
		2: 400 * time.Millisecond,
		5: 3200 * time.Millisecond,
		6: 5 * time.Second,
		// A retry count that would overflow a shift still caps.
		1000: 5 * time.Second,
	} {
		if got := p.Delay(n); got != want {
			t.Errorf("Delay(%d) = %v, want %v", n, got, want)
		}
	}
	fixed := backoff.Policy{Base: 20 * time.Millisecond, Max: 20 * time.Millisecond}
	if fixed.Delay(1) != 20*time.Millisecond || fixed.Delay(9) != 20*time.Millisecond {
		t.Errorf("a Base equal to Max is not a fixed pause: %v, %v", fixed.Delay(1), fixed.Delay(9))
	}
}

func TestJitterStaysWithinItsRange(t *testing.T) {
	for _, tc := range []struct {
		jitter   backoff.Jitter
		min, max time.Duration // at retry 3 of 100ms..1s: ceiling 400ms
	}{
		{backoff.None, 400 * time.Millisecond, 400 * time.Millisecond},
		{backoff.Full, 0, 400 * time.Millisecond},
		{backoff.Equal, 200 * time.Millisecond, 400 * time.Millisecond},
	} {
		p := backoff.Policy{Base: 100 * time.Millisecond, Max: time.Second, Jitter: tc.jitter}
		p.Rand = zeroRand
		if got := p.Delay(3); got != tc.min {
			t.Errorf("jitter %d: shortest wait %v, want %v", tc.jitter, got, tc.min)
		}
		p.Rand = maxRand
		if got := p.Delay(3); got != tc.max {
			t.Errorf("jitter %d: longest wait %v, want %v", tc.jitter, got, tc.max)
		}
		p.Rand = nil // the real draw
		for range 100 {
			if got := p.Delay(3); got < tc.min || got > tc.max {
				t.Fatalf("jitter %d: %v outside [%v, %v]", tc.jitter, got, tc.min, tc.max)
			}
		}
	}
}

// TestWaitRunsOnTheInjectedClock: each wait ends when the fake clock
// reaches it and not a nanosecond before, the waits double, and Reset
// starts again from Base.
func TestWaitRunsOnTheInjectedClock(t *testing.T) {
	fc := clock.NewFake(time.Unix(0, 0))
	b := backoff.New(backoff.Policy{Base: 50 * time.Millisecond, Max: 150 * time.Millisecond}, fc)
	waitOnce := func(want time.Duration) {
		t.Helper()
		done := make(chan error, 1)
		go func() { done <- b.Wait(context.Background()) }()
		waitPending(t, fc, 1)
		fc.Advance(want - time.Nanosecond)
		select {
		case err := <-done:
			t.Fatalf("wait of %v ended early (%v)", want, err)
		default:
		}
		fc.Advance(time.Nanosecond)
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	waitOnce(50 * time.Millisecond)
	waitOnce(100 * time.Millisecond)
	waitOnce(150 * time.Millisecond)
	waitOnce(150 * time.Millisecond)
	b.Reset()
	waitOnce(50 * time.Millisecond)
}

// TestSleepEndsWithTheContext: a cancelled wait returns the context's
// error at once and leaves no timer behind.
func TestSleepEndsWithTheContext(t *testing.T) {
	fc := clock.NewFake(time.Unix(0, 0))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- backoff.Sleep(ctx, fc, time.Hour) }()
	waitPending(t, fc, 1)
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if n := fc.Pending(); n != 0 {
		t.Errorf("%d timers left behind", n)
	}
	if err := backoff.Sleep(ctx, fc, 0); !errors.Is(err, context.Canceled) {
		t.Errorf("a zero wait on an ended context: %v, want context.Canceled", err)
	}
	if err := backoff.Sleep(context.Background(), fc, 0); err != nil {
		t.Errorf("a zero wait: %v", err)
	}
}

func waitPending(t *testing.T, fc *clock.Fake, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for fc.Pending() != n {
		if time.Now().After(deadline) {
			t.Fatalf("%d timers pending, want %d", fc.Pending(), n)
		}
		time.Sleep(time.Millisecond)
	}
}
