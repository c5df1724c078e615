package auditlog

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/paydash/paydash/internal/payout"
	"github.com/paydash/paydash/internal/platform/natsstream"
)

// A hub holds in memory the lines its duplicate check reads — those
// within the hold of the newest line, whether the payout's final state
// came or not — and lets go of the rest, however long the record grows.
func TestOnlyTheDuplicateWindowIsHeldInMemory(t *testing.T) {
	l := &Log{cfg: Config{Hold: 7 * 24 * time.Hour}, subject: "paydash.hub.T.audit"}
	t0 := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	seq := uint64(1)
	add := func(e payout.Entry) {
		data, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		seq++
		l.apply(natsstream.Message{Subject: l.subject, Data: data, Seq: seq, At: e.At})
	}
	line := func(id string, at time.Time, outcome string) {
		add(payout.Entry{At: at, Event: payout.EventAttempt, TransactionID: id, IBAN: "GB33BUKB20201555555555", AmountInMinor: 100, Currency: "GBP", Reference: "INV"})
		if outcome != "" {
			add(payout.Entry{At: at, Event: payout.EventOutcome, TransactionID: id, Outcome: outcome})
		}
	}
	line("old-open", t0, "")
	for i := range 3000 {
		line(fmt.Sprintf("old-%d", i), t0.Add(time.Duration(i)*time.Minute), payout.OutcomeRefused)
	}
	now := t0.Add(30 * 24 * time.Hour)
	for i := range 10 {
		line(fmt.Sprintf("new-%d", i), now.Add(time.Duration(i)*time.Minute), payout.OutcomeAccepted)
	}
	// One more batch of lines lets the last prune run past the new ones.
	for i := range 1100 {
		line(fmt.Sprintf("newer-%d", i), now.Add(time.Hour), payout.OutcomeRefused)
	}
	es, last := l.held()
	if last != seq {
		t.Fatalf("held up to %d, want %d", last, seq)
	}
	ids := map[string]bool{}
	for _, e := range es {
		ids[e.TransactionID] = true
	}
	if !ids["new-0"] || !ids["new-9"] {
		t.Fatal("the recent payouts must be held")
	}
	if ids["old-open"] {
		t.Fatal("a payout past the hold whose final state never came is still held")
	}
	for i := range 3000 {
		if ids[fmt.Sprintf("old-%d", i)] {
			t.Fatalf("old-%d, closed and past the hold, is still held", i)
		}
	}
	if len(es) > 2*(1+10+1100) {
		t.Fatalf("%d lines held, want at most the window's", len(es))
	}
}
