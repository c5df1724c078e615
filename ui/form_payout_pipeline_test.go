package ui

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/payout"
	"github.com/paydash/paydash/internal/payout/payouttest"
)

// These tests send from the form through the payout pipeline to a real
// loopback service whose answers are scripted: the same answers that
// payout create (internal/cli/headless) and the batch
// (internal/cli/batch) are shown to meet with the same outcome, audit
// record and advice.

// flat is the screen as one line of words: advice wraps at any width.
func flat(s string) string { return strings.Join(strings.Fields(ansi.Strip(s)), " ") }

// capitalised is an advice as a sentence on screen.
func capitalised(s string) string { return strings.ToUpper(s[:1]) + s[1:] }

func pipelineHarness(t *testing.T, be Backend) (*harness, *payout.Log) {
	t.Helper()
	log, err := payout.Open(filepath.Join(t.TempDir(), "audit.jsonl"), "demo", nil)
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, Options{Backend: be, Guard: &payout.Pipeline{Log: log, Source: payout.SourceForm},
		Events: closedEvents(nil), States: liveState()}, 120, 40)
	return h, log
}

func attempts(t *testing.T, log *payout.Log) []payout.Attempt {
	t.Helper()
	entries, err := log.Entries()
	if err != nil {
		t.Fatal(err)
	}
	return payout.Attempts(entries)
}

func focused(h *harness) string {
	if h.m.payout.form == nil || h.m.payout.form.GetFocusedField() == nil {
		return ""
	}
	return h.m.payout.form.GetFocusedField().GetKey()
}

// TestFormRefusalThenCorrectedResendIsNotADuplicate: the service refuses
// the payout (409, problem account_disabled). The form says it was
// refused and nothing was created, never "may or may not have reached
// the service"; the record holds it refused; e goes to the source
// account. Sent again once the account is enabled, the corrected payout
// goes under a fresh id with no duplicate warning, and is the only one
// created.
func TestFormRefusalThenCorrectedResendIsNotADuplicate(t *testing.T) {
	srv := payouttest.Start(t, payouttest.AccountDisabled)
	h, log := pipelineHarness(t, srv.Client(t))
	fillPayout(h, "Ada Lovelace", "GB33 BUKB 2020 1555 5555 55", "INV-9", "12.34")
	h.key("y")
	screen := flat(h.view())
	if !strings.Contains(screen, capitalised(payout.AdviceRefused)) || strings.Contains(screen, "may or may not") {
		t.Fatalf("a refusal is not advised as one:\n%s", ansi.Strip(h.view()))
	}
	at := attempts(t, log)
	if len(at) != 1 || at[0].Outcome != payout.OutcomeRefused || !strings.Contains(at[0].Detail, "409") {
		t.Fatalf("audit record after the refusal: %+v", at)
	}
	first := at[0].TransactionID
	h.key("e")
	if f := focused(h); f != "source" {
		t.Fatalf("e went to %q, want the source account (the account at fault)", f)
	}
	for range 6 { // source, name, IBAN, reference, amount, context code
		h.key("enter")
	}
	h.key("y")
	screen = flat(h.view())
	if strings.Contains(screen, "Possible duplicate") || !strings.Contains(screen, "Payout accepted (202)") {
		t.Fatalf("the corrected re-send was not sent plainly:\n%s", ansi.Strip(h.view()))
	}
	created := srv.Created()
	if len(created) != 1 || created[0].TransactionID == first || created[0].AmountInMinor != 1234 {
		t.Fatalf("created %+v; the refused one was %s", created, first)
	}
	if at := attempts(t, log); len(at) != 2 || at[1].Outcome != payout.OutcomeAccepted || at[1].AllowedDuplicate {
		t.Errorf("audit record after the re-send: %+v", at)
	}
}

