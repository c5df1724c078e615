package hub

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"reflect"

	"github.com/google/uuid"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/payout"
	"github.com/paydash/paydash/webhookrelay/hub/hubapi"
	"github.com/paydash/paydash/webhookrelay/hub/policy"
	"github.com/paydash/paydash/webhookrelay/hub/store"
	"github.com/paydash/paydash/webhookrelay/hub/users"
)

// Payments and mandates under the rule: --approve-over applies to a
// single payment's amount and to a mandate's maximum individual amount
// and each of its periodic limits. One over it becomes a pending request
// like a payout's, approved by other people, recorded and listed the
// same way; the approval that completes it has the hub create it with
// its key, under the requester's idempotency key, once (the claim
// approved -> sending is one compare-and-swap, and the service answers a
// repeated key with what it created the first time).

// decidePayment applies the policy to a payment's amount.
func (h *Hub) decidePayment(req *api.PaymentRequest) policy.Decision {
	return h.cfg.Policy.Decide(req.AmountInMinor, req.Currency, 0)
}

// decideMandate applies the policy to a mandate's maximum individual
// amount and each of its periodic limits: any over it needs approval.
func (h *Hub) decideMandate(req *api.MandateRequest) policy.Decision {
	c := req.Constraints
	type part struct {
		name   string
		amount int64
	}
	parts := []part{{"maximum individual amount", c.MaximumIndividualAmount}}
	if l := c.PeriodicLimits; l != nil {
		for _, p := range []struct {
			name string
			lim  *api.PeriodicLimit
		}{{"day", l.Day}, {"week", l.Week}, {"fortnight", l.Fortnight}, {"month", l.Month}, {"half_year", l.HalfYear}, {"year", l.Year}} {
			if p.lim != nil {
				parts = append(parts, part{p.name + " limit", p.lim.MaximumAmount})
			}
		}
	}
	for _, p := range parts {
		if d := h.cfg.Policy.Decide(p.amount, req.Currency, 0); d.Needed {
			return policy.Decision{Needed: true, Reason: "the mandate's " + p.name + ": " + d.Reason}
		}
	}
	return policy.Decision{Reason: "the mandate's maximum individual amount and periodic limits are within the " + req.Currency + " threshold"}
}

// kindTxID is the request's key in the store's transaction id index: a
// name-based UUID of its kind and idempotency key, so the same key sent
// again finds its request (an answer lost on the way back), and one key
// is never two requests (the service would take them as one).
func kindTxID(kind, key string) string {
	return uuid.NewSHA1(kindSpace, []byte(kind+"\x00"+key)).String()
}

// kindSpace is the namespace of kindTxID's UUIDs.
var kindSpace = uuid.MustParse("6d1f3a52-8f0e-4f43-9a5e-2b7c4d9e1a60")

// submitKind stores a payment or mandate the policy holds as a pending
// request and answers 202 with it, as a payout awaiting approval is
// answered. The same idempotency key from the same requester with the
// same request is that request again.
func (h *Hub) submitKind(w http.ResponseWriter, req *http.Request, u users.User, r store.Request) {
	h.submitMu.Lock()
	unlock, err := h.lockSubmissions(req.Context())
	if err != nil {
		h.submitMu.Unlock()
		var se *errSubmit
		if errors.As(err, &se) {
			writeJSON(w, se.status, se.problem())
			return
		}
		writeProblem(w, http.StatusServiceUnavailable, ClassUnknown, err.Error())
		return
	}
	held, fresh, err := h.createKind(u, r)
	unlock()
	h.submitMu.Unlock()
	if err != nil {
		var se *errSubmit
		if errors.As(err, &se) {
			writeJSON(w, se.status, se.problem())
			return
		}
		h.log.Error("approvals: recording a "+r.Kind+" request failed", "err", err)
		writeProblem(w, http.StatusInternalServerError, "store_failed", "the hub could not record the request: "+err.Error())
		return
	}
	wr := wireRequest(held)
	if fresh {
		h.notify.post(fmt.Sprintf("paydash: %s asks for approval of a %s (ref %s): paydash approvals show %s",
			held.RequestedBy, wr.What(), held.BeneficiaryReference, held.ID))
	}
	// The same key sent again answers for its request as it stands.
	switch held.Status {
	case store.StatusPending:
		writeJSON(w, http.StatusAccepted, hubapi.Result{Status: hubapi.StatusAwaitingApproval, ApprovalID: held.ID, Reason: held.Policy,
			ApprovalsNeeded: held.ApprovalsNeeded, Approvers: h.approversFor(held), Request: wr})
	case store.StatusSent:
		// What the service created, in its own answer's shape (its
		// resource token is the payer's and is not kept).
		writeJSON(w, http.StatusOK, api.PaymentResponse{ID: held.CreatedID})
	case store.StatusApproved, store.StatusSending, store.StatusUnknown:
		writeProblem(w, http.StatusConflict, hubapi.ReasonNoAnswer, fmt.Sprintf("approval request %s is approved and %s: it may have been created; follow it with paydash approvals show %s", held.ID, held.Status, held.ID))
	default:
		writeProblem(w, http.StatusConflict, "not_pending", fmt.Sprintf("approval request %s under this idempotency key was %s, so nothing was created: %s", held.ID, held.Status, held.Detail))
	}
}

