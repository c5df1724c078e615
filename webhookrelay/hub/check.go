package hub

import (
	"context"
	"fmt"
	"net/http"

	"github.com/paydash/paydash/internal/payout"
	"github.com/paydash/paydash/webhookrelay/hub/hubapi"
	"github.com/paydash/paydash/webhookrelay/hub/store"
	"github.com/paydash/paydash/webhookrelay/hub/users"
)

// CheckRequest runs the pipeline's checks on a request without sending
// it, as the send after the last approval will: funds with what the
// hub's other open requests hold back (its own reservation not counted),
// duplicates in the audit record and the report, and other open requests
// for the same payment. A duplicate the requester allowed
// (--allow-duplicate) is still reported, saying so, and funds are then
// checked too.
func (h *Hub) CheckRequest(ctx context.Context, id string) ([]hubapi.Warning, error) {
	r, err := h.cfg.Store.Get(id)
	if err != nil {
		return nil, err
	}
	ws := []hubapi.Warning{}
	if r.Kind != "" {
		// A payment or mandate brings money in: no funds or duplicate
		// payout to check; the service checks it when it is created.
		return ws, nil
	}
	p := r.Payout()
	allowed := ""
	if r.AllowDuplicate {
		allowed = " (the requester sent it anyway: --allow-duplicate)"
	}
	open, err := h.cfg.Store.ListLive(func(o *store.Request) bool {
		op := o.Payout()
		return o.ID != r.ID && o.Open() && (r.Batch == "" || o.Batch != r.Batch) && payout.SameDetails(&op, &p)
	})
	if err != nil {
		return nil, err
	}
	for _, o := range open {
		ws = append(ws, hubapi.Warning{Class: ClassDuplicate, Detail: fmt.Sprintf("same IBAN, amount, currency and reference as request %s by %s (%s)%s", o.ID, o.RequestedBy, o.Status, allowed)})
	}
	reserved, err := h.cfg.Store.Outflows(r.ID)
	if err != nil {
		return nil, err
	}
	err = h.cfg.Pipeline.Check(ctx, &p, reserved, false)
	if ErrorClass(err) == ClassDuplicate {
		ws = append(ws, hubapi.Warning{Class: ClassDuplicate, Detail: err.Error() + allowed})
		err = h.cfg.Pipeline.Check(ctx, &p, reserved, true)
	}
	if err != nil {
		class := ErrorClass(err)
		if class == "" {
			class = ClassUnknown
		}
		ws = append(ws, hubapi.Warning{Class: class, Detail: err.Error()})
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
	writeJSON(w, http.StatusOK, hubapi.CheckResponse{ID: id, Warnings: ws})
}
