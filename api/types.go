package api

import (
	"encoding/json"
	"strings"
	"time"
)

// Mandate types (mandate.type). Each needs the access-token scope of the
// same name under "recurring_payments:".
const (
	MandateSweeping   = "sweeping"
	MandateCommercial = "commercial"
)

// Access-token scopes.
const (
	ScopeSweeping   = "recurring_payments:sweeping"
	ScopeCommercial = "recurring_payments:commercial"
	ScopePayments   = "payments"
	// ScopePayouts covers the payout interface (balances, payouts,
	// transactions). The interface document does not name it ("not shown");
	// "payouts" is our choice, shared with the sandbox.
	ScopePayouts = "payouts"
)

// ScopeForMandate returns the scope a mandate of the given type needs.
func ScopeForMandate(mandateType string) string {
	return "recurring_payments:" + mandateType
}

// Provider selection types.
const (
	ProviderUserSelected = "user_selected"
	ProviderPreselected  = "preselected"
)

// Beneficiary types. Mandates and payments take merchant_account and
// external_account; payments-interface payout events also carry
// payment_source and business_account.
const (
	BeneficiaryMerchantAccount = "merchant_account"
	BeneficiaryExternalAccount = "external_account"
	BeneficiaryPaymentSource   = "payment_source"
	BeneficiaryBusinessAccount = "business_account"
)

// Account identifier types.
const (
	AccountIdentifierSortCode = "sort_code_account_number"
	AccountIdentifierIBAN     = "iban"
	AccountIdentifierBBAN     = "bban"
	AccountIdentifierNRB      = "nrb"
)

// Period alignments of a periodic limit.
const (
	AlignmentConsent  = "consent"
	AlignmentCalendar = "calendar"
)

// PaymentMethodBankTransfer is the only payment_method.type for a single
// payment; "mandate" is for recurring payments.
const PaymentMethodBankTransfer = "bank_transfer"

// PaymentStatusAuthorizationRequired is the status a new payment has.
const PaymentStatusAuthorizationRequired = "authorization_required"

// ContextCodeWithdrawal is the payout context_code the document shows.
const ContextCodeWithdrawal = "withdrawal"

// MandateRequest is the body of POST {base_url}/v3/mandates.
type MandateRequest struct {
	Mandate     Mandate           `json:"mandate"`
	Currency    string            `json:"currency"`
	User        *User             `json:"user,omitempty"`
	Constraints Constraints       `json:"constraints"`
	Metadata    map[string]string `json:"metadata,omitempty"`
	// RelatedProducts' structure is not shown; it is carried as opaque
	// members and must hold at least one when present.
	RelatedProducts map[string]json.RawMessage `json:"related_products,omitempty"`
}

// Mandate is the "mandate" object of a mandate creation request.
type Mandate struct {
	Type              string            `json:"type"`
	ProviderSelection ProviderSelection `json:"provider_selection"`
	Beneficiary       Beneficiary       `json:"beneficiary"`
	// Reference is available to regulated customers only.
	Reference string `json:"reference,omitempty"`
}

// ProviderSelection chooses how the paying provider is picked.
type ProviderSelection struct {
	Type string `json:"type"`
	// Filter is used with user_selected.
	Filter *ProviderFilter `json:"filter,omitempty"`
	// ProviderID is required with preselected.
	ProviderID string `json:"provider_id,omitempty"`
	// Remitter is optional with preselected; its members are not shown,
	// so it is carried opaquely.
	Remitter json.RawMessage `json:"remitter,omitempty"`
	// SchemeSelection applies to single payments only.
	SchemeSelection *SchemeSelection `json:"scheme_selection,omitempty"`
}

// ProviderFilter restricts the providers a user may choose from.
type ProviderFilter struct {
	Countries        []string `json:"countries,omitempty"`
	ReleaseChannel   string   `json:"release_channel,omitempty"`
	CustomerSegments []string `json:"customer_segments,omitempty"`
}

// SchemeSelection selects instant or non-instant schemes (within Europe).
type SchemeSelection struct {
	Type             string `json:"type"`
	AllowRemitterFee *bool  `json:"allow_remitter_fee,omitempty"`
}

// Beneficiary is who a mandate's or payment's money goes to.
type Beneficiary struct {
	Type              string             `json:"type"`
	MerchantAccountID string             `json:"merchant_account_id,omitempty"`
	AccountHolderName string             `json:"account_holder_name,omitempty"`
	AccountIdentifier *AccountIdentifier `json:"account_identifier,omitempty"`
	// Reference is shown on the payer's statement (payments only).
	Reference string `json:"reference,omitempty"`
}

