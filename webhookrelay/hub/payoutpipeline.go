package hub

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/payout"
)

// PayoutPipeline is the hub's Pipeline: payout/'s one pipeline, with the
// hub's single addition, what its open requests hold back, counted in
// the funds check (payout.CheckFunds over the balances less that).
type PayoutPipeline struct {
	P *payout.Pipeline
	// FollowFor is how long an accepted payout is followed to its final
	// state (the relay's events, else the report) at least; 0 follows
	// none.
	FollowFor time.Duration
	// FollowUntil, when set, is the late-webhook threshold of a currency
	// (the send profile's webhook_late): a payout is followed until its
	// final state or this long after it was sent, if longer than
	// FollowFor — its final webhook is not late before then.
	FollowUntil func(currency string) time.Duration
	// onFinal hears each final state followed (set by hub.New).
	onFinal func(transactionID, state, reason string)
	// follows are the payouts being followed; base ends them (Stop).
	follows sync.WaitGroup
	base    context.Context
	cancel  context.CancelFunc
}

// SetFinalHook sets who hears the final states followed.
func (pp *PayoutPipeline) SetFinalHook(f func(transactionID, state, reason string)) { pp.onFinal = f }

// Wait stops following and waits for the followers to end (the hub is
// closing; what they did not see is looked up in the report later).
func (pp *PayoutPipeline) Wait() {
	if pp.cancel != nil {
		pp.cancel()
	}
	pp.follows.Wait()
}

// NewPayoutPipeline sends through svc (the send profile's client, which
// holds the signing key) and keeps the audit record log.
func NewPayoutPipeline(svc payout.Service, log *payout.Log) *PayoutPipeline {
	pp := &PayoutPipeline{P: payout.New(svc, log, payout.SourceHub)}
	pp.base, pp.cancel = context.WithCancel(context.Background())
	return pp
}

// NewSharedPayoutPipeline is NewPayoutPipeline keeping the audit record
// rec, shared by every hub of a cluster (hub/auditlog): the duplicate
// check of each hub reads what the others reserved and sent.
func NewSharedPayoutPipeline(svc payout.Service, rec payout.Record) *PayoutPipeline {
	pp := NewPayoutPipeline(svc, nil)
	pp.P.Shared = rec
	return pp
}

// options are the pipeline's options for a hub payout: its transaction id
// was fixed by the hub (or given by the requester), so it is looked for
// in the whole report; funds are checked by Check, with what is held.
func options(allowDuplicate bool) payout.Options {
	return payout.Options{AllowDuplicate: allowDuplicate, IDGiven: true, SkipFunds: true}
}

// Check runs the pipeline's validate and check stages, then funds less
// what the hub's open requests hold back.
func (pp *PayoutPipeline) Check(ctx context.Context, req *api.PayoutRequest, reserved map[string]int64, allowDuplicate bool) error {
	if err := pp.P.Validate(req); err != nil {
		return err
	}
	if _, err := pp.P.Check(ctx, req, options(allowDuplicate)); err != nil {
		return err
	}
	if pp.P.Balances == nil {
		return nil
	}
	bals, err := pp.P.Balances.Balances(ctx)
	if err != nil {
		return fmt.Errorf("checking the %s balance: %w (nothing was sent)", req.Currency, err)
	}
	held := reserved[req.Currency]
	for i := range bals {
		if strings.EqualFold(bals[i].Currency, req.Currency) {
			bals[i].AvailableBalanceInMinor -= held
		}
	}
	if _, err := payout.CheckFunds(bals, req.Currency, req.AmountInMinor); err != nil {
		if held > 0 {
			return fmt.Errorf("%w (after %s held by payouts awaiting approval or being sent on the hub)", err, api.FormatAmount(held, req.Currency))
		}
		return err
	}
	return nil
}

// Send runs the payout through the pipeline's stages (check again under
// the audit record's lock, reserve, send, classify, record). An error is
// a payout stopped before it was sent; a send the service did not accept
// is an Outcome, classified by payout.Classify.
func (pp *PayoutPipeline) Send(ctx context.Context, req *api.PayoutRequest, allowDuplicate bool) (Outcome, error) {
	d := pp.followFor(req.Currency)
	f, stop := pp.startFollow(req.TransactionID, d)
	_, err := pp.P.Run(ctx, req, options(allowDuplicate), payout.Hooks{})
	if err != nil {
		stop()
	}
	var se *payout.SendError
	switch {
	case err == nil:
		if f == nil {
			stop()
		} else {
			pp.follows.Go(func() {
				defer stop()
				fin := f.Wait(pp.base, d)
				if fin.State == "" {
					return
				}
				_ = pp.P.RecordFinal(req.TransactionID, fin)
				if pp.onFinal != nil {
					pp.onFinal(req.TransactionID, fin.State, fin.Reason)
				}
			})
		}
		return Outcome{Class: Accepted, State: Accepted, Detail: "accepted by the service"}, nil
	case errors.As(err, &se):
		return Outcome{Class: se.Answer.Outcome, Detail: se.Error()}, nil
	}
	return Outcome{}, err
}

// startFollow subscribes to the payout's events before it is sent, so
// none is missed; the follower outlives the request that sent it, not
// the hub. stop ends it.
func (pp *PayoutPipeline) startFollow(id string, d time.Duration) (*payout.Follower, func()) {
	if d <= 0 || pp.base == nil {
		return nil, func() {}
	}
	fctx, cancel := context.WithTimeout(pp.base, d+time.Minute)
	f := pp.P.Follow(fctx, id)
	return f, func() { f.Stop(); cancel() }
}

// followFor is how long a payout in currency is followed: FollowFor, or
// its late-webhook threshold when longer.
func (pp *PayoutPipeline) followFor(currency string) time.Duration {
	if pp.FollowFor <= 0 {
		return 0
	}
	if pp.FollowUntil != nil {
		return max(pp.FollowFor, pp.FollowUntil(currency))
	}
	return pp.FollowFor
}

// Lookup reads the service's report for the transaction id.
func (pp *PayoutPipeline) Lookup(ctx context.Context, transactionID string) (string, bool, error) {
	k, err := pp.P.Known(ctx, []string{transactionID})
	if err != nil {
		return "", false, err
	}
	if !k.InReport(transactionID) {
		return "", false, nil
	}
	p, _ := k.ByID(transactionID)
	return p.Outcome, true, nil
}

// AuditEntries is the audit record the pipeline keeps, and its profile.
func (pp *PayoutPipeline) AuditEntries() (string, []payout.Entry, error) {
	rec := pp.P.AuditRecord()
	if rec == nil {
		return "", nil, nil
	}
	es, err := rec.Entries()
	return rec.Profile(), es, err
}
