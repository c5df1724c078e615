package hub

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/webhookrelay/hub/hubapi"
	"github.com/paydash/paydash/webhookrelay/hub/policy"
	"github.com/paydash/paydash/webhookrelay/hub/store"
	"github.com/paydash/paydash/webhookrelay/hub/users"
)

// MaxBatchRows bounds one batch submitted to the hub.
const MaxBatchRows = 10000

// BatchStatus sums up the rows' statuses: pending while any waits, then
// rejected or lapsed (decided whole), sending while any is on its way,
// unknown when any has no answer, sent when all were, refused when none
// was, partly_sent otherwise.
func BatchStatus(rows []store.Request) string {
	count := map[string]int{}
	for _, r := range rows {
		count[r.Status]++
	}
	for _, st := range []string{store.StatusPending, store.StatusRejected, store.StatusLapsed, store.StatusApproved, store.StatusSending, store.StatusUnknown} {
		if count[st] > 0 {
			if st == store.StatusApproved {
				return store.StatusSending
			}
			return st
		}
	}
	switch {
	case count[store.StatusSent] == len(rows):
		return store.StatusSent
	case count[store.StatusSent] == 0:
		return store.StatusRefused
	}
	return hubapi.StatusPartlySent
}

// batchResult is the hub's answer about a batch, its rows converted for
// the wire.
func batchResult(batch string, rows []store.Request) hubapi.BatchResult {
	wire := wireRequests(rows)
	res := hubapi.BatchResult{BatchID: batch, Rows: wire, Totals: hubapi.Totals(wire), Status: BatchStatus(rows)}
	if len(rows) > 0 {
		res.Reason, res.ApprovalsNeeded = rows[0].Policy, rows[0].ApprovalsNeeded
	}
	if res.Status == store.StatusPending {
		res.Status = hubapi.StatusAwaitingApproval
	}
	return res
}

// SubmitBatch takes a batch from u: every row checked by the pipeline
// (funds counting the rows before it), the policy applied to every row
// and to each currency's total, stored whole with each row's transaction
// id fixed, then sent at once or left pending as one request. The same
// file submitted again by u while its batch is open is that batch.
func (h *Hub) SubmitBatch(ctx context.Context, u users.User, sub hubapi.BatchSubmission) (hubapi.BatchResult, error) {
	if len(sub.Rows) == 0 || len(sub.Rows) > MaxBatchRows {
		return hubapi.BatchResult{}, &errSubmit{http.StatusUnprocessableEntity, ClassInvalid, fmt.Errorf("a batch has 1 to %d rows, not %d", MaxBatchRows, len(sub.Rows))}
	}
	var bad []string
	firstLine := map[string]int{} // transaction id -> the first line giving it
	for i := range sub.Rows {
		r := &sub.Rows[i].PayoutRequest
		r.BeneficiaryIBAN = api.NormalizeIBAN(r.BeneficiaryIBAN)
		if r.TransactionID == "" {
			r.TransactionID = uuid.NewString()
		}
		if probs := api.ValidatePayout(r); len(probs) > 0 {
			bad = append(bad, fmt.Sprintf("line %d: %v", sub.Rows[i].Line, probs))
			continue
		}
		// Two rows under one transaction id would be one payout at the
		// service: refused here, naming both lines, before the store's
		// index of ids would refuse it as a failure of its own.
		if first, seen := firstLine[r.TransactionID]; seen {
			bad = append(bad, fmt.Sprintf("line %d: transaction_id %s repeats line %d's; each payout needs its own", sub.Rows[i].Line, r.TransactionID, first))
			continue
		}
		firstLine[r.TransactionID] = sub.Rows[i].Line
	}
	if len(bad) > 0 {
		return hubapi.BatchResult{}, &errSubmit{http.StatusUnprocessableEntity, ClassInvalid, fmt.Errorf("%d bad row(s); nothing was requested: %s", len(bad), strings.Join(bad, "; "))}
	}
	h.submitMu.Lock()
	unlock, err := h.lockSubmissions(ctx)
	if err != nil {
		h.submitMu.Unlock()
		return hubapi.BatchResult{}, err
	}
	batch, rows, fresh, err := h.createBatch(ctx, u, sub)
	unlock()
	h.submitMu.Unlock()
	if err != nil {
		return hubapi.BatchResult{}, err
	}
	if len(rows) > 0 && rows[0].NeedsApproval {
		res := batchResult(batch, rows)
		res.Approvers = h.approversFor(rows[0])
		if fresh {
			h.notify.post(fmt.Sprintf("paydash: %s asks for approval of batch %s (%d payouts, %s): paydash approvals show %s",
				u.Name, sub.File, len(rows), api.FormatTotals(res.Totals, ", "), batch))
		}
		return res, nil
	}
	return h.sendBatch(ctx, batch)
}

