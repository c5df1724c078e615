package ui

// approvalsScenarios are the Approvals view's goldens (TestGolden): bob,
// who may request and approve, looking at what ada and he asked.
func approvalsScenarios() []goldenScenario {
	team := func(production bool) func(*Options) {
		return func(o *Options) {
			o.Approvals, o.Profile, o.Production = teamHub(), "bob", production
		}
	}
	pick := func(h *harness, id string) {
		h.key("8")
		h.key("g")
		for range len(h.m.approvals.rows) {
			if r := h.m.approvals.selected(); r != nil && r.ID == id {
				return
			}
			h.key("down")
		}
	}
	return []goldenScenario{
		// A duplicate warning selected: its words under the list.
		{name: "approvals", opts: team(false), drive: func(h *harness) { pick(h, "apr-bbbbbbbbbb") }},
		// bob's own request: no decision keys, and why.
		{name: "approvals_own", opts: team(false), drive: func(h *harness) { pick(h, "apr-cccccccccc") }},
		// A batch row on production: its totals typed to approve it whole.
		{name: "approvals_production_batch", opts: team(true), drive: func(h *harness) {
			pick(h, "apr-eeeeeeeee1")
			h.key("a")
			h.typeText("700.00 GBP")
		}},
		{name: "approvals_reject", opts: team(false), drive: func(h *harness) {
			pick(h, "apr-aaaaaaaaaa")
			h.key("x")
			h.typeText("wrong IBAN, see ticket 42")
		}},
	}
}
