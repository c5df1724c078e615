package ui

import (
	"encoding/json"
	"slices"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/report"
)

func (v *txView) capturing() bool { return v.filter.active || v.exportAsk }

func (v *txView) startFilter() (tea.Cmd, bool) {
	return tea.Batch(v.filter.start(), v.prepareSpare()), true
}

func (v *txView) keys(c *viewContext) helpMap {
	g := c.keys
	k := c.keys
	if v.filter.active {
		return filterBarKeys(c.keys)
	}
	if v.exportAsk {
		return helpMap{short: []key.Binding{c.keys.CSV, c.keys.JSON, c.keys.Back}}
	}
	return helpMap{
		short: []key.Binding{g.Filter, k.Sort, k.Date, k.Detail, k.Actions, k.Export, k.CopyID},
		full: [][]key.Binding{
			{g.Up, g.Down, g.PgUp, g.PgDown, g.HalfUp, g.HalfDown, g.Top, g.Bottom},
			{g.Filter, k.Date, k.Type, k.Currency, k.Status},
			{k.Sort, k.Reverse, k.Detail, g.Refresh, k.Reload},
			{k.Actions, k.Export, k.CopyRow, k.CopyID, k.Track},
		},
	}
}

func (v *txView) update(c *viewContext, k tea.KeyMsg) tea.Cmd {
	if v.exportAsk {
		v.exportAsk = false
		switch {
		case key.Matches(k, c.keys.CSV):
			return v.export(c, "csv")
		case key.Matches(k, c.keys.JSON):
			return v.export(c, "json")
		}
		return nil
	}
	if v.filter.active {
		cmd, changed := v.filter.update(c.keys, k)
		if changed {
			return tea.Batch(cmd, v.recompute(c, false))
		}
		return cmd
	}
	if v.nav.move(k, c.keys, len(v.idx), v.pageH) {
		return nil
	}
	switch {
	case key.Matches(k, c.keys.Sort):
		v.sort = report.SortKey{Col: v.nextSortColumn(c), Desc: v.sort.Desc}
		return v.recompute(c, false)
	case key.Matches(k, c.keys.Reverse):
		v.sort.Desc = !v.sort.Desc
		return v.recompute(c, false)
	case key.Matches(k, c.keys.Date):
		next := cycle([]string{"today", "7d", "30d"}, tokenValue(v.filter.value(), "date"))
		v.filter.set(setToken(v.filter.value(), "date", next, "from", "to"))
		return v.recompute(c, false)
	case key.Matches(k, c.keys.Type, c.keys.Currency, c.keys.Status):
		if v.store == nil {
			return nil
		}
		name, which := "type", report.EnumType
		switch {
		case key.Matches(k, c.keys.Currency):
			name, which = "cur", report.EnumCurrency
		case key.Matches(k, c.keys.Status):
			name, which = "status", report.EnumStatus
		}
		values := slices.Sorted(slices.Values(v.store.EnumValues(which)))
		cur := tokenValue(v.filter.value(), name)
		if name == "cur" && cur == "" {
			cur = tokenValue(v.filter.value(), "currency")
		}
		v.filter.set(setToken(v.filter.value(), name, cycle(values, cur), "currency", "state"))
		return v.recompute(c, false)
	case key.Matches(k, c.keys.Detail):
		v.detail = !v.detail
		return nil
	case key.Matches(k, c.keys.Reload):
		c.setFlash("reloading the whole report…", false)
		return v.load(c)
	case key.Matches(k, c.keys.Back):
		if v.detail {
			v.detail = false
			return nil
		}
		if v.filter.value() != "" {
			v.filter.set("")
			return v.recompute(c, false)
		}
		return nil
	case key.Matches(k, c.keys.Export):
		if v.store == nil || v.busy {
			c.setFlash("wait for the report to finish loading or filtering, then export", true)
			return nil
		}
		v.exportAsk = true
		return nil
	case key.Matches(k, c.keys.Track):
		// Follow this payout in the tracker, even one from before this
		// session.
		if v.nav.cursor >= len(v.idx) {
			return nil
		}
		t := v.store.Tx(v.idx[v.nav.cursor])
		if t.Type != api.TransactionPayout {
			c.setFlash("only payouts can be followed in "+tabKeyName(tabPayouts)+" Payouts", true)
			return nil
		}
		return func() tea.Msg { return trackPayoutMsg{tx: t} }
	case key.Matches(k, c.keys.CopyID, c.keys.CopyRow):
		if v.nav.cursor >= len(v.idx) {
			return nil
		}
		t := v.store.Tx(v.idx[v.nav.cursor])
		if key.Matches(k, c.keys.CopyID) {
			return c.copyText(t.TransactionID, "transaction id "+t.TransactionID)
		}
		b, err := json.Marshal(t)
		if err != nil {
			c.setFlash("copy: "+err.Error(), true)
			return nil
		}
		return c.copyText(string(b), "the row as JSON")
	}
	return nil
}

// nextSortColumn is the next column after the sorted one that is on
// screen at this width: sorting by a column the user cannot see looks
// broken.
func (v *txView) nextSortColumn(c *viewContext) report.Column {
	shown := v.cols.specs(txCols[:])
	ws := layoutCols(shown, c.width-1)
	on := func(col report.Column) bool {
		if v.cols == nil {
			return ws[col] > 0
		}
		for i, x := range v.cols {
			if x == int(col) {
				return ws[i] > 0
			}
		}
		return false
	}
	col := v.sort.Col
	for range report.NumColumns {
		col = (col + 1) % report.NumColumns
		if on(col) {
			return col
		}
	}
	return col
}
