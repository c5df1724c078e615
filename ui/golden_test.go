package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/webhookrelay/relayclient"
)

// TestGolden renders every view at 200x50, 120x40 and 80x24 on a fixed clock with
// the ASCII colour profile. Update with: go test ./ui -run TestGolden -update
func TestGolden(t *testing.T) {
	sizes := []struct {
		name string
		w, h int
	}{{"200x50", 200, 50}, {"120x40", 120, 40}, {"80x24", 80, 24}}
	for _, sc := range append(append(goldenScenarios(), approvalsScenarios()...), ownScenarios()...) {
		for _, sz := range sizes {
			t.Run(sc.name+"/"+sz.name, func(t *testing.T) {
				out := sc.render(t, sz.w, sz.h)
				checkFrame(t, out, sz.w, sz.h)
				golden.RequireEqual(t, []byte(out))
			})
		}
	}
	t.Run("too_small", func(t *testing.T) {
		h := newHarness(t, Options{Backend: newFake(10)}, 50, 12)
		out := h.view()
		checkFrame(t, out, 50, 12)
		mustContain(t, out, "too small")
		golden.RequireEqual(t, []byte(out))
	})
}

// TestFrameFitsEverySize draws every scenario at the minimum size and on
// a wide terminal: never a line too long, never a line too many.
func TestFrameFitsEverySize(t *testing.T) {
	for _, sc := range append(append(goldenScenarios(), approvalsScenarios()...), ownScenarios()...) {
		for _, sz := range [][2]int{{minWidth, minHeight}, {200, 50}, {100, 30}} {
			out := sc.render(t, sz[0], sz[1])
			checkFrame(t, out, sz[0], sz[1])
		}
	}
}

type goldenScenario struct {
	name  string
	opts  func(*Options)
	drive func(h *harness)
	// optsT is opts for a scenario that needs the test (a temporary
	// directory).
	optsT func(testing.TB, *Options)
}

func (sc goldenScenario) render(t *testing.T, w, h int) string {
	t.Helper()
	opts := Options{Backend: newFake(300), Events: closedEvents(testEvents()), States: liveState()}
	if sc.opts != nil {
		sc.opts(&opts)
	}
	if sc.optsT != nil {
		sc.optsT(t, &opts)
	}
	hs := newHarness(t, opts, w, h)
	if sc.drive != nil {
		sc.drive(hs)
	}
	return hs.view()
}

