package ui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/paydash/paydash/api"
)

func TestPayoutFormSendsOnce(t *testing.T) {
	fb := newFake(10)
	h := newHarness(t, Options{Backend: fb}, 120, 40)
	fillPayout(h, "Ada Lovelace", "DE75 5121 0800 1245 1261 99", "INV-1", "1,234.56")
	mustContain(t, h.view(), "Send this payout?", "€1,234.56", "Ada Lovelace")
	// y submits; more keys pressed before the program reacts must not
	// send again.
	h.keysNoSettle("y", "y", "enter", "enter")
	if n := fb.payoutCount(); n != 1 {
		t.Fatalf("double submit sent %d payouts, want 1", n)
	}
	req := fb.payouts[0]
	if req.AmountInMinor != 123456 || req.Currency != "EUR" || req.BeneficiaryIBAN != "DE75512108001245126199" ||
		req.BeneficiaryName != "Ada Lovelace" || req.BeneficiaryReference != "INV-1" || req.ContextCode != api.ContextCodeWithdrawal {
		t.Errorf("sent %+v", req)
	}
	if req.TransactionID != h.m.payout.key {
		t.Errorf("transaction_id %s is not the form's %s", req.TransactionID, h.m.payout.key)
	}
	mustContain(t, h.view(), "Payout accepted", req.TransactionID)
	// After sending, the payout is in the tracker.
	if p := h.m.tracker.byID[req.TransactionID]; p == nil || !p.mine || p.state != stateSent {
		t.Fatalf("tracker has %+v for the sent payout", p)
	}
	h.key("enter")
	h.key("y")
	if n := fb.payoutCount(); n != 1 {
		t.Errorf("keys after success sent again: %d", n)
	}
}

func TestPayoutFormInFlightIgnoresSubmit(t *testing.T) {
	fb := newFake(10)
	h := newHarness(t, Options{Backend: fb}, 120, 40)
	h.holdSent = true // the answer stays "in flight"
	fillPayout(h, "Ada Lovelace", "DE75512108001245126199", "INV-1", "10")
	h.key("y")
	if h.m.payout.phase != phaseSending {
		t.Fatalf("phase %v, want sending", h.m.payout.phase)
	}
	mustContain(t, h.view(), "Sending…")
	for _, k := range []string{"enter", "y", "enter"} {
		h.key(k)
	}
	if n := fb.payoutCount(); n != 1 {
		t.Fatalf("submitting while in flight sent %d payouts, want 1", n)
	}
	h.releaseHeld()
	if h.m.payout.phase != phaseDone {
		t.Fatalf("phase %v after the answer, want done", h.m.payout.phase)
	}
}

// A timeout may or may not have created the payout: the retry must use
// the same transaction_id so the service can never pay twice.
func TestPayoutRetryReusesTransactionID(t *testing.T) {
	fb := newFake(10)
	fb.payoutErrs = []error{fmt.Errorf("create payout: %w", context.DeadlineExceeded)}
	h := newHarness(t, Options{Backend: fb}, 120, 40)
	fillPayout(h, "Ada Lovelace", "DE75512108001245126199", "INV-1", "10")
	h.key("y")
	if h.m.payout.phase != phaseFailed {
		t.Fatalf("phase %v, want failed", h.m.payout.phase)
	}
	mustContain(t, h.view(), "may or may not have reached the service", "timed out")
	h.key("enter") // retry
	if n := fb.payoutCount(); n != 2 {
		t.Fatalf("retry: %d calls, want 2", n)
	}
	if fb.payouts[0].TransactionID != fb.payouts[1].TransactionID {
		t.Errorf("retry used a new transaction_id: %s then %s", fb.payouts[0].TransactionID, fb.payouts[1].TransactionID)
	}
	if h.m.payout.phase != phaseDone {
		t.Errorf("phase %v after a successful retry", h.m.payout.phase)
	}
	// Edit after an ambiguous failure keeps the id too.
	first := h.m.payout.key
	h.key("n")
	if h.m.payout.key == first {
		t.Error("a new form kept the old transaction_id")
	}
}

