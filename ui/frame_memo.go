package ui

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
)

// Bubble Tea draws the whole frame after every message, and at a busy
// hour a relay event comes every few milliseconds; the frame's own
// lines (header, tabs, key bar) change far less often than that, and
// lipgloss renders them anew each time (a colour costs a search of the
// 256-colour palette). Each is kept with what it was made from and made
// again only when that changed.

// lineMemo is one line of the frame and the inputs it was made from.
type lineMemo struct {
	key, line string
	ok        bool
}

// get returns the line for key, making it when key is not the last one.
func (l *lineMemo) get(key string, make func() string) string {
	if !l.ok || l.key != key {
		l.key, l.line, l.ok = key, make(), true
	}
	return l.line
}

// frameMemo holds the frame's lines kept between draws.
type frameMemo struct {
	header, tabs, keys lineMemo
}

// bindingsKey says everything of a key bar that its drawing reads.
func bindingsKey(width int, sets ...[]key.Binding) string {
	var b strings.Builder
	b.WriteString(itoa(width))
	for _, set := range sets {
		b.WriteByte('\x1e')
		for _, k := range set {
			h := k.Help()
			b.WriteString(h.Key)
			b.WriteByte('\x1f')
			b.WriteString(h.Desc)
			if k.Enabled() {
				b.WriteByte('+')
			}
			b.WriteByte('\x1f')
		}
	}
	return b.String()
}
