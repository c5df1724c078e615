package ui

import (
	"slices"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/paydash/paydash/config"
	"github.com/paydash/paydash/internal/report"
)

// Saved views (issue 28, item 1): a view is a name, a filter in the
// report's filter language, a sort, the report's and the tracker's
// columns, and a time window, kept per profile in the config file. The
// ':' line reads:
//
//	:view NAME      open the report on that view
//	:view, :views   pick one from a list
//	:save NAME      save the report as it is now as a view
//	:columns a,b,c  show those columns, in that order (the report's on
//	                the report, the tracker's on Payouts); :columns alone
//	                shows them all again
//
// `paydash transactions --view NAME` reads the same views.

// viewPicker is the list :view opens.
type viewPicker struct {
	cursor int
}

// viewSavedMsg says how saving a view went.
type viewSavedMsg struct {
	v   config.View
	err error
}

// viewCommand runs a ':' line about views; ok is false for any other.
func (m *model) viewCommand(line string) (tea.Cmd, bool) {
	verb, arg, _ := strings.Cut(strings.TrimSpace(line), " ")
	arg = strings.TrimSpace(arg)
	switch strings.ToLower(verb) {
	case "view", "views":
		m.flash = flash{owner: m.tab}
		if arg == "" {
			if len(m.opts.Views) == 0 {
				m.setFlash("this profile has no saved views: set the report as you want it and :save NAME", false)
				return nil, true
			}
			m.picker = &viewPicker{}
			return nil, true
		}
		return m.openView(arg), true
	case "save":
		m.flash = flash{owner: m.tab}
		return m.saveView(arg), true
	case "columns", "cols":
		m.flash = flash{owner: m.tab}
		m.setColumns(arg)
		return nil, true
	}
	return nil, false
}

// openView shows the report through the named view.
func (m *model) openView(name string) tea.Cmd {
	i := slices.IndexFunc(m.opts.Views, func(v config.View) bool { return v.Name == name })
	if i < 0 {
		names := make([]string, 0, len(m.opts.Views))
		for _, v := range m.opts.Views {
			names = append(names, v.Name)
		}
		if len(names) == 0 {
			m.setFlash("no view "+name+": this profile has no saved views (:save NAME saves the report as it is)", true)
		} else {
			m.setFlash("no view "+name+"; this profile's views: "+strings.Join(names, ", "), true)
		}
		return nil
	}
	v := m.opts.Views[i]
	m.tracker.useColumns(v.TrackerColumns)
	cmd := m.tx.useView(m.c(), v)
	return tea.Batch(cmd, m.switchTab(tabTransactions))
}

// useView sets the report's filter, sort and columns from a saved view.
func (v *txView) useView(c *viewContext, sv config.View) tea.Cmd {
	v.filter.set(sv.Query())
	v.named(sv)
	v.sort = defaultSort
	if col, desc := config.SortOf(sv.Sort); col != "" {
		if rc, ok := report.ColumnByKey(col); ok {
			v.sort = report.SortKey{Col: rc, Desc: desc}
		}
	}
	v.cols, _, _ = orderOf(sv.Columns, config.ReportColumns)
	v.nav = listNav{}
	return v.recompute(c, false)
}

// current is the report as it is now, as a view named name.
func (v *txView) current(name string) config.View {
	dir := "asc"
	if v.sort.Desc {
		dir = "desc"
	}
	sv := config.View{Name: name, Filter: strings.TrimSpace(v.filter.value()), Columns: v.cols.names(config.ReportColumns)}
	if v.sort != defaultSort {
		sv.Sort = report.ColumnKeys[v.sort.Col] + " " + dir
	}
	return sv
}

// saveView saves the report as it is now (filter, sort, columns, and the
// tracker's columns) as a view, in the profile's config file.
func (m *model) saveView(name string) tea.Cmd {
	if name == "" || strings.ContainsAny(name, " \t") {
		m.setFlash(":save NAME — one word, e.g. :save failed-gbp", true)
		return nil
	}
	if m.opts.SaveView == nil {
		m.setFlash("views cannot be saved here: this profile has no config file (paydash config init makes one)", true)
		return nil
	}
	if slices.ContainsFunc(m.opts.Views, func(v config.View) bool { return v.Name == name }) {
		m.setFlash("a view named "+name+" exists; :save another name (or edit the config file)", true)
		return nil
	}
	sv := m.tx.current(name)
	sv.TrackerColumns = m.tracker.columnNames()
	save := m.opts.SaveView
	return func() tea.Msg { return viewSavedMsg{v: sv, err: save(sv)} }
}

// viewSaved reports a save and makes the view one :view opens.
func (m *model) viewSaved(msg viewSavedMsg) {
	if msg.err != nil {
		m.setFlash(msg.err.Error(), true)
		return
	}
	m.opts.Views = append(m.opts.Views, msg.v)
	m.tx.named(msg.v)
	m.setFlash("saved view "+msg.v.Name+": :view "+msg.v.Name+" here, or paydash transactions --view "+msg.v.Name, false)
}

