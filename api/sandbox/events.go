package sandbox

import (
	"encoding/json"
	"fmt"

	"github.com/google/uuid"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/api/sandbox/sandboxapi"
)

// FailureExpired is the failure_reason of a payment or mandate whose
// resource token expired; FailureAuthorization is the default reason of
// a failed authorisation.
const (
	FailureExpired       = "expired"
	FailureAuthorization = "authorization_failed"
)

// ExternalPaymentReceived is the body of external_payment_received (its
// payload is not shown in interface.md): a flat payments-interface object.
type ExternalPaymentReceived struct {
	Type              string  `json:"type"`
	EventID           string  `json:"event_id"`
	EventVersion      int     `json:"event_version"`
	TransactionID     string  `json:"transaction_id"`
	MerchantAccountID string  `json:"merchant_account_id"`
	Currency          string  `json:"currency"`
	AmountInMinor     int64   `json:"amount_in_minor"`
	Remitter          Account `json:"remitter"`
	Reference         string  `json:"reference"`
	SettledAt         string  `json:"settled_at"`
}

// Account names the remitter of an external payment.
type Account struct {
	AccountHolderName string `json:"account_holder_name"`
	IBAN              string `json:"iban,omitempty"`
}

// externalPaymentEvent describes a funding record; the caller holds l.mu.
func (l *ledger) externalPaymentEvent(t *txn, a *account) *event {
	return externalEvent(ExternalPaymentReceived{TransactionID: t.id, MerchantAccountID: a.ID,
		Currency: a.Currency, AmountInMinor: t.amount, Remitter: Account{AccountHolderName: t.name, IBAN: t.iban},
		Reference: t.ref, SettledAt: eventTime(t.settled)})
}

func externalEvent(b ExternalPaymentReceived) *event {
	b.Type, b.EventID, b.EventVersion = api.EventExternalPaymentReceived, uuid.NewString(), 1
	body, _ := json.Marshal(b) // strings and numbers always marshal
	return &event{id: b.EventID, typ: b.Type, payoutID: b.TransactionID, key: b.TransactionID, body: body}
}

// synthesise builds the event a sandboxapi.Trigger asks for.
func (s *Sandbox) synthesise(t sandboxapi.Trigger) (*event, error) {
	var ps api.Problems
	if t.Currency == "" {
		t.Currency = "GBP"
	}
	acct := s.ledger.account(t.Currency)
	if acct == nil {
		ps = append(ps, api.Problem{Field: "currency", Message: fmt.Sprintf("must be %s", s.ledger.currencies())})
	}
	if t.PayoutID == "" {
		t.PayoutID = uuid.NewString()
	}
	switch t.Beneficiary {
	case "", api.BeneficiaryExternalAccount, api.BeneficiaryPaymentSource, api.BeneficiaryBusinessAccount:
	default:
		ps = append(ps, api.Problem{Field: "beneficiary", Message: fmt.Sprintf("must be %s, %s or %s, not %q",
			api.BeneficiaryExternalAccount, api.BeneficiaryPaymentSource, api.BeneficiaryBusinessAccount, t.Beneficiary)})
	}
	family := t.Family
	switch t.Event {
	case api.EventPayoutAuthorised, api.EventPayoutSubmitted, api.EventPayoutSettled, api.EventPayoutRejected:
		family = sandboxapi.FamilyPayout
	case api.EventPayoutExecuted, api.EventExternalPaymentReceived:
		family = sandboxapi.FamilyPayments
	case api.EventPayoutFailed:
		if family == "" {
			family = sandboxapi.FamilyPayments
		}
		if family != sandboxapi.FamilyPayout && family != sandboxapi.FamilyPayments {
			ps = append(ps, api.Problem{Field: "family", Message: fmt.Sprintf("must be %s or %s, not %q", sandboxapi.FamilyPayout, sandboxapi.FamilyPayments, family)})
		}
	default:
		ps = append(ps, api.Problem{Field: "trigger", Message: fmt.Sprintf("must be one of %s, %s, %s, %s, %s, %s or %s, not %q",
			api.EventPayoutAuthorised, api.EventPayoutSubmitted, api.EventPayoutSettled, api.EventPayoutRejected,
			api.EventPayoutFailed, api.EventPayoutExecuted, api.EventExternalPaymentReceived, t.Event)})
	}
	if len(ps) > 0 {
		return nil, &invalidError{ps}
	}
	now := eventTime(reportNow(s.clock))
	switch {
	case t.Event == api.EventExternalPaymentReceived:
		amount := t.AmountInMinor
		if amount <= 0 {
			amount = 10_000
		}
		return externalEvent(ExternalPaymentReceived{TransactionID: t.PayoutID, MerchantAccountID: acct.ID,
			Currency: acct.Currency, AmountInMinor: amount,
			Remitter:  Account{AccountHolderName: "Triggered Remitter", IBAN: randomIBAN(acct.Currency)},
			Reference: "TRIGGERED", SettledAt: now}), nil
	case family == sandboxapi.FamilyPayout:
		return payoutEvent(t.Event, t.PayoutID, payoutTriggerBody(t, now)), nil
	default:
		return paymentsPayoutEvent(t, acct, now), nil
	}
}

