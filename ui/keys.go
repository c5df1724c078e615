package ui

import "github.com/charmbracelet/bubbles/key"

// globalKeys are the frame's bindings; views add their own for help.
type globalKeys struct {
	Tabs    key.Binding
	AltTabs key.Binding
	Command key.Binding
	Filter  key.Binding
	Help    key.Binding
	Refresh key.Binding
	Quit    key.Binding
	Up      key.Binding
	Down    key.Binding
	PgUp    key.Binding
	PgDown  key.Binding
	Top     key.Binding
	Bottom  key.Binding
	Enter   key.Binding
	Back    key.Binding
}

func newGlobalKeys() globalKeys {
	return globalKeys{
		Tabs:    key.NewBinding(key.WithKeys("1", "2", "3", "4", "5", "6", "7"), key.WithHelp("1-7", "switch view")),
		AltTabs: key.NewBinding(key.WithKeys("alt+1", "alt+2", "alt+3", "alt+4", "alt+5", "alt+6", "alt+7"), key.WithHelp("alt+1-7", "switch view (even in a form)")),
		Command: key.NewBinding(key.WithKeys(":"), key.WithHelp(":", "command (:balances :payout …)")),
		Filter:  key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "filter")),
		Help:    key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "help")),
		Refresh: key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "refresh")),
		Quit:    key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit")),
		Up:      key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:    key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		PgUp:    key.NewBinding(key.WithKeys("pgup", "ctrl+b"), key.WithHelp("pgup", "page up")),
		PgDown:  key.NewBinding(key.WithKeys("pgdown", "ctrl+f", " "), key.WithHelp("pgdn", "page down")),
		Top:     key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("g", "top")),
		Bottom:  key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("G", "bottom")),
		Enter:   key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "details")),
		Back:    key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back")),
	}
}

// helpMap adapts a view's bindings to bubbles/help.
type helpMap struct {
	short []key.Binding
	full  [][]key.Binding
}

func (h helpMap) ShortHelp() []key.Binding  { return h.short }
func (h helpMap) FullHelp() [][]key.Binding { return h.full }

func kb(keys, help, desc string, more ...string) key.Binding {
	return key.NewBinding(key.WithKeys(append([]string{keys}, more...)...), key.WithHelp(help, desc))
}
