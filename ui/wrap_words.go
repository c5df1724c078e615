package ui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// wrapWords wraps s (which may carry styles) to w cells, breaking only at
// spaces: a reference such as INV-1001 or an id is never split at its
// hyphen, as ansi.Wrap and ansi.Wordwrap do (issue 28, item 6). A word
// wider than a whole line is broken hard, every cell of it still shown.
func wrapWords(s string, w int) string {
	if w < 10 {
		return s
	}
	var out []string
	for _, para := range strings.Split(s, "\n") {
		line, lw := "", 0
		for _, word := range strings.Split(para, " ") {
			ww := ansi.StringWidth(word)
			if ww == 0 && ansi.Strip(word) == "" && word != "" {
				// Only styles: keep them with the line.
				line += word
				continue
			}
			if word == "" {
				continue
			}
			if lw > 0 && lw+1+ww > w {
				out = append(out, line)
				line, lw = "", 0
			}
			if ww > w {
				parts := strings.Split(ansi.Hardwrap(word, w, false), "\n")
				if lw > 0 {
					out = append(out, line)
				}
				out = append(out, parts[:len(parts)-1]...)
				line, lw = parts[len(parts)-1], ansi.StringWidth(parts[len(parts)-1])
				continue
			}
			if lw > 0 {
				line += " "
				lw++
			}
			line += word
			lw += ww
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

// maxStatusLines bounds the status line's message: the body keeps the
// rest of the screen.
const maxStatusLines = 3

// wrapAtMost is wrapWords in at most n lines; a text longer than that
// ends its last line with "…".
func wrapAtMost(s string, w, n int) string {
	lines := strings.Split(wrapWords(s, w), "\n")
	if len(lines) <= n {
		return strings.Join(lines, "\n")
	}
	last := strings.Join(lines[n-1:], " ")
	return strings.Join(append(lines[:n-1:n-1], fit(last, w)), "\n")
}

// renderLines styles each line on its own, fitted to w cells.
func renderLines(st interface{ Render(...string) string }, s string, w int) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = st.Render(fit(l, w))
	}
	return strings.Join(lines, "\n")
}
