package hubapi

import "github.com/paydash/paydash/api"

// Problem is the body of every refusal of the hub's own.
type Problem struct {
	Status int    `json:"status"`
	Reason string `json:"reason"`
	Detail string `json:"detail"`
	// TransactionIDUsedBy names the approval request that already holds
	// the submitted transaction id for another payout (reason
	// "duplicate"): a client tells it from a duplicate payee by this,
	// not by the detail's words.
	TransactionIDUsedBy string `json:"transaction_id_used_by,omitempty"`
}

// Classes of the payout pipeline's errors, as a refused submission's
// Problem.Reason and a Warning's Class carry them (the values of
// internal/payout's ErrorClass).
const (
	ClassRefused   = "refused"
	ClassUnknown   = "unknown"
	ClassFunds     = "funds"
	ClassDuplicate = "duplicate"
	ClassNoAccount = "no_account"
	ClassInvalid   = "invalid"
)

// Reasons of the hub's answers to a payment or mandate when the service
// gave none.
const (
	ReasonNotReached = "service_not_reached" // nothing was sent
	ReasonNoAnswer   = "service_no_answer"   // it may have been created
)

// HeaderAnswerFrom marks an answer whose refusal is the service's own,
// passed on (ServiceAnswer), not the hub's: its value is "service".
const HeaderAnswerFrom = "X-Paydash-Answer-From"

// ServiceAnswer is the service's refusal, passed on with its status, so
// the requester's paydash reads it as it reads the service's own.
type ServiceAnswer struct {
	Status  int                 `json:"status"`
	Problem *api.ProblemDetails `json:"problem,omitempty"`
	TraceID string              `json:"trace_id,omitempty"`
	Detail  string              `json:"detail"`
}

// Warning is what the pipeline would say of a pending request if it were
// approved now: a possible duplicate, too little money, no account. The
// approver sees it before deciding; the hub checks again when the last
// approval arrives and refuses to send then.
type Warning struct {
	// Class is the pipeline's class (duplicate, funds, no_account,
	// invalid, unknown when the check could not run).
	Class  string `json:"class"`
	Detail string `json:"detail"`
}

// CheckResponse is the body of GET /hub/v1/approvals/{id}/check.
type CheckResponse struct {
	ID       string    `json:"id"`
	Warnings []Warning `json:"warnings"`
}
