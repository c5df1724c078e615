package ui

import (
	"strings"
	"testing"
)

// Issue 22 conventions: tab/shift+tab and ]/[ move between views outside
// forms, round the ends; in a form tab stays the form's (next field).
func TestTabAndBracketsMoveBetweenViews(t *testing.T) {
	h := newHarness(t, Options{Backend: newFake(20)}, 120, 40)
	steps := []struct {
		key  string
		want tab
	}{{"tab", tabTransactions}, {"]", tabPayouts}, {"shift+tab", tabTransactions}, {"[", tabBalances}, {"[", tabMandate}}
	for _, s := range steps {
		h.key(s.key)
		if h.m.tab != s.want {
			t.Fatalf("%s went to %s, want %s", s.key, tabNames[h.m.tab], tabNames[s.want])
		}
	}
	// In a form, tab is the next field.
	h.key("alt+5")
	h.key("tab")
	if h.m.tab != tabPayout {
		t.Fatalf("tab in the payout form left it for %s", tabNames[h.m.tab])
	}
	if !h.m.payout.progressed() {
		t.Fatal("tab in the payout form did not move to the next field")
	}
}

// ctrl+d and ctrl+u move half a page in a list.
func TestHalfPageKeys(t *testing.T) {
	h := newHarness(t, Options{Backend: newFake(200)}, 120, 40)
	h.key("2")
	h.view()
	page := h.m.tx.pageH
	h.key("ctrl+d")
	if got := h.m.tx.nav.cursor; got != page/2 {
		t.Fatalf("ctrl+d moved to row %d, want %d (half of %d)", got, page/2, page)
	}
	h.key("ctrl+d")
	h.key("ctrl+u")
	if got := h.m.tx.nav.cursor; got != page/2 {
		t.Fatalf("ctrl+u moved to row %d, want %d", got, page/2)
	}
}

// space opens the actions of the selected row, naming each action's key;
// enter runs the one chosen, exactly as its key would; enter on the list
// still opens the details.
func TestActionsMenuOnTheSelectedRow(t *testing.T) {
	h := newHarness(t, Options{Backend: newFake(20)}, 120, 40)
	h.key("2")
	h.key("down")
	id := shownIDs(h)[1]
	h.key(" ")
	menu := h.view()
	mustContain(t, menu, "Actions", "detail pane", "copy row (JSON)", "copy id", "follow payout in 3")
	h.key("down")
	h.key("down") // copy id
	h.key("enter")
	if got := lastCopied(t, h); got != id {
		t.Fatalf("the menu's copy id copied %q, want the selected row's %s", got, id)
	}
	if strings.Contains(h.view(), "Actions") {
		t.Fatal("the menu stayed up after its action ran")
	}
	// An action's own key works in the menu too; esc closes it.
	h.key(" ")
	h.key("esc")
	if h.m.menu != nil {
		t.Fatal("esc did not close the menu")
	}
	h.key("enter")
	if !h.m.tx.detail {
		t.Fatal("enter on the list no longer opens the detail pane")
	}
}
