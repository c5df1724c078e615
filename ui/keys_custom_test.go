package ui

import (
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/paydash/paydash/config"
)

// Every action of the keymap says where it acts (so a conflict can be
// found) or why it cannot be remapped: a new binding without a place
// fails here.
func TestEveryActionHasAPlace(t *testing.T) {
	names, byName := newKeyMap().actions()
	for _, n := range names {
		if _, ok := actionScopes[n]; !ok && fixedActions[n] == "" {
			t.Errorf("action %s has no scope in actionScopes and is not fixed", n)
		}
	}
	for n := range actionScopes {
		if _, ok := byName[n]; !ok {
			t.Errorf("actionScopes names %s, which the keymap has not", n)
		}
	}
	if got := actionName("CopyIBAN"); got != "copy_iban" {
		t.Errorf("CopyIBAN is %s", got)
	}
	if got := actionName("PgUp"); got != "pg_up" {
		t.Errorf("PgUp is %s", got)
	}
}

// The defaults conflict nowhere: each default written out in [keys] is
// accepted as it is.
func TestDefaultKeysDoNotConflict(t *testing.T) {
	names, byName := newKeyMap().actions()
	var c config.Custom
	for _, n := range names {
		if fixedActions[n] != "" {
			continue
		}
		c.Keys = append(c.Keys, config.KeyBinding{Action: n, Keys: byName[n].Keys(), Line: 1})
	}
	if err := CheckKeys(c); err != nil {
		t.Fatalf("the default keys written out in [keys] are refused: %v", err)
	}
}

// Issue 28 item 3: an unknown action, an unknown key name, a fixed
// action and a conflict are refused, each naming its line.
func TestBadKeysAreRefusedNamingTheLine(t *testing.T) {
	for _, tc := range []struct {
		kb   config.KeyBinding
		want string
	}{
		{config.KeyBinding{Action: "quitt", Keys: []string{"Q"}, Line: 4}, "config /c.toml: line 4: [keys] quitt: no such action (did you mean quit?)"},
		{config.KeyBinding{Action: "quit", Keys: []string{"ctrl+qq"}, Line: 5}, `line 5: [keys] quit = "ctrl+qq": "ctrl+qq" is not a key`},
		{config.KeyBinding{Action: "quit", Keys: []string{"hyper+q"}, Line: 5}, `"hyper+q" is not a key`},
		{config.KeyBinding{Action: "tabs", Keys: []string{"x"}, Line: 6}, "line 6: [keys] tabs cannot be remapped"},
		{config.KeyBinding{Action: "quit", Keys: []string{"s"}, Line: 7}, `line 7: [keys] quit = "s" conflicts with sort`},
		{config.KeyBinding{Action: "copy_iban", Keys: []string{"h"}, Line: 8}, `line 8: [keys] copy_iban = "h" conflicts with range`},
	} {
		err := CheckKeys(config.Custom{File: "/c.toml", Keys: []config.KeyBinding{tc.kb}})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.kb, err, tc.want)
		}
	}
	// Keys that are fine: a character, a name, alt+, space, a list.
	for _, keys := range [][]string{{"Q"}, {"ctrl+q"}, {"f10"}, {"alt+q"}, {"Q", "ctrl+q"}} {
		if err := CheckKeys(config.Custom{Keys: []config.KeyBinding{{Action: "quit", Keys: keys, Line: 1}}}); err != nil {
			t.Errorf("quit = %v: %v", keys, err)
		}
	}
	if k, ok := normaliseKey("space"); !ok || k != " " {
		t.Errorf("space is %q, %v", k, ok)
	}
	// The same key in two places that never meet is no conflict: c is
	// the report's currency filter, and may copy a payout in the tracker.
	if err := CheckKeys(config.Custom{Keys: []config.KeyBinding{{Action: "copy_payout", Keys: []string{"c"}, Line: 1}}}); err != nil {
		t.Errorf("copy_payout = c: %v", err)
	}
}

// A remapped key works, and shows in the help bar and the actions menu;
// the old key no longer does it.
func TestRemappedKeyDrivesDispatchAndHelp(t *testing.T) {
	custom := config.Custom{Keys: []config.KeyBinding{
		{Action: "help", Keys: []string{"H"}, Line: 1},
		{Action: "copy_id", Keys: []string{"I"}, Line: 2},
		{Action: "quit", Keys: []string{"Q"}, Line: 3},
	}}
	h := newHarness(t, Options{Backend: newFake(10), Custom: custom}, 120, 40)
	mustContain(t, h.view(), "H help", "Q quit")
	if strings.Contains(h.view(), "? help") {
		t.Error("the help bar still shows ? for help")
	}
	h.key("?")
	if h.m.showHelp {
		t.Error("? still opens help")
	}
	h.key("H")
	if !h.m.showHelp {
		t.Fatal("H does not open help")
	}
	for _, re := range []string{`H\s+help`, `Q\s+quit`, `H/esc closes`} {
		if !regexp.MustCompile(re).MatchString(h.view()) {
			t.Errorf("the ? overlay lacks %s:\n%s", re, h.view())
		}
	}
	h.key("H")
	if h.m.showHelp {
		t.Error("H does not close the help it opened")
	}
	h.key("2")
	h.key(" ")
	mustContain(t, h.view(), "I      copy id")
	h.key("I")
	if !strings.Contains(h.clip.String(), "]52;") {
		t.Errorf("I in the actions menu copied nothing: %q", h.clip.String())
	}
	h.key("q")
	if h.quit() {
		t.Fatal("q still quits")
	}
	h.key("Q")
	if !h.quit() {
		t.Fatal("Q does not quit")
	}
}

// A dashboard with remapped keys at the three sizes, help open: the help
// bar and the overlay show the remapped keys. Update with:
// go test ./ui -run TestCustomKeysGolden -update
func TestCustomKeysGolden(t *testing.T) {
	custom := config.Custom{Keys: []config.KeyBinding{
		{Action: "help", Keys: []string{"H"}, Line: 1},
		{Action: "quit", Keys: []string{"Q"}, Line: 2},
		{Action: "sort", Keys: []string{"o"}, Line: 3},
		{Action: "copy_id", Keys: []string{"I", "ctrl+y"}, Line: 4},
	}}
	for _, sz := range []struct {
		name string
		w, h int
	}{{"200x50", 200, 50}, {"120x40", 120, 40}, {"80x24", 80, 24}} {
		t.Run(sz.name, func(t *testing.T) {
			h := newHarness(t, Options{Backend: newFake(300), Custom: custom}, sz.w, sz.h)
			h.key("2")
			h.key("H")
			out := h.view()
			checkFrame(t, out, sz.w, sz.h)
			golden.RequireEqual(t, []byte(out))
		})
	}
}
