package ui

import (
	"strings"
)

// summaryKeyW is the width of the key column of a confirmation or result
// screen ("transaction id" and two spaces of indent).
const summaryKeyW = 16

// wrapRow renders one "key  value" row of a confirmation or result
// screen. The value wraps onto as many lines as it needs, indented under
// itself, and is never cut: these screens are where the operator checks
// the payee, IBAN, amount and reference before money moves.
func wrapRow(c *viewContext, k, v string, w int) string { return wrapRowW(c, k, v, w, summaryKeyW) }

// wrapRowW is wrapRow with a key column keyW wide.
func wrapRowW(c *viewContext, k, v string, w, keyW int) string {
	vw := max(w-keyW-2, 10)
	lines := strings.Split(wrapWords(v, vw), "\n")
	var b strings.Builder
	for i, l := range lines {
		if i == 0 {
			b.WriteString("  " + c.st.muted.Render(fit(k, keyW)) + l + "\n")
			continue
		}
		b.WriteString(strings.Repeat(" ", keyW+2) + l + "\n")
	}
	return b.String()
}