// createBatch decides and stores a batch; the caller holds submitMu.
func (h *Hub) createBatch(ctx context.Context, u users.User, sub hubapi.BatchSubmission) (string, []store.Request, bool, error) {
	if sub.SHA256 != "" {
		open, err := h.cfg.Store.ListLive(func(r *store.Request) bool {
			return r.Batch != "" && r.RequestedBy == u.Name && r.BatchSHA256 == sub.SHA256 && (r.Open() || r.Status == store.StatusUnknown)
		})
		if err != nil {
			return "", nil, false, err
		}
		if len(open) > 0 {
			rows, err := h.cfg.Store.Batch(open[0].Batch)
			return open[0].Batch, rows, false, err
		}
	}
	now := h.cfg.Clock.Now()
	// Everyone's: the sum per payee counts across requesters.
	sent, err := h.cfg.Store.ListSince(now.Add(-policy.SumWindow), func(r *store.Request) bool {
		return !r.NeedsApproval && now.Sub(r.RequestedAt) < policy.SumWindow && r.Status != store.StatusRefused
	})
	if err != nil {
		return "", nil, false, err
	}
	prior := make([]policy.Sent, 0, len(sent)+len(sub.Rows))
	for _, r := range sent {
		prior = append(prior, policy.Sent{Requester: r.RequestedBy, IBAN: r.BeneficiaryIBAN, Currency: r.Currency, AmountInMinor: r.AmountInMinor, At: r.RequestedAt})
	}
	reserved, err := h.cfg.Store.Outflows("")
	if err != nil {
		return "", nil, false, err
	}
	needed, reason := false, ""
	totals := map[string]int64{}
	for _, row := range sub.Rows {
		req := row.PayoutRequest
		if old, err := h.cfg.Store.ByTransactionID(req.TransactionID); err == nil {
			return "", nil, false, &errSubmit{http.StatusConflict, ClassDuplicate,
				&idUsedError{by: old.ID, err: fmt.Errorf("line %d: transaction id %s is already used by approval request %s; nothing was requested", row.Line, req.TransactionID, old.ID)}}
		}
		if !sub.AllowDuplicate {
			if err := h.openDuplicate(&req); err != nil {
				return "", nil, false, &errSubmit{http.StatusConflict, ClassDuplicate, fmt.Errorf("line %d: %w", row.Line, err)}
			}
		}
		d := h.cfg.Policy.DecideSums(req.AmountInMinor, req.Currency, policy.RecentSums(prior, u.Name, req.BeneficiaryIBAN, req.Currency, now))
		if d.Needed && !needed {
			needed, reason = true, fmt.Sprintf("line %d: %s", row.Line, d.Reason)
		}
		// Rows of the batch add up with each other, as payouts do.
		prior = append(prior, policy.Sent{Requester: u.Name, IBAN: req.BeneficiaryIBAN, Currency: req.Currency, AmountInMinor: req.AmountInMinor, At: now})
		if err := h.cfg.Pipeline.Check(ctx, &req, reserved, sub.AllowDuplicate); err != nil {
			status := http.StatusConflict
			switch ErrorClass(err) {
			case ClassInvalid:
				status = http.StatusUnprocessableEntity
			case ClassUnknown, "":
				status = http.StatusBadGateway
			}
			return "", nil, false, &errSubmit{status, ErrorClass(err), fmt.Errorf("line %d: %w; nothing was requested or sent", row.Line, err)}
		}
		reserved[req.Currency] += req.AmountInMinor
		totals[req.Currency] += req.AmountInMinor
	}
	// In currency order: of two totals over their thresholds, the reason
	// names the same one every time.
	for _, cur := range slices.Sorted(maps.Keys(totals)) {
		if d := h.cfg.Policy.Decide(totals[cur], cur, 0); d.Needed && !needed {
			needed, reason = true, "the batch's "+cur+" total: "+d.Reason
		}
	}
	if !needed {
		reason = "every row and each currency's total within the thresholds"
	}
	batch := "bat-" + strings.TrimPrefix(store.NewID(), "apr-")
	rs := make([]*store.Request, len(sub.Rows))
	for i, row := range sub.Rows {
		req := row.PayoutRequest
		r := &store.Request{ID: store.NewID(), Status: store.StatusApproved, RequestedBy: u.Name, RequestedAt: now,
			NeedsApproval: needed, Policy: reason, AmountInMinor: req.AmountInMinor, Currency: req.Currency,
			BeneficiaryName: req.BeneficiaryName, BeneficiaryIBAN: req.BeneficiaryIBAN, BeneficiaryReference: req.BeneficiaryReference,
			ContextCode: req.ContextCode, TransactionID: req.TransactionID, AllowDuplicate: sub.AllowDuplicate,
			BatchFile: sub.File, Line: row.Line, BatchSHA256: sub.SHA256}
		if needed {
			r.Status, r.ExpiresAt, r.ApprovalsNeeded = store.StatusPending, now.Add(h.cfg.Policy.TTL), h.cfg.Policy.Approvers
		}
		rs[i] = r
	}
	if err := h.cfg.Store.CreateBatch(batch, rs); err != nil {
		return "", nil, false, err
	}
	rows, err := h.cfg.Store.Batch(batch)
	return batch, rows, true, err
}

