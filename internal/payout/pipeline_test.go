package payout_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/payout"
	"github.com/paydash/paydash/internal/payout/payouttest"
)

// TestCheckIDTellsAReusedIDFromARetry: an id the record holds for
// another payout is refused before sending; the same payout under it is
// a retry (AlreadySent once accepted); an id only refused is free for a
// corrected payout, since the service created nothing under it.
func TestCheckIDTellsAReusedIDFromARetry(t *testing.T) {
	log, _ := payouttest.Audit(t)
	pl := &payout.Pipeline{Log: log, Source: payout.SourceCreate}
	ctx := context.Background()
	sent := payout.TestRequest()
	if err := pl.Reserve(ctx, sent, payout.Options{}, nil); err != nil {
		t.Fatal(err)
	}
	if err := pl.RecordAnswer(sent, nil, payout.Classify(nil)); err != nil {
		t.Fatal(err)
	}
	other := *sent
	other.AmountInMinor = 999
	var used *payout.IDUsedError
	if _, err := pl.Check(ctx, &other, payout.Options{}); !errors.As(err, &used) || payout.ErrorClass(err) != payout.ClassInvalid {
		t.Fatalf("another payout under a used id: %v", err)
	}
	c, err := pl.Check(ctx, sent, payout.Options{})
	if err != nil || c.AlreadySent == nil {
		t.Fatalf("the same payout under its id: %+v, %v", c, err)
	}

	refused := payout.TestRequest()
	refused.TransactionID = "0b0b0b0b-1111-4222-8333-444444444444"
	refused.BeneficiaryReference = "INV-2"
	if err := pl.Reserve(ctx, refused, payout.Options{}, nil); err != nil {
		t.Fatal(err)
	}
	if err := pl.RecordAnswer(refused, nil, payout.Answer{Outcome: payout.OutcomeRefused, Reached: true, Err: &api.Error{StatusCode: 400}}); err != nil {
		t.Fatal(err)
	}
	corrected := *refused
	corrected.BeneficiaryName = "Ada Byron"
	if c, err := pl.Check(ctx, &corrected, payout.Options{}); err != nil || c.AlreadySent != nil {
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
	log, attempts := payouttest.Audit(t)
	pl := payout.New(srv.Client(t), log, payout.SourceHub)
	ctx := context.Background()
	var stages []payout.Stage
	hooks := payout.Hooks{Stage: func(s payout.Stage) { stages = append(stages, s) }}

	declined := errors.New("declined")
	h := hooks
	h.Confirm = func(context.Context, *payout.Checked) error { return declined }
	if _, err := pl.Run(ctx, payout.TestRequest(), payout.Options{}, h); !errors.Is(err, declined) {
		t.Fatalf("declined: %v", err)
	}
	if entries, _ := log.Entries(); len(entries) != 0 || len(srv.Received()) != 0 {
		t.Fatalf("a declined payout left %d record lines, %d sends", len(entries), len(srv.Received()))
	}
	if want := []payout.Stage{payout.StageValidate, payout.StageCheck, payout.StageConfirm}; !slices.Equal(stages, want) {
		t.Fatalf("stages %v, want %v", stages, want)
	}

	stages = nil
	res, err := pl.Run(ctx, payout.TestRequest(), payout.Options{}, hooks)
	if err != nil || !res.Answer.Accepted() || len(srv.Created()) != 1 {
		t.Fatalf("run: %+v, %v", res, err)
	}
	if want := []payout.Stage{payout.StageValidate, payout.StageCheck, payout.StageReserve, payout.StageSend, payout.StageRecord}; !slices.Equal(stages, want) {
		t.Fatalf("stages %v, want %v", stages, want)
	}
	if at := attempts(); len(at) != 1 || at[0].Outcome != payout.OutcomeAccepted || at[0].Source != payout.SourceHub {
		t.Fatalf("record: %+v", at)
	}

	again := payout.TestRequest()
	again.TransactionID = "0c0c0c0c-1111-4222-8333-444444444444"
	big := payout.TestRequest()
	big.TransactionID, big.BeneficiaryReference, big.AmountInMinor = "0d0d0d0d-1111-4222-8333-444444444444", "INV-BIG", 1<<40
	bad := payout.TestRequest()
	bad.TransactionID, bad.BeneficiaryIBAN = "0e0e0e0e-1111-4222-8333-444444444444", "GB00BAD"
	for _, c := range []struct {
		req   *api.PayoutRequest
		class string
	}{{again, payout.ClassDuplicate}, {big, payout.ClassFunds}, {bad, payout.ClassInvalid}} {
		if _, err := pl.Run(ctx, c.req, payout.Options{}, payout.Hooks{}); payout.ErrorClass(err) != c.class {
			t.Errorf("%s: class %q (%v), want %q", c.req.TransactionID, payout.ErrorClass(err), err, c.class)
		}
	}
	if n := len(srv.Received()); n != 1 {
		t.Fatalf("%d sends, want the first only", n)
	}
}
