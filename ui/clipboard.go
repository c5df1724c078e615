package ui

import (
	"os"
	"strings"

	"github.com/aymanbagabas/go-osc52/v2"
	tea "github.com/charmbracelet/bubbletea"
)

// copyText puts text on the user's clipboard with OSC 52, which works over
// SSH and needs no clipboard tool; tmux and screen need it wrapped.
func (c *viewContext) copyText(text, what string) tea.Cmd {
	w := c.clip
	tmux := os.Getenv("TMUX") != ""
	screen := strings.HasPrefix(os.Getenv("TERM"), "screen")
	return func() tea.Msg {
		seq := osc52.New(text)
		switch {
		case tmux:
			seq = seq.Tmux()
		case screen:
			seq = seq.Screen()
		}
		if _, err := seq.WriteTo(w); err != nil {
			return flashMsg{text: "copy failed: " + err.Error(), err: true}
		}
		return flashMsg{text: "copied " + what + " to the clipboard (OSC 52)"}
	}
}
