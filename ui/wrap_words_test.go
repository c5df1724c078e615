package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

func TestWrapWordsBreaksOnlyAtSpaces(t *testing.T) {
	got := wrapWords("3539846c-c4af-459c-80db-0000000dbba1 · £12.34 to Ada · ref INV-1001 (from the audit record)", 24)
	for _, l := range strings.Split(got, "\n") {
		if ansi.StringWidth(l) > 24 {
			t.Errorf("line %q is wider than 24", l)
		}
	}
	for _, whole := range []string{"INV-1001", "£12.34"} {
		if !strings.Contains(got, whole) {
			t.Errorf("%s was split:\n%s", whole, got)
		}
	}
	// The id is wider than the line: broken hard, every character kept.
	if strings.ReplaceAll(strings.Split(got, "\n")[0]+strings.Split(got, "\n")[1], "\n", "") == "" ||
		!strings.Contains(strings.ReplaceAll(got, "\n", ""), "3539846c-c4af-459c-80db-0000000dbba1") {
		t.Errorf("the id lost characters:\n%s", got)
	}
	// Styles stay with their words.
	styled := "\x1b[31m✗ IBAN is a DE IBAN\x1b[0m, or pay in EUR over SEPA"
	if ansi.Strip(strings.ReplaceAll(wrapWords(styled, 12), "\n", " ")) != ansi.Strip(styled) {
		t.Errorf("wrapping changed the text: %q", wrapWords(styled, 12))
	}
}
