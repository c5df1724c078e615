package ui

import "github.com/charmbracelet/lipgloss"

// Labels are never cut mid-word when a shorter form fits (issue 22):
// these pick the longest form of a line that fits its width, and only cut
// (fit's …) when none does.

// firstFit is the first of forms, longest first, that fits in w cells;
// the last form cut when none fits.
func firstFit(w int, forms ...string) string {
	for _, f := range forms {
		if lipgloss.Width(f) <= w {
			return f
		}
	}
	if len(forms) == 0 {
		return fit("", w)
	}
	return fit(forms[len(forms)-1], w)
}

// wholeParts joins the leading parts that fit in w cells whole, so a list
// of hints loses its last items rather than the end of one.
func wholeParts(w int, sep string, parts ...string) string {
	out := ""
	for i, p := range parts {
		next := p
		if i > 0 {
			next = out + sep + p
		}
		if lipgloss.Width(next) > w {
			if i == 0 {
				return fit(p, w)
			}
			break
		}
		out = next
	}
	return out
}

// lowOnly is the low-balance alert as the header's shortest form shows it
// (nothing when no account is low).
func lowOnly(low string, render func(...string) string) []string {
	if low == "" {
		return nil
	}
	return []string{render("⚠ low: " + low)}
}
