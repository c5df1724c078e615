package hubapi

import (
	"time"

	"github.com/paydash/paydash/api"
)

// Statuses of a request.
const (
	// StatusPending awaits approvals.
	StatusPending = "pending"
	// StatusApproved has every approval it needs (or needed none) and is
	// about to be sent.
	StatusApproved = "approved"
	// StatusRejected was turned down by an approver.
	StatusRejected = "rejected"
	// StatusLapsed was not approved within the approval TTL.
	StatusLapsed = "lapsed"
	// StatusSending is being sent under its fixed transaction id.
	StatusSending = "sending"
	// StatusSent was accepted by the service.
	StatusSent = "sent"
	// StatusRefused was not sent (the pipeline's checks stopped it when
	// the last approval arrived) or the service refused it: nothing was
	// created.
	StatusRefused = "refused"
	// StatusUnknown got no definite answer: the payout may exist. The hub
	// looks it up by its transaction id; it is never sent under another.
	StatusUnknown = "unknown"
)

// StatusAwaitingApproval is the status of a Result (or BatchResult) whose
// request waits for approval.
const StatusAwaitingApproval = "awaiting_approval"

// StatusPartlySent is a batch some of whose rows were sent, others
// refused.
const StatusPartlySent = "partly_sent"

// Open says whether a request in status still holds money back: waiting,
// approved or being sent. The hub counts such requests as outflows in its
// funds checks.
func Open(status string) bool {
	switch status {
	case StatusPending, StatusApproved, StatusSending:
		return true
	}
	return false
}

// Actions of the hub's record (LogEntry.Action).
const (
	ActRequested = "requested"
	ActApproved  = "approved"
	ActRejected  = "rejected"
	ActLapsed    = "lapsed"
	ActSending   = "sending"
	ActOutcome   = "outcome"
	ActState     = "payout_state"
)

// Approval is one person's approval.
type Approval struct {
	By string    `json:"by"`
	At time.Time `json:"at"`
}

// Request is one payout submitted through the hub, as the hub answers it.
// Its JSON is what `approvals list --json` prints.
type Request struct {
	ID     string `json:"id"`
	Status string `json:"status"`
	// PayoutState is what the service says of the payout once sent
	// (accepted, then the states its webhooks and report give).
	PayoutState          string     `json:"payout_state"`
	RequestedBy          string     `json:"requested_by"`
	RequestedAt          time.Time  `json:"requested_at"`
	ApprovedBy           []string   `json:"approved_by"`
	Approvals            []Approval `json:"approvals,omitempty"`
	RejectedBy           string     `json:"rejected_by"`
	Reason               string     `json:"reason"`
	NeedsApproval        bool       `json:"needs_approval"`
	Policy               string     `json:"policy,omitempty"`
	ApprovalsNeeded      int        `json:"approvals_needed,omitempty"`
	ExpiresAt            time.Time  `json:"expires_at,omitzero"`
	AmountInMinor        int64      `json:"amount_in_minor"`
	Currency             string     `json:"currency"`
	BeneficiaryName      string     `json:"beneficiary_name"`
	BeneficiaryIBAN      string     `json:"beneficiary_iban"`
	BeneficiaryReference string     `json:"beneficiary_reference"`
	ContextCode          string     `json:"context_code,omitempty"`
	TransactionID        string     `json:"transaction_id"`
	// AllowDuplicate is the requester's --allow-duplicate.
	AllowDuplicate bool `json:"allow_duplicate,omitempty"`
	// Batch is the batch the request is a row of ("" for a single
	// payout): a batch is approved, rejected and lapses whole. BatchFile
	// and Line say which file and line.
	Batch     string `json:"batch,omitempty"`
	BatchFile string `json:"batch_file,omitempty"`
	Line      int    `json:"line,omitempty"`
	// BatchSHA256 is the batch file's digest.
	BatchSHA256 string `json:"batch_sha256,omitempty"`
	// Kind is KindPayment or KindMandate for a request that creates a
	// single payment or a mandate ("" for a payout). Such a request's
	// AmountInMinor is the payment's amount, or the mandate's maximum
	// individual amount, as shown: money coming in, never counted as
	// funds held back. Payment or Mandate is the request the hub sends,
	// under IdempotencyKey; CreatedID is what the service created.
	Kind           string              `json:"kind,omitempty"`
	Payment        *api.PaymentRequest `json:"payment,omitempty"`
	Mandate        *api.MandateRequest `json:"mandate,omitempty"`
	IdempotencyKey string              `json:"idempotency_key,omitempty"`
	CreatedID      string              `json:"created_id,omitempty"`
	// Detail is the last send's outcome in words (the service's answer).
	Detail    string    `json:"detail,omitempty"`
	UpdatedAt time.Time `json:"updated_at"`
	// Rev counts the request's changes.
	Rev uint64 `json:"rev"`
}

