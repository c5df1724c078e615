package ui

import (
	"testing"

	"github.com/charmbracelet/bubbles/key"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/webhookrelay/relayclient"
)

// keyScreen is one screen of the dashboard, reached by driving a fresh
// dashboard.
type keyScreen struct {
	name  string
	opts  func(*Options)
	drive func(h *harness)
}

func keyScreens() []keyScreen {
	typed := func(h *harness) { h.key("5"); h.key("enter"); h.typeText("Ada") }
	return []keyScreen{
		{name: "balances", drive: func(h *harness) { h.key("1"); h.key("down") }},
		{name: "balances_open", drive: func(h *harness) { h.key("1"); h.key("enter") }},
		{name: "balances_filter", drive: func(h *harness) { h.key("1"); h.key("/"); h.typeText("eu") }},
		{name: "report", drive: func(h *harness) { h.key("2"); h.key("down"); h.key("down") }},
		{name: "report_detail", drive: func(h *harness) { h.key("2"); h.key("down"); h.key("enter") }},
		{name: "report_export", drive: func(h *harness) { h.key("2"); h.key("ctrl+s") }},
		{name: "report_filter", drive: func(h *harness) { h.key("2"); h.key("/"); h.typeText("ada") }},
		{name: "payouts", drive: func(h *harness) { h.key("3") }},
		{name: "payouts_second", drive: func(h *harness) { h.key("3"); h.key("down") }},
		{name: "events", drive: func(h *harness) { h.key("4"); h.key("up"); h.key("up") }},
		{name: "event_open", drive: func(h *harness) { h.key("4"); h.key("up"); h.key("enter") }},
		{name: "payout_form", drive: func(h *harness) { h.key("5"); h.key("enter") }},
		{name: "payout_form_choice", drive: func(h *harness) { h.key("5") }},
		{name: "payout_done", drive: func(h *harness) {
			fillPayout(h, "Ada Lovelace", "DE75512108001245126199", "INV-1", "12.34")
			h.key("y")
		}},
		{name: "payout_rejected_after_acceptance", drive: func(h *harness) {
			fillPayout(h, "Ada Lovelace", "DE75512108001245126199", "INV-1", "12.34")
			h.key("y")
			ev := payoutEvent(20, h.be.payouts[0].TransactionID, api.StateRejected)
			ev.Reason = "beneficiary_account_closed"
			h.send(relayEventsMsg{events: []relayclient.Event{ev}})
		}},
		{name: "payouts_rejected_mine", drive: func(h *harness) {
			fillPayout(h, "Ada Lovelace", "DE75512108001245126199", "INV-1", "12.34")
			h.key("y")
			ev := payoutEvent(20, h.be.payouts[0].TransactionID, api.StateRejected)
			ev.Reason = "beneficiary_account_closed"
			h.send(relayEventsMsg{events: []relayclient.Event{ev}})
			h.key("3")
		}},
		{name: "payout_refused", drive: func(h *harness) {
			h.be.payoutErrs = []error{&api.Error{StatusCode: 422, Problem: &api.ProblemDetails{Title: "Invalid payout",
				Errors: map[string][]string{"beneficiary_iban": {"is blocked"}}}}}
			fillPayout(h, "Ada Lovelace", "DE75512108001245126199", "INV-1", "12.34")
			h.key("y")
		}},
		{name: "payout_unknown", drive: func(h *harness) {
			h.be.payoutErrs = []error{&api.Error{StatusCode: 503}}
			fillPayout(h, "Ada Lovelace", "DE75512108001245126199", "INV-1", "12.34")
			h.key("y")
		}},
		{name: "payout_clear_ask", drive: func(h *harness) { typed(h); h.key("ctrl+n") }},
		{name: "payment_done", drive: func(h *harness) { fillPayment(h, "040004"); h.key("y") }},
		{name: "mandate_form", drive: func(h *harness) { h.key("7") }},
		{name: "command_line", drive: func(h *harness) { h.key(":"); h.typeText("pay") }},
		{name: "help", drive: func(h *harness) { h.key("2"); h.key("?") }},
		{name: "balances_actions", drive: func(h *harness) { h.key("1"); h.key(" ") }},
		{name: "report_actions", drive: func(h *harness) { h.key("2"); h.key("down"); h.key(" ") }},
		{name: "payouts_actions", drive: func(h *harness) { h.key("3"); h.key(" ") }},
		{name: "events_actions", drive: func(h *harness) { h.key("4"); h.key("up"); h.key(" ") }},
		{name: "switch_question", opts: func(o *Options) { *o = profileOptsWith(*o) }, drive: func(h *harness) { command(h, "profile live-eu") }},
		{name: "quit_question", drive: func(h *harness) { typed(h); h.key("alt+1"); h.key("q") }},
		// The Approvals view, on a team profile (bob, who may approve).
		{name: "approvals", opts: teamOpts(false), drive: func(h *harness) { pickApproval(h, "apr-aaaaaaaaaa") }},
		{name: "approvals_own", opts: teamOpts(false), drive: func(h *harness) { pickApproval(h, "apr-cccccccccc") }},
		{name: "approvals_confirm", opts: teamOpts(false), drive: func(h *harness) { pickApproval(h, "apr-aaaaaaaaaa"); h.key("a") }},
		{name: "approvals_production", opts: teamOpts(true), drive: func(h *harness) { pickApproval(h, "apr-aaaaaaaaaa"); h.key("a") }},
		{name: "approvals_reject", opts: teamOpts(false), drive: func(h *harness) {
			pickApproval(h, "apr-aaaaaaaaaa")
			h.key("x")
			h.typeText("wrong IBAN")
		}},
	}
}

