package hub

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/payout"
	"github.com/paydash/paydash/webhookrelay/hub/hubapi"
	"github.com/paydash/paydash/webhookrelay/hub/store"
	"github.com/paydash/paydash/webhookrelay/hub/users"
)

// Direct is what the hub signs and sends single payments and VRP
// mandates with, so a team profile holds no signing key for them either:
// at once when the policy lets them through, once approved when it holds
// them (kinds.go). *api.Client is one.
type Direct interface {
	CreatePayment(ctx context.Context, req *api.PaymentRequest, idempotencyKey string) (*api.PaymentResponse, error)
	CreateMandate(ctx context.Context, req *api.MandateRequest, idempotencyKey string) (*api.MandateResponse, error)
}

func (h *Hub) handlePayment(w http.ResponseWriter, req *http.Request, u users.User) {
	var sub hubapi.PaymentSubmission
	if !h.directReady(w) || !readJSON(w, req, &sub) || !keyGiven(w, sub.IdempotencyKey) {
		return
	}
	if d := h.decidePayment(&sub.Request); d.Needed {
		b := sub.Request.PaymentMethod.Beneficiary
		r := h.heldKind(u, store.KindPayment, sub.IdempotencyKey, sub.Request.Currency, payeeOf(b), b.Reference, d)
		r.Payment = &sub.Request
		h.submitKind(w, req, u, r)
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(req.Context()), time.Minute)
	defer cancel()
	resp, err := h.cfg.Direct.CreatePayment(ctx, &sub.Request, sub.IdempotencyKey)
	what := fmt.Sprintf("payment of %s, idempotency key %s", api.FormatAmount(sub.Request.AmountInMinor, sub.Request.Currency), sub.IdempotencyKey)
	h.answerDirect(w, u, "payment", what, resp, respID(resp), err)
}

func (h *Hub) handleMandate(w http.ResponseWriter, req *http.Request, u users.User) {
	var sub hubapi.MandateSubmission
	if !h.directReady(w) || !readJSON(w, req, &sub) || !keyGiven(w, sub.IdempotencyKey) {
		return
	}
	if d := h.decideMandate(&sub.Request); d.Needed {
		b := sub.Request.Mandate.Beneficiary
		r := h.heldKind(u, store.KindMandate, sub.IdempotencyKey, sub.Request.Currency, payeeOf(b), sub.Request.Mandate.Reference, d)
		r.Mandate = &sub.Request
		h.submitKind(w, req, u, r)
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(req.Context()), time.Minute)
	defer cancel()
	resp, err := h.cfg.Direct.CreateMandate(ctx, &sub.Request, sub.IdempotencyKey)
	id := ""
	if resp != nil {
		id = resp.ID
	}
	h.answerDirect(w, u, "mandate", "mandate ("+sub.Request.Mandate.Type+"), idempotency key "+sub.IdempotencyKey, resp, id, err)
}

func respID(r *api.PaymentResponse) string {
	if r == nil {
		return ""
	}
	return r.ID
}

func (h *Hub) directReady(w http.ResponseWriter) bool {
	if h.cfg.Direct == nil {
		writeProblem(w, http.StatusNotImplemented, "not_available", "this hub sends no payments or mandates")
		return false
	}
	return true
}

func keyGiven(w http.ResponseWriter, key string) bool {
	if strings.TrimSpace(key) == "" {
		writeProblem(w, http.StatusUnprocessableEntity, "idempotency_key_required", "send the request's idempotency_key: it is what makes a retry safe")
		return false
	}
	return true
}

// answerDirect records what was sent for whom and answers: the
// service's response, its refusal passed on, or whether anything can
// have been created (payout.Classify, the one classifier).
func (h *Hub) answerDirect(w http.ResponseWriter, u users.User, action, what string, resp any, id string, err error) {
	e := store.Entry{At: h.cfg.Clock.Now(), Action: action, By: u.Name, Detail: what}
	if err == nil {
		e.Status, e.Detail = "created", what+": created "+id
	} else {
		e.Status, e.Detail = payout.Classify(err).Outcome, what+": "+err.Error()
	}
	if nerr := h.cfg.Store.Note(e); nerr != nil {
		h.log.Error("approvals: recording a "+action+" failed", "err", nerr)
	}
	if err == nil {
		writeJSON(w, http.StatusOK, resp)
		return
	}
	var ae *api.Error
	if errors.As(err, &ae) {
		w.Header().Set(hubapi.HeaderAnswerFrom, "service")
		writeJSON(w, ae.StatusCode, hubapi.ServiceAnswer{Status: ae.StatusCode, Problem: ae.Problem, TraceID: ae.TraceID, Detail: ae.Error()})
		return
	}
	if a := payout.Classify(err); !a.Reached {
		writeProblem(w, http.StatusBadGateway, hubapi.ReasonNotReached, "the hub could not reach the service, so nothing was created: "+err.Error())
		return
	}
	writeProblem(w, http.StatusGatewayTimeout, hubapi.ReasonNoAnswer, "the service did not answer; it may have been created: retry with the same idempotency key: "+err.Error())
}
