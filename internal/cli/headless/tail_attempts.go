package headless

import (
	"context"
	"errors"
	"time"

	"github.com/paydash/paydash/webhookrelay/relayclient"
)

// attemptPoll is how often `events tail` asks the relay for new forward
// attempts; the attempt log is small and read by seq, so this is cheap.
const attemptPoll = 500 * time.Millisecond

// followAttempts sends the relay's forward attempts after attempt seq
// since (or, with fromNow, after the newest one) on the returned channel
// until ctx is done. A relay that logs none (clustered mode) closes it.
func followAttempts(ctx context.Context, h relayclient.History, fromNow bool, minEventSeq uint64) <-chan relayclient.Attempt {
	out := make(chan relayclient.Attempt, 64)
	go func() {
		defer close(out)
		var since uint64
		if fromNow {
			page, err := h.Attempts(ctx, ^uint64(0)-1, 1)
			if errors.Is(err, relayclient.ErrNoAttempts) {
				return
			}
			since = page.LastSeq
		}
		tick := time.NewTicker(attemptPoll)
		defer tick.Stop()
		for {
			page, err := h.Attempts(ctx, since, 1000)
			if errors.Is(err, relayclient.ErrNoAttempts) {
				return
			}
			for _, a := range page.Attempts {
				if a.EventSeq <= minEventSeq {
					continue
				}
				select {
				case out <- a:
				case <-ctx.Done():
					return
				}
			}
			if err == nil && page.NextSince > since {
				since = page.NextSince
				if len(page.Attempts) == 1000 {
					continue
				}
			}
			select {
			case <-tick.C:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out
}

// keepAttempt applies tail's filters to an attempt: its event's type,
// its payout (known by the event ids printed), and --failed.
func keepAttempt(o *TailOptions, a relayclient.Attempt, printed map[string]bool) bool {
	if o.Failed && a.OK() {
		return false
	}
	if f := relayclient.TypeFilter(o.Types); f != nil && !f(&relayclient.Event{Type: a.Type}) {
		return false
	}
	return o.PayoutID == "" || printed[a.EventID]
}
