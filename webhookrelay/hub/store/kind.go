package store

import (
	"fmt"
	"time"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/webhookrelay/hub/hubapi"
)

// Kinds of request besides a payout (Kind ""): a single payment or a VRP
// mandate held for approval, created by the hub with its key once
// approved, under the requester's idempotency key. Their money comes in,
// not out: AmountInMinor, which funds checks, held funds and the 24-hour
// sums count as money paid out, is 0 for them, and Payment or Mandate
// carries their amounts.
const (
	KindPayment = hubapi.KindPayment
	KindMandate = hubapi.KindMandate
)

// ShownAmount is what a request is shown for: a payout's amount, a
// payment's, or a mandate's maximum individual amount.
func (r *Request) ShownAmount() int64 {
	switch {
	case r.Payment != nil:
		return r.Payment.AmountInMinor
	case r.Mandate != nil:
		return r.Mandate.Constraints.MaximumIndividualAmount
	}
	return r.AmountInMinor
}

// kindDetail is a payment's or mandate's first record line.
func (r *Request) kindDetail() string {
	return fmt.Sprintf("%s of %s into %s, ref %q, idempotency key %s; %s", r.Kind, api.FormatAmount(r.ShownAmount(), r.Currency),
		r.BeneficiaryName, r.BeneficiaryReference, r.IdempotencyKey, r.Policy)
}

// Created records that the service created a payment's or mandate's
// request being sent (status sending or unknown): sent, with the id it
// created.
func (s *Store) Created(id, createdID, detail string, at time.Time) (Request, error) {
	return s.change(id, at, func(r *Request) (*Entry, bool, error) {
		if r.Status != StatusSending && r.Status != StatusUnknown {
			return nil, false, fmt.Errorf("approvals store: request %s is %s, not being sent", r.ID, r.Status)
		}
		r.Status, r.Detail, r.CreatedID = StatusSent, detail, createdID
		return &Entry{Action: ActOutcome, Detail: StatusSent + ": " + detail}, false, nil
	})
}
