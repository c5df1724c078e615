package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/api/sandbox/sandboxapi"
)

// Control endpoints under /sandbox/: JSON in and out, no authentication
// (the sandbox listens on loopback), and never part of the interface.

// controlError maps the Go-level control errors to problems.
func controlError(err error) error {
	var inv *invalidError
	var p *problem
	switch {
	case errors.As(err, &p):
		return p
	case errors.As(err, &inv):
		return errInvalidParameters(inv.problems.Fields())
	case errors.Is(err, ErrNotFound):
		return errNotFound(err.Error())
	case errors.Is(err, ErrInvalidState):
		return errConflict("invalid_state", "Invalid state", err.Error())
	case errors.Is(err, errNoWebhookURI):
		return errConflict("no_webhook_uri", "No webhook URI", err.Error())
	}
	return err
}

// controlIndex documents the control endpoints at GET /sandbox.
type controlIndex struct {
	Interface        []string          `json:"interface"`
	Extensions       []string          `json:"extensions"`
	Control          []string          `json:"control"`
	MerchantAccounts []MerchantAccount `json:"merchant_accounts"`
	WebhookURI       string            `json:"webhook_uri"`
	MagicRules       []string          `json:"magic_rules"`
}

func (s *Sandbox) handleControlIndex(w http.ResponseWriter, _ *http.Request) error {
	return writeJSON(w, http.StatusOK, controlIndex{
		Interface: []string{"POST /connect/token", "POST /v3/mandates", "POST /v3/payments",
			"GET /v1/balances", "POST /v1/payouts", "GET /v1/transactions"},
		Extensions: []string{"GET /v3/payments/{id}", "GET /v3/mandates/{id}", "GET /.well-known/jwks"},
		Control: []string{
			"POST /sandbox/fund {currency, amount_in_minor, payer_name, payer_iban?, reference?}",
			"GET|PUT /sandbox/webhook {webhook_uri}",
			"POST /sandbox/payments/{id}/authorise|fail|expire {reason?}",
			"POST /sandbox/mandates/{id}/authorise|fail|expire {reason?}",
			"POST /sandbox/accounts/{currency}/status {status: enabled|disabled}",
			"POST /sandbox/events (raw webhook body, or {trigger, family?, payout_id?, reason?, beneficiary?, currency?, amount_in_minor?})",
			"GET /sandbox/deliveries?payout_id=&event_id=",
		},
		MerchantAccounts: s.MerchantAccounts(),
		WebhookURI:       displayURL(s.WebhookURI()),
		MagicRules:       ScriptedOutcomes,
	})
}

// handleFund is POST /sandbox/fund: an incoming bank transfer.
func (s *Sandbox) handleFund(w http.ResponseWriter, r *http.Request) error {
	var req fundRequest
	if err := s.readControl(r, &req); err != nil {
		return err
	}
	t, err := s.ledger.fund(req, true)
	if err != nil {
		return controlError(err)
	}
	return writeJSON(w, http.StatusCreated, t)
}

type webhookBody struct {
	WebhookURI string `json:"webhook_uri"`
}

func (s *Sandbox) handleGetWebhook(w http.ResponseWriter, _ *http.Request) error {
	return writeJSON(w, http.StatusOK, webhookBody{WebhookURI: s.WebhookURI()})
}

// handlePutWebhook is PUT /sandbox/webhook: register ("" unregisters).
func (s *Sandbox) handlePutWebhook(w http.ResponseWriter, r *http.Request) error {
	var req webhookBody
	if err := s.readControl(r, &req); err != nil {
		return err
	}
	if req.WebhookURI != "" {
		if err := checkWebhookURI(req.WebhookURI); err != nil {
			return errInvalidParameters(map[string][]string{"webhook_uri": {err.Error()}})
		}
	}
	s.hooks.setURI(req.WebhookURI)
	return writeJSON(w, http.StatusOK, req)
}

type reasonBody struct {
	Reason string `json:"reason"`
}

// handleFlowAction is POST /sandbox/{payments|mandates}/{id}/{action}.
func (s *Sandbox) handleFlowAction(k flowKind) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		var req reasonBody
		if r.ContentLength != 0 {
			if err := s.readControl(r, &req); err != nil {
				return err
			}
		}
		id, now := r.PathValue("id"), s.clock.Now()
		var err error
		switch action := r.PathValue("action"); action {
		case "authorise":
			if k == kindPayment {
				err = s.authorisePayment(id)
			} else {
				_, err = s.flows.authorise(k, id, now)
			}
		case "fail":
			_, err = s.flows.fail(k, id, req.Reason, now)
		case "expire":
			_, err = s.flows.fail(k, id, FailureExpired, now)
		default:
			return errNotFound(fmt.Sprintf("no action %q; use authorise, fail or expire", action))
		}
		if err != nil {
			return controlError(err)
		}
		f, err := s.flows.get(k, id, s.clock.Now())
		if err != nil {
			return controlError(err)
		}
		return writeJSON(w, http.StatusOK, f.view())
	}
}

