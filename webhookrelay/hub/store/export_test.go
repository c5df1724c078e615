package store

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	bolt "go.etcd.io/bbolt"
)

// BenchChild, set by the scale benchmark (package store_test), runs the
// hub as its own process when TestMain finds HUB_SCALE_CHILD set.
var BenchChild func()

// finished is the i-th finished request of a fill: a payout below the
// threshold, requested at at, sent and accepted.
func finished(i int, at time.Time) *Request {
	return &Request{ID: fmt.Sprintf("apr-fill%07d", i), Status: StatusApproved, RequestedBy: "ada", RequestedAt: at,
		ApprovedBy: []string{}, Policy: "below the threshold", AmountInMinor: int64(100 + i%9000), Currency: "GBP",
		BeneficiaryName: "Payee Ltd", BeneficiaryIBAN: "GB33BUKB20201555555555", BeneficiaryReference: fmt.Sprintf("FILL-%d", i),
		TransactionID: fmt.Sprintf("fill-%07d", i)}
}

// fillTimes spreads n requests as a team paying 500 a day would have made
// them: the last 500 within the 24 hours before last, the others over the
// 200 days before that, so the 24-hour sums read as many requests at
// every size.
func fillTimes(n int, last time.Time) func(i int) time.Time {
	const day = 24 * time.Hour
	recent := min(n, 500)
	step := 200 * day / time.Duration(max(n, 1))
	return func(i int) time.Time {
		if i >= n-recent {
			return last.Add(-time.Duration(n-i) * (day / 500))
		}
		return last.Add(-day - time.Duration(n-recent-i)*step)
	}
}

// FillFinished writes n finished requests straight through the store's
// write path, with the records the API writes for a payout sent at once
// (requested, sending, outcome sent), requested over the days before
// last: in large transactions on a bbolt file (one fsync per 5,000),
// published without waiting for each answer on JetStream. Filling
// 100,000 through the HTTP API one fsync (or one cluster round trip)
// at a time would take the benchmark an hour.
func FillFinished(s *Store, n int, last time.Time) error {
	at := fillTimes(n, last)
	if s.js == nil {
		for from := 0; from < n; from += 5000 {
			err := s.db.Update(func(tx *bolt.Tx) error {
				for i := from; i < min(from+5000, n); i++ {
					r := finished(i, at(i))
					if err := create(tx, r); err != nil {
						return err
					}
					for _, st := range []string{StatusSending, StatusSent} {
						r.Status, r.Rev = st, r.Rev+1
						if st == StatusSent {
							r.PayoutState = "accepted"
						}
						if err := put(tx, r); err != nil {
							return err
						}
						if err := appendLog(tx, Entry{At: r.RequestedAt, RequestID: r.ID, Action: ActSending, Status: st}); err != nil {
							return err
						}
					}
				}
				return nil
			})
			if err != nil {
				return err
			}
		}
		return nil
	}
	b := s.js
	pub := func(subject string, m jsMessage) error {
		msg, err := requestMsg(subject, m)
		if err != nil {
			return err
		}
		_, err = b.js.PublishMsgAsync(msg)
		return err
	}
	for i := range n {
		r := finished(i, at(i))
		e, err := prepare(r)
		if err != nil {
			return err
		}
		if err := pub(b.txSubject(r.TransactionID), jsMessage{Holder: r.ID}); err != nil {
			return err
		}
		if err := pub(b.reqSubject(r.ID), jsMessage{Request: r, Entry: &e}); err != nil {
			return err
		}
		for _, st := range []string{StatusSending, StatusSent} {
			c := *r
			c.Status, c.Rev = st, r.Rev+1
			r = &c
			if err := pub(b.reqSubject(r.ID), jsMessage{Request: r, Entry: &Entry{At: r.RequestedAt, RequestID: r.ID, Action: ActSending, Status: st}}); err != nil {
				return err
			}
		}
		if i%500 == 499 || i == n-1 {
			select {
			case <-b.js.PublishAsyncComplete():
			case <-time.After(time.Minute):
				return fmt.Errorf("fill: JetStream did not take %d requests within a minute", i+1)
			}
		}
	}
	return nil
}

// FillAudit publishes the attempt and outcome lines of the n finished
// requests to the audit record of name, as the shared pipeline writes
// them — those of the last 8 days only: a hub replays the lines the
// stream stored within the duplicate window and a day (auditlog.Open), by
// the stream's time, and a fill made in seconds cannot date older lines
// in the past. (Lines older by their own time are let go as they are
// read.)
func FillAudit(js jetstream.JetStream, name string, n int, last time.Time) error {
	subject := "paydash.hub." + name + ".audit"
	times := fillTimes(n, last)
	for i := range n {
		at := times(i)
		if last.Sub(at) > 8*24*time.Hour {
			continue
		}
		r := finished(i, at)
		for _, line := range []map[string]any{
			{"at": at, "event": "attempt", "profile": "hub", "source": "hub", "transaction_id": r.TransactionID, "name": r.BeneficiaryName,
				"iban": r.BeneficiaryIBAN, "reference": r.BeneficiaryReference, "amount_in_minor": r.AmountInMinor, "currency": r.Currency},
			{"at": at, "event": "outcome", "profile": "hub", "transaction_id": r.TransactionID, "outcome": "accepted"},
		} {
			data, err := json.Marshal(line)
			if err != nil {
				return err
			}
			if _, err := js.PublishMsgAsync(&nats.Msg{Subject: subject, Data: data}); err != nil {
				return err
			}
		}
		if i%1000 == 999 || i == n-1 {
			select {
			case <-js.PublishAsyncComplete():
			case <-time.After(time.Minute):
				return fmt.Errorf("fill: JetStream did not take %d audit lines within a minute", 2*(i+1))
			}
		}
	}
	return nil
}
