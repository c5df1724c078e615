package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// trimBox takes box borders off a word's ends.
func trimBox(w string) string { return strings.Trim(w, "│─┌┐└┘├┤╭╮╰╯┃━") }

// graphic is a run of block elements (a sparkline), or a count such as
// "1–15" that depends on the screen's height: neither is a word.
func graphic(w string) bool {
	return strings.Trim(w, "▁▂▃▄▅▆▇█░▒▓ ") == "" || strings.Trim(w, "0123456789,.–-/:()") == ""
}

// Issue 28 item 6: nothing that carries meaning is cut. The last word of
// every line of every golden screen at 80x24, 120x40 and 200x50 is a
// word of the same screen drawn 400 columns wide (so the line was
// wrapped between words, or the text shown whole), or it ends in "…"
// (cut on purpose: shown whole in the inspector or on copy).
func TestGoldenLinesEndOnWholeWords(t *testing.T) {
	for _, sc := range append(append(goldenScenarios(), approvalsScenarios()...), ownScenarios()...) {
		for _, sz := range [][2]int{{80, 24}, {120, 40}, {200, 50}} {
			wide := map[string]bool{}
			for _, w := range strings.Fields(ansi.Strip(sc.render(t, 400, sz[1]))) {
				wide[trimBox(w)] = true
			}
			for i, l := range strings.Split(ansi.Strip(sc.render(t, sz[0], sz[1])), "\n") {
				f := strings.Fields(l)
				if len(f) == 0 {
					continue
				}
				w := trimBox(f[len(f)-1])
				if w == "" || wide[w] || strings.HasSuffix(w, "…") || graphic(w) {
					continue
				}
				t.Errorf("%s at %dx%d, line %d ends mid-word, without an ellipsis: %q\n%s", sc.name, sz[0], sz[1], i+1, w, l)
			}
		}
	}
}
