package auditlog_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paydash/paydash/internal/payout"
	"github.com/paydash/paydash/internal/platform/natstest"
	"github.com/paydash/paydash/webhookrelay/hub/auditlog"
)

func open(t *testing.T, urls []string, name string) *auditlog.Log {
	t.Helper()
	nc, js := natstest.Client(t, urls)
	t.Cleanup(nc.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	l, err := auditlog.Open(ctx, js, auditlog.Config{Name: name, Profile: "hub", Replicas: 3,
		Wait: func(ctx context.Context, _ string, step func(context.Context) error) error {
			for {
				actx, acancel := context.WithTimeout(ctx, 3*time.Second)
				err := step(actx)
				acancel()
				if err == nil || ctx.Err() != nil {
					return err
				}
				time.Sleep(100 * time.Millisecond)
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func attempt(id string) payout.Entry {
	return payout.Entry{Source: payout.SourceHub, TransactionID: id, Name: "Payee Ltd", IBAN: "GB33BUKB20201555555555",
		Reference: "INV-1", AmountInMinor: 5000_00, Currency: "GBP"}
}

func refuse([]payout.Payment) bool { return false }

// The record is one for every hub: reservations of one payout at two
// hubs at the same moment go through once; a final state is recorded
// once, for a payout the record holds open; and every line survives the
// whole cluster killed and started again.
func TestOneRecordForTheCluster(t *testing.T) {
	natstest.Each(t, func(t *testing.T, nodes natstest.Nodes) {
		a := open(t, nodes.URLs(), "AUDIT")
		b := open(t, nodes.URLs(), "AUDIT")
		ctx := context.Background()
		var wins atomic.Int32
		var wg sync.WaitGroup
		for i := range 8 {
			l := []*auditlog.Log{a, b}[i%2]
			wg.Go(func() {
				m, err := l.ReserveIf(ctx, attempt(fmt.Sprintf("tx-%d", i)), time.Hour, refuse)
				if err != nil {
					t.Error(err)
				}
				if len(m) == 0 {
					wins.Add(1)
				}
			})
		}
		wg.Wait()
		if wins.Load() != 1 {
			t.Fatalf("%d of 8 reservations of one payout at two hubs went through, want 1", wins.Load())
		}
		es, err := b.Entries()
		if err != nil {
			t.Fatal(err)
		}
		won := payout.Attempts(es)
		if len(won) != 1 {
			t.Fatalf("%d attempts recorded, want 1", len(won))
		}
		id := won[0].TransactionID
		if err := a.Outcome(id, payout.OutcomeAccepted, ""); err != nil {
			t.Fatal(err)
		}
		var finals atomic.Int32
		for i := range 4 {
			l := []*auditlog.Log{a, b}[i%2]
			wg.Go(func() {
				if ok, err := l.FinalOutcome(id, payout.OutcomeSettled, ""); err != nil {
					t.Error(err)
				} else if ok {
					finals.Add(1)
				}
			})
		}
		wg.Wait()
		if finals.Load() != 1 {
			t.Fatalf("the final state was recorded %d times, want once", finals.Load())
		}
		for i := range 3 {
			nodes.Kill(t, i)
		}
		for i := range 3 {
			nodes.Restart(t, i)
		}
		natstest.WaitForJetStream(t, nodes.URLs())
		es, err = open(t, nodes.URLs(), "AUDIT").Entries()
		if err != nil {
			t.Fatal(err)
		}
		got := payout.Attempts(es)
		if len(es) != 3 || len(got) != 1 || got[0].TransactionID != id || got[0].Outcome != payout.OutcomeSettled {
			t.Fatalf("after the whole cluster was killed: %d lines, attempts %+v", len(es), got)
		}
	})
}
