package webhookrelay

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/paydash/paydash/api"
)

// Errors ParseWebhook wraps, so the receiver can count rejections by reason.
var (
	// ErrNotJSON: the body is not one JSON object.
	ErrNotJSON = errors.New("webhook body is not a JSON object")
	// ErrNoEventID: the body has no usable event_id.
	ErrNoEventID = errors.New("webhook has no event_id")
)

// maxEventIDLen bounds event ids: they are keys of the dedupe index.
const maxEventIDLen = 256

// payoutStates maps the payout interface's event types to the state they
// report; the interface only shows payout_authorised, the others follow its
// pattern (see api.EventPayout*).
var payoutStates = map[string]string{
	api.EventPayoutAuthorised: api.StateAuthorised,
	api.EventPayoutSubmitted:  api.StateSubmitted,
	api.EventPayoutSettled:    api.StateSettled,
	api.EventPayoutRejected:   api.StateRejected,
	api.EventPayoutFailed:     api.StateFailed,
}

// rawWebhook holds the members of both families. Everything but the ids
// is kept raw and read leniently: a member of an unexpected JSON type must
// not make the relay refuse (and so lose) an otherwise good event.
type rawWebhook struct {
	// A member that is absent stays nil; one that is present (even null)
	// holds its raw bytes.
	EventID   json.RawMessage `json:"event_id"`
	EventType json.RawMessage `json:"event_type"`
	EventBody json.RawMessage `json:"event_body"`
	// payments interface (flat)
	Type          json.RawMessage `json:"type"`
	PayoutID      json.RawMessage `json:"payout_id"`
	ExecutedAt    json.RawMessage `json:"executed_at"`
	FailedAt      json.RawMessage `json:"failed_at"`
	FailureReason json.RawMessage `json:"failure_reason"`
}

// rawPayoutBody is the payout interface's event_body, read leniently.
type rawPayoutBody struct {
	TransactionID json.RawMessage `json:"transaction_id"`
	AuthorisedAt  json.RawMessage `json:"authorised_at"`
	SubmittedAt   json.RawMessage `json:"submitted_at"`
	SettledAt     json.RawMessage `json:"settled_at"`
	RejectedAt    json.RawMessage `json:"rejected_at"`
	FailedAt      json.RawMessage `json:"failed_at"`
	Reason        json.RawMessage `json:"reason"`
	FailureReason json.RawMessage `json:"failure_reason"`
}

// stateTime is the body's timestamp member for a state.
func (b *rawPayoutBody) stateTime(state string) json.RawMessage {
	switch state {
	case api.StateAuthorised:
		return b.AuthorisedAt
	case api.StateSubmitted:
		return b.SubmittedAt
	case api.StateSettled:
		return b.SettledAt
	case api.StateRejected:
		return b.RejectedAt
	case api.StateFailed:
		return b.FailedAt
	}
	return nil
}

// ParseWebhook reads one webhook delivery of either family into an Event
// (without Seq): family, type, payout id, state, occurred-at and reason,
// the headers that matter and the raw body. It checks only the body; the
// relay checks the timestamp and signature separately.
func ParseWebhook(body []byte, header http.Header, received time.Time) (Event, error) {
	e, _, err := parseWebhook(body, header, received)
	return e, err
}

