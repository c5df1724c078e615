package ui

import (
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

var (
	zeroWithSign = regexp.MustCompile(`[-−+][€£$]0\.00\b`)
	amountCell   = regexp.MustCompile(`[-+]?[€£][0-9,]+\.[0-9]{2}`)
)

// Issue 22: numbers look the same everywhere: one minus sign (the ASCII
// one the CLI prints), no sign on a zero, on every screen at every size.
func TestNumbersLookTheSameEverywhere(t *testing.T) {
	for _, sc := range goldenScenarios() {
		for _, sz := range [][2]int{{80, 24}, {120, 40}, {200, 50}} {
			out := sc.render(t, sz[0], sz[1])
			if strings.Contains(out, "−") {
				t.Errorf("%s at %dx%d uses U+2212 as a minus sign:\n%s", sc.name, sz[0], sz[1], out)
			}
			if m := zeroWithSign.FindString(out); m != "" {
				t.Errorf("%s at %dx%d shows a signed zero %q:\n%s", sc.name, sz[0], sz[1], m, out)
			}
		}
	}
	// The totals of rows that are all money in: nothing went out.
	h := newHarness(t, Options{Backend: newFake(300)}, 200, 50)
	h.key("2")
	h.key("/")
	h.typeText("type:funding cur:GBP")
	h.key("enter")
	if m := zeroWithSign.FindString(h.view()); m != "" {
		t.Fatalf("totals show %q", m)
	}
}

// Amounts line up under their header at every width and whichever column
// the report is sorted by.
func TestReportColumnsAlignAtEveryWidthAndSort(t *testing.T) {
	for _, w := range []int{80, 100, 120, 160, 200} {
		h := newHarness(t, Options{Backend: newFake(60)}, w, 30)
		h.key("2")
		for s := 0; s < 9; s++ {
			lines := strings.Split(ansi.Strip(h.view()), "\n")
			head := -1
			for i, l := range lines {
				if strings.HasPrefix(l, " Time") {
					head = i
					break
				}
			}
			if head < 0 {
				t.Fatalf("width %d: no header:\n%s", w, strings.Join(lines, "\n"))
			}
			hdr := []rune(lines[head])
			end := strings.Index(string(hdr), "Amount")
			if end < 0 {
				continue
			}
			// The right edge of the Amount title, arrow included, in cells.
			title := "Amount"
			if strings.Contains(lines[head], "Amount ↓") || strings.Contains(lines[head], "Amount ↑") {
				title += " ↓"
			}
			edge := ansi.StringWidth(lines[head][:end]) + ansi.StringWidth(title)
			for _, l := range lines[head+1 : head+6] {
				loc := amountCell.FindStringIndex(l)
				if loc == nil {
					continue
				}
				if got := ansi.StringWidth(l[:loc[1]]); got != edge {
					t.Fatalf("width %d, sort %d: amount ends at cell %d, its header at %d:\n%s\n%s", w, s, got, edge, lines[head], l)
				}
			}
			h.key("s")
		}
	}
}

// The header keeps the profile whole at 80 columns with a low-balance
// alert: shorter words go first, nothing is cut.
func TestHeaderKeepsTheProfileWhole(t *testing.T) {
	h := newHarness(t, Options{Backend: newFake(10), LowBalance: map[string]int64{"EUR": 10_000_00}, Profile: "live-eu"}, 80, 24)
	first := strings.Split(h.view(), "\n")[0]
	if strings.Contains(first, "…") || !strings.Contains(first, "profile live-eu") || !strings.Contains(first, "low") {
		t.Fatalf("header at 80 columns: %q", first)
	}
}

// Issue 22: at the narrowest size the dashboard draws, labels lose words
// (or keep only the view's own name) rather than being cut mid-word: the
// production banner, the header, the tab bar, the lists' first lines and
// a form's key.
func TestLabelsDropWordsRatherThanBeingCut(t *testing.T) {
	for _, tc := range []struct {
		name  string
		opts  func(*Options)
		drive func(*harness)
		lines int
	}{
		{name: "balances", opts: func(o *Options) { o.LowBalance = map[string]int64{"EUR": 10_000_00} }, lines: 3},
		{name: "production", opts: func(o *Options) { o.Production = true; o.Profile = "live-eu" }, lines: 4},
		{name: "payouts", drive: func(h *harness) { h.key("3") }, lines: 3},
		{name: "report", drive: func(h *harness) { h.key("2") }, lines: 3},
		{name: "events", drive: func(h *harness) { h.key("4") }, lines: 4},
		{name: "payout form", drive: func(h *harness) { h.key("5") }, lines: 3},
	} {
		opts := Options{Backend: newFake(20), Events: closedEvents(testEvents()), States: liveState()}
		if tc.opts != nil {
			tc.opts(&opts)
		}
		h := newHarness(t, opts, minWidth, minHeight)
		if tc.drive != nil {
			tc.drive(h)
		}
		out := strings.Split(ansi.Strip(h.view()), "\n")
		for i, l := range out[:tc.lines] {
			if strings.Contains(l, "…") {
				t.Errorf("%s at %dx%d: line %d is cut: %q", tc.name, minWidth, minHeight, i+1, l)
			}
		}
	}
}
