package ui

import (
	"testing"

	"github.com/paydash/paydash/api"
)

// Issue 18 item 6: hints inside views name keys from the keymap, never
// from literals: rebinding keys changes every hint that names them.
func TestHintsFollowTheKeymap(t *testing.T) {
	rebind := func(h *harness) {
		k := h.m.keys
		k.Filter = kb("F1", "filter", "f1")
		k.Date = kb("F2", "date", "f2")
		k.Refresh = kb("F5", "refresh", "f5")
		k.Follow = kb("F6", "follow", "f6")
		k.ConfirmSend = kb("F7", "send", "f7")
		k.QuitYes = kb("F8", "quit", "f8")
		k.Edit = kb("F9", "edit", "f9")
		k.NewForm = kb("F10", "new form", "f10")
	}
	opts := func() Options {
		return Options{Backend: newFake(10), Events: closedEvents(testEvents()), States: liveState()}
	}
	h := newHarness(t, opts(), 120, 40)
	rebind(h)
	h.key("2")
	mustContain(t, h.view(), "F1 filter · F2 date")
	h.key("3")
	mustContain(t, h.view(), "(F5 reloads it)")
	h.key("4")
	mustContain(t, h.view(), "F6 follow/pause")

	h = newHarness(t, opts(), 120, 40)
	rebind(h)
	fillPayout(h, "Ada Lovelace", "DE75512108001245126199", "INV-1", "12.34")
	mustContain(t, h.view(), "F7 send")

	h = newHarness(t, opts(), 120, 40)
	rebind(h)
	h.be.payoutErrs = []error{&api.Error{StatusCode: 503}} // no definite answer
	fillPayout(h, "Ada Lovelace", "DE75512108001245126199", "INV-1", "12.34")
	h.key("y")
	mustContain(t, h.view(), "F9 edits", "F10 discards")

	h = newHarness(t, opts(), 120, 40)
	rebind(h)
	h.key("5")
	h.key("enter")
	h.typeText("Ada")
	h.key("alt+1")
	h.key("q")
	mustContain(t, h.view(), "F8 quit")
}
