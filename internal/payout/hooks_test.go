package payout_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/payout"
	"github.com/paydash/paydash/internal/payout/payouttest"
)

// unreadableReport is a service report that cannot be read: a check
// stage that reads it stops the payout.
type unreadableReport struct{}

func (unreadableReport) StreamTransactions(context.Context, api.TransactionQuery, func(api.Transaction) error) error {
	return errors.New("report down")
}

// TestRunTakesTheBatchsPlanAndJournalsBeforeRecording: what a batch
// relies on. With Hooks.Check, Run sends on the caller's check (a batch
// checked every row at once before the operator confirmed the list)
// rather than reading the report again; Hooks.Answered hears the
// classified answer after the send and before the record holds it, and
// its error stops Run with the answer unrecorded (a batch whose journal
// cannot be written stops there).
func TestRunTakesTheBatchsPlanAndJournalsBeforeRecording(t *testing.T) {
	srv := payouttest.Start(t)
	log, attempts := payouttest.Audit(t)
	pl := payout.New(srv.Client(t), log, payout.SourceBatch)
	pl.Report, pl.Balances = unreadableReport{}, nil
	ctx := context.Background()

	if _, err := pl.Run(ctx, payout.TestRequest(), payout.Options{}, payout.Hooks{}); err == nil || len(srv.Received()) != 0 {
		t.Fatalf("without Hooks.Check the report is read, and its failure stops the payout: %v", err)
	}

	var heard []payout.Answer
	hooks := payout.Hooks{
		Check: func(context.Context, *api.PayoutRequest, payout.Options) (*payout.Checked, error) {
			return &payout.Checked{}, nil
		},
		Answered: func(_ context.Context, a payout.Answer) error {
			if at := attempts(); len(at) != 1 || at[0].Outcome != "" {
				t.Errorf("when the answer is heard the record holds %+v, want the attempt alone", at)
			}
			heard = append(heard, a)
			return nil
		},
	}
	res, err := pl.Run(ctx, payout.TestRequest(), payout.Options{}, hooks)
	if err != nil || !res.Answer.Accepted() || len(srv.Created()) != 1 {
		t.Fatalf("run on the caller's check: %+v, %v", res, err)
	}
	if len(heard) != 1 || heard[0].Outcome != payout.OutcomeAccepted {
		t.Fatalf("Answered heard %+v", heard)
	}
	if at := attempts(); len(at) != 1 || at[0].Outcome != payout.OutcomeAccepted {
		t.Fatalf("record after the run: %+v", at)
	}

	journal := errors.New("journal full")
	hooks.Answered = func(context.Context, payout.Answer) error { return journal }
	next := payout.TestRequest()
	next.TransactionID, next.BeneficiaryReference = "0f0f0f0f-1111-4222-8333-444444444444", "INV-2"
	if _, err := pl.Run(ctx, next, payout.Options{}, hooks); !errors.Is(err, journal) {
		t.Fatalf("Answered's error: %v", err)
	}
	if at := attempts(); len(at) != 2 || at[1].TransactionID != next.TransactionID || at[1].Outcome != "" {
		t.Fatalf("record after Answered failed: %+v, want the second attempt without an outcome", at)
	}
}

// outcomeless is an audit record that takes attempts but cannot append
// an outcome (the disk filled between the two).
type outcomeless struct{ *payout.Log }

func (outcomeless) Outcome(string, string, string) error { return errors.New("disk full") }

// TestRunSaysWhenTheAnswerWasNotRecorded: the payout has left, so Run
// goes on, but the result carries why the record lacks its answer, and
// Notice hears it: a batch stops there rather than go on sending.
func TestRunSaysWhenTheAnswerWasNotRecorded(t *testing.T) {
	srv := payouttest.Start(t)
	log, _ := payouttest.Audit(t)
	pl := payout.New(srv.Client(t), nil, payout.SourceBatch)
	pl.Shared = outcomeless{log}
	var notices []string
	res, err := pl.Run(context.Background(), payout.TestRequest(), payout.Options{}, payout.Hooks{Notice: func(s string) { notices = append(notices, s) }})
	if err != nil || !res.Answer.Accepted() {
		t.Fatalf("run: %+v, %v", res, err)
	}
	if res.RecordErr == nil || !strings.Contains(res.RecordErr.Error(), "disk full") {
		t.Fatalf("RecordErr = %v", res.RecordErr)
	}
	if len(notices) != 1 || !strings.Contains(notices[0], "disk full") {
		t.Fatalf("notices %q", notices)
	}
}