func TestPayoutRejectedByServiceShowsProblem(t *testing.T) {
	fb := newFake(10)
	fb.payoutErrs = []error{&api.Error{StatusCode: 422, Method: "POST", URL: "https://payouts.example/v1/payouts", TraceID: "trace-42",
		Problem: &api.ProblemDetails{Title: "Invalid payout", Detail: "The beneficiary IBAN is on a blocked list.",
			Errors: map[string][]string{"beneficiary_iban": {"is blocked"}}}}}
	h := newHarness(t, Options{Backend: fb}, 120, 40)
	fillPayout(h, "Ada Lovelace", "DE75512108001245126199", "INV-1", "10")
	h.key("y")
	mustContain(t, h.view(), "Invalid payout (HTTP 422)", "blocked list", "Beneficiary IBAN: is blocked", "trace id trace-42", "nothing was created")
	first := h.m.payout.key
	h.key("e") // a definite rejection: the edited payout is a new one
	if h.m.payout.key == first || h.m.payout.phase != phaseEdit {
		t.Errorf("edit after a 422: key %s (was %s), phase %v", h.m.payout.key, first, h.m.payout.phase)
	}
	if h.m.payout.spec.(*payoutForm).name != "Ada Lovelace" {
		t.Error("edit lost the values")
	}
}

func TestPayoutFormValidation(t *testing.T) {
	h := newHarness(t, Options{Backend: newFake(10)}, 120, 40)
	h.key("5")
	h.key("enter")
	h.typeText("Ada")
	h.key("enter")
	h.typeText("GB00BUKB20201555555555") // bad checksum
	mustContain(t, h.view(), "✗")
	h.key("enter")
	if f := h.m.payout.form.GetFocusedField(); f.GetKey() != "iban" {
		t.Fatalf("an invalid IBAN let the form move on to %s", f.GetKey())
	}
	for range len("GB00BUKB20201555555555") {
		h.key("backspace")
	}
	h.typeText("DE75512108001245126199")
	mustContain(t, h.view(), "✓ valid IBAN")
	h.key("enter")
	h.typeText("REF")
	h.key("enter")
	h.typeText("12.345") // too many decimals for EUR
	mustContain(t, h.view(), "✗")
	h.key("enter")
	if f := h.m.payout.form.GetFocusedField(); f.GetKey() != "amount" {
		t.Fatalf("a bad amount let the form move on to %s", f.GetKey())
	}
}

func TestPayoutOverdrawWarns(t *testing.T) {
	h := newHarness(t, Options{Backend: newFake(10)}, 120, 40)
	fillPayout(h, "Ada", "DE75512108001245126199", "R", "9,000") // EUR available 7,500.50
	mustContain(t, h.view(), "more than the available €7,500.50")
}

func TestProductionRetypesAmount(t *testing.T) {
	fb := newFake(10)
	h := newHarness(t, Options{Backend: fb, Production: true, Profile: "live"}, 120, 40)
	fillPayout(h, "Ada", "DE75512108001245126199", "R", "10.00")
	mustContain(t, h.view(), "PRODUCTION: re-type the amount")
	h.typeText("100")
	h.key("enter")
	mustContain(t, h.view(), "does not match the amount €10.00")
	for range 3 {
		h.key("backspace")
	}
	h.typeText("10")
	h.key("enter")
	h.key("y")
	if n := fb.payoutCount(); n != 1 || fb.payouts[0].AmountInMinor != 1000 {
		t.Fatalf("after re-typing: %d payouts %+v", n, fb.payouts)
	}
}

func TestBackToEditKeepsValues(t *testing.T) {
	fb := newFake(10)
	h := newHarness(t, Options{Backend: fb}, 120, 40)
	fillPayout(h, "Ada", "DE75512108001245126199", "R", "10")
	key := h.m.payout.key
	h.key("n") // Back to edit
	if fb.payoutCount() != 0 || h.m.payout.phase != phaseEdit {
		t.Fatal("Back to edit sent or left the form")
	}
	if p := h.m.payout.spec.(*payoutForm); p.name != "Ada" || p.amountText != "10" || h.m.payout.key != key {
		t.Errorf("values or key lost: %+v key %s", p, h.m.payout.key)
	}
}

