package payout

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/webhookrelay/relayclient"
)

// Final is the state a payout was followed to.
type Final struct {
	// State is final (api.IsFinalState), or "" when none was seen.
	State  string `json:"state,omitempty"`
	Reason string `json:"reason,omitempty"`
	// From is FromRelay or FromReportState.
	From string `json:"state_from,omitempty"`
	// Returned is set when the payout failed after it was submitted: the
	// money went out to the payee's bank and came back.
	Returned bool `json:"returned,omitempty"`
	// Note says why no final state was seen.
	Note string `json:"-"`
}

// Where a final state came from.
const (
	FromRelay       = "relay"
	FromReportState = "service report"
)

// ReasonReturned is the failure reason of a payout the beneficiary's
// bank sent back after it was submitted.
const ReasonReturned = api.FailureReturned

// relayGrace is how long Wait waits for the relay's event after the
// report already shows the final state: only the relay's event carries
// the failure reason, and both usually arrive within a moment.
const relayGrace = 3 * time.Second

// EventSource is a relay read in-process, by what runs inside it: the
// team hub follows the payouts it sends from its relay's own store and
// fan-out (webhookrelay.LocalFeed), with no health probe, token or
// websocket. relayclient's Subscriber and History are the same reads over
// the network.
type EventSource interface {
	// PayoutEvents streams payout id's events stored after the call, in
	// the order stored and none missed (a subscriber from the relay's
	// current end), until ctx ends; the channel is closed then, or
	// earlier when the relay shuts down or its store cannot be read.
	PayoutEvents(ctx context.Context, id string) (<-chan relayclient.Event, error)
	// FinalStates is the last final state the relay stored for a payout
	// (relayclient.History.FinalState without the network).
	FinalStates
}

// Follower follows one payout to its final state: from the relay when
// one answers (it alone sees a rejection, which never enters the report),
// and from the transaction report in any case, so the outcome is known
// without the relay. Start it before the payout is sent (Pipeline.Follow)
// so no event is missed.
type Follower struct {
	id     string
	report ReportReader
	events <-chan relayclient.Event
	cancel context.CancelFunc
	note   string
	// Notice is what the caller should tell the operator about how the
	// payout is followed (the relay is unreachable, its token refused),
	// "" when all is well.
	Notice string
}

// Follow starts following transaction id: it subscribes to the relay
// (from its current end) when one is configured and answers, in-process
// when p.Relay is set, and polls the report. Stop it when done.
func (p *Pipeline) Follow(ctx context.Context, id string) *Follower {
	ctx, cancel := context.WithCancel(ctx)
	f := &Follower{id: id, report: p.report(), cancel: cancel}
	if p.Relay != nil {
		events, err := p.Relay.PayoutEvents(ctx, id)
		if err != nil {
			f.note = fmt.Sprintf("the relay's store could not be followed (%v); the report was polled, and a rejected payout never appears in it", err)
			f.Notice = "the relay's store could not be followed; following the payout in the transaction report instead"
			return f
		}
		f.events = events
		f.note = "neither the relay nor the report showed one"
		return f
	}
	if p.RelayURL == "" {
		f.note = "no relay is configured; the report was polled, and a rejected payout never appears in it"
		return f
	}
	h, err := relayclient.Health(ctx, p.RelayURL)
	if errors.Is(err, relayclient.ErrNotARelay) {
		f.note = fmt.Sprintf("the relay URL %s does not answer as a paydash relay (%v); the report was polled, and a rejected payout never appears in it", p.RelayURL, err)
		f.Notice = fmt.Sprintf("the relay URL %s is not a paydash relay (%v); following the payout in the transaction report instead", p.RelayURL, err)
		return f
	}
	if err != nil {
		f.note = fmt.Sprintf("the relay is unreachable (%v); the report was polled, and a rejected payout never appears in it", err)
		f.Notice = "relay unreachable; following the payout in the transaction report instead"
		return f
	}
	// /healthz answers anyone; the stream needs the token. A refused one
	// is said now, not found out as a silent wait.
	if err := (relayclient.History{URL: p.RelayURL, Token: p.RelayToken}).CheckReadable(ctx); errors.Is(err, relayclient.ErrRefused) || errors.Is(err, relayclient.ErrNotARelay) {
		f.note = fmt.Sprintf("the relay refused this profile's token (%v); the report was polled, and a rejected payout never appears in it", err)
		if errors.Is(err, relayclient.ErrNotARelay) {
			f.note = fmt.Sprintf("the relay URL does not answer as a paydash relay (%v); the report was polled, and a rejected payout never appears in it", err)
		}
		f.Notice = fmt.Sprintf("%v; following the payout in the transaction report instead", err)
		return f
	}
	sub := relayclient.NewSubscriber(relayclient.SubscriberConfig{URL: p.RelayURL, Token: p.RelayToken, Since: h.LastSeq})
	go func() { _ = sub.Run(ctx) }()
	f.events = sub.Events()
	f.note = "neither the relay nor the report showed one"
	return f
}

