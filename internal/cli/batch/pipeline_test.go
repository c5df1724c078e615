package batch

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/paydash/paydash/internal/payout"
	"github.com/paydash/paydash/internal/payout/batch"
	"github.com/paydash/paydash/internal/payout/payouttest"
)

// These tests meet the batch with the scripted answers the form
// (ui/form_payout_pipeline_test.go) and payout create
// (internal/cli/headless/payout_pipeline_test.go) meet: the same
// outcome, audit record and advice.

const pipelineRow = "name,iban,reference,amount,currency\nAda Lovelace,GB33BUKB20201555555555,%s,12.34,GBP\n"

func runPipelineBatch(t *testing.T, srv *payouttest.Server, log *payout.Log, ref string) (*batch.Summary, string, error) {
	t.Helper()
	f, err := batch.Load(writeFileIn(t, strings.Replace(pipelineRow, "%s", ref, 1)))
	if err != nil {
		t.Fatal(err)
	}
	c := srv.Client(t)
	sum, err := batch.Run(context.Background(), f, c, batch.Options{Guard: &batch.Guard{Log: log, Report: c, Window: payout.DefaultWindow}})
	var b strings.Builder
	if sum != nil {
		if werr := writeSummary(&b, sum); werr != nil {
			t.Fatal(werr)
		}
	}
	return sum, strings.Join(strings.Fields(b.String()), " "), err
}

// TestBatchRefusalThenCorrectedResendIsNotADuplicate: a 409 whose
// problem says the account is disabled is a refusal: the row is
// journalled refused with the refusal's advice (never "may or may not"),
// the record holds it refused. The row sent again in a new file, as the
// summary advises, goes under a new id with no duplicate warning.
func TestBatchRefusalThenCorrectedResendIsNotADuplicate(t *testing.T) {
	srv := payouttest.Start(t, payouttest.AccountDisabled)
	log, attempts := payouttest.Audit(t)
	sum, text, err := runPipelineBatch(t, srv, log, "INV-9")
	if err != nil {
		t.Fatal(err)
	}
	r := sum.Rows[0]
	if r.Sent != payout.OutcomeRefused || r.HTTPStatus != 409 || r.Result != batch.ResultRejected || r.Advice != payout.AdviceRefused ||
		!strings.Contains(text, payout.AdviceRefused) || strings.Contains(text, "may or may not") {
		t.Fatalf("row %+v\n%s", r, text)
	}
	at := attempts()
	if len(at) != 1 || at[0].Outcome != payout.OutcomeRefused || !strings.Contains(at[0].Detail, "409") {
		t.Fatalf("audit record after the refusal: %+v", at)
	}
	sum, text, err = runPipelineBatch(t, srv, log, "INV-9")
	if err != nil || sum.Rows[0].Result != batch.ResultAccepted || sum.Rows[0].DuplicateOf != nil || strings.Contains(text, "DUPLICATE") {
		t.Fatalf("the corrected re-send: %v\n%s", err, text)
	}
	if c := srv.Created(); len(c) != 1 || c[0].TransactionID == at[0].TransactionID {
		t.Fatalf("created %+v; the refused one was %s", c, at[0].TransactionID)
	}
	if at := attempts(); len(at) != 2 || at[1].Outcome != payout.OutcomeAccepted || at[1].AllowedDuplicate {
		t.Errorf("audit record after the re-send: %+v", at)
	}
}

// TestBatchUnknownAnswerIsHeldAsAPossiblePayout: a 503 is unknown: the
// run stops to be resumed under the same id, the row carries the unknown
// advice, the record holds it unknown; the same payout in a new file is
// held as a duplicate, nothing sent.
func TestBatchUnknownAnswerIsHeldAsAPossiblePayout(t *testing.T) {
	srv := payouttest.Start(t, payouttest.Unavailable)
	log, attempts := payouttest.Audit(t)
	sum, text, err := runPipelineBatch(t, srv, log, "INV-10")
	if !errors.Is(err, batch.ErrInterrupted) || !strings.Contains(err.Error(), "same transaction_id is re-sent") {
		t.Fatalf("run after a 503: %v", err)
	}
	if r := sum.Rows[0]; r.Sent != payout.OutcomeUnknown || r.Advice != payout.AdviceUnknown || !strings.Contains(text, payout.AdviceUnknown) {
		t.Fatalf("row %+v\n%s", r, text)
	}
	if at := attempts(); len(at) != 1 || at[0].Outcome != payout.OutcomeUnknown || !strings.Contains(at[0].Detail, "503") {
		t.Fatalf("audit record after the 503: %+v", at)
	}
	sum, _, err = runPipelineBatch(t, srv, log, "INV-10")
	if err != nil || sum.Rows[0].Result != batch.ResultDuplicate {
		t.Fatalf("a payout like the unknown one: %v, %+v", err, sum.Rows)
	}
	if n := len(srv.Received()); n != 1 {
		t.Fatalf("%d sends, want the first only", n)
	}
}