func TestQuitAsksWhenFormUnsent(t *testing.T) {
	h := newHarness(t, Options{Backend: newFake(10)}, 120, 40)
	h.key("q")
	if !h.quit() {
		t.Fatal("q with nothing unsent did not quit")
	}
	h = newHarness(t, Options{Backend: newFake(10)}, 120, 40)
	h.key("5")
	h.key("enter")
	h.typeText("Ada q") // q is text in a form
	if h.quit() {
		t.Fatal("typing q in a form quit")
	}
	h.key("alt+1")
	h.key("q")
	if h.quit() {
		t.Fatal("quit without asking about the unsent payout")
	}
	mustContain(t, h.view(), "Unsent input in: New payout")
	h.key("n")
	if h.m.quitAsk || h.quit() {
		t.Fatal("n did not cancel quitting")
	}
	h.key("ctrl+c")
	h.key("y")
	if !h.quit() {
		t.Fatal("y did not quit")
	}
}

func TestCommandLine(t *testing.T) {
	h := newHarness(t, Options{Backend: newFake(10)}, 120, 40)
	for cmd, want := range map[string]tab{"payouts": tabPayouts, "transactions": tabTransactions, "events": tabEvents,
		"payout": tabPayout, "payment": tabPayment, "mandate": tabMandate, "balances": tabBalances} {
		h.key("alt+1")
		h.key(":")
		h.typeText(cmd)
		h.key("enter")
		if h.m.tab != want {
			t.Errorf(":%s opened tab %d, want %d", cmd, h.m.tab, want)
		}
	}
	h.key("alt+1")
	h.key(":")
	h.typeText("nope")
	h.key("enter")
	mustContain(t, h.view(), "unknown command :nope")
}

func fillPayment(h *harness, sortCode string) {
	fillPaymentUntilUser(h, sortCode)
	h.typeText("Ada Lovelace")
	h.key("enter")
	h.typeText("ada@example.com")
	h.key("enter")
	h.key("enter") // phone
	h.key("enter") // date of birth
	h.key("enter") // user id
	h.typeText("order=42")
	h.key("enter")
	h.key("enter") // related products
}

// fillPaymentUntilUser fills the payment form up to the user's name.
func fillPaymentUntilUser(h *harness, sortCode string) {
	h.key("6")
	h.typeText("12.34")
	h.key("enter")
	h.key("enter") // GBP
	h.key("enter") // external_account
	h.typeText("Ada Lovelace")
	h.key("enter")
	h.typeText("INV-9")
	h.key("enter")
	h.key("enter") // sort code and account number
	h.typeText(sortCode)
	h.key("enter")
	h.typeText("12345678")
	h.key("enter")
	h.key("enter") // user_selected
	h.key("enter") // no scheme selection
	h.key("enter") // remitter fee unset
	h.typeText("gb")
	h.key("enter")
	h.key("enter") // release channel
	h.typeText("retail")
	h.key("enter")
}

// TestShiftTabOnAPageWithAnErrorKeepsTheFocus: shift+tab on a page's
// first field while the page shows an error stays on that field (huh
// refuses to go back a page then, and used to leave no field focused:
// every key was lost until the form was discarded).
func TestShiftTabOnAPageWithAnErrorKeepsTheFocus(t *testing.T) {
	h := newHarness(t, Options{Backend: newFake(10)}, 120, 40)
	fillPaymentUntilUser(h, "040004")
	h.key("enter") // no name: on to the email
	h.typeText("bad")
	h.key("enter") // not an email: stays, with the error
	h.key("shift+tab")
	h.key("shift+tab") // on the page's first field, with errors shown
	mustContain(t, h.view(), "┃ Name ")
	h.typeText("Ada Lovelace")
	mustContain(t, h.view(), "┃ Name             > Ada Lovelace")
	h.key("enter")
	h.key("ctrl+u")
	h.typeText("ada@example.com")
	h.key("enter")
	if f := h.m.payment.form.GetFocusedField(); f == nil || f.GetKey() != "user_phone" {
		t.Fatalf("after fixing both fields the form is on %v, want the phone", f)
	}
}

