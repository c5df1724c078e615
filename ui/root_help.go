package ui

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
)

// barKeys are the bindings the help bar shows in the frame's state: the
// view's own (dropped first when the line is too long) and the frame's.
// What is shown here is what the keys do on this screen: the quit
// question, the command line and the help overlay each take the keys
// while they are up, so they show their own.
func (m *model) barKeys() (own, frame []key.Binding) {
	g := m.keys
	switch {
	case m.switchAsk != nil:
		return nil, []key.Binding{g.SwitchYes, g.SwitchNo}
	case m.quitAsk:
		return nil, []key.Binding{g.QuitYes, g.QuitNo}
	case m.menu != nil:
		return nil, []key.Binding{g.Up, g.Down, g.MenuRun, g.MenuClose}
	case m.cmdActive:
		return nil, []key.Binding{g.Complete, g.RunCommand, g.CloseLine}
	case m.showHelp && m.helpScrolls:
		return []key.Binding{g.Up, g.Down, g.PgDown}, []key.Binding{g.CloseHelp}
	case m.showHelp:
		return nil, []key.Binding{g.CloseHelp}
	}
	own = m.current().keys(m.c()).short
	if m.current().capturing() {
		return own, []key.Binding{g.AltTabs, g.ForceQuit}
	}
	return own, []key.Binding{g.Tabs, g.Command, g.Help, g.Quit}
}

// overlayKeys are the `?` overlay's columns: the view's and the frame's
// (only those that work on this view: no filter key where there is no
// filter, only alt+1-7 where the view takes text).
func (m *model) overlayKeys() (own, frame [][]key.Binding) {
	g := m.keys
	own = m.current().keys(m.c()).full
	if m.current().capturing() {
		return own, [][]key.Binding{{g.AltTabs, g.ForceQuit}}
	}
	first := []key.Binding{g.Tabs, g.ViewNext, g.ViewPrev, g.AltTabs, g.Command, g.Views}
	if _, ok := m.current().(interface{ filterSyntax() string }); ok {
		first = append(first, g.Filter)
	}
	return own, [][]key.Binding{first, {g.Help, g.Refresh, g.Quit, g.ForceQuit}}
}

func (m *model) helpLine() string {
	short, tail := m.barKeys()
	return m.memo.keys.get(bindingsKey(m.width, short, tail), func() string { return m.drawHelpLine(short, tail) })
}

func (m *model) drawHelpLine(short, tail []key.Binding) string {
	// The frame's keys (help above all) always show: the view's own go
	// from the end until the line fits.
	hm := m.help
	hm.Width = 0 // measured here; bubbles/help would cut with …
	for {
		line := hm.ShortHelpView(append(append([]key.Binding{}, short...), tail...))
		if lipgloss.Width(line) <= m.width || (len(short) == 0 && len(tail) <= 1) {
			return fit(line, m.width)
		}
		if len(short) > 0 {
			short = short[:len(short)-1]
		} else {
			tail = tail[1:]
		}
	}
}

// helpView is the `?` overlay in h lines. Its title (with the way out)
// and the view's filter syntax stay on top; the keys below scroll when
// they do not fit (80x24 holds less than the report's help), with a line
// saying there is more.
func (m *model) helpView(h int) string {
	own, frame := m.overlayKeys()
	var head strings.Builder
	head.WriteString(m.st.title.Render("Help — "+tabNames[m.tab]) + m.st.muted.Render("  "+m.keys.CloseHelp.Help().Key+" closes"))
	if f, ok := m.current().(interface{ filterSyntax() string }); ok {
		head.WriteString("\n" + m.st.muted.Render(wrapText(m.keys.Filter.Help().Key+" filters by: "+f.filterSyntax(), m.width)))
	}
	var body strings.Builder
	body.WriteString(m.st.bold.Render("This view") + "\n")
	body.WriteString(m.helpColumns(own) + "\n\n")
	body.WriteString(m.st.bold.Render("Everywhere") + "\n")
	body.WriteString(m.helpColumns(frame) + "\n\n")
	body.WriteString(m.st.muted.Render(wrapText("Commands: "+strings.Replace(m.commandList(), ":view NAME", ":view NAME (:view lists them)", 1)+" (tab completes)", m.width)))
	top := strings.Split(head.String(), "\n")
	top = append(top, "")
	lines := strings.Split(body.String(), "\n")
	room := max(h-len(top), 1)
	m.helpScrolls = len(lines) > room
	if m.helpScrolls {
		// One line says where the rest is.
		room = max(room-1, 1)
		m.helpTop = min(max(m.helpTop, 0), len(lines)-room)
		more := "lines " + itoa(m.helpTop+1) + "–" + itoa(m.helpTop+room) + " of " + itoa(len(lines)) + " · " + keysOf(m.keys.Down, m.keys.Up, m.keys.PgDown) + " scroll"
		lines = append(lines[m.helpTop:m.helpTop+room], m.st.muted.Render(more))
	} else {
		m.helpTop = 0
	}
	out := append(top, lines...)
	for i, l := range out {
		out[i] = fit(l, m.width)
	}
	return strings.Join(out, "\n")
}