type statusBody struct {
	Status string `json:"status"`
}

// handleAccountStatus is POST /sandbox/accounts/{currency}/status.
func (s *Sandbox) handleAccountStatus(w http.ResponseWriter, r *http.Request) error {
	var req statusBody
	if err := s.readControl(r, &req); err != nil {
		return err
	}
	cur := strings.ToUpper(r.PathValue("currency"))
	if err := s.SetAccountStatus(cur, req.Status); err != nil {
		return controlError(err)
	}
	for _, b := range s.Balances() {
		if b.Currency == cur {
			return writeJSON(w, http.StatusOK, b)
		}
	}
	return errNotFound("no account for " + cur)
}

// handleEvents is POST /sandbox/events: a body with a "trigger" member
// (and neither event_type nor type) synthesises that event; any other body
// is delivered byte for byte.
func (s *Sandbox) handleEvents(w http.ResponseWriter, r *http.Request) error {
	body, err := readBody(r)
	if err != nil {
		return err
	}
	var probe struct {
		Trigger   *string `json:"trigger"`
		EventType *string `json:"event_type"`
		Type      *string `json:"type"`
	}
	var ev *event
	if json.Unmarshal(body, &probe) == nil && probe.Trigger != nil && probe.EventType == nil && probe.Type == nil {
		var t sandboxapi.Trigger
		if err := decodeJSON(r, body, &t); err != nil {
			return err
		}
		if err := lengthProblems(&t); err != nil {
			return err
		}
		// A trigger naming a payout the sandbox holds moves its state.
		var moved bool
		if ev, moved, err = s.ledger.move(t); err != nil {
			return controlError(err)
		}
		if moved {
			return writeJSON(w, http.StatusAccepted, sandboxapi.Injected{EventID: ev.id, EventType: ev.typ, PayoutID: ev.payoutID, Moved: true})
		}
		if ev, err = s.synthesise(t); err != nil {
			return controlError(err)
		}
		err = s.hooks.enqueue(ev)
	} else {
		ev, err = s.hooks.inject(body, nil)
	}
	if err != nil {
		return controlError(err)
	}
	return writeJSON(w, http.StatusAccepted, sandboxapi.Injected{EventID: ev.id, EventType: ev.typ, PayoutID: ev.payoutID})
}

type deliveriesResponse struct {
	Results []Delivery `json:"results"`
}

// handleDeliveries is GET /sandbox/deliveries, optionally filtered by
// payout_id or event_id.
func (s *Sandbox) handleDeliveries(w http.ResponseWriter, r *http.Request) error {
	payout, eventID := r.URL.Query().Get("payout_id"), r.URL.Query().Get("event_id")
	out := []Delivery{}
	for _, d := range s.Deliveries() {
		if (payout == "" || d.PayoutID == payout) && (eventID == "" || d.EventID == eventID) {
			out = append(out, d)
		}
	}
	return writeJSON(w, http.StatusOK, deliveriesResponse{Results: out})
}

// readControl reads a control request's JSON body and applies the
// string length caps of api.ValidateLengths.
func (s *Sandbox) readControl(r *http.Request, v any) error {
	body, err := readBody(r)
	if err != nil {
		return err
	}
	if err := decodeJSON(r, body, v); err != nil {
		return err
	}
	return lengthProblems(v)
}

// lengthProblems is a 400 naming every over-long string field of v.
func lengthProblems(v any) error {
	if ps := api.ValidateLengths(v); len(ps) > 0 {
		return errInvalidParameters(ps.Fields())
	}
	return nil
}

// ScriptedOutcomes are the payout details that choose what the sandbox
// does with a payout, as GET /sandbox lists them and `paydash sandbox
// --help` prints them.
var ScriptedOutcomes = []string{
	"beneficiary_name containing the word AML, or on the deny list: payout_rejected (aml_check_failed)",
	"amount above the available balance: payout_rejected (insufficient_funds)",
	"beneficiary_reference FAIL or FAIL:<reason>: authorised, then payout_failed (reason, default scheme_error)",
	"beneficiary_reference RETURN: authorised, submitted, then payout_failed (returned)",
	"anything else: authorised, submitted, settled",
}
