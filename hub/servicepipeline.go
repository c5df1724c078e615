package hub

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/payout"
)

// Service is the part of the api client the hub sends with: the send
// profile's credentials and signing key. *api.Client is one.
type Service interface {
	payout.ReportReader
	CreatePayout(ctx context.Context, req *api.PayoutRequest) error
	Balances(ctx context.Context) ([]api.Balance, error)
}

// ServicePipeline runs the hub's payouts through payout/'s audit record
// and duplicate check and the api's classification of answers.
//
// It is glue until payout/ exports its pipeline (issue 18): every step
// here calls payout/ or api/ (payout.Load, Known.UsedFor, Known.Matching,
// Log.Reserve, api.IsRefusal), none is decided here, and it is to be
// replaced by the pipeline's stages when they land.
type ServicePipeline struct {
	Service Service
	Audit   *payout.Log
	// Window is the duplicate window (default payout.DefaultWindow).
	Window time.Duration
	Now    func() time.Time
}

func (p *ServicePipeline) now() time.Time {
	if p.Now != nil {
		return p.Now()
	}
	return time.Now()
}

func (p *ServicePipeline) window() time.Duration {
	if p.Window > 0 {
		return p.Window
	}
	return payout.DefaultWindow
}

// classed is a pipeline error with its class.
type classed struct {
	class string
	err   error
}

func (e *classed) Error() string      { return e.err.Error() }
func (e *classed) Unwrap() error      { return e.err }
func (e *classed) ErrorClass() string { return e.class }

func classErr(class, format string, args ...any) error {
	return &classed{class: class, err: fmt.Errorf(format, args...)}
}

// Check validates req, refuses a transaction id used for another payout,
// a duplicate (unless allowed) and a payout the account cannot fund once
// reserved is counted.
func (p *ServicePipeline) Check(ctx context.Context, req *api.PayoutRequest, reserved map[string]int64, allowDuplicate bool) error {
	if probs := api.ValidatePayout(req); len(probs) > 0 {
		return classErr(ClassInvalid, "the payout is not valid: %w", probs)
	}
	now := p.now()
	known, err := payout.Load(ctx, p.Audit, p.Service, now, p.window())
	if err != nil {
		return classErr(ClassUnknown, "the duplicate check could not read the record and report: %w", err)
	}
	if err := known.FindIDs(ctx, p.Service, []string{req.TransactionID}); err != nil {
		return classErr(ClassUnknown, "the duplicate check could not read the report: %w", err)
	}
	if used := known.UsedFor(req.TransactionID, req); used != "" {
		return classErr(ClassDuplicate, "transaction id %s was already used %s; the service would create nothing", req.TransactionID, used)
	}
	if m := known.Matching(req, now, p.window()); len(m) > 0 && !allowDuplicate {
		return &classed{class: ClassDuplicate, err: &payout.DuplicateError{Matches: m}}
	}
	bals, err := p.Service.Balances(ctx)
	if err != nil {
		return classErr(ClassUnknown, "checking the %s balance: %w", req.Currency, err)
	}
	for _, b := range bals {
		if !strings.EqualFold(b.Currency, req.Currency) {
			continue
		}
		if b.Status == api.AccountDisabled {
			return classErr(ClassRefused, "the %s payout account is disabled", req.Currency)
		}
		held := reserved[req.Currency]
		if req.AmountInMinor > b.AvailableBalanceInMinor-held {
			return classErr(ClassFunds, "%s exceeds the available %s balance of %s less %s held by payouts awaiting approval or sending",
				api.FormatAmount(req.AmountInMinor, req.Currency), req.Currency, api.FormatAmount(b.AvailableBalanceInMinor, req.Currency),
				api.FormatAmount(held, req.Currency))
		}
		return nil
	}
	return classErr(ClassNoAccount, "the send profile has no %s payout account", req.Currency)
}

// Send reserves req in the audit record (refusing a duplicate found since
// the check), sends it and records the outcome.
func (p *ServicePipeline) Send(ctx context.Context, req *api.PayoutRequest, allowDuplicate bool) (Outcome, error) {
	m, err := p.Audit.Reserve(ctx, payout.Entry{Source: SourceHub, TransactionID: req.TransactionID, Name: req.BeneficiaryName,
		IBAN: req.BeneficiaryIBAN, Reference: req.BeneficiaryReference, AmountInMinor: req.AmountInMinor,
		Currency: req.Currency, AllowedDuplicate: allowDuplicate}, p.window(), allowDuplicate)
	if err != nil {
		return Outcome{}, classErr(ClassUnknown, "audit record: %w (nothing was sent)", err)
	}
	if len(m) > 0 && !allowDuplicate {
		return Outcome{}, &classed{class: ClassDuplicate, err: &payout.DuplicateError{Matches: m}}
	}
	err = p.Service.CreatePayout(ctx, req)
	var out Outcome
	switch {
	case err == nil:
		out = Outcome{Class: Accepted, State: "accepted", Detail: "accepted by the service"}
		err = p.Audit.Outcome(req.TransactionID, payout.OutcomeAccepted, "")
	case api.IsRefusal(err):
		out = Outcome{Class: Refused, Detail: err.Error()}
		err = p.Audit.Outcome(req.TransactionID, payout.OutcomeRefused, err.Error())
	default:
		out = Outcome{Class: Unknown, Detail: err.Error()}
		err = p.Audit.Outcome(req.TransactionID, payout.OutcomeUnknown, err.Error())
	}
	return out, err
}

// Lookup reads the service's report for the transaction id.
func (p *ServicePipeline) Lookup(ctx context.Context, transactionID string) (string, bool, error) {
	known, err := payout.Load(ctx, nil, nil, p.now(), p.window())
	if err != nil {
		return "", false, err
	}
	if err := known.FindIDs(ctx, p.Service, []string{transactionID}); err != nil {
		return "", false, err
	}
	if !known.InReport(transactionID) {
		return "", false, nil
	}
	pay, _ := known.ByID(transactionID)
	return pay.Outcome, true, nil
}

// SourceHub marks the audit record's lines the hub wrote.
const SourceHub = "hub"
