package hubapi

import "github.com/paydash/paydash/api"

// BatchRow is one row of a batch file.
type BatchRow struct {
	Line int `json:"line"`
	api.PayoutRequest
}

// BatchSubmission is a batch file sent to the hub: one request, approved
// or rejected whole.
type BatchSubmission struct {
	File           string     `json:"file"`
	SHA256         string     `json:"sha256"`
	Rows           []BatchRow `json:"rows"`
	AllowDuplicate bool       `json:"allow_duplicate,omitempty"`
}

// BatchResult is the hub's answer about a batch.
type BatchResult struct {
	// Status is awaiting_approval, or the batch's status (the hub's
	// summary of its rows').
	Status          string           `json:"status"`
	BatchID         string           `json:"batch_id"`
	Approvers       []string         `json:"approvers,omitempty"`
	ApprovalsNeeded int              `json:"approvals_needed,omitempty"`
	Reason          string           `json:"reason"`
	Totals          map[string]int64 `json:"totals"`
	Rows            []Request        `json:"rows"`
}

// Totals sums requests' amounts per currency (a batch's totals); say them
// with api.FormatTotals.
func Totals(rs []Request) map[string]int64 {
	t := map[string]int64{}
	for _, r := range rs {
		t[r.Currency] += r.AmountInMinor
	}
	return t
}
