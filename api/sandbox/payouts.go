package sandbox

import (
	"fmt"
	"net/http"
	"strings"
	"unicode"

	"github.com/paydash/paydash/api"
)

// Rejection reasons of payout_rejected.
const (
	RejectInsufficientFunds = api.FailureInsufficientFunds
	RejectAMLCheckFailed    = "aml_check_failed"
)

// payoutOutcome is what POST /v1/payouts decided (reported by webhooks).
type payoutOutcome int

const (
	outcomeAuthorised payoutOutcome = iota
	outcomeRejected
	outcomeDuplicate
)

// handleCreatePayout is POST /v1/payouts.
func (s *Sandbox) handleCreatePayout(w http.ResponseWriter, r *http.Request) error {
	var req api.PayoutRequest
	g, _, err := s.signedJSON(r, api.HeaderPayoutSignature, &req)
	if err != nil {
		return err
	}
	if err := g.require(api.ScopePayouts); err != nil {
		return err
	}
	if _, err := s.ledger.createPayout(&req); err != nil {
		return err
	}
	w.Header().Set("Content-Length", "0")
	w.WriteHeader(http.StatusAccepted)
	return nil
}

// createPayout validates and books a payout. Validation failures and a
// disabled account are errors (400, 409); everything else is accepted and
// its outcome goes out by webhook: authorised (funds reserved), rejected
// (insufficient funds or AML), or nothing at all for a repeated
// transaction_id.
func (l *ledger) createPayout(req *api.PayoutRequest) (payoutOutcome, error) {
	ps := api.ValidatePayout(req)
	idx, ok := l.acctIndex(req.Currency)
	if !ok && req.Currency != "" {
		ps = addProblem(ps, "currency", fmt.Sprintf("has no payout account; the sandbox holds %s", l.currencies()))
	}
	if err := invalid(ps); err != nil {
		return 0, err
	}
	iban := api.NormalizeIBAN(req.BeneficiaryIBAN)

	l.mu.Lock()
	defer l.mu.Unlock()
	if _, dup := l.byID[req.TransactionID]; dup || l.hist.has(req.TransactionID) {
		return outcomeDuplicate, nil
	}
	if _, dup := l.rejected[req.TransactionID]; dup {
		return outcomeDuplicate, nil
	}
	a := l.accounts[idx]
	if a.status != api.AccountEnabled {
		return 0, errConflict("account_disabled", "Payout account disabled",
			fmt.Sprintf("the %s payout account is %s and takes no payouts; enable it (POST /sandbox/accounts/%s/status) or pay from another currency",
				a.Currency, a.status, a.Currency))
	}
	now := reportNow(l.clock)
	reject := ""
	switch {
	case l.amlHit(req.BeneficiaryName):
		reject = RejectAMLCheckFailed
	case a.available < req.AmountInMinor:
		reject = RejectInsufficientFunds
	}
	if reject != "" {
		l.rejected[req.TransactionID] = reject
		l.emitPayout(api.EventPayoutRejected, req.TransactionID, api.PayoutEventBody{RejectedAt: eventTime(now), Reason: reject})
		return outcomeRejected, nil
	}
	p, reason := planFor(req.BeneficiaryReference)
	t := txn{id: req.TransactionID, kind: kindPayoutTxn, status: stAuthorised, plan: p, acct: idx,
		authorised: now, name: req.BeneficiaryName, iban: iban, ref: req.BeneficiaryReference,
		amount: req.AmountInMinor, context: req.ContextCode}
	if reason != "" {
		l.reasons[t.id] = reason
	}
	a.available -= t.amount
	l.append(t)
	l.emitPayout(api.EventPayoutAuthorised, t.id, api.PayoutEventBody{AuthorisedAt: eventTime(now)})
	l.schedule(t.id)
	return outcomeAuthorised, nil
}

// schedule arranges the next step of a live payout; the caller holds mu.
func (l *ledger) schedule(id string) {
	if l.closed {
		return
	}
	l.timers[id] = l.clock.AfterFunc(l.step, func() { l.advance(id) })
}

// advance moves a live payout one state on: authorised -> submitted (or
// failed for FAIL), submitted -> settled (or failed for RETURN).
func (l *ledger) advance(id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.timers, id)
	i, ok := l.byID[id]
	if l.closed || !ok {
		return
	}
	t := &l.txns[i]
	a := l.accounts[t.acct]
	now := reportNow(l.clock)
	switch {
	case t.status == stAuthorised && t.plan == planFail, t.status == stSubmitted && t.plan == planReturn:
		reason := l.reasons[id]
		delete(l.reasons, id)
		failPayout(t, a)
		l.emitPayout(api.EventPayoutFailed, id, api.PayoutEventBody{FailedAt: eventTime(now), Reason: reason})
	case t.status == stAuthorised:
		t.status, t.submitted = stSubmitted, now
		l.emitPayout(api.EventPayoutSubmitted, id, api.PayoutEventBody{SubmittedAt: eventTime(now)})
		l.schedule(id)
	case t.status == stSubmitted:
		settlePayout(t, a, now)
		l.emitPayout(api.EventPayoutSettled, id, api.PayoutEventBody{SettledAt: eventTime(now)})
	}
}

// emitPayout queues a payout-interface webhook; the caller holds mu, which
// keeps each payout's events in state order in the delivery queue.
func (l *ledger) emitPayout(eventType, id string, body api.PayoutEventBody) {
	body.TransactionID = id
	l.hooks.enqueueLogged(payoutEvent(eventType, id, body))
}

// amlHit is the sandbox's AML check: a beneficiary name with the word
// "AML" in it, or one on the deny list.
func (l *ledger) amlHit(name string) bool {
	for _, w := range strings.FieldsFunc(name, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if strings.EqualFold(w, "AML") {
			return true
		}
	}
	return l.deny[normalizeName(name)]
}

func normalizeName(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }

// planFor reads the magic beneficiary_reference values: FAIL or
// FAIL:<reason> fails the payout after authorisation (default reason
// scheme_error); RETURN or RETURN:<anything> fails it after submission
// with reason returned. Anything else settles.
func planFor(ref string) (plan, string) {
	r := strings.TrimSpace(ref)
	word, rest, hasRest := strings.Cut(r, ":")
	switch strings.ToUpper(strings.TrimSpace(word)) {
	case "FAIL":
		if reason := reasonCode(rest); hasRest && reason != "" {
			return planFail, reason
		}
		return planFail, api.FailureSchemeError
	case "RETURN":
		return planReturn, api.FailureReturned
	}
	return planSettle, ""
}

// reasonCode turns "Scheme error" or "SCHEME-ERROR" into scheme_error, so
// a reason survives reference character rules that forbid underscores.
func reasonCode(s string) string {
	f := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	return strings.Join(f, "_")
}
