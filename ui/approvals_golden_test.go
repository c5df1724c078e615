package ui

import (
	"github.com/paydash/paydash/webhookrelay/hub/hubapi"
)

// approvalsScenarios are the Approvals view's goldens (TestGolden): bob,
// who may request and approve, looking at what ada and he asked.
func approvalsScenarios() []goldenScenario {
	return []goldenScenario{
		// A duplicate warning selected: its words under the list.
		{name: "approvals", opts: teamOpts(false), drive: func(h *harness) { pickApproval(h, "apr-bbbbbbbbbb") }},
		// bob's own request: no decision keys, and why.
		{name: "approvals_own", opts: teamOpts(false), drive: func(h *harness) { pickApproval(h, "apr-cccccccccc") }},
		// A batch row on production: its totals typed to approve it whole.
		{name: "approvals_production_batch", opts: teamOpts(true), drive: func(h *harness) {
			pickApproval(h, "apr-eeeeeeeee1")
			h.key("a")
			h.typeText("700.00 GBP")
		}},
		// ada's payout form on a team profile, above the hub's threshold:
		// the result says it awaits approval, by whom, under which ids.
		{name: "payout_awaiting_approval", opts: requesterOpts, drive: requestAboveThreshold},
		// The same payout in ada's tracker, awaiting approval.
		{name: "payouts_awaiting_approval", opts: requesterOpts, drive: func(h *harness) {
			requestAboveThreshold(h)
			h.key("3")
		}},
		{name: "approvals_reject", opts: teamOpts(false), drive: func(h *harness) {
			pickApproval(h, "apr-aaaaaaaaaa")
			h.key("x")
			h.typeText("wrong IBAN, see ticket 42")
		}},
	}
}

// requesterOpts is ada's dashboard (request only) on the team's hub.
func requesterOpts(o *Options) {
	f := teamHub()
	f.me = hubapi.Me{Name: "ada", Roles: []string{hubapi.RoleRequest}, Policy: "above GBP 1,000.00"}
	o.Approvals, o.Profile = f, "ada"
}

// requestAboveThreshold sends £2,500.00 from the payout form's GBP
// account, above the hub's threshold.
func requestAboveThreshold(h *harness) {
	h.key("5")
	h.key("down") // the GBP account
	for _, field := range []string{"", "Harbour Supplies Ltd", "GB33 BUKB 2020 1555 5555 55", "INV-7", "2,500.00", ""} {
		h.typeText(field)
		h.key("enter")
	}
	h.key("y")
}
