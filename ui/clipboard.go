package ui

import (
	"os"
	"strings"

	"github.com/aymanbagabas/go-osc52/v2"
	tea "github.com/charmbracelet/bubbletea"
)

// copyText puts text on the user's clipboard with OSC 52, which works over
// SSH and needs no clipboard tool.
//
// Inside tmux the sequence goes out plain: tmux 3.3 with set-clipboard on
// reads a plain OSC 52 into its paste buffer (and passes it on to the
// outer terminal), whereas the DCS passthrough wrapping is dropped unless
// allow-passthrough is on, which left tmux's buffer empty. Checked with a
// real tmux 3.3a: plain → buffer set; wrapped → no buffer; with the
// default set-clipboard external neither, hence the hint. GNU screen (outside tmux; tmux also sets
// TERM=screen*) still needs its own wrapping.
func (c *viewContext) copyText(text, what string) tea.Cmd {
	w := c.clip
	tmux := os.Getenv("TMUX") != ""
	screen := !tmux && strings.HasPrefix(os.Getenv("TERM"), "screen")
	note := "OSC 52"
	if tmux {
		note = "OSC 52; tmux needs set -g set-clipboard on"
	}
	return func() tea.Msg {
		seq := osc52.New(text)
		if screen {
			seq = seq.Screen()
		}
		if _, err := seq.WriteTo(w); err != nil {
			return flashMsg{text: "copy failed: " + err.Error(), err: true}
		}
		return flashMsg{text: "copied " + what + " to the clipboard (" + note + ")"}
	}
}
