package webhookrelay

import (
	"encoding/json"
	"net/http"
	"sync/atomic"
)

// Rejection reasons, the keys of Metrics.Rejected.
const (
	RejectTooLarge        = "too_large"
	RejectBadJSON         = "bad_json"
	RejectNoEventID       = "no_event_id"
	RejectTimestamp       = "timestamp"
	RejectSignature       = "signature"
	RejectKeysUnavailable = "keys_unavailable"
	RejectStoreFailed     = "store_failed"
	RejectReadFailed      = "read_failed"
)

var rejectReasons = []string{
	RejectTooLarge, RejectBadJSON, RejectNoEventID, RejectTimestamp,
	RejectSignature, RejectKeysUnavailable, RejectStoreFailed, RejectReadFailed,
}

// metrics are the relay's counters; the rejected map is built once and
// only read afterwards, so it needs no lock.
type metrics struct {
	received        atomic.Int64
	stored          atomic.Int64
	duplicates      atomic.Int64
	commits         atomic.Int64
	rejected        map[string]*atomic.Int64
	forwardedOK     atomic.Int64
	forwardedFailed atomic.Int64
}

func newMetrics() *metrics {
	m := &metrics{rejected: make(map[string]*atomic.Int64, len(rejectReasons))}
	for _, r := range rejectReasons {
		m.rejected[r] = new(atomic.Int64)
	}
	return m
}

// Metrics is a snapshot of the relay's counters, served as JSON on
// GET /metrics.
type Metrics struct {
	// Received counts every POST to the webhook path.
	Received int64 `json:"received"`
	// Stored counts new events committed to the store.
	Stored int64 `json:"stored"`
	// Duplicates counts redeliveries of an already stored event_id.
	Duplicates int64 `json:"duplicates"`
	// Commits counts store transactions that took webhooks; Stored over
	// Commits is how many events share each fsync (group commit).
	Commits int64 `json:"commits"`
	// Rejected counts refused deliveries by reason (Reject* constants).
	Rejected map[string]int64 `json:"rejected"`
	// Clients is the number of connected websocket clients.
	Clients int64 `json:"clients"`
	// QueueLagMax is the longest client queue (events waiting to be sent);
	// QueueLagTotal sums all client queues.
	QueueLagMax   int `json:"queue_lag_max"`
	QueueLagTotal int `json:"queue_lag_total"`
	// SlowConsumerCloses counts clients closed because their queue filled.
	SlowConsumerCloses int64 `json:"slow_consumer_closes"`
	ForwardedOK        int64 `json:"forwarded_ok"`
	ForwardedFailed    int64 `json:"forwarded_failed"`
	// LastSeq is the highest sequence number assigned.
	LastSeq uint64 `json:"last_seq"`
}

// Metrics returns the current counters.
func (r *Relay) Metrics() Metrics {
	m := Metrics{
		Received:           r.m.received.Load(),
		Stored:             r.m.stored.Load(),
		Duplicates:         r.m.duplicates.Load(),
		Commits:            r.m.commits.Load(),
		Rejected:           make(map[string]int64, len(r.m.rejected)),
		Clients:            r.clients.Load(),
		SlowConsumerCloses: r.hub.overflows.Load(),
		ForwardedOK:        r.m.forwardedOK.Load(),
		ForwardedFailed:    r.m.forwardedFailed.Load(),
		LastSeq:            r.writer.lastSeq.Load(),
	}
	for k, v := range r.m.rejected {
		m.Rejected[k] = v.Load()
	}
	m.QueueLagMax, m.QueueLagTotal = r.hub.lag()
	return m
}

func (r *Relay) handleMetrics(w http.ResponseWriter, req *http.Request) {
	if !r.allowRead(w, req) {
		return
	}
	writeJSON(w, http.StatusOK, r.Metrics())
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