func payoutTriggerBody(t sandboxapi.Trigger, now string) api.PayoutEventBody {
	b := api.PayoutEventBody{TransactionID: t.PayoutID}
	switch t.Event {
	case api.EventPayoutAuthorised:
		b.AuthorisedAt = now
	case api.EventPayoutSubmitted:
		b.SubmittedAt = now
	case api.EventPayoutSettled:
		b.SettledAt = now
	case api.EventPayoutRejected:
		b.RejectedAt, b.Reason = now, orDefault(t.Reason, RejectInsufficientFunds)
	case api.EventPayoutFailed:
		b.FailedAt, b.Reason = now, orDefault(t.Reason, api.FailureSchemeError)
	}
	return b
}

// paymentsPayoutEvent builds payout_executed or payout_failed in the
// variant of t.Beneficiary, as interface.md lays them out.
func paymentsPayoutEvent(t sandboxapi.Trigger, acct *account, now string) *event {
	e := api.PaymentsPayoutEvent{Type: t.Event, EventID: uuid.NewString(), EventVersion: 1, PayoutID: t.PayoutID, Metadata: t.Metadata}
	kind := orDefault(t.Beneficiary, api.BeneficiaryExternalAccount)
	if t.Event == api.EventPayoutExecuted {
		e.ExecutedAt, e.SchemeID = now, acct.SchemeID
		switch kind {
		case api.BeneficiaryExternalAccount:
			e.MerchantAccountID = acct.ID
		case api.BeneficiaryPaymentSource:
			e.SchemeID = api.SchemeInternalTransfer
			e.Beneficiary = &api.EventBeneficiary{Type: kind, PaymentSourceID: uuid.NewString(), UserID: uuid.NewString()}
		default:
			e.Beneficiary = &api.EventBeneficiary{Type: kind}
		}
	} else {
		e.FailedAt = now
		e.Beneficiary = &api.EventBeneficiary{Type: kind}
		if kind == api.BeneficiaryPaymentSource {
			e.Beneficiary.PaymentSourceID, e.Beneficiary.UserID = uuid.NewString(), uuid.NewString()
		}
		if kind != api.BeneficiaryBusinessAccount { // its table has no failure_reason
			e.FailureReason = orDefault(t.Reason, api.FailureSchemeError)
		}
		if e.FailureReason == api.FailureReturned {
			e.FailureDetails = &api.FailureDetails{Message: "The beneficiary bank returned the payout: account closed", IsTransient: false}
		}
	}
	body, _ := json.Marshal(e) // strings, numbers and maps of strings always marshal
	return &event{id: e.EventID, typ: e.Type, payoutID: e.PayoutID, key: e.PayoutID, body: body}
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