func TestPaymentForm(t *testing.T) {
	fb := newFake(10)
	h := newHarness(t, Options{Backend: fb}, 120, 40)
	fillPayment(h, "040004")
	mustContain(t, h.view(), "Send this payment?", "£12.34")
	h.keysNoSettle("y", "enter")
	if len(fb.payments) != 1 {
		t.Fatalf("%d payments sent, want 1", len(fb.payments))
	}
	req := fb.paymentReqs[0]
	if fb.payments[0] != h.m.payment.key {
		t.Errorf("Idempotency-Key %s is not the form's %s", fb.payments[0], h.m.payment.key)
	}
	ben := req.PaymentMethod.Beneficiary
	ps := req.PaymentMethod.ProviderSelection
	if req.AmountInMinor != 1234 || req.Currency != "GBP" || req.PaymentMethod.Type != api.PaymentMethodBankTransfer ||
		ben.Type != api.BeneficiaryExternalAccount || ben.AccountIdentifier.SortCode != "040004" || ben.Reference != "INV-9" ||
		ps.Type != api.ProviderUserSelected || ps.Filter == nil || ps.Filter.Countries[0] != "GB" || ps.Filter.CustomerSegments[0] != "retail" ||
		req.User.Email != "ada@example.com" || req.Metadata["order"] != "42" {
		t.Errorf("sent %+v", req)
	}
	mustContain(t, h.view(), "Payment created", "pay_1", "authorization_required", "rt_xxxx", "in 15:00")
	// The resource token counts down on the clock.
	h.advance(14*time.Minute + 30*time.Second)
	mustContain(t, h.view(), "in 0:30")
	h.advance(90 * time.Second)
	mustContain(t, h.view(), "expired")
}

func TestPaymentFieldErrorsShowAtTheField(t *testing.T) {
	h := newHarness(t, Options{Backend: newFake(10)}, 120, 40)
	fillPaymentUntilSortCode(h)
	h.typeText("12-34") // not six digits
	h.key("enter")
	if f := h.m.payment.form.GetFocusedField(); f.GetKey() != "ben_sort_code" {
		t.Fatalf("bad sort code let the form move to %s", f.GetKey())
	}
	mustContain(t, h.view(), "6 digits")
}

func fillPaymentUntilSortCode(h *harness) {
	h.key("6")
	h.typeText("1")
	h.key("enter")
	h.key("enter")
	h.key("enter")
	h.typeText("Ada")
	h.key("enter")
	h.key("enter")
	h.key("enter")
}

func TestPaymentServiceError(t *testing.T) {
	fb := newFake(10)
	fb.paymentErr = &api.Error{StatusCode: 400, TraceID: "tr-9", Problem: &api.ProblemDetails{Title: "Validation failed",
		Detail: "The request is invalid.", Errors: map[string][]string{"user.email": {"is not deliverable"}}}}
	h := newHarness(t, Options{Backend: fb}, 120, 40)
	fillPayment(h, "040004")
	h.key("y")
	mustContain(t, h.view(), "Validation failed (HTTP 400)", "The request is invalid.", "Email: is not deliverable", "trace id tr-9")
}

func TestMandateForm(t *testing.T) {
	fb := newFake(10)
	h := newHarness(t, Options{Backend: fb}, 120, 40)
	h.key("7")
	f := h.m.mandate.spec.(*mandateForm)
	// The mandate form is long; fill its values and check the request and
	// how problems map to fields, then send through the confirmation.
	f.ben = benFields{typ: api.BeneficiaryExternalAccount, idType: api.AccountIdentifierIBAN, holderName: "Ada", iban: "GB33BUKB20201555555555"}
	f.user = userFields{name: "Ada", email: "ada@example.com"}
	f.validFrom, f.validTo, f.maxIndividual = "2025-04-01", "2026-04-01", "100"
	f.limits[3] = limitFields{amount: "50", alignment: api.AlignmentCalendar} // month below the per-payment maximum
	ps := f.problems(h.m.c(), "")
	err := problemsAt(ps, "constraints.periodic_limits.month", f.paths())
	if err == nil || !strings.Contains(err.Error(), "at least") {
		t.Fatalf("month limit below the maximum: field error %v (all: %v)", err, ps)
	}
	f.limits[3].amount = "500"
	f.limits[5] = limitFields{amount: "5,000", alignment: api.AlignmentConsent}
	if ps := f.problems(h.m.c(), ""); len(ps) != 0 {
		t.Fatalf("valid mandate has problems: %v", ps)
	}
	req, _ := f.request()
	pl := req.Constraints.PeriodicLimits
	if req.Constraints.ValidFrom != "2025-04-01T00:00:00.000Z" || req.Constraints.MaximumIndividualAmount != 10000 ||
		pl.Month.MaximumAmount != 50000 || pl.Month.PeriodAlignment != api.AlignmentCalendar || pl.Year.MaximumAmount != 500000 || pl.Day != nil {
		t.Errorf("request %+v limits %+v", req.Constraints, pl)
	}
	h.run(h.m.mandate.startSend(h.m.c()))
	if len(fb.mandates) != 1 || fb.mandates[0] != h.m.mandate.key {
		t.Fatalf("mandates sent %v, want one with the form's key", fb.mandates)
	}
	mustContain(t, h.view(), "Mandate created", "mandate_1", "mt_token", "in 15:00")
}

