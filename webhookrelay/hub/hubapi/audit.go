package hubapi

import "time"

// AuditEntry is one line of the audit record the hub's pipeline keeps, as
// GET /hub/v1/audit answers it: the fields of a profile's own audit
// record line (internal/payout's Entry), so `payouts log` reads the
// hub's as it reads a profile's.
type AuditEntry struct {
	At            time.Time `json:"at"`
	Event         string    `json:"event"`
	Profile       string    `json:"profile"`
	Source        string    `json:"source,omitempty"`
	TransactionID string    `json:"transaction_id"`
	Name          string    `json:"beneficiary_name,omitempty"`
	IBAN          string    `json:"beneficiary_iban,omitempty"`
	Reference     string    `json:"beneficiary_reference,omitempty"`
	AmountInMinor int64     `json:"amount_in_minor,omitempty"`
	Currency      string    `json:"currency,omitempty"`
	// BatchFile and Line say which batch row an attempt was.
	BatchFile string `json:"batch_file,omitempty"`
	Line      int    `json:"line,omitempty"`
	// AllowedDuplicate is set when the operator chose to send a payout
	// that matched an earlier one.
	AllowedDuplicate bool   `json:"allowed_duplicate,omitempty"`
	Outcome          string `json:"outcome,omitempty"`
	Detail           string `json:"detail,omitempty"`
}

// AuditResponse is the body of GET /hub/v1/audit: the audit record the
// hub's pipeline keeps (and its duplicate check reads).
type AuditResponse struct {
	Profile string       `json:"profile"`
	Results []AuditEntry `json:"results"`
}