// createKind stores r unless its idempotency key already names a
// request; the caller holds the submission lock.
func (h *Hub) createKind(u users.User, r store.Request) (store.Request, bool, error) {
	if old, err := h.cfg.Store.ByTransactionID(r.TransactionID); err == nil {
		if old.RequestedBy == u.Name && old.Kind == r.Kind && reflect.DeepEqual(old.Payment, r.Payment) && reflect.DeepEqual(old.Mandate, r.Mandate) {
			return old, false, nil
		}
		return store.Request{}, false, &errSubmit{http.StatusConflict, ClassDuplicate,
			&idUsedError{by: old.ID, err: fmt.Errorf("idempotency key %s is already used by approval request %s for another %s; leave --idempotency-key out for a new one", r.IdempotencyKey, old.ID, old.Kind)}}
	}
	if err := h.cfg.Store.Create(&r); err != nil {
		return store.Request{}, false, err
	}
	return r, true, nil
}

// heldKind is the pending request of a payment or mandate the policy
// holds (d), as the store keeps it: AmountInMinor, money paid out, is 0;
// the request it sends carries its amounts.
func (h *Hub) heldKind(u users.User, kind, key, currency, payee, ref string, d policy.Decision) store.Request {
	now := h.cfg.Clock.Now()
	return store.Request{ID: store.NewID(), Status: store.StatusPending, Kind: kind, IdempotencyKey: key,
		RequestedBy: u.Name, RequestedAt: now, NeedsApproval: true, Policy: d.Reason,
		ApprovalsNeeded: h.cfg.Policy.Approvers, ExpiresAt: now.Add(h.cfg.Policy.TTL),
		Currency: currency, BeneficiaryName: payee, BeneficiaryReference: ref, TransactionID: kindTxID(kind, key)}
}

// payeeOf names a beneficiary for people reading the request.
func payeeOf(b api.Beneficiary) string {
	switch {
	case b.AccountHolderName != "":
		return b.AccountHolderName
	case b.MerchantAccountID != "":
		return "merchant account " + b.MerchantAccountID
	}
	return b.Type
}

// sendKind creates an approved payment or mandate: of concurrent callers
// only the one whose claim (approved -> sending) lands sends.
func (h *Hub) sendKind(ctx context.Context, id string) (store.Request, error) {
	if h.cfg.Direct == nil {
		// Not claimed: it stays approved for a hub that can send it.
		r, _ := h.cfg.Store.Get(id)
		return r, errors.New("this hub sends no payments or mandates (no service client)")
	}
	r, err := h.cfg.Store.Claim(id, "hub", h.cfg.Clock.Now())
	if errors.Is(err, store.ErrNotApproved) {
		return h.cfg.Store.Get(id) // another caller sends it
	}
	if err != nil {
		return r, err
	}
	if err := h.createAtService(ctx, r); err != nil {
		return r, err
	}
	return h.cfg.Store.Get(id)
}

// createAtService sends r (being sent, or left unknown) to the service
// under its idempotency key and records the outcome: created (sent),
// refused by the service (nothing created), not reached (approved again,
// tried at the next round) or no answer (unknown: sent again under the
// same key, which creates nothing new, at the next start).
func (h *Hub) createAtService(ctx context.Context, r store.Request) error {
	if h.cfg.Direct == nil {
		return errors.New("this hub sends no payments or mandates (no service client)")
	}
	var createdID, state string
	var err error
	switch {
	case r.Payment != nil:
		var resp *api.PaymentResponse
		if resp, err = h.cfg.Direct.CreatePayment(ctx, r.Payment, r.IdempotencyKey); err == nil {
			createdID, state = resp.ID, resp.Status
		}
	case r.Mandate != nil:
		var resp *api.MandateResponse
		if resp, err = h.cfg.Direct.CreateMandate(ctx, r.Mandate, r.IdempotencyKey); err == nil {
			createdID, state = resp.ID, resp.Status
		}
	default:
		err = fmt.Errorf("request %s is a %s without its request", r.ID, r.Kind)
	}
	now := h.cfg.Clock.Now()
	what := fmt.Sprintf("%s, idempotency key %s", r.Kind, r.IdempotencyKey)
	a := payout.Classify(err)
	switch {
	case err == nil:
		detail := what + ": created " + createdID
		if state != "" {
			detail += " (" + state + ")"
		}
		_, err = h.cfg.Store.Created(r.ID, createdID, detail, now)
		return err
	case a.Refused() && a.Reached:
		_, rerr := h.cfg.Store.Refuse(r.ID, r.Status, what+": the service refused it, so nothing was created: "+err.Error(), now)
		return rerr
	case !a.Reached && r.Status == store.StatusSending:
		_, rerr := h.cfg.Store.Release(r.ID, what+": the service was not reached, nothing was created: "+err.Error(), now)
		return rerr
	case r.Status == store.StatusSending:
		_, rerr := h.cfg.Store.Finish(r.ID, store.StatusUnknown, "", what+": no answer; it may have been created, and is sent again under the same key: "+err.Error(), now)
		return rerr
	}
	return fmt.Errorf("sending %s: %w", what, err) // left unknown, tried again
}
