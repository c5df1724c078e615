package ui

import (
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/paydash/paydash/config"
)

// amountRE finds an amount as the lists show it: a sign, a currency
// symbol or code, digits with separators.
var amountRE = regexp.MustCompile(`[-+]?[£€$]?\d{1,3}(?:,\d{3})*\.\d{2}(?: [A-Z]{3})?`)

// amountEnds checks that, below the header holding title, every row's
// amount ends in the same cell as the title: right-aligned columns line
// up whatever the sort arrow, the sign or the currency symbol.
func amountEnds(t *testing.T, screen, title, where string) {
	t.Helper()
	lines := strings.Split(ansi.Strip(screen), "\n")
	head := -1
	for i, l := range lines {
		if strings.HasPrefix(l, " ") && strings.Contains(l, title) {
			head = i
			break
		}
	}
	if head < 0 {
		t.Fatalf("%s: no header %q:\n%s", where, title, screen)
	}
	end := ansi.StringWidth(lines[head][:strings.Index(lines[head], title)+len(title)])
	rows := 0
	for _, l := range lines[head+1:] {
		if !strings.HasPrefix(l, " ") && !strings.HasPrefix(l, ">") && !strings.HasPrefix(l, "*") || strings.HasPrefix(l, "─") {
			break
		}
		loc := amountRE.FindStringIndex(l)
		if loc == nil {
			continue
		}
		rows++
		if got := ansi.StringWidth(l[:loc[1]]); got != end {
			t.Errorf("%s: amount %q ends in cell %d, its header %q in cell %d:\n%s\n%s", where, l[loc[0]:loc[1]], got, title, end, lines[head], l)
		}
	}
	if rows < 2 {
		t.Fatalf("%s: %d rows with an amount under %q: the test does not tell", where, rows, title)
	}
}

// Issue 28 item 6: columns line up. The report sorted by amount (its
// header carries the arrow), with debits and credits in pounds and euros,
// and the tracker with payouts in both currencies, at 80 and 120 columns.
func TestAmountColumnsLineUp(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {120, 40}, {200, 50}} {
		h := newHarness(t, Options{Backend: newFake(300), States: liveState(),
			Views: []config.View{{Name: "a", Sort: "amount asc"}}, StartView: "a"}, sz[0], sz[1])
		amountEnds(t, h.view(), "Amount ↑", "report "+itoa(sz[0]))

		h = newHarness(t, Options{Backend: newFake(300), States: liveState()}, sz[0], sz[1])
		for _, i := range []int{1, 2, 3, 4, 7} { // GBP and EUR payouts
			h.send(trackPayoutMsg{tx: genTx(i)})
		}
		h.key("3")
		amountEnds(t, h.view(), "Amount", "tracker "+itoa(sz[0]))
	}
}
