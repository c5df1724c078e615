package ui

import (
	"strings"
	"testing"
)

// Issue 22 friction: at 80x24 the `?` help of the report is longer than
// the screen: it scrolls to its end, says where it is, and the filter
// syntax stays on screen all the way.
func TestHelpScrollsAt80x24AndKeepsTheFilterSyntax(t *testing.T) {
	h := newHarness(t, Options{Backend: newFake(10)}, 80, 24)
	h.key("2")
	h.key("?")
	top := h.view()
	mustContain(t, top, "filters by:", "amount:>100", "lines 1–")
	if strings.Contains(top, "Commands:") {
		t.Fatalf("the whole help fits at 80x24, nothing to scroll:\n%s", top)
	}
	h.key("G")
	end := h.view()
	mustContain(t, end, "filters by:", "amount:>100", "Commands:")
	h.key("g")
	if h.view() != top {
		t.Fatal("g did not scroll the help back to its top")
	}
	for range 3 {
		h.key("down")
	}
	mustContain(t, h.view(), "filters by:", "lines 4–")
	h.key("esc")
	if h.m.showHelp {
		t.Fatal("esc did not close the help")
	}
}
