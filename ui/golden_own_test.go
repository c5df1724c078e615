package ui

import (
	"context"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/paydash/paydash/config"
	"github.com/paydash/paydash/internal/payout"
	"github.com/paydash/paydash/webhookrelay/relayclient"
)

// ownScenarios are the screens of issue 28: saved views and columns, and
// the texts that must never be cut (item 6).
func ownScenarios() []goldenScenario {
	return []goldenScenario{
		// A GBP payout to a German IBAN: the refusal and its remedy ("or
		// pay in EUR over SEPA") whole at every size.
		{name: "payout_rail_refused", drive: railRefused},
		// A possible duplicate: the earlier payout's reference is never
		// broken at its hyphen.
		{name: "payout_duplicate", optsT: duplicateGuard, drive: func(h *harness) {
			fillPayout(h, "Ada Lovelace", "DE75 5121 0800 1245 1261 99", "INV-1001", "12.34")
			h.key("y")
		}},
		// R on an event that was never forwarded: the command that resends
		// it, whole, id and all.
		{name: "events_resend_hint", opts: func(o *Options) {
			o.Workbench = &Workbench{Relay: relayclient.History{URL: "ws://127.0.0.1:8787/ws"}}
		}, drive: func(h *harness) { h.key("4"); h.key("R") }},
		{name: "view_start", opts: func(o *Options) {
			o.Views = []config.View{failedView}
			o.StartView = "failed"
		}},
		{name: "views_picker", opts: func(o *Options) {
			o.Views = []config.View{{Name: "big", Filter: "amount:>4000"}, failedView}
		}, drive: func(h *harness) { h.command("view") }},
		{name: "payouts_columns", drive: func(h *harness) { h.key("3"); h.command("columns state,id,amount") }},
		// Lists that show nothing say why.
		{name: "report_nothing_failed", opts: func(o *Options) { o.Backend = newFake(4) }, drive: func(h *harness) {
			h.key("2")
			h.key("/")
			h.typeText("status:failed")
			h.key("enter")
		}},
		{name: "events_no_match", drive: func(h *harness) {
			h.key("4")
			h.key("/")
			h.typeText("zzz")
			h.key("enter")
		}},
		{name: "payouts_no_match", drive: func(h *harness) {
			h.send(trackPayoutMsg{tx: genTx(3)})
			h.key("3")
			h.key("/")
			h.typeText("zzz")
			h.key("enter")
		}},
		// A field error under the field, and the form's clear question.
		{name: "payout_amount_error", drive: func(h *harness) {
			h.key("5")
			h.key("enter") // the EUR account
			for _, v := range []string{"Ada Lovelace", "DE75512108001245126199", "INV-1", "12,34.5x"} {
				h.typeText(v)
				h.key("enter")
			}
		}},
		{name: "payout_clear_ask", drive: func(h *harness) {
			h.key("5")
			h.key("enter")
			h.typeText("Ada Lovelace")
			h.key("ctrl+n")
		}},
		// A filter term that cannot be read: the hint how to write it.
		{name: "report_filter_problem", drive: func(h *harness) {
			h.key("2")
			h.key("/")
			h.typeText("amount:>>5 date:yesterday")
			h.key("enter")
		}},
		// Quitting with a form half filled: the question, whole.
		{name: "quit_ask", drive: func(h *harness) {
			h.key("5")
			h.key("enter")
			h.typeText("Ada Lovelace")
			h.key("ctrl+c")
		}},
	}
}

func railRefused(h *harness) {
	h.key("5")
	h.key("down") // the GBP account
	h.key("enter")
	h.typeText("Ada")
	h.key("enter")
	h.typeText("DE89370400440532013000")
}

