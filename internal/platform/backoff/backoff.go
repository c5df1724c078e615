// Package backoff is the one retry wait of paydash: exponential from a
// base delay, capped, with the jitter a loop asks for, waited on the
// injected clock.Clock (so tests advance a fake instead of sleeping) and
// cut short when the context ends. Every retry loop (the api client, the
// relay's subscriber, the forwarder, the JetStream set-up and publishes,
// the hub's feed and locks) keeps its own delays and only asks this
// package how long to wait and to wait it. It imports nothing of paydash
// but the clock.
package backoff

import (
	"context"
	"math/rand/v2"
	"time"

	"github.com/paydash/paydash/internal/platform/clock"
)

// Jitter says how a wait is drawn below its ceiling.
type Jitter int

const (
	// None waits the ceiling itself.
	None Jitter = iota
	// Full draws uniformly from [0, ceiling]: many clients failing
	// together spread out the most (the api client's retries).
	Full
	// Equal draws from [ceiling/2, ceiling]: spread out, yet never
	// hammering at once (a subscriber reconnecting to a restarted relay).
	Equal
)

// Policy is one loop's delays. A Base equal to Max is a fixed pause.
type Policy struct {
	// Base is the ceiling of the first retry's wait, doubled for each
	// further one.
	Base time.Duration
	// Max caps the ceiling.
	Max time.Duration
	// Jitter is how the wait is drawn below the ceiling.
	Jitter Jitter
	// Rand returns a value in [0, n) for the jitter; nil means
	// math/rand/v2's Int64N. Tests pin it.
	Rand func(n int64) int64
}

// Ceiling is the longest wait before retry n (1 = the first retry):
// min(Max, Base·2^(n-1)), computed without overflowing.
func (p Policy) Ceiling(n int) time.Duration {
	d := p.Base
	for i := 1; i < n && d < p.Max; i++ {
		d *= 2
	}
	return min(d, p.Max)
}

// Delay is the wait before retry n (1 = the first retry): the ceiling,
// drawn below as p.Jitter says.
func (p Policy) Delay(n int) time.Duration {
	c := p.Ceiling(n)
	if c <= 0 {
		return 0
	}
	randN := p.Rand
	if randN == nil {
		randN = rand.Int64N //nolint:gosec // backoff jitter, not a secret
	}
	switch p.Jitter {
	case Full:
		return time.Duration(randN(int64(c) + 1))
	case Equal:
		half := c / 2
		return half + time.Duration(randN(int64(half)+1))
	}
	return c
}

// Backoff is one loop's running state: how many waits it has made since
// it started or last succeeded. Not safe for concurrent use; a loop owns
// its Backoff.
type Backoff struct {
	p     Policy
	clock clock.Clock
	n     int
}

// New starts a loop waiting with p on clk (nil means the real clock).
func New(p Policy, clk clock.Clock) *Backoff {
	if clk == nil {
		clk = clock.Real()
	}
	return &Backoff{p: p, clock: clk}
}

// Next returns the next wait and counts it: Base's draw first, then
// doubling up to Max.
func (b *Backoff) Next() time.Duration {
	b.n++
	return b.p.Delay(b.n)
}

// Reset starts again from Base (the loop got through once).
func (b *Backoff) Reset() { b.n = 0 }

// Wait waits the next delay on the loop's clock; it returns ctx's error
// at once when ctx ends first.
func (b *Backoff) Wait(ctx context.Context) error {
	return Sleep(ctx, b.clock, b.Next())
}

// Sleep waits d on clk, returning ctx's error at once when ctx ends
// first (then the timer is removed, so a fake clock holds nothing
// behind). A d of zero or less returns at once with ctx's error, if any.
func Sleep(ctx context.Context, clk clock.Clock, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	if clk == nil {
		clk = clock.Real()
	}
	fired := make(chan struct{})
	t := clk.AfterFunc(d, func() { close(fired) })
	select {
	case <-fired:
		return nil
	case <-ctx.Done():
		t.Stop()
		return ctx.Err()
	}
}
