package payout

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"testing"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/payout/payouttest"
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

// TestRunTakesAPayoutThroughEveryStage: Run calls the stages in order,
// asks Confirm before anything is recorded or sent (a refusal there
// sends and records nothing), records the answer, and stops a duplicate,
// an unfunded payout and an invalid one before sending, each with its
// class: what the approvals hub relies on.
func TestRunTakesAPayoutThroughEveryStage(t *testing.T) {
	srv := payouttest.Start(t)
	log, err := Open(filepath.Join(t.TempDir(), "audit.jsonl"), "p", nil)
	if err != nil {
		t.Fatal(err)
	}
	pl := New(srv.Client(t), log, SourceHub)
	ctx := context.Background()
	var stages []Stage
	hooks := Hooks{Stage: func(s Stage) { stages = append(stages, s) }}

	declined := errors.New("declined")
	h := hooks
	h.Confirm = func(context.Context, *Checked) error { return declined }
	if _, err := pl.Run(ctx, payoutReq(), Options{}, h); !errors.Is(err, declined) {
		t.Fatalf("declined: %v", err)
	}
	if entries, _ := log.Entries(); len(entries) != 0 || len(srv.Received()) != 0 {
		t.Fatalf("a declined payout left %d record lines, %d sends", len(entries), len(srv.Received()))
	}
	if want := []Stage{StageValidate, StageCheck, StageConfirm}; !slices.Equal(stages, want) {
		t.Fatalf("stages %v, want %v", stages, want)
	}

	stages = nil
	res, err := pl.Run(ctx, payoutReq(), Options{}, hooks)
	if err != nil || !res.Answer.Accepted() || len(srv.Created()) != 1 {
		t.Fatalf("run: %+v, %v", res, err)
	}
	if want := []Stage{StageValidate, StageCheck, StageReserve, StageSend, StageRecord}; !slices.Equal(stages, want) {
		t.Fatalf("stages %v, want %v", stages, want)
	}
	if at := Attempts(mustEntries(t, log)); len(at) != 1 || at[0].Outcome != OutcomeAccepted || at[0].Source != SourceHub {
		t.Fatalf("record: %+v", at)
	}

	again := payoutReq()
	again.TransactionID = "0c0c0c0c-1111-4222-8333-444444444444"
	big := payoutReq()
	big.TransactionID, big.BeneficiaryReference, big.AmountInMinor = "0d0d0d0d-1111-4222-8333-444444444444", "INV-BIG", 1<<40
	bad := payoutReq()
	bad.TransactionID, bad.BeneficiaryIBAN = "0e0e0e0e-1111-4222-8333-444444444444", "GB00BAD"
	for _, c := range []struct {
		req   *api.PayoutRequest
		class string
	}{{again, ClassDuplicate}, {big, ClassFunds}, {bad, ClassInvalid}} {
		if _, err := pl.Run(ctx, c.req, Options{}, Hooks{}); ErrorClass(err) != c.class {
			t.Errorf("%s: class %q (%v), want %q", c.req.TransactionID, ErrorClass(err), err, c.class)
		}
	}
	if n := len(srv.Received()); n != 1 {
		t.Fatalf("%d sends, want the first only", n)
	}
}

func mustEntries(t *testing.T, l *Log) []Entry {
	t.Helper()
	e, err := l.Entries()
	if err != nil {
		t.Fatal(err)
	}
	return e
}
