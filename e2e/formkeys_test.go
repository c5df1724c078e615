package e2e

import (
	"strings"
	"testing"
	"time"
)

// probe is what a person pasting an id into the wrong place types: a
// UUID, a space and letters that are shortcuts elsewhere (d sets the
// report's date filter, t its type, q quits).
const probe = "6f1d3c2a-2347-4a4a-9b9b-000000000001 dtq"

// formStep is one field of a form: a choice keeps its default (enter),
// text gets value after the probe is cleared.
type formStep struct {
	choice bool
	value  string
}

func choice() formStep          { return formStep{choice: true} }
func text(v string) formStep    { return formStep{value: v} }
func blank() formStep           { return formStep{} }
func (f formStep) text() bool   { return !f.choice }
func tabLine(txt string) string { return strings.Split(txt, "\n")[1] }

// TestTypingIntoEveryFieldNeverChangesTheView types a UUID and letters
// into every field of the payout and payment forms and into the mandate
// form up to its amount, in a real terminal: the view must stay the form
// (issue 12: a UUID typed into a select jumped between views and d set the
// report's filter). Each text field is then cleared (ctrl+u) and given a
// valid value so the walk reaches the next field.
func TestTypingIntoEveryFieldNeverChangesTheView(t *testing.T) {
	if testing.Short() {
		t.Skip("types into every field of three forms in a real terminal, about half a minute: left to the full run")
	}
	env := isolatedEnv(t)
	s := startScreen(t, env, "demo", "--activity=false")
	s.waitText(30*time.Second, "Balances", "relay: live")

	forms := []struct {
		alt, tab, end string // end: on screen once every step is done
		steps         []formStep
	}{
		{"\x1b5", "[5 Payout+]", "Send this payout?", []formStep{
			choice(), text("Ada Lovelace"), text("GB33BUKB20201555555555"), text("INV-1"), text("1.00"), text("withdrawal"),
		}},
		{"\x1b6", "[6 Payment+]", "Send this payment?", []formStep{
			text("12.34"), choice(), choice(), text("Ada Lovelace"), text("INV-9"), choice(), text("040004"), text("12345678"),
			choice(), choice(), choice(), text("gb"), choice(), text("retail"),
			text("Ada Lovelace"), text("ada@example.com"), blank(), blank(), blank(), text("order=42"), blank(),
		}},
		{"\x1b7", "[7 Mandate+]", "", []formStep{
			choice(), choice(), choice(), text("Ada"), choice(), text("040004"), text("12345678"),
			choice(), blank(), choice(), blank(),
			text("Ada"), text("ada@example.com"), blank(), blank(),
			text("2026-12-01"), text("2029-12-01"), text("100"),
		}},
	}
	for _, f := range forms {
		s.press(f.alt)
		s.waitFor("the form "+f.tab, 10*time.Second, func(txt string) bool { return strings.Contains(tabLine(txt), f.tab) })
		time.Sleep(200 * time.Millisecond)
		for i, st := range f.steps {
			s.typeText(probe)
			time.Sleep(100 * time.Millisecond)
			if txt := s.text(); !strings.Contains(tabLine(txt), f.tab) {
				t.Fatalf("%s field %d: typing %q changed the view; screen:\n%s", f.tab, i+1, probe, txt)
			}
			if st.text() {
				s.press("\x15") // ctrl+u clears what was typed
				if st.value != "" {
					s.typeText(st.value)
				}
			}
			s.press(keyEnter)
			time.Sleep(100 * time.Millisecond)
		}
		if f.end != "" {
			// The walk reached the end: every field had its probe.
			s.waitText(10*time.Second, f.end)
		}
		// The confirmation (or the next page) takes the probe too.
		s.typeText(probe)
		time.Sleep(100 * time.Millisecond)
		if txt := s.text(); !strings.Contains(tabLine(txt), f.tab) {
			t.Fatalf("%s after the last field: the view changed; screen:\n%s", f.tab, txt)
		}
	}
	// Nothing reached the report: its filter is still empty.
	s.press("\x1b2")
	txt := s.waitFor("the report", 10*time.Second, func(txt string) bool { return strings.Contains(tabLine(txt), "[2 Report]") })
	if strings.Contains(txt, "date:today") || strings.Contains(txt, "type:") {
		t.Fatalf("keys typed into forms reached the report's filter:\n%s", txt)
	}
	if strings.Contains(txt, "Send this") {
		t.Fatalf("unexpected form on the report view:\n%s", txt)
	}
}