// scrollHelp moves the overlay's keys by the scrolling key k; it
// reports whether k was one.
func (m *model) scrollHelp(k tea.KeyMsg) bool {
	g := m.keys
	page := max(m.height-8, 1)
	switch {
	case key.Matches(k, g.Up):
		m.helpTop--
	case key.Matches(k, g.Down):
		m.helpTop++
	case key.Matches(k, g.PgUp):
		m.helpTop -= page
	case key.Matches(k, g.PgDown):
		m.helpTop += page
	case key.Matches(k, g.HalfUp):
		m.helpTop -= page / 2
	case key.Matches(k, g.HalfDown):
		m.helpTop += page / 2
	case key.Matches(k, g.Top):
		m.helpTop = 0
	case key.Matches(k, g.Bottom):
		m.helpTop = 1 << 20 // the view clamps it
	default:
		return false
	}
	m.helpTop = max(m.helpTop, 0)
	return true
}

// helpColumns lays the help's columns side by side while they fit and
// starts a new row of columns when the next would not: no binding is ever
// cut off a narrow screen.
func (m *model) helpColumns(cols [][]key.Binding) string {
	hm := m.help
	hm.ShowAll = true
	hm.Width = 0
	var rows []string
	var row []string
	roww := 0
	const gap = "    "
	for _, col := range cols {
		block := hm.FullHelpView([][]key.Binding{col})
		bw := lipgloss.Width(block)
		if len(row) > 0 && roww+len(gap)+bw > m.width {
			rows = append(rows, lipgloss.JoinHorizontal(lipgloss.Top, row...))
			row, roww = nil, 0
		}
		if len(row) > 0 {
			row = append(row, gap)
			roww += len(gap)
		}
		row = append(row, block)
		roww += bw
	}
	if len(row) > 0 {
		rows = append(rows, lipgloss.JoinHorizontal(lipgloss.Top, row...))
	}
	return strings.Join(rows, "\n")
}

func (m *model) quitView(h int) string {
	msg := m.st.warn.Render("Unsent input in: "+strings.Join(m.unsentForms(), ", ")) +
		"\n\nQuit anyway and lose it?  " + hints(m.keys.QuitYes, m.keys.QuitNo)
	return lipgloss.Place(m.width, h, lipgloss.Center, lipgloss.Center, m.st.box.Render(msg))
}

// hints is bindings as the help bar writes them ("y quit · n/esc stay"),
// for hint lines inside views: drawn from the keymap, so a hint never
// names a key that does something else.
func hints(bs ...key.Binding) string {
	parts := make([]string, 0, len(bs))
	for _, b := range bs {
		if !b.Enabled() {
			continue
		}
		parts = append(parts, b.Help().Key+" "+b.Help().Desc)
	}
	return strings.Join(parts, " · ")
}

// keysOf is the bindings' keys alone ("↓/j ↑/k pgdn").
func keysOf(bs ...key.Binding) string {
	parts := make([]string, 0, len(bs))
	for _, b := range bs {
		parts = append(parts, b.Help().Key)
	}
	return strings.Join(parts, " ")
}

// keyOf is the key a binding is shown as ("r", "ctrl+s"), for sentences
// that name a key ("r retries"): from the keymap, like the help bar.
func keyOf(b key.Binding) string { return b.Help().Key }

// keyWord is a key with a short word of one's own, for hint lines where
// the bindings' descriptions are too long.
type keyWord struct {
	b    key.Binding
	word string
}

// keysLine is "/ filter · d date" padded to w cells: each key from the
// keymap, the last pairs left out whole when they do not fit.
func keysLine(w int, kws ...keyWord) string {
	parts := make([]string, 0, len(kws))
	for _, kw := range kws {
		parts = append(parts, keyOf(kw.b)+" "+kw.word)
	}
	return fit(wholeParts(w, " · ", parts...), w)
}

// tabKeyName is the key that opens view t ("3").
func tabKeyName(t tab) string { return itoa(int(t) + 1) }

// overlayApplies reports that `?` would show the view's keys: no
// question, command line, menu or help is taking the keys.
func (m *model) overlayApplies() bool {
	return !m.quitAsk && !m.cmdActive && !m.showHelp && m.menu == nil && m.switchAsk == nil
}
