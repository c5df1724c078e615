package payout_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/payout"
	"github.com/paydash/paydash/internal/payout/payouttest"
	"github.com/paydash/paydash/webhookrelay/relayclient"
)

// fakeRelay is an in-process relay: its events are what the test sends.
type fakeRelay struct {
	events chan relayclient.Event
	err    error
	asked  string
	// finals are FinalState's answers by payout.
	finals map[string]string
}

func (r *fakeRelay) PayoutEvents(_ context.Context, id string) (<-chan relayclient.Event, error) {
	r.asked = id
	return r.events, r.err
}

func (r *fakeRelay) FinalState(_ context.Context, id string) (string, string, bool, error) {
	st, ok := r.finals[id]
	return st, "", ok, nil
}

// report is a transaction report holding txs.
type report []api.Transaction

func (r report) StreamTransactions(_ context.Context, _ api.TransactionQuery, fn func(api.Transaction) error) error {
	for _, t := range r {
		if err := fn(t); err != nil {
			return err
		}
	}
	return nil
}

// noRelayURL is a relay URL that fails the test if anything calls it.
func noRelayURL(t *testing.T) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("the follower called the relay over the network: %s %s", r.Method, r.URL)
		w.WriteHeader(http.StatusTeapot)
	}))
	t.Cleanup(srv.Close)
	return "ws" + srv.URL[len("http"):] + "/ws"
}

// An in-process relay is followed instead of RelayURL: the payout's
// rejection, which never enters the report, and its reason come from it.
func TestFollowReadsAnInProcessRelay(t *testing.T) {
	relay := &fakeRelay{events: make(chan relayclient.Event, 4)}
	p := &payout.Pipeline{Relay: relay, RelayURL: noRelayURL(t), Report: report{}}
	f := p.Follow(context.Background(), "tx-1")
	defer f.Stop()
	if relay.asked != "tx-1" || f.Notice != "" {
		t.Fatalf("asked the relay for %q; notice %q", relay.asked, f.Notice)
	}
	relay.events <- relayclient.Event{PayoutID: "tx-2", State: api.StateSettled}
	relay.events <- relayclient.Event{PayoutID: "tx-1", State: api.StateAuthorised}
	relay.events <- relayclient.Event{PayoutID: "tx-1", State: api.StateRejected, Reason: "aml_check_failed"}
	got := f.Wait(context.Background(), 10*time.Second)
	if want := (payout.Final{State: api.StateRejected, Reason: "aml_check_failed", From: payout.FromRelay}); got != want {
		t.Fatalf("followed to %+v, want %+v", got, want)
	}
}

// A relay that cannot be followed leaves the report, as an unreachable
// one does, and says so.
func TestFollowFallsBackToTheReportWhenTheRelayCannotBeFollowed(t *testing.T) {
	relay := &fakeRelay{err: errors.New("the relay is shutting down")}
	p := &payout.Pipeline{Relay: relay, RelayURL: noRelayURL(t),
		Report: report{{TransactionID: "tx-1", Status: api.StateSettled}}}
	f := p.Follow(context.Background(), "tx-1")
	defer f.Stop()
	if f.Notice == "" {
		t.Fatal("no notice that the relay is not followed")
	}
	got := f.Wait(context.Background(), 10*time.Second)
	if got.State != api.StateSettled || got.From != payout.FromReportState {
		t.Fatalf("followed to %+v, want settled from the report", got)
	}
	// Nothing seen anywhere: the note says why.
	f = (&payout.Pipeline{Relay: relay, Report: report{}}).Follow(context.Background(), "tx-9")
	defer f.Stop()
	if got := f.Wait(context.Background(), 300*time.Millisecond); got.State != "" || got.Note == "" {
		t.Fatalf("nothing to follow: %+v", got)
	}
}

// The duplicate check asks an in-process relay what became of an earlier
// payout the record shows only accepted, as it asks RelayURL's history:
// one rejected since no longer blocks the same payout again.
func TestDuplicateCheckAsksAnInProcessRelay(t *testing.T) {
	log, _ := payouttest.Audit(t)
	ctx := context.Background()
	sent := payout.TestRequest()
	relay := &fakeRelay{finals: map[string]string{}}
	pl := &payout.Pipeline{Log: log, Source: payout.SourceCreate, Relay: relay, RelayURL: noRelayURL(t)}
	if err := pl.Reserve(ctx, sent, payout.Options{}, nil); err != nil {
		t.Fatal(err)
	}
	if err := pl.RecordAnswer(sent, nil, payout.Classify(nil)); err != nil {
		t.Fatal(err)
	}
	again := *sent
	again.TransactionID = "0b7a4b8e-6f7d-4c55-9a55-9d3a2b1c0e01"
	var dup *payout.DuplicateError
	if _, err := pl.Check(ctx, &again, payout.Options{}); !errors.As(err, &dup) {
		t.Fatalf("the same payout again, the first not known rejected: %v, want a duplicate", err)
	}
	relay.finals[sent.TransactionID] = api.StateRejected
	if c, err := pl.Check(ctx, &again, payout.Options{}); err != nil || len(c.Matches) != 0 {
		t.Fatalf("the first rejected since, by the relay: %+v %v, want no duplicate", c, err)
	}
}