// AccountIdentifier identifies a bank account. The member names of the
// iban, bban and nrb variants are not shown; we use the variant's own name
// ("iban", "bban", "nrb"), which is what the sandbox accepts.
type AccountIdentifier struct {
	Type          string `json:"type"`
	SortCode      string `json:"sort_code,omitempty"`
	AccountNumber string `json:"account_number,omitempty"`
	IBAN          string `json:"iban,omitempty"`
	BBAN          string `json:"bban,omitempty"`
	NRB           string `json:"nrb,omitempty"`
}

// User is the person a mandate or payment is for.
type User struct {
	ID    string `json:"id,omitempty"`
	Name  string `json:"name,omitempty"`
	Email string `json:"email,omitempty"`
	Phone string `json:"phone,omitempty"`
	// DateOfBirth is YYYY-MM-DD (payments).
	DateOfBirth string `json:"date_of_birth,omitempty"`
}

// Constraints are a mandate's spending rules. ValidFrom and ValidTo are
// strings in the mandate time format (see FormatMandateTime) so that a
// malformed value is reported as a field problem, not a decoding failure.
type Constraints struct {
	ValidFrom               string          `json:"valid_from,omitempty"`
	ValidTo                 string          `json:"valid_to,omitempty"`
	MaximumIndividualAmount int64           `json:"maximum_individual_amount"`
	PeriodicLimits          *PeriodicLimits `json:"periodic_limits,omitempty"`
}

// PeriodicLimits caps the total paid per period; all given periods apply.
type PeriodicLimits struct {
	Day       *PeriodicLimit `json:"day,omitempty"`
	Week      *PeriodicLimit `json:"week,omitempty"`
	Fortnight *PeriodicLimit `json:"fortnight,omitempty"`
	Month     *PeriodicLimit `json:"month,omitempty"`
	HalfYear  *PeriodicLimit `json:"half_year,omitempty"`
	Year      *PeriodicLimit `json:"year,omitempty"`
}

// Periods lists the limits in the document's order with their JSON names;
// absent periods are nil.
func (p *PeriodicLimits) Periods() []NamedLimit {
	if p == nil {
		return nil
	}
	return []NamedLimit{
		{"day", p.Day}, {"week", p.Week}, {"fortnight", p.Fortnight},
		{"month", p.Month}, {"half_year", p.HalfYear}, {"year", p.Year},
	}
}

// NamedLimit pairs a period's JSON name with its limit.
type NamedLimit struct {
	Name  string
	Limit *PeriodicLimit
}

// PeriodicLimit is one period's cap.
type PeriodicLimit struct {
	MaximumAmount   int64  `json:"maximum_amount"`
	PeriodAlignment string `json:"period_alignment"`
}

// IDRef is an object holding only an id, as in the responses' "user".
type IDRef struct {
	ID string `json:"id"`
}

// MandateResponse is the response of mandate creation. Status is an
// extension filled by the sandbox's GET /v3/mandates/{id}.
type MandateResponse struct {
	ID            string `json:"id"`
	User          IDRef  `json:"user"`
	ResourceToken string `json:"resource_token"`
	Status        string `json:"status,omitempty"`
}

// PaymentRequest is the body of POST {base_url}/v3/payments.
type PaymentRequest struct {
	AmountInMinor   int64                      `json:"amount_in_minor"`
	Currency        string                     `json:"currency"`
	PaymentMethod   PaymentMethod              `json:"payment_method"`
	User            *User                      `json:"user,omitempty"`
	Metadata        map[string]string          `json:"metadata,omitempty"`
	RelatedProducts map[string]json.RawMessage `json:"related_products,omitempty"`
}

// PaymentMethod of a single payment. Placement of provider_selection is
// ambiguous in the document; we follow the request sample and put
// provider_selection and beneficiary directly under payment_method.
type PaymentMethod struct {
	Type              string             `json:"type"`
	ProviderSelection *ProviderSelection `json:"provider_selection,omitempty"`
	Beneficiary       Beneficiary        `json:"beneficiary"`
}

// PaymentResponse is the response of payment creation (and of the
// sandbox's GET /v3/payments/{id} extension).
type PaymentResponse struct {
	ID            string `json:"id"`
	User          IDRef  `json:"user"`
	ResourceToken string `json:"resource_token"`
	Status        string `json:"status"`
}

