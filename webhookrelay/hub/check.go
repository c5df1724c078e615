package hub

import (
	"context"
	"fmt"
	"net/http"

	"github.com/paydash/paydash/internal/payout"
	"github.com/paydash/paydash/webhookrelay/hub/store"
	"github.com/paydash/paydash/webhookrelay/hub/users"
)

// Warning is what the pipeline would say of a pending request if it were
// approved now: a possible duplicate, too little money, no account. The
// approver sees it before deciding; the hub checks again when the last
// approval arrives and refuses to send then.
type Warning struct {
	// Class is the pipeline's ErrorClass (duplicate, funds, no_account,
	// invalid, unknown when the check could not run).
	Class  string `json:"class"`
	Detail string `json:"detail"`
}

// CheckResponse is the body of GET /hub/v1/approvals/{id}/check.
type CheckResponse struct {
	ID       string    `json:"id"`
	Warnings []Warning `json:"warnings"`
}

// CheckRequest runs the pipeline's checks on a request without sending
// it, as the send after the last approval will: funds with what the
// hub's other open requests hold back (its own reservation not counted),
// duplicates in the audit record and the report, and other open requests
// for the same payment. A duplicate the requester allowed
// (--allow-duplicate) is still reported, saying so, and funds are then
// checked too.
func (h *Hub) CheckRequest(ctx context.Context, id string) ([]Warning, error) {
	r, err := h.cfg.Store.Get(id)
	if err != nil {
		return nil, err
	}
	p := r.Payout()
	ws := []Warning{}
	allowed := ""
	if r.AllowDuplicate {
		allowed = " (the requester sent it anyway: --allow-duplicate)"
	}
	open, err := h.cfg.Store.List(func(o *store.Request) bool {
		op := o.Payout()
		return o.ID != r.ID && o.Open() && (r.Batch == "" || o.Batch != r.Batch) && payout.SameDetails(&op, &p)
	})
	if err != nil {
		return nil, err
	}
	for _, o := range open {
		ws = append(ws, Warning{Class: ClassDuplicate, Detail: fmt.Sprintf("same IBAN, amount, currency and reference as request %s by %s (%s)%s", o.ID, o.RequestedBy, o.Status, allowed)})
	}
	reserved, err := h.cfg.Store.Outflows(r.ID)
	if err != nil {
		return nil, err
	}
	err = h.cfg.Pipeline.Check(ctx, &p, reserved, false)
	if ErrorClass(err) == ClassDuplicate {
		ws = append(ws, Warning{Class: ClassDuplicate, Detail: err.Error() + allowed})
		err = h.cfg.Pipeline.Check(ctx, &p, reserved, true)
	}
	if err != nil {
		class := ErrorClass(err)
		if class == "" {
			class = ClassUnknown
		}
		ws = append(ws, Warning{Class: class, Detail: err.Error()})
	}
	return ws, nil
}

func (h *Hub) handleCheck(w http.ResponseWriter, req *http.Request, _ users.User) {
	id := req.PathValue("id")
	ws, err := h.CheckRequest(req.Context(), id)
	if err != nil {
		writeStoreError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, CheckResponse{ID: id, Warnings: ws})
}
