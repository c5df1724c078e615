package sandboxapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/paydash/paydash/api"
)

// EventsPath is the sandbox's control endpoint for events: a body with a
// "trigger" member (a Trigger) synthesises that event.
const EventsPath = "/sandbox/events"

// Trigger asks for a synthetic webhook, like `stripe trigger`: the body of
// POST /sandbox/events when it has a "trigger" member. Only the event is
// made, unless PayoutID names a live payout the sandbox holds: then its
// state moves as the event says.
type Trigger struct {
	// Event is payout_authorised, payout_submitted, payout_settled,
	// payout_rejected, payout_failed, payout_executed or
	// external_payment_received.
	Event string `json:"trigger"`
	// Family picks the interface for payout_failed, whose name both use:
	// "payments" (default; the flat payments-interface body) or "payout"
	// (the payout-interface envelope).
	Family string `json:"family,omitempty"`
	// PayoutID is the transaction_id / payout_id; default a new UUID.
	PayoutID string `json:"payout_id,omitempty"`
	// Reason is the rejection or failure reason; defaults:
	// insufficient_funds (rejected), scheme_error (failed).
	Reason string `json:"reason,omitempty"`
	// Beneficiary is the payments-interface variant: external_account
	// (default), payment_source or business_account.
	Beneficiary string `json:"beneficiary,omitempty"`
	// Currency picks the scheme and merchant account; default GBP.
	Currency string `json:"currency,omitempty"`
	// AmountInMinor is the amount of external_payment_received; default 10000.
	AmountInMinor int64             `json:"amount_in_minor,omitempty"`
	Metadata      map[string]string `json:"metadata,omitempty"`
}

// Families of Trigger.Family.
const (
	FamilyPayout   = "payout"
	FamilyPayments = "payments"
)

// TriggerEvents are the event types a Trigger makes, in the order a
// payout meets them (`paydash sandbox trigger --list`).
var TriggerEvents = []string{
	api.EventPayoutAuthorised, api.EventPayoutSubmitted, api.EventPayoutSettled, api.EventPayoutExecuted,
	api.EventPayoutRejected, api.EventPayoutFailed, api.EventExternalPaymentReceived,
}

// Injected is the answer of POST /sandbox/events.
type Injected struct {
	EventID   string `json:"event_id"`
	EventType string `json:"event_type"`
	PayoutID  string `json:"payout_id,omitempty"`
	// Moved says the payout named is one the sandbox holds, and its
	// state moved as the event says.
	Moved bool `json:"moved,omitempty"`
}

// TriggerError is the sandbox refusing a trigger: Status is its HTTP
// status (400 for a wrong request, 409 for a payout's state, 404 when
// the server is not a sandbox).
type TriggerError struct {
	Status int
	Msg    string
}

func (e *TriggerError) Error() string { return e.Msg }

// problem is the part of the sandbox's RFC 9457 problem body a refusal's
// message is made of.
type problem struct {
	Title  string              `json:"title"`
	Detail string              `json:"detail,omitempty"`
	Errors map[string][]string `json:"errors,omitempty"`
}

// SendTrigger asks the sandbox at base (its base URL) for the event t
// describes, over POST /sandbox/events, as `paydash sandbox trigger` and
// the demo's Events view do.
func SendTrigger(ctx context.Context, base string, t Trigger) (Injected, error) {
	var res Injected
	u, err := url.Parse(strings.TrimSpace(base))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return res, &TriggerError{Status: http.StatusBadRequest, Msg: fmt.Sprintf("sandbox URL %q must be an absolute http(s) URL, e.g. http://127.0.0.1:8080", base)}
	}
	body, _ := json.Marshal(t)
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(u.String(), "/")+EventsPath, bytes.NewReader(body))
	if err != nil {
		return res, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return res, fmt.Errorf("cannot reach the sandbox at %s: %w (is `paydash sandbox` or `paydash demo` running?)", u.Host, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	switch resp.StatusCode {
	case http.StatusAccepted:
		if err := json.Unmarshal(data, &res); err != nil {
			return res, fmt.Errorf("sandbox answer: %w", err)
		}
		return res, nil
	case http.StatusNotFound:
		return res, &TriggerError{Status: resp.StatusCode, Msg: "no " + EventsPath + " at " + u.Host + ": triggers work against the built-in sandbox only, not the real service"}
	}
	var p problem
	_ = json.Unmarshal(data, &p)
	msg := strings.TrimSpace(p.Title + ": " + p.Detail)
	fields := make([]string, 0, len(p.Errors))
	for f := range p.Errors {
		fields = append(fields, f)
	}
	sort.Strings(fields)
	for _, f := range fields {
		msg += fmt.Sprintf("; %s %s", f, strings.Join(p.Errors[f], ", "))
	}
	return res, &TriggerError{Status: resp.StatusCode, Msg: fmt.Sprintf("sandbox refused the trigger (HTTP %d): %s", resp.StatusCode, msg)}
}