// TokenResponse is the body of POST {auth_url}/connect/token. The document
// does not show it; this is the OAuth 2.0 client-credentials shape.
type TokenResponse struct {
	AccessToken string `json:"access_token"`
	TokenType   string `json:"token_type"`
	ExpiresIn   int64  `json:"expires_in"`
	Scope       string `json:"scope,omitempty"`
}

// Payout account statuses.
const (
	AccountEnabled  = "enabled"
	AccountDisabled = "disabled"
)

// Balance is one payout account (element of results of GET /v1/balances).
type Balance struct {
	Currency                string `json:"currency"`
	IBAN                    string `json:"iban"`
	Status                  string `json:"status"`
	CurrentBalanceInMinor   int64  `json:"current_balance_in_minor"`
	AvailableBalanceInMinor int64  `json:"available_balance_in_minor"`
}

// BalancesResponse is the body of GET /v1/balances.
type BalancesResponse struct {
	Results []Balance `json:"results"`
}

// PayoutRequest is the body of POST {payouts_url}/v1/payouts.
type PayoutRequest struct {
	TransactionID        string `json:"transaction_id"`
	BeneficiaryName      string `json:"beneficiary_name"`
	BeneficiaryIBAN      string `json:"beneficiary_iban"`
	BeneficiaryReference string `json:"beneficiary_reference"`
	Currency             string `json:"currency"`
	AmountInMinor        int64  `json:"amount_in_minor"`
	ContextCode          string `json:"context_code"`
}

// Transaction types. Only "payout" is shown; "funding" (an incoming bank
// transfer that tops up a payout account) is our choice.
const (
	TransactionPayout  = "payout"
	TransactionFunding = "funding"
)

// Credit reports whether a report row of this type is money in (a
// funding); every other row (a payout) is money out. Totals, the
// balances' history and every signed amount shown read it here.
func Credit(transactionType string) bool { return transactionType == TransactionFunding }

// Payout states, named after the payout events. Fundings are "settled".
const (
	StateAuthorised = "authorised"
	StateSubmitted  = "submitted"
	StateSettled    = "settled"
	StateRejected   = "rejected"
	StateFailed     = "failed"
	StateExecuted   = "executed"
)

// Transaction is one record of the transaction report. Timestamps not yet
// reached are omitted.
type Transaction struct {
	TransactionID        string     `json:"transaction_id"`
	Type                 string     `json:"type"`
	AuthorisedAt         ReportTime `json:"authorised_at,omitzero"`
	SubmittedAt          ReportTime `json:"submitted_at,omitzero"`
	SettledAt            ReportTime `json:"settled_at,omitzero"`
	BeneficiaryName      string     `json:"beneficiary_name"`
	BeneficiaryIBAN      string     `json:"beneficiary_iban"`
	BeneficiaryReference string     `json:"beneficiary_reference"`
	AmountInMinor        int64      `json:"amount_in_minor"`
	Currency             string     `json:"currency"`
	ContextCode          string     `json:"context_code"`
	Status               string     `json:"status"`
}

// LatestTime is when the transaction last moved: settled, else
// submitted, else authorised (zero when it carries no time).
func (t Transaction) LatestTime() time.Time {
	for _, ts := range []ReportTime{t.SettledAt, t.SubmittedAt, t.AuthorisedAt} {
		if !ts.IsZero() {
			return ts.Time
		}
	}
	return time.Time{}
}

// TransactionsResponse is the body of GET /v1/transactions.
type TransactionsResponse struct {
	Results []Transaction `json:"results"`
}

// Payout-interface webhook event types. Only payout_authorised is shown;
// the other four follow its pattern (our documented choice).
const (
	EventPayoutAuthorised = "payout_authorised"
	EventPayoutSubmitted  = "payout_submitted"
	EventPayoutSettled    = "payout_settled"
	EventPayoutRejected   = "payout_rejected"
	EventPayoutFailed     = "payout_failed"
)

// Header names of the interface.
const (
	HeaderIdempotencyKey     = "Idempotency-Key"
	HeaderSignature          = "Svc-Signature"
	HeaderPayoutSignature    = "X-Svc-Signature"
	HeaderWebhookTimestamp   = "X-Svc-Webhook-Timestamp"
	HeaderTraceID            = "X-Trace-Id"
	ContentTypeJSON          = "application/json"
	ContentTypeJSONUTF8      = "application/json; charset=UTF-8"
	ContentTypeProblemJSON   = "application/problem+json"
	ContentTypeFormURLEncode = "application/x-www-form-urlencoded"
)

