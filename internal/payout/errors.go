package payout

import (
	"fmt"
	"strings"

	"github.com/paydash/paydash/api"
)

// Every error a Pipeline stage returns for a payout it stops implements
// Classed: its class is what the `--json` error object carries, and what
// a caller branches on (errors.As on the concrete types gives detail).
type Classed interface {
	error
	// ErrorClass is one of the Class* constants.
	ErrorClass() string
}

// Classes of a stopped or failed payout.
const (
	ClassRefused   = OutcomeRefused // the service refused it: nothing was created
	ClassUnknown   = OutcomeUnknown // no definite answer: it may have been created
	ClassFunds     = "funds"        // the account cannot fund it: nothing was sent
	ClassDuplicate = "duplicate"    // it matches a payout already made: nothing was sent
	ClassNoAccount = "no_account"   // no enabled payout account in its currency: nothing was sent
	ClassInvalid   = "invalid"      // the request is not valid: nothing was sent
)

// ErrorClass returns err's class, "" when no stage of the pipeline said.
func ErrorClass(err error) string {
	var c Classed
	if asClassed(err, &c) {
		return c.ErrorClass()
	}
	return ""
}

// InvalidError is a payout that fails validation (api.ValidatePayout):
// nothing was sent.
type InvalidError struct {
	Problems api.Problems
}

func (e *InvalidError) Error() string {
	return "the payout is not valid: " + e.Problems.Error() + "; nothing was sent"
}

// ErrorClass is ClassInvalid.
func (e *InvalidError) ErrorClass() string { return ClassInvalid }

// ErrorField is the request path of the first problem.
func (e *InvalidError) ErrorField() string {
	if len(e.Problems) == 0 {
		return ""
	}
	return e.Problems[0].Field
}

// Unwrap gives the problems (errors.As(err, &api.Problems{})).
func (e *InvalidError) Unwrap() error { return e.Problems }

// IDUsedError is a transaction id the record or the service's report
// already holds for another payout: the service would answer 202 and
// create nothing, so "accepted" would be a lie. Nothing was sent; a new
// id sends it.
type IDUsedError struct {
	TransactionID string
	// Was says which payout, as Known.UsedFor puts it.
	Was string
}

func (e *IDUsedError) Error() string {
	return fmt.Sprintf("transaction id %s was already used %s; the service would create nothing for this one. Nothing was sent", e.TransactionID, e.Was)
}

// ErrorClass is ClassInvalid: the id is wrong for this payout.
func (e *IDUsedError) ErrorClass() string { return ClassInvalid }

// ErrorField is transaction_id.
func (e *IDUsedError) ErrorField() string { return "transaction_id" }

// FundsError is a payout its account cannot fund now: the service would
// answer 202 and then reject it for insufficient funds. Nothing was sent.
type FundsError struct {
	Currency         string
	AmountInMinor    int64
	AvailableInMinor int64
}

func (e *FundsError) Error() string {
	return fmt.Sprintf("%s exceeds the available %s balance of %s; the service would reject it (insufficient funds). Nothing was sent",
		api.FormatAmount(e.AmountInMinor, e.Currency), e.Currency, api.FormatAmount(e.AvailableInMinor, e.Currency))
}

// ErrorClass is ClassFunds.
func (e *FundsError) ErrorClass() string { return ClassFunds }

// ErrorField is amount_in_minor: what to lower (or fund the account).
func (e *FundsError) ErrorField() string { return "amount_in_minor" }

// AccountError is a payout in a currency with no payout account, or whose
// account is disabled: the service would refuse it. Nothing was sent.
type AccountError struct {
	Currency string
	Disabled bool
}

func (e *AccountError) Error() string {
	if e.Disabled {
		return fmt.Sprintf("the %s payout account is disabled and takes no payouts; nothing was sent", e.Currency)
	}
	return fmt.Sprintf("the profile has no %s payout account; nothing was sent", e.Currency)
}

// ErrorClass is ClassNoAccount.
func (e *AccountError) ErrorClass() string { return ClassNoAccount }

// ErrorField is currency: the account to pay from.
func (e *AccountError) ErrorField() string { return "currency" }

// ErrorClass is ClassDuplicate.
func (e *DuplicateError) ErrorClass() string { return ClassDuplicate }

// SendError is a send the service did not accept, classified: refused
// (nothing was created) or unknown (it may have been).
type SendError struct {
	TransactionID string
	Answer        Answer
}

func (e *SendError) Error() string {
	return fmt.Sprintf("payout %s not accepted: %v (%s)", e.TransactionID, e.Answer.Err, e.Answer.Advice())
}

// Unwrap gives the send's error (an *api.Error, a network error).
func (e *SendError) Unwrap() error { return e.Answer.Err }

// ErrorClass is the answer's outcome: ClassRefused or ClassUnknown.
func (e *SendError) ErrorClass() string { return e.Answer.Outcome }

// ErrorField is the first field the service's problem names, if any.
func (e *SendError) ErrorField() string {
	var ae *api.Error
	if !asAPIError(e.Answer.Err, &ae) || ae.Problem == nil {
		return ""
	}
	var fields []string
	for f := range ae.Problem.Errors {
		fields = append(fields, f)
	}
	if len(fields) == 0 {
		if ae.Problem != nil && problemSlug(ae.Problem.Type) == ProblemAccountDisabled {
			return "currency"
		}
		return ""
	}
	return minString(fields)
}

func minString(ss []string) string {
	m := ss[0]
	for _, s := range ss[1:] {
		if strings.Compare(s, m) < 0 {
			m = s
		}
	}
	return m
}

// StageError is a stage before the send that could not run (the report
// could not be read, the audit record was locked or damaged): nothing
// was sent, and trying again is safe.
type StageError struct {
	Stage Stage
	Err   error
}

func (e *StageError) Error() string { return e.Err.Error() }

// Unwrap gives the stage's error.
func (e *StageError) Unwrap() error { return e.Err }

// stageErr wraps err from stage unless it already says what stopped the
// payout.
func stageErr(stage Stage, err error) error {
	if err == nil || ErrorClass(err) != "" {
		return err
	}
	return &StageError{Stage: stage, Err: err}
}