// parseWebhook also reports whether the delivery is a payout-interface
// envelope (it has event_type), which must carry a timestamp header.
func parseWebhook(body []byte, header http.Header, received time.Time) (Event, bool, error) {
	var raw rawWebhook
	if err := json.Unmarshal(body, &raw); err != nil {
		return Event{}, false, fmt.Errorf("%w: %w", ErrNotJSON, err)
	}
	// json.Unmarshal accepts "null" into a struct; a webhook must be an object.
	if trimmed := bytes.TrimSpace(body); len(trimmed) == 0 || trimmed[0] != '{' {
		return Event{}, false, fmt.Errorf("%w: want an object like {\"event_id\": ...}", ErrNotJSON)
	}
	if raw.EventID == nil {
		return Event{}, false, fmt.Errorf("%w: the member event_id is missing", ErrNoEventID)
	}
	if raw.EventID[0] != '"' {
		return Event{}, false, fmt.Errorf("%w: event_id must be a string", ErrNoEventID)
	}
	id := rawString(raw.EventID)
	id = strings.TrimSpace(id)
	switch {
	case id == "":
		return Event{}, false, fmt.Errorf("%w: event_id is empty", ErrNoEventID)
	case len(id) > maxEventIDLen:
		return Event{}, false, fmt.Errorf("%w: event_id is longer than %d bytes", ErrNoEventID, maxEventIDLen)
	}
	e := Event{
		EventID:    id,
		Family:     FamilyUnknown,
		ReceivedAt: received,
		Headers:    keptHeaders(header),
		Body:       json.RawMessage(body),
	}
	envelope := raw.EventType != nil && string(raw.EventType) != "null"
	if envelope {
		e.Type = rawString(raw.EventType)
		var b rawPayoutBody
		if json.Unmarshal(raw.EventBody, &b) == nil {
			e.PayoutID = rawString(b.TransactionID)
			e.Reason = firstNonEmpty(rawString(b.Reason), rawString(b.FailureReason))
		}
		if state, ok := payoutStates[e.Type]; ok {
			e.Family = FamilyPayout
			e.State = state
			e.OccurredAt = rawTime(b.stateTime(state))
		}
		return e, true, nil
	}
	e.Type = rawString(raw.Type)
	e.PayoutID = rawString(raw.PayoutID)
	switch e.Type {
	case api.EventPayoutExecuted:
		e.Family, e.State = FamilyPayments, api.StateExecuted
		e.OccurredAt = rawTime(raw.ExecutedAt)
	case api.EventPaymentsPayoutFailed:
		e.Family, e.State = FamilyPayments, api.StateFailed
		e.OccurredAt = rawTime(raw.FailedAt)
		e.Reason = rawString(raw.FailureReason)
	case api.EventExternalPaymentReceived:
		e.Family = FamilyPayments
	}
	return e, false, nil
}

// rawString returns raw as a string if it is a JSON string, else "".
func rawString(raw json.RawMessage) string {
	if len(raw) < 2 || raw[0] != '"' {
		return ""
	}
	// Fast path: json.Unmarshal already validated raw, so a string without
	// escapes is its bytes between the quotes, if they are UTF-8 (the slow
	// path turns invalid bytes into U+FFFD).
	if inner := raw[1 : len(raw)-1]; bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return string(inner)
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

// rawTime reads an ISO 8601 timestamp member; anything else is zero.
func rawTime(raw json.RawMessage) time.Time {
	s := rawString(raw)
	if s == "" {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t.UTC()
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// keptHeaders picks the delivery headers worth storing and forwarding: the
// content type, user agent, idempotency key and the service's own
// X-Svc-*/Svc-* headers (timestamp, signature). Credentials such as
// Authorization and Cookie are never kept.
func keptHeaders(h http.Header) map[string]string {
	var out map[string]string
	for name, vals := range h {
		if len(vals) == 0 || !keepHeader(name) {
			continue
		}
		if out == nil {
			out = make(map[string]string, 4)
		}
		out[name] = vals[0]
	}
	return out
}

func keepHeader(canonical string) bool {
	switch canonical {
	case "Content-Type", "User-Agent", api.HeaderIdempotencyKey:
		return true
	}
	return strings.HasPrefix(canonical, "X-Svc-") || strings.HasPrefix(canonical, "Svc-")
}

// checkTimestamp enforces the delivery timestamp window. The error text is
// the 400 response body, so it names the problem and the fix.
func checkTimestamp(header http.Header, now time.Time, tolerance time.Duration) error {
	v := strings.TrimSpace(header.Get(api.HeaderWebhookTimestamp))
	if v == "" {
		return fmt.Errorf("missing %s header: payout-interface webhooks must carry their delivery time", api.HeaderWebhookTimestamp)
	}
	ts, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return fmt.Errorf("%s %q is not an ISO 8601 UTC timestamp like 2026-01-02T15:04:05.000Z", api.HeaderWebhookTimestamp, v)
	}
	skew := now.Sub(ts)
	if skew > tolerance || skew < -tolerance {
		dir := "old"
		if skew < 0 {
			dir, skew = "in the future", -skew
		}
		return fmt.Errorf("%s is %s %s, outside the %s tolerance: check the sender's clock, or widen the tolerance", api.HeaderWebhookTimestamp, skew.Round(time.Second), dir, tolerance)
	}
	return nil
}
