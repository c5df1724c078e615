package hub

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/payout"
)

// PayoutPipeline is the hub's Pipeline: payout/'s one pipeline, with the
// hub's single addition, what its open requests hold back, counted in
// the funds check (payout.CheckFunds over the balances less that).
type PayoutPipeline struct {
	P *payout.Pipeline
}

// NewPayoutPipeline sends through svc (the send profile's client, which
// holds the signing key) and keeps the audit record log.
func NewPayoutPipeline(svc payout.Service, log *payout.Log) *PayoutPipeline {
	return &PayoutPipeline{P: payout.New(svc, log, payout.SourceHub)}
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
	_, err := pp.P.Run(ctx, req, options(allowDuplicate), payout.Hooks{})
	var se *payout.SendError
	switch {
	case err == nil:
		return Outcome{Class: Accepted, State: Accepted, Detail: "accepted by the service"}, nil
	case errors.As(err, &se):
		return Outcome{Class: se.Answer.Outcome, Detail: se.Error()}, nil
	}
	return Outcome{}, err
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
