package payout

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/paydash/paydash/api"
)

// Guard checks and records payouts sent one at a time (the dashboard's
// form): the duplicate check over the record and the report, the attempt
// written before the payout goes, and its outcome after.
type Guard struct {
	Log    *Log
	Report ReportReader // nil checks the record only
	Window time.Duration
	Source string // SourceForm, SourceCreate
	// States, when set, tells what became of payouts the record shows
	// accepted (the relay's history), so a rejected one does not block
	// its re-send.
	States FinalStates
}

func (g *Guard) window() time.Duration {
	if g.Window <= 0 {
		return DefaultWindow
	}
	return g.Window
}

// Check returns the payouts already made that req would duplicate.
func (g *Guard) Check(ctx context.Context, req *api.PayoutRequest) ([]Payment, error) {
	now := time.Now()
	k, err := Load(ctx, g.Log, g.Report, now, g.window())
	if err != nil {
		return nil, err
	}
	return Resolve(ctx, g.Log, k, g.States, k.Matching(req, now, g.window()), now), nil
}

// Reserve records the attempt under the record's lock unless the record
// shows a duplicate the operator did not allow (see Log.Reserve).
func (g *Guard) Reserve(ctx context.Context, req *api.PayoutRequest, allowDuplicate bool) ([]Payment, error) {
	return g.Log.Reserve(ctx, Entry{Source: g.Source, TransactionID: req.TransactionID, Name: req.BeneficiaryName,
		IBAN: req.BeneficiaryIBAN, Reference: req.BeneficiaryReference, AmountInMinor: req.AmountInMinor,
		Currency: req.Currency, AllowedDuplicate: allowDuplicate}, g.window(), allowDuplicate)
}

// Outcome records a send's outcome; err nil is accepted.
func (g *Guard) Outcome(id string, err error) error {
	if err == nil {
		return g.Log.Outcome(id, OutcomeAccepted, "")
	}
	return g.Log.Outcome(id, OutcomeUnknown, err.Error())
}

// Record appends a final state learnt later (the dashboard's tracker)
// for a payout this profile sent; see Log.FinalOutcome.
func (g *Guard) Record(id, state, reason string) error {
	_, err := g.Log.FinalOutcome(id, state, reason)
	return err
}

// Recorded returns, for the ids the record holds an attempt for, the
// payout as it was sent (the latest attempt of each): the dashboard's
// tracker shows payee and amount from it for payouts the report lacks.
func (g *Guard) Recorded(ids map[string]bool) (map[string]api.PayoutRequest, error) {
	entries, err := g.Log.Entries()
	if err != nil {
		return nil, err
	}
	out := map[string]api.PayoutRequest{}
	for _, e := range entries {
		if e.Event == EventAttempt && ids[e.TransactionID] {
			out[e.TransactionID] = e.Request()
		}
	}
	return out, nil
}

// DuplicateError stops a payout that matches payouts already made; the
// operator must confirm a second time to send it.
type DuplicateError struct {
	Matches []Payment
}

func (e *DuplicateError) Error() string {
	parts := make([]string, len(e.Matches))
	for i, m := range e.Matches {
		parts[i] = m.String()
	}
	return fmt.Sprintf("possible duplicate: the same IBAN, amount, currency and reference were paid as %s; nothing was sent", strings.Join(parts, "; "))
}