// Stop ends the subscription.
func (f *Follower) Stop() { f.cancel() }

// Wait returns the payout's final state, or one with an empty State
// after d (Note says why). The relay's event is preferred (it carries
// the reason); the report's state is used when the relay is not
// followed, closes, or stays silent for relayGrace after the report
// showed the state.
func (f *Follower) Wait(ctx context.Context, d time.Duration) Final {
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	// The report is polled often at first, when a final state is most
	// likely; a payout followed for hours (the hub follows each until its
	// late-webhook threshold) is looked for in it less often after that.
	start := time.Now()
	poll := time.NewTimer(fastPoll)
	defer poll.Stop()
	var reported *Final
	var grace <-chan time.Time
	submitted := false
	for {
		if reported == nil && f.report != nil {
			if st, ok := f.fromReport(ctx); ok {
				if f.events == nil {
					return st
				}
				reported, grace = &st, time.After(relayGrace)
			}
		}
		select {
		case <-ctx.Done():
			return Final{Note: ctx.Err().Error()}
		case <-deadline.C:
			if reported != nil {
				return *reported
			}
			return Final{Note: f.note}
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
			if ev.State == api.StateSubmitted {
				submitted = true
			}
			if api.IsFinalState(ev.State) {
				st := Final{State: ev.State, Reason: ev.Reason, From: FromRelay}
				st.Returned = st.State == api.StateFailed && (submitted || ev.Reason == ReasonReturned || (reported != nil && reported.Returned))
				return st
			}
		case <-poll.C:
			if time.Since(start) < fastPollFor {
				poll.Reset(fastPoll)
			} else {
				poll.Reset(slowPoll)
			}
		}
	}
}

// The report's polling while a payout is followed: every fastPoll for
// fastPollFor, then every slowPoll.
const (
	fastPoll    = 250 * time.Millisecond
	fastPollFor = 2 * time.Minute
	slowPoll    = 30 * time.Second
)

func (f *Follower) fromReport(ctx context.Context) (Final, bool) {
	var st Final
	found := false
	_ = f.report.StreamTransactions(ctx, api.TransactionQuery{Type: api.TransactionPayout, From: time.Now().Add(-DefaultWindow - 24*time.Hour)}, func(t api.Transaction) error {
		if t.TransactionID == f.id {
			if fin, ok := FinalFromReport(t); ok {
				st, found = fin, true
			}
		}
		return nil
	})
	return st, found
}

// FinalFromReport is the final state a report record shows, if any. The
// report carries no reason; a payout that failed after it was submitted
// was returned (Returned, reason ReasonReturned).
func FinalFromReport(t api.Transaction) (Final, bool) {
	if !api.IsFinalState(t.Status) {
		return Final{}, false
	}
	f := Final{State: t.Status, From: FromReportState, Returned: t.Status == api.StateFailed && !t.SubmittedAt.IsZero()}
	if f.Returned {
		f.Reason = ReasonReturned
	}
	return f, true
}
