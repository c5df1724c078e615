package ui

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
		{name: "approvals_reject", opts: teamOpts(false), drive: func(h *harness) {
			pickApproval(h, "apr-aaaaaaaaaa")
			h.key("x")
			h.typeText("wrong IBAN, see ticket 42")
		}},
	}
}
