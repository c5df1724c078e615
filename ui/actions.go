package ui

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
)

// rowActioner is a view whose selected row has things that can be done to
// it. rowActions lists them as the view's own bindings, so the menu runs
// exactly what the key would, and shows the key that does it next time
// (lazygit's menu on space: single keys become discoverable).
type rowActioner interface {
	rowActions(c *viewContext) []key.Binding
}

// actionsMenu is the menu space opens over the selected row.
type actionsMenu struct {
	items  []key.Binding
	cursor int
}

// openActions opens the menu for the current view's selected row; a view
// with no row selected says so.
func (m *model) openActions() tea.Cmd {
	ra, ok := m.current().(rowActioner)
	var items []key.Binding
	if ok {
		items = ra.rowActions(m.c())
	}
	if len(items) == 0 {
		m.setFlash("no row selected: nothing to act on", false)
		return nil
	}
	m.menu = &actionsMenu{items: items}
	return nil
}

// updateActions handles a key while the menu is up: it moves, runs the
// chosen action (enter, or the action's own key) or closes.
func (m *model) updateActions(k tea.KeyMsg) tea.Cmd {
	menu, g := m.menu, m.keys
	switch {
	case key.Matches(k, g.Up):
		menu.cursor = (menu.cursor + len(menu.items) - 1) % len(menu.items)
		return nil
	case key.Matches(k, g.Down):
		menu.cursor = (menu.cursor + 1) % len(menu.items)
		return nil
	case key.Matches(k, g.MenuRun):
		return m.runAction(menu.items[menu.cursor])
	case key.Matches(k, g.MenuClose):
		m.menu = nil
		return nil
	}
	for _, it := range menu.items {
		if key.Matches(k, it) {
			return m.runAction(it)
		}
	}
	return nil
}

// runAction closes the menu and gives the view the action's key.
func (m *model) runAction(b key.Binding) tea.Cmd {
	m.menu = nil
	keys := b.Keys()
	if len(keys) == 0 {
		return nil
	}
	return m.current().update(m.c(), keyFor(keys[0]))
}

// keyFor is the key message a binding's key name stands for.
func keyFor(name string) tea.KeyMsg {
	for t, n := range keyNames {
		if n == name {
			return tea.KeyMsg{Type: t}
		}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(name)}
}

// keyNames are the names of the non-rune keys the keymap binds.
var keyNames = map[tea.KeyType]string{
	tea.KeyEnter: "enter", tea.KeyEsc: "esc", tea.KeyTab: "tab", tea.KeyShiftTab: "shift+tab",
	tea.KeyCtrlS: "ctrl+s", tea.KeyCtrlN: "ctrl+n", tea.KeySpace: " ",
}

// actionsView draws the menu in the middle of the body.
func (m *model) actionsView(h int) string {
	var b strings.Builder
	b.WriteString(m.st.bold.Render("Actions") + "\n\n")
	kw := 0
	for _, it := range m.menu.items {
		kw = max(kw, width(it.Help().Key))
	}
	for i, it := range m.menu.items {
		line := gutter(i == m.menu.cursor, false) + fit(it.Help().Key, kw) + "  " + it.Help().Desc
		if i == m.menu.cursor {
			line = m.st.selected.Render(line)
		}
		b.WriteString(line + "\n")
	}
	b.WriteString("\n" + m.st.muted.Render(hints(m.keys.MenuRun, m.keys.MenuClose)+" · or the action's key"))
	return lipgloss.Place(m.width, h, lipgloss.Center, lipgloss.Center, m.st.box.Render(b.String()))
}
