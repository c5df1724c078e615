package ui

import (
	"strings"
	"testing"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/config"
)

var failedView = config.View{Name: "failed", Filter: "status:failed", Sort: "amount desc",
	Columns: []string{"time", "amount", "status", "id"}, TrackerColumns: []string{"id", "state"}}

// command types a ':' line and runs it.
func (h *harness) command(line string) {
	h.t.Helper()
	h.key(":")
	h.typeText(line)
	h.key("enter")
}

// headerOf is the table header line: the first line holding all titles.
func headerOf(t *testing.T, screen string, titles ...string) string {
	t.Helper()
	for _, l := range strings.Split(screen, "\n") {
		ok := true
		for _, w := range titles {
			ok = ok && strings.Contains(l, w)
		}
		if ok {
			return l
		}
	}
	t.Fatalf("no header with %v:\n%s", titles, screen)
	return ""
}

// inOrder reports whether the words appear in l in that order.
func inOrder(l string, words ...string) bool {
	at := 0
	for _, w := range words {
		i := strings.Index(l[at:], w)
		if i < 0 {
			return false
		}
		at += i + len(w)
	}
	return true
}

// Issue 28 items 1 and 2: a profile naming a start view opens the report
// on it: its filter, its sort, its columns in its order (the others
// hidden), and the tracker's columns too.
func TestStartViewOpensTheReportOnIt(t *testing.T) {
	h := newHarness(t, Options{Backend: newFake(300), States: liveState(), Views: []config.View{failedView}, StartView: "failed"}, 120, 40)
	screen := h.view()
	if h.m.tab != tabTransactions {
		t.Fatalf("opened on tab %d, want the report", h.m.tab)
	}
	head := headerOf(t, screen, "Time", "Amount", "Status", "ID")
	if !inOrder(head, "Time", "Amount ↓", "Status", "ID") || strings.Contains(head, "Beneficiary") || strings.Contains(head, "IBAN") {
		t.Errorf("header %q: want Time, Amount ↓, Status, ID and nothing else", head)
	}
	mustContain(t, screen, "· view failed · sorted by Amount ↓", "/status:failed")
	tx := &h.m.tx
	if len(tx.idx) == 0 {
		t.Fatal("the view shows no rows")
	}
	for _, i := range tx.idx {
		if tx.store.Status(i) != api.StateFailed {
			t.Fatalf("row %s is %s in a status:failed view", tx.store.ID(i), tx.store.Status(i))
		}
	}
	for k := 1; k < len(tx.idx); k++ {
		if tx.store.Amount(tx.idx[k-1]) < tx.store.Amount(tx.idx[k]) {
			t.Fatal("rows not sorted by amount, largest first")
		}
	}
	// Changing the filter leaves the view: the line stops naming it.
	h.key("esc")
	if strings.Contains(h.view(), "view failed") {
		t.Error("the report still names the view after its filter was cleared")
	}
	// The tracker's columns came with the view.
	h.key("3")
	head = headerOf(t, h.view(), "Payout ID", "State")
	if strings.Contains(head, "Beneficiary") || strings.Contains(head, "Timeline") {
		t.Errorf("tracker header %q: want Payout ID and State only", head)
	}
}

func TestStartTab(t *testing.T) {
	h := newHarness(t, Options{Backend: newFake(10), States: liveState(), StartTab: "events"}, 120, 40)
	if h.m.tab != tabEvents {
		t.Fatalf("opened on tab %d, want Events", h.m.tab)
	}
	// Approvals without a hub is not a tab to open on.
	h = newHarness(t, Options{Backend: newFake(10), States: liveState(), StartTab: "approvals"}, 120, 40)
	if h.m.tab == tabApprovals {
		t.Fatal("opened on Approvals without a team hub")
	}
}

// :view NAME, the :view list, :columns and :save NAME.
func TestViewCommands(t *testing.T) {
	var saved []config.View
	big := config.View{Name: "big", Filter: "amount:>4000"}
	h := newHarness(t, Options{Backend: newFake(300), States: liveState(), Views: []config.View{big, failedView},
		SaveView: func(v config.View) error { saved = append(saved, v); return nil }}, 120, 40)
	h.command("view failed")
	if h.m.tab != tabTransactions || h.m.tx.filter.value() != "status:failed" {
		t.Fatalf(":view failed: tab %d, filter %q", h.m.tab, h.m.tx.filter.value())
	}
	h.command("view nope")
	mustContain(t, h.view(), "no view nope; this profile's views: big, failed")

	// The list: the first is big, down and enter opens failed.
	h.command("view big")
	h.command("view")
	screen := h.view()
	mustContain(t, screen, "Saved views", "big", "amount:>4000", "failed", "status:failed · sorted by amount desc")
	h.key("down")
	h.key("enter")
	if h.m.picker != nil || h.m.tx.filter.value() != "status:failed" {
		t.Fatalf("picking failed left filter %q", h.m.tx.filter.value())
	}

	// Columns from the screen, then saved with the rest.
	h.command("columns amount, beneficiary,time")
	head := headerOf(t, h.view(), "Amount", "Beneficiary", "Time")
	if !inOrder(head, "Amount", "Beneficiary", "Time") || strings.Contains(head, "Status") {
		t.Errorf("header %q after :columns amount,beneficiary,time", head)
	}
	h.command("columns amout")
	mustContain(t, h.view(), "no column amout; the columns here are time, type, status, cur, amount, beneficiary, iban, reference, id")
	h.command("save mine")
	if len(saved) != 1 {
		t.Fatalf("saved %d views", len(saved))
	}
	got := saved[0]
	if got.Name != "mine" || got.Filter != "status:failed" || got.Sort != "amount desc" ||
		strings.Join(got.Columns, ",") != "amount,beneficiary,time" || strings.Join(got.TrackerColumns, ",") != "id,state" {
		t.Errorf("saved %+v", got)
	}
	mustContain(t, h.view(), "saved view mine")
	h.command("save mine")
	mustContain(t, h.view(), "a view named mine exists")
	// The saved view opens like the others.
	h.command("view big")
	h.command("view mine")
	if h.m.tx.filter.value() != "status:failed" {
		t.Errorf(":view mine: filter %q", h.m.tx.filter.value())
	}
	// :columns alone shows them all again.
	h.command("columns")
	head = headerOf(t, h.view(), "Time", "Type", "Status", "Cur", "Amount")
	if !inOrder(head, "Time", "Type", "Status", "Cur", "Amount") {
		t.Errorf("header %q after :columns", head)
	}
}

// v opens the saved views' list from any list view, as :view does; with
// none saved it says how to save one.
func TestViewsKeyOpensThePicker(t *testing.T) {
	h := newHarness(t, Options{Backend: newFake(300), States: liveState(), Views: []config.View{failedView}}, 120, 40)
	h.key("3")
	h.key("v")
	if h.m.picker == nil {
		t.Fatal("v opened no list of views")
	}
	mustContain(t, h.view(), "Saved views", "failed")
	h.key("enter")
	if h.m.tab != tabTransactions || h.m.tx.filter.value() != "status:failed" {
		t.Fatalf("picking failed: tab %d, filter %q", h.m.tab, h.m.tx.filter.value())
	}
	none := newHarness(t, Options{Backend: newFake(10)}, 120, 40)
	none.key("v")
	mustContain(t, none.view(), "this profile has no saved views: set the report as you want it and :save NAME")
}
