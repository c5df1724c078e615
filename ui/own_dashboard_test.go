package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/paydash/paydash/config"
)

// Issue 28's "done when", in one config: a start view with its own
// columns, a remapped key and a theme. The dashboard opens on the view
// with those columns, the remapped key works and is what the footer and
// the help show, and the colours apply.
func TestYourOwnDashboardInOneConfig(t *testing.T) {
	withColour(t, true)
	custom := config.Custom{
		Keys:  []config.KeyBinding{{Action: "help", Keys: []string{"H"}, Line: 1}, {Action: "sort", Keys: []string{"o"}, Line: 2}},
		Theme: config.Theme{Styles: []config.ThemeStyle{{Style: "tab_active", FG: "#ff8800"}}},
	}
	h := newHarness(t, Options{Backend: newFake(300), States: liveState(), Views: []config.View{failedView}, StartView: "failed", Custom: custom}, 120, 40)
	screen := h.view()
	if h.m.tab != tabTransactions {
		t.Fatalf("opened on tab %d, want the report", h.m.tab)
	}
	head := headerOf(t, screen, "Time", "Amount", "Status", "ID")
	if !inOrder(head, "Time", "Amount ↓", "Status", "ID") || strings.Contains(head, "Beneficiary") {
		t.Errorf("header %q: want the view's columns only", head)
	}
	mustContain(t, screen, "· view failed")
	if !strings.Contains(screen, "38;2;255;136;0") {
		t.Error("the active tab is not drawn in the theme's colour")
	}
	plain := ansi.Strip(screen)
	if !strings.Contains(plain, "o sort by next column") || !strings.Contains(plain, "H help") {
		t.Errorf("the footer does not show the remapped keys:\n%s", plain)
	}
	// The remapped key opens the help, which names it.
	h.key("H")
	out := h.view()
	help := ansi.Strip(out)
	if !strings.Contains(help, "H/esc close") {
		t.Fatalf("H did not open the help, or the help does not name it:\n%s", help)
	}
	checkFrame(t, out, 120, 40)
	golden.RequireEqual(t, []byte(out)) // in colour: the theme's tab colour is in it
}
