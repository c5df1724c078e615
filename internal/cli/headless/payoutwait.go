package headless

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/cli/cmdutil"
	"github.com/paydash/paydash/payout"
	"github.com/paydash/paydash/relayclient"
)

// payoutFollower follows one payout to its final state: from the relay
// when one answers (it alone sees a rejection, which never enters the
// report), and from the transaction report in any case, so the outcome is
// known without the relay.
type payoutFollower struct {
	id     string
	report payout.ReportReader
	events <-chan relayclient.Event
	cancel context.CancelFunc
	note   string
}

type finalState struct {
	state, reason string
	from          string // "relay" or "service report"
	note          string // why no final state was seen
	// submitted is true when the payout was submitted before it failed:
	// the money left the account and came back (a return), which is not
	// the same as "nothing was paid".
	submitted bool
}

// relayGrace is how long --wait waits for the relay's event after the
// report already shows the final state: only the relay's event carries
// the failure reason, and both usually arrive within a moment.
const relayGrace = 3 * time.Second

// startFollow subscribes to the relay (from its current end: the payout
// is not sent yet) before the payout is sent, so no event is missed.
func startFollow(ctx context.Context, s *cmdutil.Streams, t Target, r payout.ReportReader, id string) *payoutFollower {
	ctx, cancel := context.WithCancel(ctx)
	f := &payoutFollower{id: id, report: r, cancel: cancel}
	if t.RelayURL == "" {
		f.note = "no relay is configured; the report was polled, and a rejected payout never appears in it"
		return f
	}
	h, err := RelayHealth(ctx, t.RelayURL)
	if errors.Is(err, relayclient.ErrNotARelay) {
		f.note = fmt.Sprintf("the relay URL %s does not answer as a paydash relay (%v); the report was polled, and a rejected payout never appears in it", t.RelayURL, err)
		fmt.Fprintf(s.Err, "note: the relay URL %s is not a paydash relay (%v); following the payout in the transaction report instead\n", t.RelayURL, err)
		return f
	}
	if err != nil {
		f.note = fmt.Sprintf("the relay is unreachable (%v); the report was polled, and a rejected payout never appears in it", err)
		fmt.Fprintf(s.Err, "note: relay unreachable; following the payout in the transaction report instead\n")
		return f
	}
	// /healthz answers anyone; the stream needs the token. A refused one
	// is said now, not found out as a silent wait.
	if err := (relayclient.History{URL: t.RelayURL, Token: t.RelayToken}).CheckReadable(ctx); errors.Is(err, relayclient.ErrRefused) || errors.Is(err, relayclient.ErrNotARelay) {
		f.note = fmt.Sprintf("the relay refused this profile's token (%v); the report was polled, and a rejected payout never appears in it", err)
		if errors.Is(err, relayclient.ErrNotARelay) {
			f.note = fmt.Sprintf("the relay URL does not answer as a paydash relay (%v); the report was polled, and a rejected payout never appears in it", err)
		}
		fmt.Fprintf(s.Err, "note: %v; following the payout in the transaction report instead\n", err)
		return f
	}
	sub := relayclient.NewSubscriber(relayclient.SubscriberConfig{URL: t.RelayURL, Token: t.RelayToken, Since: h.LastSeq})
	go func() { _ = sub.Run(ctx) }()
	f.events = sub.Events()
	f.note = "neither the relay nor the report showed one"
	return f
}

func (f *payoutFollower) stop() { f.cancel() }

// wait returns the payout's final state, or an empty state after d.
// The relay's event is preferred (it carries the reason); the report's
// state is used when the relay is not followed, closes, or stays silent
// for relayGrace after the report showed the state.
func (f *payoutFollower) wait(ctx context.Context, d time.Duration) finalState {
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	poll := time.NewTicker(250 * time.Millisecond)
	defer poll.Stop()
	var reported *finalState
	var grace <-chan time.Time
	submitted := false
	for {
		if reported == nil {
			if st, ok := f.fromReport(ctx); ok {
				if f.events == nil {
					return st
				}
				reported, grace = &st, time.After(relayGrace)
			}
		}
		select {
		case <-ctx.Done():
			return finalState{note: ctx.Err().Error()}
		case <-deadline.C:
			if reported != nil {
				return *reported
			}
			return finalState{note: f.note}
		case <-grace:
			return *reported
		case ev, ok := <-f.events:
			if !ok {
				f.events = nil
				if reported != nil {
					return *reported
				}
				continue
			}
			if ev.PayoutID != f.id {
				continue
			}
			switch ev.State {
			case api.StateSubmitted:
				submitted = true
			case api.StateSettled, api.StateExecuted, api.StateRejected, api.StateFailed:
				st := finalState{state: ev.State, reason: ev.Reason, from: "relay", submitted: submitted || ev.Reason == reasonReturned}
				if reported != nil && reported.submitted {
					st.submitted = true
				}
				return st
			}
		case <-poll.C:
		}
	}
}

// reasonReturned is the failure reason of a payout the beneficiary's bank
// sent back after it was submitted.
const reasonReturned = "returned"

func (f *payoutFollower) fromReport(ctx context.Context) (finalState, bool) {
	var st finalState
	found := false
	_ = f.report.StreamTransactions(ctx, api.TransactionQuery{Type: api.TransactionPayout, From: time.Now().Add(-payout.DefaultWindow - 24*time.Hour)}, func(t api.Transaction) error {
		if t.TransactionID == f.id && (t.Status == api.StateSettled || t.Status == api.StateFailed) {
			st, found = finalState{state: t.Status, from: "service report", submitted: !t.SubmittedAt.IsZero()}, true
		}
		return nil
	})
	return st, found
}
