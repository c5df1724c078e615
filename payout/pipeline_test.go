package payout

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/paydash/paydash/api"
)

// TestCheckIDTellsAReusedIDFromARetry: an id the record holds for
// another payout is refused before sending; the same payout under it is
// a retry (AlreadySent once accepted); an id only refused is free for a
// corrected payout, since the service created nothing under it.
func TestCheckIDTellsAReusedIDFromARetry(t *testing.T) {
	log, err := Open(filepath.Join(t.TempDir(), "audit.jsonl"), "p", nil)
	if err != nil {
		t.Fatal(err)
	}
	pl := &Pipeline{Log: log, Source: SourceCreate}
	ctx := context.Background()
	sent := payoutReq()
	if err := pl.Reserve(ctx, sent, Options{}, nil); err != nil {
		t.Fatal(err)
	}
	if err := pl.RecordAnswer(sent, nil, Classify(nil)); err != nil {
		t.Fatal(err)
	}
	other := *sent
	other.AmountInMinor = 999
	var used *IDUsedError
	if _, err := pl.Check(ctx, &other, Options{}); !errors.As(err, &used) || ErrorClass(err) != ClassInvalid {
		t.Fatalf("another payout under a used id: %v", err)
	}
	c, err := pl.Check(ctx, sent, Options{})
	if err != nil || c.AlreadySent == nil {
		t.Fatalf("the same payout under its id: %+v, %v", c, err)
	}

	refused := payoutReq()
	refused.TransactionID = "0b0b0b0b-1111-4222-8333-444444444444"
	refused.BeneficiaryReference = "INV-2"
	if err := pl.Reserve(ctx, refused, Options{}, nil); err != nil {
		t.Fatal(err)
	}
	if err := pl.RecordAnswer(refused, nil, Answer{Outcome: OutcomeRefused, Reached: true, Err: &api.Error{StatusCode: 400}}); err != nil {
		t.Fatal(err)
	}
	corrected := *refused
	corrected.BeneficiaryName = "Ada Byron"
	if c, err := pl.Check(ctx, &corrected, Options{}); err != nil || c.AlreadySent != nil {
		t.Fatalf("a corrected payout under a refused id: %+v, %v", c, err)
	}
}
