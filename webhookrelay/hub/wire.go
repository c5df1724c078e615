package hub

import (
	"github.com/paydash/paydash/internal/payout"
	"github.com/paydash/paydash/webhookrelay/hub/hubapi"
	"github.com/paydash/paydash/webhookrelay/hub/store"
)

// The hub's edge: what it stores (store's records, the pipeline's audit
// lines) is converted here to what it answers (hubapi), field by field,
// so a change to a stored record changes no answer by accident. The
// conversions keep nil as nil: a JSON null stays null.

func wireRequest(r store.Request) hubapi.Request {
	var approvals []hubapi.Approval
	if r.Approvals != nil {
		approvals = make([]hubapi.Approval, len(r.Approvals))
		for i, a := range r.Approvals {
			approvals[i] = hubapi.Approval{By: a.By, At: a.At}
		}
	}
	w := hubapi.Request{
		ID: r.ID, Status: r.Status, PayoutState: r.PayoutState,
		RequestedBy: r.RequestedBy, RequestedAt: r.RequestedAt,
		ApprovedBy: r.ApprovedBy, Approvals: approvals,
		RejectedBy: r.RejectedBy, Reason: r.Reason,
		NeedsApproval: r.NeedsApproval, Policy: r.Policy, ApprovalsNeeded: r.ApprovalsNeeded, ExpiresAt: r.ExpiresAt,
		AmountInMinor: r.AmountInMinor, Currency: r.Currency,
		BeneficiaryName: r.BeneficiaryName, BeneficiaryIBAN: r.BeneficiaryIBAN, BeneficiaryReference: r.BeneficiaryReference,
		ContextCode: r.ContextCode, TransactionID: r.TransactionID, AllowDuplicate: r.AllowDuplicate,
		Batch: r.Batch, BatchFile: r.BatchFile, Line: r.Line, BatchSHA256: r.BatchSHA256,
		Kind: r.Kind, Payment: r.Payment, Mandate: r.Mandate, IdempotencyKey: r.IdempotencyKey, CreatedID: r.CreatedID,
		Detail: r.Detail, UpdatedAt: r.UpdatedAt, Rev: r.Rev,
	}
	return w
}

func wireRequests(rs []store.Request) []hubapi.Request {
	if rs == nil {
		return nil
	}
	out := make([]hubapi.Request, len(rs))
	for i, r := range rs {
		out[i] = wireRequest(r)
	}
	return out
}

func wireLog(es []store.Entry) []hubapi.LogEntry {
	if es == nil {
		return nil
	}
	out := make([]hubapi.LogEntry, len(es))
	for i, e := range es {
		out[i] = hubapi.LogEntry{Seq: e.Seq, At: e.At, RequestID: e.RequestID, Action: e.Action, By: e.By, Status: e.Status, Detail: e.Detail}
	}
	return out
}

func wireChange(c store.Change) hubapi.Change {
	return hubapi.Change{ID: c.ID, Batch: c.Batch, Status: c.Status, PayoutState: c.PayoutState, UpdatedAt: c.UpdatedAt}
}

func wireAudit(es []payout.Entry) []hubapi.AuditEntry {
	if es == nil {
		return nil
	}
	out := make([]hubapi.AuditEntry, len(es))
	for i, e := range es {
		out[i] = hubapi.AuditEntry{At: e.At, Event: e.Event, Profile: e.Profile, Source: e.Source, TransactionID: e.TransactionID,
			Name: e.Name, IBAN: e.IBAN, Reference: e.Reference, AmountInMinor: e.AmountInMinor, Currency: e.Currency,
			BatchFile: e.BatchFile, Line: e.Line, AllowedDuplicate: e.AllowedDuplicate, Outcome: e.Outcome, Detail: e.Detail}
	}
	return out
}
