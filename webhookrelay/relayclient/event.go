package relayclient

import (
	"encoding/json"
	"strings"
	"time"
)

// Families of webhook the relay understands.
const (
	// FamilyPayout is the payout interface's envelope
	// {event_type, event_id, event_body} with X-Svc-Webhook-Timestamp.
	FamilyPayout = "payout"
	// FamilyPayments is the payments interface's flat object
	// {type, event_id, event_version, payout_id, ...}.
	FamilyPayments = "payments"
	// FamilyUnknown is anything else that still carries an event id: it is
	// stored and streamed, never dropped.
	FamilyUnknown = "unknown"
)

// Event is one stored webhook as the relay streams it: one JSON message per
// event on /ws and one element of GET /events.
type Event struct {
	// Seq is the relay's monotonically increasing sequence number; a
	// subscriber resumes with since=<last Seq it saw>.
	Seq     uint64 `json:"seq"`
	EventID string `json:"event_id"`
	Family  string `json:"family"`
	// Type is event_type (payout family) or type (payments family).
	Type string `json:"type"`
	// PayoutID is the payout's transaction_id (payout family) or payout_id
	// (payments family), when there is one.
	PayoutID string `json:"payout_id,omitempty"`
	// State is the payout state the event reports: authorised, submitted,
	// settled, rejected, failed (payout family), executed or failed
	// (payments family); empty when the event reports none.
	State string `json:"state,omitempty"`
	// OccurredAt is the state's timestamp from the body, if any.
	OccurredAt time.Time `json:"occurred_at,omitzero"`
	// Reason is the rejection or failure reason, if any.
	Reason     string    `json:"reason,omitempty"`
	ReceivedAt time.Time `json:"received_at"`
	// Headers are the delivery headers that matter (timestamp, signature,
	// content type, user agent).
	Headers map[string]string `json:"headers,omitempty"`
	// Path is the request path the webhook was delivered to: the
	// signature covers it, so a resend to another path fails to verify.
	Path string `json:"path,omitempty"`
	// Body is the raw webhook body, byte for byte.
	Body json.RawMessage `json:"body"`
	// Forward is the outcome of forwarding, when forwarding is configured.
	Forward *ForwardResult `json:"forward,omitempty"`
}

// ForwardResult records what happened when the relay re-posted an event to
// the developer's --forward-to URL.
type ForwardResult struct {
	URL        string    `json:"url"`
	Attempts   int       `json:"attempts"`
	StatusCode int       `json:"status_code,omitempty"`
	Error      string    `json:"error,omitempty"`
	At         time.Time `json:"at"`
	// Route is the --forward-to route that took the event.
	Route string `json:"route,omitempty"`
	// Answer is what the handler answered to the last attempt.
	Answer *Answer `json:"answer,omitempty"`
}

// ForwardRetrying ends a ForwardResult's Error while the relay keeps
// retrying an event its handler has not taken (the event is stored with
// it); Retrying reads it back.
const ForwardRetrying = " (retrying until it answers)"

// Retrying reports whether the relay is still retrying the forward.
func (f *ForwardResult) Retrying() bool { return strings.HasSuffix(f.Error, ForwardRetrying) }

// Connection states a Subscriber reports.
const (
	StateConnecting   = "connecting"
	StateLive         = "live"
	StateReconnecting = "reconnecting"
	StateOffline      = "offline"
)

// ConnState is a subscriber's connection state, for the UI header
// ("live", "reconnecting in 4s", "offline").
type ConnState struct {
	Status string
	// RetryIn is how long until the next attempt, when reconnecting.
	RetryIn time.Duration
	// Err is the last connection error, if any (never contains the token).
	Err error
	// LastSeq is the last sequence number delivered.
	LastSeq uint64
	// Missed, when set, is the range of seqs the relay no longer held
	// when the stream resumed (its retention dropped them): those events
	// are lost to this subscriber.
	Missed [2]uint64
}
