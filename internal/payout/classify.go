package payout

import (
	"errors"
	"net/http"
	"strings"

	"github.com/paydash/paydash/api"
)

// Answer is what the service's answer to one send means, classified once
// (Classify) for every caller: the form, payout create, the batch and
// the approvals hub say the same thing about the same answer.
type Answer struct {
	// Outcome is OutcomeAccepted, OutcomeRefused or OutcomeUnknown.
	Outcome string `json:"outcome"`
	// HTTPStatus is the service's status, 0 when it gave none.
	HTTPStatus int `json:"http_status,omitempty"`
	// Problem is the problem type's last segment (account_disabled,
	// invalid_parameters, ...), when the service sent one.
	Problem string `json:"problem,omitempty"`
	// Reached is false when the request never left this process (no
	// connection, cancelled before writing): nothing can have been made.
	Reached bool `json:"reached"`
	// Err is the send's error, nil when accepted.
	Err error `json:"-"`
}

// Problem types of the service that change how an answer is read (the
// last segment of the problem's "type"; see api/sandbox's package doc).
const (
	// ProblemAccountDisabled: a 409 for a payout account that takes no
	// payouts. A definite refusal: nothing was created.
	ProblemAccountDisabled = "account_disabled"
	// ProblemInProgress: a 409 for a request under the same id that the
	// service is still working on. Whether it will be created is not
	// known yet.
	ProblemInProgress = "request_in_progress"
	// ProblemIdempotencyKeyReused: a 422 for a key first used with
	// another request (payments and mandates).
	ProblemIdempotencyKeyReused = "idempotency_key_reused"
)

// Classify reads the result of one send (api.Client.CreatePayout's error;
// nil is accepted) into an Answer:
//
//   - accepted: a 2xx.
//   - refused: nothing was created, so the payout may be corrected and
//     sent anew under a new id: a definite 4xx (400, 401, 403, 404, 405,
//     410, 413, 415, 422, ...), a 409 whose problem says the account is
//     disabled, or a request that never left this process
//     (api.ErrNotSent: connection refused, cancelled before writing).
//   - unknown: it may have been created, so it may be re-sent only under
//     the same transaction id, which the service never pays twice: 408,
//     425, 429, a 409 for a request still in progress (or one whose
//     problem says nothing), any 5xx, a timeout, a reset or a cancel after
//     the request was written.
//
// It reads the status and the problem's type, never the status alone.
// It is also the classifier of payments and mandates (their
// Idempotency-Key plays the transaction id's part).
func Classify(err error) Answer {
	if err == nil {
		return Answer{Outcome: OutcomeAccepted, HTTPStatus: http.StatusAccepted, Reached: true}
	}
	a := Answer{Outcome: OutcomeUnknown, Reached: true, Err: err}
	var ae *api.Error
	if !errors.As(err, &ae) {
		if errors.Is(err, api.ErrNotSent) {
			a.Outcome, a.Reached = OutcomeRefused, false
		}
		return a
	}
	a.HTTPStatus = ae.StatusCode
	if ae.Problem != nil {
		a.Problem = problemSlug(ae.Problem.Type)
	}
	code := ae.StatusCode
	switch {
	case code >= 200 && code < 300:
		a.Outcome, a.Err = OutcomeAccepted, nil
	case code == http.StatusConflict:
		if a.Problem == ProblemAccountDisabled {
			a.Outcome = OutcomeRefused
		}
	case code == http.StatusRequestTimeout, code == http.StatusTooEarly, code == http.StatusTooManyRequests:
		// Said before the service decided, or while it may still decide.
	case code >= 400 && code < 500:
		a.Outcome = OutcomeRefused
	}
	return a
}

// problemSlug is the last path segment of a problem type URI.
func problemSlug(typ string) string {
	typ = strings.TrimRight(typ, "/")
	if i := strings.LastIndexByte(typ, '/'); i >= 0 {
		return typ[i+1:]
	}
	return typ
}

// Refused reports whether nothing was created.
func (a Answer) Refused() bool { return a.Outcome == OutcomeRefused }

// Unknown reports whether the payout may have been created.
func (a Answer) Unknown() bool { return a.Outcome == OutcomeUnknown }

// Accepted reports whether the service accepted the payout.
func (a Answer) Accepted() bool { return a.Outcome == OutcomeAccepted }

// Advice is what the answer means for the operator, the same words from
// every caller; callers add how to do it on their screen (a key, a
// flag).
func (a Answer) Advice() string {
	switch a.Outcome {
	case OutcomeAccepted:
		return AdviceAccepted
	case OutcomeRefused:
		if !a.Reached {
			return AdviceNotSent
		}
		return AdviceRefused
	}
	return AdviceUnknown
}

// The advice of each class of answer.
const (
	AdviceAccepted = "the service accepted it; its outcome arrives by webhook"
	AdviceRefused  = "the service refused it, so nothing was created: correct it and send it anew"
	AdviceNotSent  = "it never reached the service, so nothing was created: send it again when the service can be reached"
	AdviceUnknown  = "it may or may not have reached the service: send it again only under the same transaction id, which the service never pays twice"
)

func asAPIError(err error, target **api.Error) bool { return errors.As(err, target) }

func asClassed(err error, target *Classed) bool { return errors.As(err, target) }
