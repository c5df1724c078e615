package ui

import (
	"strings"
	"testing"

	"github.com/paydash/paydash/api"
)

// Issue 22: the Payouts filter matches a payout's amount as any screen
// shows it (signed or not, with or without the symbol) and its currency.
func TestTrackerFilterMatchesAmountsAsShown(t *testing.T) {
	h := newHarness(t, Options{Backend: newFake(10)}, 120, 40)
	fillPayout(h, "Ada Lovelace", "DE75512108001245126199", "INV-1", "12.34")
	h.key("y")
	fillPayoutAgain := func() {
		h.key("n")
		h.key("enter")
		h.typeText("Alan Turing")
		h.key("enter")
		h.typeText("DE44500105175407324931")
		h.key("enter")
		h.typeText("INV-2")
		h.key("enter")
		h.typeText("99.00")
		h.key("enter")
		h.key("enter")
		h.key("y")
	}
	fillPayoutAgain()
	if h.be.payoutCount() != 2 {
		t.Fatalf("%d payouts sent, want 2", h.be.payoutCount())
	}
	cur := h.be.payouts[0].Currency
	for _, q := range []string{"12.34", api.FormatAmount(1234, cur), "-" + api.FormatAmount(1234, cur), "−" + api.FormatAmount(1234, cur)} {
		h.m.tracker.filter.set(q)
		rows := h.m.tracker.visible()
		if len(rows) != 1 || rows[0].id != h.be.payouts[0].TransactionID {
			t.Errorf("filter %q keeps %d payouts, want the one of 12.34", q, len(rows))
		}
	}
	h.m.tracker.filter.set(cur)
	if n := len(h.m.tracker.visible()); n != 2 {
		t.Errorf("filter %q keeps %d payouts, want both", cur, n)
	}
}

// Issue 22: the report filter reads an amount copied from a row, with its
// sign and symbol, and a currency code as the Cur column shows it.
func TestReportFilterMatchesAmountsAsShown(t *testing.T) {
	h := newHarness(t, Options{Backend: newFake(60)}, 120, 40)
	h.key("2")
	h.key("/")
	h.typeText("-£80.19")
	h.key("enter")
	ids := shownIDs(h)
	if len(ids) != 1 || ids[0] != genTx(1).TransactionID {
		t.Fatalf("-£80.19 keeps %v, want row 1 (shown as -£80.19)", ids)
	}
	h.key("esc")
	h.key("/")
	h.typeText("EUR")
	h.key("enter")
	for _, id := range shownIDs(h) {
		if tx := h.m.tx.store.Tx(findRow(h, id)); tx.Currency != "EUR" {
			t.Fatalf("EUR keeps a %s row", tx.Currency)
		}
	}
	if v := h.view(); strings.Contains(v, "No transactions match") {
		t.Fatalf("EUR matches nothing:\n%s", v)
	}
}