// columnChooser is a list whose columns :columns chooses: the report and
// the tracker.
type columnChooser interface {
	// columns are the names the list's columns go by, and those shown.
	columns() (known []string, shown colOrder)
	setColumns(colOrder)
}

func (v *txView) columns() ([]string, colOrder) { return config.ReportColumns, v.cols }
func (v *txView) setColumns(o colOrder)         { v.cols = o }

func (v *trackerView) columns() ([]string, colOrder) { return config.TrackerColumns, v.cols }
func (v *trackerView) setColumns(o colOrder)         { v.cols = o }

// useColumns shows a view's tracker columns (all for none).
func (v *trackerView) useColumns(names []string) {
	v.cols, _, _ = orderOf(names, config.TrackerColumns)
}

// columnNames are the tracker's columns shown, nil for all.
func (v *trackerView) columnNames() []string { return v.cols.names(config.TrackerColumns) }

// setColumns handles :columns on the report and the tracker.
func (m *model) setColumns(arg string) {
	cc, ok := m.current().(columnChooser)
	if !ok {
		m.setFlash(":columns works on "+tabKeyName(tabTransactions)+" Report and "+tabKeyName(tabPayouts)+" Payouts", true)
		return
	}
	var names []string
	for _, f := range strings.FieldsFunc(arg, func(r rune) bool { return r == ',' || r == ' ' }) {
		names = append(names, strings.ToLower(f))
	}
	known, _ := cc.columns()
	o, bad, ok := orderOf(names, known)
	if !ok {
		m.setFlash("no column "+bad+"; the columns here are "+strings.Join(known, ", "), true)
		return
	}
	cc.setColumns(o)
	if o == nil {
		m.setFlash("every column shown", false)
		return
	}
	m.setFlash("columns: "+strings.Join(o.names(known), ", ")+" (:save NAME keeps them in a view)", false)
}

// updatePicker handles a key while the views list is up.
func (m *model) updatePicker(k tea.KeyMsg) tea.Cmd {
	p, g := m.picker, m.keys
	n := len(m.opts.Views)
	switch {
	case key.Matches(k, g.Up):
		p.cursor = (p.cursor + n - 1) % n
	case key.Matches(k, g.Down):
		p.cursor = (p.cursor + 1) % n
	case key.Matches(k, g.MenuRun):
		m.picker = nil
		return m.openView(m.opts.Views[p.cursor].Name)
	case key.Matches(k, g.MenuClose):
		m.picker = nil
	}
	return nil
}

// pickerView draws the views list in the middle of the body: each view's
// name and what it shows, wrapped rather than cut.
func (m *model) pickerView(h int) string {
	var b strings.Builder
	b.WriteString(m.st.bold.Render("Saved views") + "\n\n")
	nw := 0
	for _, v := range m.opts.Views {
		nw = max(nw, width(v.Name))
	}
	inner := max(m.width-8, 20)
	for i, v := range m.opts.Views {
		what := v.Query()
		if what == "" {
			what = "every row"
		}
		if v.Sort != "" {
			what += " · sorted by " + v.Sort
		}
		if len(v.Columns) > 0 {
			what += " · columns " + strings.Join(v.Columns, ",")
		}
		line := gutter(i == m.picker.cursor, false) + fit(clean(v.Name), nw) + "  "
		desc := wrapText(clean(what), max(inner-width(line), 10))
		desc = strings.ReplaceAll(desc, "\n", "\n"+strings.Repeat(" ", width(line)))
		line += desc
		if i == m.picker.cursor {
			line = m.st.selected.Render(line)
		}
		b.WriteString(line + "\n")
	}
	b.WriteString("\n" + m.st.muted.Render(hints(m.keys.MenuRun, m.keys.MenuClose)))
	return lipgloss.Place(m.width, h, lipgloss.Center, lipgloss.Center, m.st.box.Render(b.String()))
}

// named notes that the report as it is now is the saved view v.
func (v *txView) named(sv config.View) { v.shownView, v.viewQ = sv.Name, sv.Query() }

// viewNote names the saved view shown, for the report's count line ("" once
// its filter was changed).
func (v *txView) viewNote() string {
	if v.shownView == "" || strings.TrimSpace(v.filter.value()) != v.viewQ {
		return ""
	}
	return " · view " + clean(v.shownView)
}

// startAt opens the dashboard where the profile says (start_tab,
// start_view); a view opens the report on it, before the report loads.
func (m *model) startAt() {
	if m.opts.StartView != "" {
		if i := slices.IndexFunc(m.opts.Views, func(v config.View) bool { return v.Name == m.opts.StartView }); i >= 0 {
			v := m.opts.Views[i]
			m.tracker.useColumns(v.TrackerColumns)
			_ = m.tx.useView(m.c(), v) // no report yet: the load applies it
			m.tab = tabTransactions
		}
	}
	if t, ok := commands[m.opts.StartTab]; ok && (t != tabApprovals || m.opts.Approvals != nil) {
		m.tab = t
	}
}
