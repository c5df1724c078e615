package headless

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/paydash/paydash/internal/cli/cmdutil"
	"github.com/paydash/paydash/internal/payout"
	"github.com/paydash/paydash/internal/payout/payouttest"
)

// These tests meet `payout create` with the scripted answers the form
// (ui/form_payout_pipeline_test.go) and the batch
// (internal/cli/batch/pipeline_test.go) meet: the same outcome, audit
// record and advice.

// flatText is s as one line of words.
func flatText(s string) string { return strings.Join(strings.Fields(s), " ") }

func pipelineCreate(t *testing.T, srv *payouttest.Server, log *payout.Log, ref string) (PayoutResult, error) {
	t.Helper()
	s, out, _ := testStreams("")
	o := PayoutOptions{Name: "Ada Lovelace", IBAN: "GB33BUKB20201555555555", Reference: ref, Amount: "12.34", Currency: "GBP",
		ContextCode: "withdrawal", Yes: true, JSON: true}
	err := CreatePayout(context.Background(), s, srv.Client(t), Target{Profile: "test", Audit: log}, &o)
	var res PayoutResult
	if out.Len() > 0 {
		if jerr := json.Unmarshal(out.Bytes(), &res); jerr != nil {
			t.Fatalf("--json printed %q: %v", out, jerr)
		}
	}
	return res, err
}

// TestCreateRefusalThenCorrectedResendIsNotADuplicate: a 409 whose
// problem says the account is disabled is a refusal: exit 3, the
// refusal's advice (never "may or may not"), class "refused" in --json,
// the record holds it refused. The same command again (the account
// enabled) sends it under a new id with no duplicate warning.
func TestCreateRefusalThenCorrectedResendIsNotADuplicate(t *testing.T) {
	srv := payouttest.Start(t, payouttest.AccountDisabled)
	log, attempts := payouttest.Audit(t)
	res, err := pipelineCreate(t, srv, log, "INV-9")
	if cmdutil.ExitCode(err) != cmdutil.ExitNotAccepted || !strings.Contains(flatText(err.Error()), payout.AdviceRefused) ||
		strings.Contains(err.Error(), "may or may not") || payout.ErrorClass(err) != payout.ClassRefused {
		t.Fatalf("exit %d, class %q: %v", cmdutil.ExitCode(err), payout.ErrorClass(err), err)
	}
	if res.Sent != payout.OutcomeRefused || res.HTTPStatus != 409 || res.Accepted {
		t.Errorf("--json: %+v", res)
	}
	at := attempts()
	if len(at) != 1 || at[0].Outcome != payout.OutcomeRefused || !strings.Contains(at[0].Detail, "409") {
		t.Fatalf("audit record after the refusal: %+v", at)
	}
	res, err = pipelineCreate(t, srv, log, "INV-9")
	if err != nil || !res.Accepted || len(res.DuplicateOf) != 0 {
		t.Fatalf("the corrected re-send: %+v, %v", res, err)
	}
	if c := srv.Created(); len(c) != 1 || c[0].TransactionID == at[0].TransactionID {
		t.Fatalf("created %+v; the refused one was %s", c, at[0].TransactionID)
	}
	if at := attempts(); len(at) != 2 || at[1].Outcome != payout.OutcomeAccepted || at[1].AllowedDuplicate {
		t.Errorf("audit record after the re-send: %+v", at)
	}
}

// TestCreateUnknownAnswerIsHeldAsAPossiblePayout: a 503 is unknown: the
// unknown advice and the same id to retry under; the record holds it
// unknown; the same payout under a new id is held as a duplicate.
func TestCreateUnknownAnswerIsHeldAsAPossiblePayout(t *testing.T) {
	srv := payouttest.Start(t, payouttest.Unavailable)
	log, attempts := payouttest.Audit(t)
	res, err := pipelineCreate(t, srv, log, "INV-10")
	if cmdutil.ExitCode(err) != cmdutil.ExitNotAccepted || !strings.Contains(flatText(err.Error()), payout.AdviceUnknown) ||
		!strings.Contains(err.Error(), "--transaction-id "+res.TransactionID) || payout.ErrorClass(err) != payout.ClassUnknown {
		t.Fatalf("exit %d, class %q: %v", cmdutil.ExitCode(err), payout.ErrorClass(err), err)
	}
	if at := attempts(); len(at) != 1 || at[0].Outcome != payout.OutcomeUnknown || !strings.Contains(at[0].Detail, "503") {
		t.Fatalf("audit record after the 503: %+v", at)
	}
	_, err = pipelineCreate(t, srv, log, "INV-10")
	if cmdutil.ExitCode(err) != cmdutil.ExitNotAccepted || !strings.Contains(err.Error(), "possible duplicate") || payout.ErrorClass(err) != payout.ClassDuplicate {
		t.Fatalf("a payout like the unknown one: exit %d: %v", cmdutil.ExitCode(err), err)
	}
	if n := len(srv.Received()); n != 1 {
		t.Fatalf("%d sends, want the first only", n)
	}
}
