package hubapi

import (
	"fmt"

	"github.com/paydash/paydash/api"
)

// Kinds of request (Request.Kind) besides a payout (""): a single
// payment or a VRP mandate the hub's policy held for approval. Approved,
// the hub creates it with its own key under the requester's idempotency
// key, once.
const (
	KindPayment = "payment"
	KindMandate = "mandate"
)

// AwaitingApprovalError is the hub's answer to a payment or mandate its
// policy holds for approval (202 with a Result): nothing was sent yet;
// the hub sends it once other people approve. It is what hubclient's
// CreatePayment and CreateMandate return in place of the service's
// response.
type AwaitingApprovalError struct {
	Kind   string
	Result Result
}

func (e *AwaitingApprovalError) Error() string {
	return fmt.Sprintf("the %s awaits approval as request %s (%s): nothing is sent until %d other person(s) approve",
		e.Kind, e.Result.ApprovalID, e.Result.Reason, max(e.Result.ApprovalsNeeded, 1))
}

// Shown is the amount a request is shown and approved for: a payout's
// amount, a payment's, or a mandate's maximum individual amount (a
// payment's or mandate's AmountInMinor, money paid out, is 0).
func (r *Request) Shown() int64 {
	switch {
	case r.Payment != nil:
		return r.Payment.AmountInMinor
	case r.Mandate != nil:
		return r.Mandate.Constraints.MaximumIndividualAmount
	}
	return r.AmountInMinor
}

// What says in a few words what a request sends: a payout's amount and
// payee, a payment's amount and beneficiary, a mandate's type and
// largest single payment.
func (r *Request) What() string {
	switch r.Kind {
	case KindPayment:
		return "payment of " + api.FormatAmount(r.Shown(), r.Currency) + " into " + r.BeneficiaryName
	case KindMandate:
		typ := ""
		if r.Mandate != nil {
			typ = r.Mandate.Mandate.Type + " "
		}
		return typ + "mandate of up to " + api.FormatAmount(r.Shown(), r.Currency) + " a payment into " + r.BeneficiaryName
	}
	return api.FormatAmount(r.AmountInMinor, r.Currency) + " to " + r.BeneficiaryName
}