// sendBatch sends every approved row of a batch, one after another, each
// claimed alone (so a restart resumes the rows not sent). It answers when
// the rows are sent or after BatchAnswerWithin, whichever comes first,
// with the batch as it stands: the relay's server cuts an answer at a
// minute, and a long batch goes on being sent behind it.
func (h *Hub) sendBatch(ctx context.Context, batch string) (hubapi.BatchResult, error) {
	rows, err := h.cfg.Store.Batch(batch)
	if err != nil {
		return hubapi.BatchResult{}, err
	}
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return batchResult(batch, rows), nil // sent at the next start
	}
	h.sends.Add(1)
	h.mu.Unlock()
	done := make(chan struct{})
	toSend := rows
	go func() {
		defer h.sends.Done()
		defer close(done)
		for _, r := range toSend {
			if r.Status != store.StatusApproved {
				continue
			}
			if _, err := h.sendDetached(ctx, r.ID); err != nil {
				h.log.Error("approvals: sending a batch row failed", "batch", batch, "line", r.Line, "err", err)
			}
		}
	}()
	t := time.NewTimer(h.cfg.BatchAnswerWithin)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	}
	now, err := h.cfg.Store.Batch(batch)
	return batchResult(batch, now), err
}

// ApproveBatch records u's approval of a whole batch; the approval that
// completes it sends its rows.
func (h *Hub) ApproveBatch(ctx context.Context, u users.User, batch string) (hubapi.BatchResult, error) {
	rows, done, err := h.cfg.Store.ApproveBatch(batch, u.Name, h.cfg.Clock.Now(), h.cfg.Policy.Approvers)
	if errors.Is(err, store.ErrLapsed) && len(rows) > 0 && rows[0].Status == store.StatusLapsed {
		h.notify.post(fmt.Sprintf("paydash: batch %s of %s lapsed unapproved", batch, rows[0].RequestedBy))
	}
	if err != nil {
		return batchResult(batch, rows), err
	}
	if !done {
		return batchResult(batch, rows), nil
	}
	return h.sendBatch(ctx, batch)
}

// RejectBatch turns a whole batch down.
func (h *Hub) RejectBatch(u users.User, batch, reason string) (hubapi.BatchResult, error) {
	rows, err := h.cfg.Store.RejectBatch(batch, u.Name, reason, h.cfg.Clock.Now())
	return batchResult(batch, rows), err
}

func (h *Hub) handleSubmitBatch(w http.ResponseWriter, req *http.Request, u users.User) {
	var sub hubapi.BatchSubmission
	if !readJSONLimit(w, req, &sub, 16<<20) {
		return
	}
	res, err := h.SubmitBatch(req.Context(), u, sub)
	if err != nil {
		h.writeSubmitError(w, err, "batch")
		return
	}
	status := http.StatusOK
	if res.Status == hubapi.StatusAwaitingApproval {
		status = http.StatusAccepted
	}
	writeJSON(w, status, res)
}

func (h *Hub) handleShowBatch(w http.ResponseWriter, req *http.Request, _ users.User) {
	id := req.PathValue("id")
	rows, err := h.cfg.Store.Batch(id)
	if err != nil {
		writeStoreError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, batchResult(id, rows))
}

func (h *Hub) handleApproveBatch(w http.ResponseWriter, req *http.Request, u users.User) {
	res, err := h.ApproveBatch(req.Context(), u, req.PathValue("id"))
	if err != nil {
		writeStoreError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, res)
}

func (h *Hub) handleRejectBatch(w http.ResponseWriter, req *http.Request, u users.User) {
	reason, ok := readRejectReason(w, req)
	if !ok {
		return
	}
	res, err := h.RejectBatch(u, req.PathValue("id"), reason)
	if err != nil {
		writeStoreError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, res)
}
