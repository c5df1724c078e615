package clock

import (
	"sort"
	"sync"
	"time"
)

// Clock is the time source every time-driven component takes.
type Clock interface {
	Now() time.Time
	// After fires once d has elapsed on this clock.
	After(d time.Duration) <-chan time.Time
	// AfterFunc runs f in its own goroutine once d has elapsed on this clock.
	AfterFunc(d time.Duration, f func()) Timer
}

// Timer is a pending AfterFunc.
type Timer interface {
	// Stop prevents the function from running; it reports whether it did.
	Stop() bool
}

// Real returns the system clock.
func Real() Clock { return realClock{} }

type realClock struct{}

func (realClock) Now() time.Time                         { return time.Now() }
func (realClock) After(d time.Duration) <-chan time.Time { return time.After(d) }
func (realClock) AfterFunc(d time.Duration, f func()) Timer {
	return time.AfterFunc(d, f)
}

// Fake is a manually advanced clock. The zero value is not usable; use NewFake.
type Fake struct {
	mu      sync.Mutex
	now     time.Time
	waiters []*fakeWaiter
	seq     int
}

type fakeWaiter struct {
	at   time.Time
	seq  int
	fn   func()
	ch   chan time.Time
	fake *Fake
}

func (w *fakeWaiter) Stop() bool {
	w.fake.mu.Lock()
	defer w.fake.mu.Unlock()
	for i, o := range w.fake.waiters {
		if o == w {
			w.fake.waiters = append(w.fake.waiters[:i], w.fake.waiters[i+1:]...)
			return true
		}
	}
	return false
}

// NewFake returns a fake clock reading start.
func NewFake(start time.Time) *Fake { return &Fake{now: start} }

// Now returns the fake's current time.
func (f *Fake) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

// After returns a channel that receives once the fake is advanced past d.
func (f *Fake) After(d time.Duration) <-chan time.Time {
	ch := make(chan time.Time, 1)
	f.add(d, nil, ch)
	return ch
}

// AfterFunc schedules fn to run when the fake is advanced past d. A
// non-positive d still waits for the next Advance (even Advance(0)), so
// callers never run re-entrantly.
func (f *Fake) AfterFunc(d time.Duration, fn func()) Timer {
	return f.add(d, fn, nil)
}

func (f *Fake) add(d time.Duration, fn func(), ch chan time.Time) *fakeWaiter {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.seq++
	w := &fakeWaiter{at: f.now.Add(d), seq: f.seq, fn: fn, ch: ch, fake: f}
	f.waiters = append(f.waiters, w)
	return w
}

// Pending reports how many timers are waiting; tests use it to wait until
// the code under test has scheduled its next step.
func (f *Fake) Pending() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.waiters)
}

// Advance moves the clock forward by d and fires, in time order, every
// timer that became due. AfterFunc callbacks run synchronously, in order,
// so a test that advances sees their effects when Advance returns.
// Timers that callbacks schedule within the advanced window fire too.
func (f *Fake) Advance(d time.Duration) {
	f.mu.Lock()
	target := f.now.Add(d)
	f.mu.Unlock()
	for {
		f.mu.Lock()
		sort.SliceStable(f.waiters, func(i, j int) bool {
			if f.waiters[i].at.Equal(f.waiters[j].at) {
				return f.waiters[i].seq < f.waiters[j].seq
			}
			return f.waiters[i].at.Before(f.waiters[j].at)
		})
		if len(f.waiters) == 0 || f.waiters[0].at.After(target) {
			f.now = target
			f.mu.Unlock()
			return
		}
		w := f.waiters[0]
		f.waiters = f.waiters[1:]
		if w.at.After(f.now) {
			f.now = w.at
		}
		now := f.now
		f.mu.Unlock()
		if w.fn != nil {
			w.fn()
		} else {
			w.ch <- now
		}
	}
}
