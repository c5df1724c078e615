package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"
)

// Issue 28 item 5: on a read-only profile no form is offered: not in the
// tab bar, not by its number, alt+number, ':payout' or tab, and the
// status line says why in the factory's words.
func TestReadOnlyProfileOffersNoForm(t *testing.T) {
	why := `profile "viewer" is read-only (read_only, or --readonly): it sends nothing`
	h := newHarness(t, Options{Backend: newFake(10), ReadOnly: why}, 120, 40)
	mustContain(t, h.view(), "profile demo read-only")
	mustContain(t, h.m.helpLine(), "1-4 views")
	top := strings.SplitN(h.view(), "\n", 4)
	for _, name := range []string{"Payout+", "Payment+", "Mandate+"} {
		if strings.Contains(strings.Join(top[:3], "\n"), name) {
			t.Errorf("the tab bar of a read-only profile offers %s:\n%s", name, strings.Join(top[:3], "\n"))
		}
	}
	for _, keys := range [][]string{{"5"}, {"6"}, {"7"}, {"alt+5"}, {":", "p", "a", "y", "o", "u", "t", "enter"}, {":", "m", "a", "n", "d", "a", "t", "e", "enter"}} {
		h.key("1")
		for _, k := range keys {
			h.key(k)
		}
		if isForm(h.m.tab) {
			t.Fatalf("%v opened %s on a read-only profile", keys, tabNames[h.m.tab])
		}
		mustContain(t, h.view(), "is read-only (read_only, or --readonly): it sends nothing")
	}
	// Cycling the views passes over the forms.
	h.key("1")
	for range 2 * numTabs {
		h.key("tab")
		if isForm(h.m.tab) {
			t.Fatalf("tab reached %s on a read-only profile", tabNames[h.m.tab])
		}
	}
	if h.be.payoutCount() != 0 {
		t.Fatalf("%d payouts sent from a read-only profile", h.be.payoutCount())
	}
}

// The same profile without ReadOnly offers the forms: the test above
// fails for the read-only reason, not because forms are never offered.
func TestProfileThatSendsOffersForms(t *testing.T) {
	h := newHarness(t, Options{Backend: newFake(10)}, 120, 40)
	mustContain(t, h.view(), "Payout+", "Payment+", "Mandate+")
	h.key("5")
	if h.m.tab != tabPayout {
		t.Fatalf("5 opened %s", tabNames[h.m.tab])
	}
}

// On a read-only team profile the Approvals view lists what awaits, but
// approve and reject are neither offered (help bar) nor run by their
// keys: nothing reaches the hub.
func TestReadOnlyTeamProfileDecidesNothing(t *testing.T) {
	f := teamHub()
	hs := newHarness(t, Options{Backend: newFake(50), Approvals: f, Profile: "bob", ReadOnly: `profile "bob" is read-only`}, 120, 40)
	hs.key("8")
	selectRow(t, hs, "apr-aaaaaaaaaa")
	if bar := hs.m.helpLine(); strings.Contains(bar, hint(hs.m.keys.Approve)) || strings.Contains(bar, hint(hs.m.keys.Reject)) {
		t.Fatalf("a read-only profile is offered decisions: %q", bar)
	}
	hs.key("a")
	hs.key("y")
	hs.key("x")
	if a, r := f.decided(); len(a) != 0 || len(r) != 0 {
		t.Fatalf("a read-only profile decided: %v %v", a, r)
	}
	mustContain(t, hs.view(), `profile "bob" is read-only`)
}

// The read-only dashboard at the three sizes: the header says so, the
// tab bar has no form, the help names only the views offered, and 5 says
// why there is no form. Update with: go test ./ui -run TestReadOnlyGolden -update
func TestReadOnlyGolden(t *testing.T) {
	why := `profile "viewer" is read-only (read_only, or --readonly): it sends nothing`
	for _, sz := range []struct {
		name string
		w, h int
	}{{"200x50", 200, 50}, {"120x40", 120, 40}, {"80x24", 80, 24}} {
		t.Run(sz.name, func(t *testing.T) {
			h := newHarness(t, Options{Backend: newFake(300), Profile: "viewer", ReadOnly: why}, sz.w, sz.h)
			h.key("5")
			out := h.view()
			checkFrame(t, out, sz.w, sz.h)
			golden.RequireEqual(t, []byte(out))
		})
	}
}
