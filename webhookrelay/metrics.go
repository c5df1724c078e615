package webhookrelay

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/paydash/paydash/internal/platform/problem"
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
	RejectNotJSONType     = "content_type"
	RejectOrigin          = "origin"
	RejectHost            = "host"
)

var rejectReasons = []string{
	RejectTooLarge, RejectBadJSON, RejectNoEventID, RejectTimestamp,
	RejectSignature, RejectKeysUnavailable, RejectStoreFailed, RejectReadFailed,
	RejectNotJSONType, RejectOrigin, RejectHost,
}

// metrics are the relay's counters; the rejected map is built once and
// only read afterwards, so it needs no lock. The counters are plain
// atomics (Metrics reads them for Go callers) exported to Prometheus
// through CounterFuncs; the two latency distributions are Prometheus
// histograms.
type metrics struct {
	received        atomic.Int64
	stored          atomic.Int64
	duplicates      atomic.Int64
	dupUnverified   atomic.Int64
	commits         atomic.Int64
	rejected        map[string]*atomic.Int64
	forwardedOK     atomic.Int64
	forwardedFailed atomic.Int64

	verifySeconds  prometheus.Histogram
	publishSeconds prometheus.Histogram
	registry       *prometheus.Registry
}

func newMetrics() *metrics {
	m := &metrics{rejected: make(map[string]*atomic.Int64, len(rejectReasons))}
	for _, r := range rejectReasons {
		m.rejected[r] = new(atomic.Int64)
	}
	m.verifySeconds = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "paydash_relay_verify_seconds",
		Help:    "Time to verify one webhook signature (ES512).",
		Buckets: []float64{.0002, .0005, .001, .002, .003, .005, .01, .025, .1},
	})
	m.publishSeconds = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "paydash_relay_publish_seconds",
		Help:    "Time from handing a verified webhook to the store (bbolt group commit or JetStream publish) until it is durable.",
		Buckets: []float64{.0005, .001, .002, .005, .01, .025, .05, .1, .25, 1, 5},
	})
	return m
}

// registerMetrics builds the relay's Prometheus registry: its counters, the
// histograms, and the Go and process collectors (process_cpu_seconds_total
// divided by the stored counter is the CPU each event costs).
func (r *Relay) registerMetrics() {
	m := r.m
	reg := prometheus.NewRegistry()
	counter := func(name, help string, v *atomic.Int64) prometheus.Collector {
		return prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help}, func() float64 { return float64(v.Load()) })
	}
	reg.MustRegister(
		counter("paydash_relay_webhooks_received_total", "Webhook deliveries received (every POST to the webhook path).", &m.received),
		counter("paydash_relay_events_stored_total", "New events made durable.", &m.stored),
		counter("paydash_relay_duplicates_total", "Redeliveries of an event_id seen within the dedupe window, answered 200 duplicate.", &m.duplicates),
		counter("paydash_relay_duplicates_unverified_total", "Duplicates whose body was byte for byte the stored event's, answered without verifying the signature again.", &m.dupUnverified),
		counter("paydash_relay_forwarded_total", "Events forwarded with a 2xx answer.", &m.forwardedOK),
		counter("paydash_relay_forward_failures_total", "Events whose forwarding failed after every attempt.", &m.forwardedFailed),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "paydash_relay_subscribers", Help: "Connected websocket subscribers."},
			func() float64 { return float64(r.clients.Load()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "paydash_relay_slow_client_disconnects_total", Help: "Subscribers closed because their queue filled (they resume from the store)."},
			func() float64 { return float64(r.fan.Overflows()) }),
		m.verifySeconds, m.publishSeconds,
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	)
	for _, reason := range rejectReasons {
		v := m.rejected[reason]
		reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "paydash_relay_rejected_total", Help: "Webhook deliveries refused, by reason.",
			ConstLabels: prometheus.Labels{"reason": reason},
		}, func() float64 { return float64(v.Load()) }))
	}
	m.registry = reg
	r.metricsHandler = promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorLog: slogPrinter{r.cfg.Logger}})
}

// Metrics is a snapshot of the relay's counters for Go callers (tests,
// benchmarks); GET /metrics serves the same counters in the Prometheus
// text format.
type Metrics struct {
	// Received counts every POST to the webhook path.
	Received int64 `json:"received"`
	// Stored counts new events committed to the store.
	Stored int64 `json:"stored"`
	// Duplicates counts redeliveries of an already stored event_id.
	Duplicates int64 `json:"duplicates"`
	// DuplicatesUnverified counts the duplicates whose body was the
	// stored one byte for byte, answered without checking the signature.
	DuplicatesUnverified int64 `json:"duplicates_unverified"`
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
		Received:             r.m.received.Load(),
		Stored:               r.m.stored.Load(),
		Duplicates:           r.m.duplicates.Load(),
		DuplicatesUnverified: r.m.dupUnverified.Load(),
		Commits:              r.m.commits.Load(),
		Rejected:             make(map[string]int64, len(r.m.rejected)),
		Clients:              r.clients.Load(),
		SlowConsumerCloses:   r.fan.Overflows(),
		ForwardedOK:          r.m.forwardedOK.Load(),
		ForwardedFailed:      r.m.forwardedFailed.Load(),
	}
	m.LastSeq, _ = r.be.lastSeq(context.Background(), false)
	for k, v := range r.m.rejected {
		m.Rejected[k] = v.Load()
	}
	m.QueueLagMax, m.QueueLagTotal = r.fan.Lag()
	return m
}

func (r *Relay) handleMetrics(w http.ResponseWriter, req *http.Request) {
	if !r.allowRead(w, req) {
		return
	}
	r.metricsHandler.ServeHTTP(w, req)
}

// slogPrinter lets promhttp report encoding errors through the relay's
// logger.
type slogPrinter struct{ log *slog.Logger }

func (p slogPrinter) Println(v ...any) { p.log.Error("metrics", "err", fmt.Sprint(v...)) }

func writeJSON(w http.ResponseWriter, status int, v any) {
	problem.WriteJSON(w, status, v)
}