func TestProblemOwner(t *testing.T) {
	paths := []string{"user", "user.email", "metadata", "payment_method.provider_selection.filter.countries", "constraints.periodic_limits.day"}
	tests := map[string]string{
		"user":          "user",
		"user.name":     "user",
		"user.email":    "user.email",
		"metadata.key1": "metadata",
		"payment_method.provider_selection.filter.countries[1]": "payment_method.provider_selection.filter.countries",
		"constraints.periodic_limits.day.maximum_amount":        "constraints.periodic_limits.day",
		"payment_method.type":                                   "",
		"username":                                              "",
	}
	for field, want := range tests {
		if got := owner(field, paths); got != want {
			t.Errorf("owner(%q) = %q, want %q", field, got, want)
		}
	}
}

func TestDefiniteRejection(t *testing.T) {
	tests := []struct {
		err  error
		want bool
	}{
		{&api.Error{StatusCode: 400}, true},
		{fmt.Errorf("wrapped: %w", &api.Error{StatusCode: 422}), true},
		{&api.Error{StatusCode: 409}, false},
		{&api.Error{StatusCode: 429}, false},
		{&api.Error{StatusCode: 503}, false},
		{context.DeadlineExceeded, false},
		{errors.New("connection reset"), false},
	}
	for _, tc := range tests {
		if got := definiteRejection(tc.err); got != tc.want {
			t.Errorf("definiteRejection(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}

// Keys that arrive together (fast typing, a script) act one by one.
func TestMultiRuneKeyMessageIsSplit(t *testing.T) {
	h := newHarness(t, Options{Backend: newFake(200)}, 120, 40)
	h.key("2")
	h.send(keyMsg("/hopper"))
	if got := h.m.tx.filter.value(); got != "hopper" || !h.m.tx.filter.active {
		t.Fatalf("filter %q (active %v) after \"/hopper\" in one message", got, h.m.tx.filter.active)
	}
	h.key("enter")
	h.send(keyMsg("3q"))
	if h.m.tab != tabPayouts || !h.quit() {
		t.Errorf("\"3q\": tab %d, quit %v", h.m.tab, h.quit())
	}
}

// In a form every key is the form's: digits never switch views, not even
// from a choice list or the confirmation (a UUID typed into a select used
// to jump between views). esc on a choice or in a text field (as the
// footer offers) goes back to where the user came from, keeping the
// input; alt+1-7 switches from anywhere.
func TestDigitsInForms(t *testing.T) {
	cases := []struct {
		name string
		keys []string
		want tab
	}{
		{"choice list", []string{"2", "5", "1"}, tabPayout},
		{"text field", []string{"5", "enter", "1"}, tabPayout},
		{"filtering a choice list", []string{"5", "/", "1"}, tabPayout},
		{"confirmation", nil, tabPayout},
		{"esc on a choice", []string{"2", "5", "esc"}, tabTransactions},
		{"esc in a text field", []string{"2", "5", "enter", "A", "esc"}, tabTransactions},
		{"alt+digit", []string{"5", "enter", "alt+4"}, tabEvents},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, Options{Backend: newFake(10)}, 120, 40)
			keys := c.keys
			if keys == nil {
				fillPayout(h, "Ada", "DE75512108001245126199", "R", "10")
				keys = []string{"2"}
			}
			for _, k := range keys {
				h.key(k)
			}
			if h.m.tab != c.want {
				t.Errorf("on tab %s, want %s", tabNames[h.m.tab], tabNames[c.want])
			}
		})
	}
}

// An answer lost after the service created the payment, then an edit with
// the same key (as "e edits (same key)" offers): the service refuses the
// edited request as a reused key. The screen must not call that "nothing
// was created" nor offer to retry as is; it warns that the earlier payment
// may exist and that a fresh key sends a second one. Each piece of advice
// is followed: enter sends nothing; e takes a fresh key; n starts over.
func TestReusedKeyAfterALostAnswerWarnsOfTheEarlierPayment(t *testing.T) {
	h, fb, key := editAfterALostAnswer(t)
	v := h.view()
	mustContain(t, v, "Idempotency-Key reused (HTTP 422)", "may exist", "a fresh Idempotency-Key sends a second payment", "e edits (a fresh Idempotency-Key), n starts over")
	if strings.Contains(v, "enter retries") || strings.Contains(v, "nothing was created") {
		t.Errorf("a reused key offered a retry or claimed nothing exists:\n%s", v)
	}
	h.key("enter") // not offered: must send nothing
	if len(fb.payments) != 2 || h.m.payment.phase != phaseFailed {
		t.Fatalf("enter after a reused key: %d sends, phase %v", len(fb.payments), h.m.payment.phase)
	}
	h.key("n") // starts over: nothing sent, a fresh key
	if len(fb.payments) != 2 || h.m.payment.key == key || h.m.payment.phase != phaseEdit {
		t.Fatalf("n after a reused key: %d sends, key %s, phase %v", len(fb.payments), h.m.payment.key, h.m.payment.phase)
	}
	if fb.paymentsCreated != 1 {
		t.Errorf("the service holds %d payments, want the first one only", fb.paymentsCreated)
	}
}

// The same, following e: the edited payment goes out under a fresh key, as
// the warning said, and is the only one created besides the first.
func TestReusedKeyEditSendsTheEditedPaymentUnderAFreshKey(t *testing.T) {
	h, fb, key := editAfterALostAnswer(t)
	mustContain(t, h.view(), "may exist")
	h.key("e") // a fresh key
	if h.m.payment.key == key {
		t.Fatal("e after a reused key kept the key")
	}
	h.key("y")
	if h.m.payment.phase != phaseDone || fb.paymentsCreated != 2 || len(fb.payments) != 3 {
		t.Fatalf("phase %v, %d created, %d sends", h.m.payment.phase, fb.paymentsCreated, len(fb.payments))
	}
	if got := fb.paymentReqs[2].Metadata["order"]; got != "427" {
		t.Errorf("the payment sent under the fresh key is not the edited one: metadata %v", fb.paymentReqs[2].Metadata)
	}
}

// editAfterALostAnswer sends a payment whose answer is lost after the
// service created it, follows "e edits (same key)", changes the metadata
// (order=427) and sends again: the service answers that the key was
// reused. It returns the form's key of the first attempt.
func editAfterALostAnswer(t *testing.T) (*harness, *fakeBackend, string) {
	t.Helper()
	fb := newFake(10)
	fb.paymentKeys, fb.paymentLoseAnswers = map[string]string{}, 1
	h := newHarness(t, Options{Backend: fb}, 120, 40)
	fillPayment(h, "040004")
	h.key("y")
	mustContain(t, h.view(), "may or may not have reached the service", "e edits (same key")
	key := h.m.payment.key
	h.key("e") // same key, back at the confirmation
	h.key("shift+tab")
	h.key("shift+tab") // metadata
	h.typeText("7")    // order=427
	h.key("enter")
	h.key("enter")
	h.key("y")
	if h.m.payment.key != key || len(fb.payments) != 2 {
		t.Fatalf("edit after a lost answer: key %s (was %s), %d sends", h.m.payment.key, key, len(fb.payments))
	}
	return h, fb, key
}

// TestUserPageSaysAnEmailOrPhoneIsNeeded: a user with a name but neither
// an email nor a phone is stopped on the user page, where the rule is
// stated, not at the confirmation pages later.
func TestUserPageSaysAnEmailOrPhoneIsNeeded(t *testing.T) {
	h := newHarness(t, Options{Backend: newFake(10)}, 120, 40)
	fillPaymentUntilUser(h, "040004")
	h.typeText("Ada Lovelace")
	for range 5 { // name, then email, phone, date of birth, user id: all left empty
		h.key("enter")
	}
	if f := h.m.payment.form.GetFocusedField(); f == nil || f.GetKey() != "user_id" {
		t.Fatalf("the form left the user page for %s", f.GetKey())
	}
	v := h.view()
	mustContain(t, v, "User: needs an email or a phone number")
	if strings.Contains(v, "the User's") {
		t.Errorf("a message was rewritten with the field's title:\n%s", v)
	}
	h.key("shift+tab")
	h.key("shift+tab")
	h.key("shift+tab")
	h.typeText("ada@example.com")
	for range 4 {
		h.key("enter")
	}
	if f := h.m.payment.form.GetFocusedField(); f == nil || strings.HasPrefix(f.GetKey(), "user_") {
		t.Fatalf("with an email the form is still on %v", f.GetKey())
	}
}

// TestWrittenFormsOfSortCodeAndPhoneAreTaken: a sort code and a phone
// number as people write them ("04-00-04", "+44 7700 900123") are sent in
// the form the service takes, not refused.
func TestWrittenFormsOfSortCodeAndPhoneAreTaken(t *testing.T) {
	fb := newFake(10)
	h := newHarness(t, Options{Backend: fb}, 120, 40)
	fillPaymentUntilUser(h, "04-00-04")
	h.typeText("Ada Lovelace")
	h.key("enter")
	h.key("enter") // no email
	h.typeText("+44 7700 900123")
	for range 5 { // phone, date of birth, user id, metadata, related products
		h.key("enter")
	}
	mustContain(t, h.view(), "Send this payment?")
	h.keysNoSettle("y", "enter")
	if len(fb.paymentReqs) != 1 {
		t.Fatalf("%d payments sent, want 1:\n%s", len(fb.paymentReqs), h.view())
	}
	req := fb.paymentReqs[0]
	if sc := req.PaymentMethod.Beneficiary.AccountIdentifier.SortCode; sc != "040004" {
		t.Errorf("sort code sent as %q, want 040004", sc)
	}
	if req.User == nil || req.User.Phone != "+447700900123" {
		t.Errorf("user sent as %+v, want the phone +447700900123", req.User)
	}
}

// TestUserPageSaysTheNameIsRequired: a name left blank before the email
// is typed is not "required" yet when its field is left; the page's last
// field checks the page again, so the form stays on the user page.
func TestUserPageSaysTheNameIsRequired(t *testing.T) {
	h := newHarness(t, Options{Backend: newFake(10)}, 120, 40)
	fillPaymentUntilUser(h, "040004")
	h.key("enter") // no name
	h.typeText("ada@example.com")
	for range 4 { // email, phone, date of birth, user id
		h.key("enter")
	}
	if f := h.m.payment.form.GetFocusedField(); f == nil || f.GetKey() != "user_id" {
		t.Fatalf("the form left the user page for %s", f.GetKey())
	}
	mustContain(t, h.view(), "Name: is required")
}

// On a production profile a mandate is confirmed by re-typing its
// largest single payment (the form had nothing to compare with, so its
// confirmation could never pass); a wrong figure says what is wanted.
func TestProductionMandateRetypesItsLargestPayment(t *testing.T) {
	h := newHarness(t, Options{Backend: newFake(10), Production: true, Profile: "live"}, 120, 40)
	h.key("7")
	f := h.m.mandate.spec.(*mandateForm)
	f.maxIndividual = "250"
	c := h.m.c()
	if err := h.m.mandate.checkRetype(c, "250.00"); err != nil {
		t.Fatalf("the largest single payment re-typed: %v", err)
	}
	err := h.m.mandate.checkRetype(c, "25")
	if err == nil || !strings.Contains(err.Error(), "£250.00") {
		t.Fatalf("a wrong figure: %v, want it to name £250.00", err)
	}
}
