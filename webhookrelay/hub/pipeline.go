package hub

import (
	"context"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/payout"
)

// Classes of a pipeline error (its ErrorClass): payout/'s.
const (
	ClassRefused   = payout.ClassRefused
	ClassUnknown   = payout.ClassUnknown
	ClassFunds     = payout.ClassFunds
	ClassDuplicate = payout.ClassDuplicate
	ClassNoAccount = payout.ClassNoAccount
	ClassInvalid   = payout.ClassInvalid
)

// Outcome classes of a send: payout.Classify's.
const (
	Accepted = payout.OutcomeAccepted
	Refused  = payout.OutcomeRefused
	Unknown  = payout.OutcomeUnknown
)

// Pipeline is what the hub needs of the one payout pipeline (payout/):
// the hub decides who may send and when; the pipeline alone decides
// whether a payout is valid, funded, not a duplicate, and what the
// service's answer means. The hub never classifies an answer itself.
type Pipeline interface {
	// Check runs the pipeline's checks without sending: validation, funds
	// (reserved: what the hub's open requests hold back, per currency,
	// counted as gone) and duplicates (allowDuplicate: the requester's
	// --allow-duplicate). Its error has an ErrorClass.
	Check(ctx context.Context, req *api.PayoutRequest, reserved map[string]int64, allowDuplicate bool) error
	// Send records the attempt in the audit record, sends req under its
	// transaction id, classifies the answer and records the outcome.
	Send(ctx context.Context, req *api.PayoutRequest, allowDuplicate bool) (Outcome, error)
	// Lookup says whether the service already holds a payout with this
	// transaction id, and its state: what a restarted hub asks before
	// sending a request it left being sent.
	Lookup(ctx context.Context, transactionID string) (state string, found bool, err error)
}

// Outcome is a send's answer as the pipeline classified it.
type Outcome struct {
	// Class is Accepted, Refused or Unknown.
	Class string
	// State is the payout's state the answer gave (e.g. "accepted").
	State string
	// Detail says the answer in words.
	Detail string
}

// ErrorClass returns the pipeline's class of err, "" when it has none.
func ErrorClass(err error) string { return payout.ErrorClass(err) }