// TestFormUnknownAnswerIsHeldAsAPossiblePayout: a 503 leaves the payout
// unknown; the form says so in the pipeline's words, the record holds it
// unknown, and a new form with the same details is held as a possible
// duplicate of it, nothing sent.
func TestFormUnknownAnswerIsHeldAsAPossiblePayout(t *testing.T) {
	srv := payouttest.Start(t, payouttest.Unavailable)
	h, log := pipelineHarness(t, srv.Client(t))
	fillPayout(h, "Ada Lovelace", "GB33 BUKB 2020 1555 5555 55", "INV-10", "12.34")
	h.key("y")
	if screen := flat(h.view()); !strings.Contains(screen, capitalised(payout.AdviceUnknown)) {
		t.Fatalf("an unknown answer is not advised as one:\n%s", ansi.Strip(h.view()))
	}
	if at := attempts(t, log); len(at) != 1 || at[0].Outcome != payout.OutcomeUnknown || !strings.Contains(at[0].Detail, "503") {
		t.Fatalf("audit record after the 503: %+v", at)
	}
	h.key("n")
	fillPayout(h, "Ada Lovelace", "GB33 BUKB 2020 1555 5555 55", "INV-10", "12.34")
	h.key("y")
	if screen := flat(h.view()); !strings.Contains(screen, "Possible duplicate: nothing was sent") {
		t.Fatalf("a payout like the unknown one was not held:\n%s", ansi.Strip(h.view()))
	}
	if n := len(srv.Received()); n != 1 {
		t.Fatalf("%d sends, want the first only", n)
	}
}

// TestConfirmScreenWarnsOfADisabledOrUnfundedAccount: before the
// operator confirms, the confirmation says what payout create would
// refuse (a disabled account, an amount above the available balance);
// confirmed anyway, nothing is sent, the screen says so, and e goes to
// the field at fault: the source account, or the amount.
func TestConfirmScreenWarnsOfADisabledOrUnfundedAccount(t *testing.T) {
	for _, c := range []struct {
		name, amount, warn, field string
		disable                   bool
	}{
		{"disabled", "12.34", "payout account is disabled", "source", true},
		{"unfunded", "999999.00", "more than the available", "amount", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			fb := newFake(10)
			if c.disable {
				for i := range fb.balances {
					fb.balances[i].Status = api.AccountDisabled
				}
			}
			h, log := pipelineHarness(t, fb)
			fillPayout(h, "Ada Lovelace", "DE75 5121 0800 1245 1261 99", "INV-11", c.amount)
			if screen := flat(h.view()); !strings.Contains(screen, "Send this payout?") || !strings.Contains(screen, c.warn) {
				t.Fatalf("the confirmation does not warn %q:\n%s", c.warn, ansi.Strip(h.view()))
			}
			h.key("y")
			screen := flat(h.view())
			if fb.payoutCount() != 0 || !strings.Contains(screen, "Payout not sent") || !strings.Contains(screen, "Nothing was sent") {
				t.Fatalf("%d sent; screen:\n%s", fb.payoutCount(), ansi.Strip(h.view()))
			}
			if at := attempts(t, log); len(at) != 0 {
				t.Errorf("a payout stopped before sending was recorded: %+v", at)
			}
			h.key("e")
			if f := focused(h); f != c.field {
				t.Errorf("e went to %q, want %q", f, c.field)
			}
		})
	}
}

// TestFormEditAfterAnUnknownAnswerIsRefusedBeforeSending: after a 503
// the payout may exist under the form's transaction id, so e keeps the
// id; the edited payout (another amount) is then refused by the
// pipeline before sending, as an id already used for another payout
// (the service would answer 202 and create nothing). The screen warns
// that the earlier one may exist and offers no retry; nothing more is
// sent.
func TestFormEditAfterAnUnknownAnswerIsRefusedBeforeSending(t *testing.T) {
	srv := payouttest.Start(t, payouttest.Unavailable)
	h, _ := pipelineHarness(t, srv.Client(t))
	fillPayout(h, "Ada Lovelace", "GB33 BUKB 2020 1555 5555 55", "INV-12", "12.34")
	h.key("y")
	key := h.m.payout.key
	h.key("e")
	if h.m.payout.key != key {
		t.Fatal("e after an unknown answer took a fresh transaction id")
	}
	h.key("shift+tab") // context code
	h.key("shift+tab") // amount
	for range 6 {
		h.key("backspace")
	}
	h.typeText("43.21")
	h.key("enter")
	h.key("enter")
	h.key("y")
	screen := flat(h.view())
	if !strings.Contains(screen, "already used") || !strings.Contains(screen, "may exist") || strings.Contains(screen, "enter retries") {
		t.Fatalf("the edit under the same id:\n%s", ansi.Strip(h.view()))
	}
	h.key("enter")
	if n := len(srv.Received()); n != 1 {
		t.Fatalf("%d sends, want the first only", n)
	}
}