// duplicateGuard gives the form an audit record holding a payout made
// an hour ago: the same IBAN, amount, currency and reference INV-1001.
func duplicateGuard(t testing.TB, o *Options) {
	// An hour before the harness's fixed clock: the screen shows the date.
	then := func() time.Time { return fixedNow.Add(-time.Hour) }
	log, err := payout.Open(filepath.Join(t.TempDir(), "audit.jsonl"), "demo", then)
	if err != nil {
		t.Fatal(err)
	}
	const earlier = "11111111-2222-4333-8444-555555555555"
	if _, err := log.Reserve(context.Background(), payout.Entry{Source: payout.SourceCreate, TransactionID: earlier, Name: "Ada Lovelace",
		IBAN: "DE75512108001245126199", Reference: "INV-1001", AmountInMinor: 1234, Currency: "EUR"}, payout.DefaultWindow, false); err != nil {
		t.Fatal(err)
	}
	_ = log.Outcome(earlier, payout.OutcomeAccepted, "")
	o.Guard = &payout.Pipeline{Log: log, Source: payout.SourceForm, Now: func() time.Time { return fixedNow }}
}

// joined is the screen's text as one line: wrapped phrases read whole.
func joined(screen string) string { return strings.Join(strings.Fields(ansi.Strip(screen)), " ") }

// Issue 28 item 6: what a person needs to act is on screen whole at
// 80x24, 120x40 and 200x50: the rail refusal's remedy, the duplicate's
// earlier reference on one line, the resend command with its event id,
// and on a team profile a name for every tab.
func TestMeaningIsWholeAtEverySize(t *testing.T) {
	byName := map[string]goldenScenario{}
	for _, sc := range append(append(goldenScenarios(), approvalsScenarios()...), ownScenarios()...) {
		byName[sc.name] = sc
	}
	for _, sz := range [][2]int{{80, 24}, {120, 40}, {200, 50}} {
		at := strconv.Itoa(sz[0]) + "x" + strconv.Itoa(sz[1])
		screen := func(name string) string { return byName[name].render(t, sz[0], sz[1]) }
		if s := screen("payout_rail_refused"); !strings.Contains(joined(s), "use such an IBAN, or pay in EUR over SEPA") {
			t.Errorf("%s: the rail refusal's remedy is not whole:\n%s", at, s)
		}
		if s := screen("payout_duplicate"); !regexp.MustCompile(`ref[ \x{a0}]INV-1001`).MatchString(ansi.Strip(s)) {
			t.Errorf("%s: the duplicate's reference is broken:\n%s", at, s)
		}
		if s := screen("events_resend_hint"); !strings.Contains(joined(s), "paydash events resend ev-5 --to URL") {
			t.Errorf("%s: the resend hint is cut:\n%s", at, s)
		}
		s := ansi.Strip(screen("approvals"))
		tabs := strings.Split(s, "\n")[1]
		for i := 1; i <= 7; i++ {
			if !regexp.MustCompile(`\b` + strconv.Itoa(i) + ` \pL`).MatchString(tabs) {
				t.Errorf("%s: tab %d has no name on a team profile: %q", at, i, tabs)
			}
		}
	}
}

// Issue 28 item 6: a list that shows nothing says why, and what brings
// rows back.
func TestEmptyListsSayWhy(t *testing.T) {
	byName := map[string]goldenScenario{}
	for _, sc := range ownScenarios() {
		byName[sc.name] = sc
	}
	for name, want := range map[string]string{
		"report_nothing_failed": "Nothing failed in the report yet (4 transactions loaded). esc clears it.",
		"events_no_match":       "No event matches the filter among the 5 held; esc clears it.",
		"payouts_no_match":      "No followed payout matches the filter; esc clears it.",
	} {
		if s := byName[name].render(t, 120, 40); !strings.Contains(joined(s), want) {
			t.Errorf("%s does not say %q:\n%s", name, want, s)
		}
	}
	h := newHarness(t, Options{Backend: newFake(10), Events: closedEvents(nil), States: liveState()}, 120, 40)
	h.key("4")
	mustContain(t, h.view(), "No events yet: they appear here as the relay receives them")
}