func goldenScenarios() []goldenScenario {
	return []goldenScenario{
		{name: "balances", opts: func(o *Options) { o.LowBalance = map[string]int64{"EUR": 10_000_00} }},
		{name: "production", opts: func(o *Options) { o.Production = true; o.Profile = "live-eu" }},
		{name: "transactions", drive: func(h *harness) { h.key("2") }},
		{name: "transactions_filtered_detail", drive: func(h *harness) {
			h.key("2")
			h.key("/")
			h.typeText("grace cur:EUR")
			h.key("enter")
			h.key("enter")
		}},
		{name: "payouts", drive: func(h *harness) { h.key("3") }},
		{name: "events", drive: func(h *harness) { h.key("4") }},
		{name: "event_detail", drive: func(h *harness) { h.key("4"); h.key("up"); h.key("enter") }},
		{name: "payout_form", drive: func(h *harness) { h.key("5") }},
		{name: "payout_confirm", drive: func(h *harness) { fillPayout(h, "Ada Lovelace", "DE75 5121 0800 1245 1261 99", "INV-1", "12.34") }},
		// A 79-character company name: the confirmation wraps it, and the
		// IBAN, amount and reference stay whole below it.
		{name: "payout_confirm_long_name", drive: func(h *harness) {
			fillPayout(h, longPayee, "DE89 3704 0044 0532 0130 00", "Rechnung 2025-11-0042 / Kostenstelle 4711", "1,234,567.89")
		}},
		{name: "payout_done", drive: func(h *harness) {
			fillPayout(h, "Ada Lovelace", "DE75512108001245126199", "INV-1", "12.34")
			h.key("y")
		}},
		{name: "payout_failed", drive: func(h *harness) {
			h.be.payoutErrs = []error{&api.Error{StatusCode: 422, TraceID: "trace-1", Method: "POST", URL: "https://payouts.example/v1/payouts",
				Problem: &api.ProblemDetails{Title: "Invalid payout", Detail: "The IBAN is blocked.", Errors: map[string][]string{"beneficiary_iban": {"is blocked"}}}}}
			fillPayout(h, "Ada Lovelace", "DE75512108001245126199", "INV-1", "12.34")
			h.key("y")
		}},
		// A disabled source account: the confirmation warns before the
		// operator confirms (issue 22, advice matches what happened).
		{name: "payout_confirm_disabled", drive: func(h *harness) {
			for i := range h.be.balances {
				h.be.balances[i].Status = api.AccountDisabled
			}
			h.key("r")
			fillPayout(h, "Ada Lovelace", "DE75512108001245126199", "INV-1", "12.34")
		}},
		// The service refuses it (409 account_disabled): a refusal, never
		// "may or may not have reached the service".
		{name: "payout_refused_disabled", drive: func(h *harness) {
			h.be.payoutErrs = []error{&api.Error{StatusCode: 409, TraceID: "trace-2", Method: "POST", URL: "https://payouts.example/v1/payouts",
				Problem: &api.ProblemDetails{Type: "https://paydash.dev/problems/account_disabled", Title: "Payout account disabled",
					Detail: "the GBP payout account is disabled and takes no payouts"}}}
			fillPayout(h, "Ada Lovelace", "DE75512108001245126199", "INV-1", "12.34")
			h.key("y")
		}},
		{name: "payment_form", drive: func(h *harness) { h.key("6") }},
		{name: "payment_user", drive: func(h *harness) {
			fillPaymentUntilSortCode(h)
			h.typeText("040004")
			h.key("enter")
			h.typeText("12345678")
			h.key("enter")
			for range 6 {
				h.key("enter")
			}
		}},
		{name: "payment_done", drive: func(h *harness) { fillPayment(h, "040004"); h.key("y") }},
		{name: "mandate_limits", drive: fillMandateToLimits},
		{name: "mandate_form", drive: func(h *harness) { h.key("7") }},
		{name: "help", drive: func(h *harness) { h.key("2"); h.key("?") }},
		{name: "command", drive: func(h *harness) { h.key(":"); h.typeText("payo") }},
		{name: "actions", drive: func(h *harness) { h.key("2"); h.key("down"); h.key(" ") }},
		{name: "profile_switch", opts: func(o *Options) { *o = profileOptsWith(*o) }, drive: func(h *harness) { command(h, "profile live-eu") }},
		{name: "payout_rejected_after_acceptance", drive: func(h *harness) {
			fillPayout(h, "Ada Lovelace", "DE75512108001245126199", "INV-1", "12.34")
			h.key("y")
			ev := payoutEvent(20, h.be.payouts[0].TransactionID, api.StateRejected)
			ev.Reason = "beneficiary_account_closed"
			h.send(relayEventsMsg{events: []relayclient.Event{ev}})
		}},
	}
}

// longPayee is a 79-character company name.
const longPayee = "Müller & Schmidt Industrieanlagen und Gebäudetechnik GmbH, Niederlassung Süd KG"

// fillPayout opens the payout form and fills it up to the confirmation.
func fillPayout(h *harness, name, iban, ref, amount string) {
	h.key("5")
	h.key("enter") // source account: the first (GBP)
	h.typeText(name)
	h.key("enter")
	h.typeText(iban)
	h.key("enter")
	h.typeText(ref)
	h.key("enter")
	h.typeText(amount)
	h.key("enter")
	h.key("enter") // context code: withdrawal
}

// fillMandateToLimits walks the mandate form to its periodic limits.
func fillMandateToLimits(h *harness) {
	h.key("7")
	h.key("enter") // sweeping
	h.key("enter") // GBP
	h.key("enter") // external_account
	h.typeText("Ada")
	h.key("enter")
	h.key("enter") // sort code and account number
	h.typeText("040004")
	h.key("enter")
	h.typeText("12345678")
	h.key("enter")
	for range 4 { // user selected, no filter
		h.key("enter")
	}
	h.typeText("Ada")
	h.key("enter")
	h.typeText("ada@example.com")
	h.key("enter")
	h.key("enter")
	h.key("enter")
	h.typeText("2025-04-01")
	h.key("enter")
	h.typeText("2026-04-01")
	h.key("enter")
	h.typeText("100")
	h.key("enter")
}

// checkFrame asserts the screen is exactly the terminal's size: a line
// wider than the terminal would wrap and scroll the whole frame.
func checkFrame(t *testing.T, out string, w, h int) {
	t.Helper()
	lines := strings.Split(out, "\n")
	if len(lines) != h {
		t.Errorf("screen has %d lines, want %d", len(lines), h)
	}
	for i, l := range lines {
		if lw := ansi.StringWidth(l); lw > w {
			t.Errorf("line %d is %d cells wide, more than %d: %q", i+1, lw, w, l)
		}
	}
}
