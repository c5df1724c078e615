package ui

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
)

// filterBar is the '/' filter line every list view has: enter keeps the
// filter, esc clears it.
type filterBar struct {
	ti     textinput.Model
	active bool
}

func newFilterBar(placeholder string) filterBar {
	ti := textinput.New()
	ti.Prompt = "/"
	ti.Placeholder = placeholder
	staticCursor(&ti)
	return filterBar{ti: ti}
}

// syntax is what the bar accepts, for the help screen (the placeholder
// shows it only while the bar is open and empty).
func (f *filterBar) syntax() string { return f.ti.Placeholder }

func (f *filterBar) start() tea.Cmd {
	f.active = true
	f.ti.CursorEnd()
	return f.ti.Focus()
}

// update handles a key while the bar is active; changed reports that the
// filter text is different afterwards.
func (f *filterBar) update(keys *keyMap, k tea.KeyMsg) (cmd tea.Cmd, changed bool) {
	switch {
	case key.Matches(k, keys.Accept):
		f.active = false
		f.ti.Blur()
		return nil, false
	case key.Matches(k, keys.Clear):
		f.active = false
		f.ti.Blur()
		changed = f.ti.Value() != ""
		f.ti.SetValue("")
		return nil, changed
	}
	before := f.ti.Value()
	f.ti, cmd = f.ti.Update(k)
	return cmd, f.ti.Value() != before
}

func (f *filterBar) value() string { return f.ti.Value() }

func (f *filterBar) set(s string) { f.ti.SetValue(s) }

// query is the filter as lowercased, trimmed text.
func (f *filterBar) query() string { return strings.ToLower(strings.TrimSpace(f.ti.Value())) }

// shown reports whether the bar has something to draw.
func (f *filterBar) shown() bool { return f.active || f.ti.Value() != "" }

func (f *filterBar) view() string { return f.ti.View() }

// filterBarKeys is the help while a filter bar has the keys.
func filterBarKeys(keys *keyMap) helpMap {
	return helpMap{short: []key.Binding{keys.Accept, keys.Clear}}
}