// PayoutWebhook is the envelope of the payout interface's webhooks,
// delivered with the X-Svc-Webhook-Timestamp header.
type PayoutWebhook struct {
	EventType string          `json:"event_type"`
	EventID   string          `json:"event_id"`
	EventBody json.RawMessage `json:"event_body"`
}

// PayoutEventBody is the event_body of the payout-interface events. Only
// payout_authorised's body (transaction_id, authorised_at) is shown; the
// others carry transaction_id, their state's timestamp and, for rejected
// and failed, a reason (our documented choice).
type PayoutEventBody struct {
	TransactionID string `json:"transaction_id"`
	AuthorisedAt  string `json:"authorised_at,omitempty"`
	SubmittedAt   string `json:"submitted_at,omitempty"`
	SettledAt     string `json:"settled_at,omitempty"`
	RejectedAt    string `json:"rejected_at,omitempty"`
	FailedAt      string `json:"failed_at,omitempty"`
	Reason        string `json:"reason,omitempty"`
}

// Payments-interface payout event types.
const (
	EventPayoutExecuted          = "payout_executed"
	EventPaymentsPayoutFailed    = "payout_failed"
	EventExternalPaymentReceived = "external_payment_received"
)

// Failure reasons of payout_failed that the document shows.
const (
	FailureSchemeError       = "scheme_error"
	FailureInsufficientFunds = "insufficient_funds"
	FailureReturned          = "returned"
)

// PaymentsPayoutEvent is a payments-interface payout webhook: a flat object
// whose type is payout_executed or payout_failed, in three variants by
// beneficiary kind (external account, payment source, business account).
type PaymentsPayoutEvent struct {
	Type         string            `json:"type"`
	EventID      string            `json:"event_id"`
	EventVersion int               `json:"event_version"`
	PayoutID     string            `json:"payout_id"`
	Metadata     map[string]string `json:"metadata,omitempty"`
	// payout_executed
	ExecutedAt        string `json:"executed_at,omitempty"`
	SchemeID          string `json:"scheme_id,omitempty"`
	MerchantAccountID string `json:"merchant_account_id,omitempty"`
	// payout_failed
	FailedAt       string          `json:"failed_at,omitempty"`
	FailureReason  string          `json:"failure_reason,omitempty"`
	FailureDetails *FailureDetails `json:"failure_details,omitempty"`
	// Beneficiary is absent for open-loop executed events.
	Beneficiary *EventBeneficiary `json:"beneficiary,omitempty"`
}

// EventBeneficiary is the beneficiary object of a payments-interface payout
// event.
type EventBeneficiary struct {
	Type            string `json:"type"`
	PaymentSourceID string `json:"payment_source_id,omitempty"`
	UserID          string `json:"user_id,omitempty"`
}

// FailureDetails accompany failure_reason "returned".
type FailureDetails struct {
	Message     string `json:"message"`
	IsTransient bool   `json:"is_transient"`
}

// Scheme ids of payout_executed.
const (
	SchemeUnknown                  = "unknown"
	SchemeFasterPayments           = "faster_payments_service"
	SchemeInternalTransfer         = "internal_transfer"
	SchemeSEPACreditTransfer       = "sepa_credit_transfer"         //nolint:gosec // a scheme name, not a credential
	SchemeSEPACreditTransferInstan = "sepa_credit_transfer_instant" //nolint:gosec // a scheme name, not a credential
)

// TransactionQuery filters GET /v1/transactions. Zero values are omitted
// from the query string.
type TransactionQuery struct {
	From     time.Time
	To       time.Time
	Type     string // matched case-insensitively by the service; sample: "Payout"
	Currency string
}

// Trimmed returns u with surrounding spaces removed from every field, or
// nil when nothing is left: what a form or a set of flags sends when the
// person filled in none, some or all of the user's details.
func (u User) Trimmed() *User {
	t := User{ID: strings.TrimSpace(u.ID), Name: strings.TrimSpace(u.Name), Email: strings.TrimSpace(u.Email),
		Phone: NormalizePhone(u.Phone), DateOfBirth: strings.TrimSpace(u.DateOfBirth)}
	if t == (User{}) {
		return nil
	}
	return &t
}

// NormalizePhone removes the spaces and dashes people write a number
// with ("+44 7700 900123"), leaving the form the service takes
// (+447700900123). Anything else is left for validation to judge.
func NormalizePhone(s string) string {
	return strings.NewReplacer(" ", "", "-", "", "\u00a0", "").Replace(strings.TrimSpace(s))
}