// teamOpts makes o a team profile's: bob on a hub where ada asked for
// payouts he may approve.
func teamOpts(production bool) func(*Options) {
	return func(o *Options) {
		o.Approvals, o.Profile, o.Production = teamHub(), "bob", production
	}
}

// pickApproval opens the Approvals view on the request id.
func pickApproval(h *harness, id string) {
	h.key("8")
	h.key("g")
	for range len(h.m.approvals.rows) {
		if r := h.m.approvals.selected(); r != nil && r.ID == id {
			return
		}
		h.key("down")
	}
}

// screenState is what a key can change: the screen, the clipboard, the
// calls made to the service, and whether the program quits.
type screenState struct {
	view  string
	clip  int
	calls int
	quit  bool
}

func stateOf(h *harness) screenState {
	h.be.mu.Lock()
	calls := h.be.balanceCalls + h.be.streams + len(h.be.payouts) + len(h.be.payments) + len(h.be.mandates)
	h.be.mu.Unlock()
	return screenState{view: h.view(), clip: h.clip.Len(), calls: calls, quit: h.quit()}
}

// shownBindings are the bindings the help bar and the `?` overlay show
// on the harness's screen now.
func shownBindings(h *harness) []key.Binding {
	own, frame := h.m.barKeys()
	all := append(append([]key.Binding{}, own...), frame...)
	if h.m.menu != nil {
		all = append(all, h.m.menu.items...) // the menu lists its keys
	}
	if h.m.overlayApplies() {
		o, f := h.m.overlayKeys()
		for _, col := range append(o, f...) {
			all = append(all, col...)
		}
	}
	seen := map[string]bool{}
	var out []key.Binding
	for _, b := range all {
		id := b.Help().Key + "\x00" + b.Help().Desc
		if !seen[id] && b.Enabled() {
			seen[id] = true
			out = append(out, b)
		}
	}
	return out
}

// Issue 22 item 7: every key the help bar or the `?` overlay shows does
// something on that screen. Each key of each binding shown is pressed on
// a fresh dashboard brought to the screen, and the screen, clipboard,
// service calls or quitting must change. (A view key naming the view
// already shown is the one exception: 3 on the Payouts view stays.)
func TestEveryKeyShownDoesSomething(t *testing.T) {
	if testing.Short() {
		t.Skip("presses every key shown on every screen, each on a fresh dashboard (the slowest ui test): left to the full run")
	}
	opts := func(sc keyScreen) Options {
		// Exports (ctrl+s, then c or j) go to a directory of the test's.
		o := Options{Backend: newFake(60), Events: closedEvents(testEvents()), States: liveState(), ExportDir: t.TempDir()}
		if sc.opts != nil {
			sc.opts(&o)
		}
		return o
	}
	for _, sc := range keyScreens() {
		t.Run(sc.name, func(t *testing.T) {
			h := newHarness(t, opts(sc), 120, 40)
			sc.drive(h)
			h.view() // what the operator reads: help depends on the layout
			bindings := shownBindings(h)
			if len(bindings) == 0 {
				t.Fatal("the screen shows no keys")
			}
			for _, b := range bindings {
				for _, k := range b.Keys() {
					if t := tabKey(keyMsg(k)); t >= 0 && t == h.m.tab {
						continue
					}
					fresh := newHarness(t, opts(sc), 120, 40)
					sc.drive(fresh)
					// A key that moves through a list or page is pressed
					// away from the end it moves to (its opposite key
					// is itself checked).
					if pre := awayFrom(fresh.m.keys, b); pre != "" {
						fresh.key(pre)
					}
					before := stateOf(fresh)
					fresh.key(k)
					if after := stateOf(fresh); after == before {
						t.Errorf("%s: %q (shown as %q %s) changes nothing:\n%s", sc.name, k, b.Help().Key, b.Help().Desc, before.view)
					}
				}
			}
		})
	}
}

// awayFrom is the key that takes a list to the end opposite where
// binding b moves ("" for keys that do not move through a list).
func awayFrom(g *keyMap, b key.Binding) string {
	switch b.Help() {
	case g.Up.Help(), g.PgUp.Help(), g.HalfUp.Help(), g.Top.Help():
		return "G"
	case g.Down.Help(), g.PgDown.Help(), g.HalfDown.Help(), g.Bottom.Help():
		return "g"
	}
	return ""
}

// The walk covers the screens that show keys: every view and every state
// a view's help changes in.
func TestKeyWalkCoversEveryView(t *testing.T) {
	seen := map[tab]bool{}
	for _, sc := range keyScreens() {
		o := Options{Backend: newFake(60), Events: closedEvents(testEvents()), States: liveState()}
		if sc.opts != nil {
			sc.opts(&o)
		}
		h := newHarness(t, o, 120, 40)
		sc.drive(h)
		seen[h.m.tab] = true
	}
	for tb := range numTabs {
		if !seen[tb] {
			t.Errorf("no screen of %s in the key walk", tabNames[tb])
		}
	}
}

// profileOptsWith is o able to switch profiles.
func profileOptsWith(o Options) Options {
	o.CheckProfile = profileOpts().CheckProfile
	return o
}
