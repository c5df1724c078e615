package ui

import (
	"strings"
	"testing"

	"github.com/paydash/paydash/internal/platform/termtext"
)

// TestPayoutFormRefusesNamesThatDriveATerminal: a bidi override, an
// isolate or a zero-width character typed or pasted into a field never
// enters it: the screen says which (by its code, never drawing it), as
// every command and the sandbox refuse it; a name in any script with
// accents is taken.
func TestPayoutFormRefusesNamesThatDriveATerminal(t *testing.T) {
	for _, bad := range []string{"Zoë\u202eGmbH", "Ada\u200bLovelace", "Ada\u2067x\u2069"} {
		h := newHarness(t, Options{Backend: newFake(10)}, 120, 40)
		h.key("5")
		h.key("enter")
		h.typeText(bad)
		v := h.view()
		if !strings.Contains(v, "U+") || !strings.Contains(v, "not typed") || rawUnsafe(v) != "" {
			t.Errorf("name %q: no refusal naming the character, or it is drawn raw:\n%s", bad, v)
		}
		if got := h.m.payout.spec.(*payoutForm).name; strings.ContainsFunc(got, termtext.Unsafe) {
			t.Errorf("name %q: the field holds %q", bad, got)
		}
	}
	h := newHarness(t, Options{Backend: newFake(10)}, 120, 40)
	fillPayout(h, "O'Brien & Co. Müller GmbH", "DE75512108001245126199", "Zoë 山田 #4", "10")
	mustContain(t, h.view(), "Send this payout?")
}

// TestFilterAndCommandLineNeverTakeUnsafeCharacters: the report's
// filter and the : command line echo what is typed too; a pasted bidi
// override or escape never enters them.
func TestFilterAndCommandLineNeverTakeUnsafeCharacters(t *testing.T) {
	h := newHarness(t, Options{Backend: newFake(10)}, 120, 40)
	h.key("2")
	h.key("/")
	h.typeText("Ada\u202e\x1b[2J")
	if v := h.view(); rawUnsafe(v) != "" || !strings.Contains(v, "/Ada") {
		t.Errorf("the filter took or drew the characters:\n%s", v)
	}
	h.key("esc")
	h.key(":")
	h.typeText("pay\u2067outs")
	if v := h.view(); rawUnsafe(v) != "" {
		t.Errorf("the command line drew the character:\n%s", v)
	}
}

// writeBody is clipLines(padLines(...)) in one pass: the same frame body
// for bodies shorter, longer and as long as the room, with lines too wide.
func TestWriteBodyIsPadThenClip(t *testing.T) {
	for _, body := range []string{"", "one", "one\ntwo", "a\nb\nc\nd\ne\nf", "wide " + strings.Repeat("x", 40) + "\nshort\n", "\n\n"} {
		for _, h := range []int{1, 3, 6, 8} {
			var b strings.Builder
			writeBody(&b, body, h, 10)
			if want := clipLines(padLines(body, h), 10); b.String() != want {
				t.Errorf("body %q h %d: %q, want %q", body, h, b.String(), want)
			}
		}
	}
}