// Payout is the payout the request sends, under its fixed transaction id.
func (r *Request) Payout() api.PayoutRequest {
	return api.PayoutRequest{TransactionID: r.TransactionID, BeneficiaryName: r.BeneficiaryName, BeneficiaryIBAN: r.BeneficiaryIBAN,
		BeneficiaryReference: r.BeneficiaryReference, Currency: r.Currency, AmountInMinor: r.AmountInMinor, ContextCode: r.ContextCode}
}

// Open says whether the request still holds money back (Open).
func (r *Request) Open() bool { return Open(r.Status) }

// LogEntry is one line of the hub's record.
type LogEntry struct {
	Seq       uint64    `json:"seq"`
	At        time.Time `json:"at"`
	RequestID string    `json:"request_id"`
	Action    string    `json:"action"`
	By        string    `json:"by,omitempty"`
	// Status is the request's status after this step.
	Status string `json:"status"`
	Detail string `json:"detail,omitempty"`
}

// Change is one change of a request's status as the approvals feed sends
// it: which request (and batch), its status and payout state, and when.
// Nothing else: no payee, amount or who; a subscriber that wants them
// lists the requests.
type Change struct {
	ID          string    `json:"id,omitempty"`
	Batch       string    `json:"batch,omitempty"`
	Status      string    `json:"status"`
	PayoutState string    `json:"payout_state,omitempty"`
	UpdatedAt   time.Time `json:"updated_at"`
}

// ListResponse is the body of GET /hub/v1/approvals.
type ListResponse struct {
	Results []Request `json:"results"`
}

// LogResponse is the body of GET /hub/v1/log.
type LogResponse struct {
	Results []LogEntry `json:"results"`
}

// RejectBody is the body of POST .../reject.
type RejectBody struct {
	Reason string `json:"reason"`
}

// Submission is what a requester sends (POST /hub/v1/payouts).
type Submission struct {
	api.PayoutRequest
	AllowDuplicate bool `json:"allow_duplicate,omitempty"`
}

// Result is the hub's answer to a submission.
type Result struct {
	// Status is "awaiting_approval", or the request's status once sent
	// (sent, refused, unknown).
	Status     string `json:"status"`
	ApprovalID string `json:"approval_id"`
	// Approvers may approve it (everyone with the approve role but the
	// requester), and ApprovalsNeeded how many of them must.
	Approvers       []string `json:"approvers,omitempty"`
	ApprovalsNeeded int      `json:"approvals_needed,omitempty"`
	Reason          string   `json:"reason"`
	Request         Request  `json:"request"`
}

// PaymentSubmission is the body of POST /hub/v1/payments.
type PaymentSubmission struct {
	Request        api.PaymentRequest `json:"request"`
	IdempotencyKey string             `json:"idempotency_key"`
}

// MandateSubmission is the body of POST /hub/v1/mandates.
type MandateSubmission struct {
	Request        api.MandateRequest `json:"request"`
	IdempotencyKey string             `json:"idempotency_key"`
}
