package ui

import (
	"github.com/charmbracelet/bubbles/key"

	"github.com/paydash/paydash/api"
)

// What each list's selected row offers in the actions menu (space): the
// view's own bindings, only those that act on this row.

func (v *balancesView) rowActions(c *viewContext) []key.Binding {
	if v.selected() == nil {
		return nil
	}
	g := c.keys
	if v.open {
		return []key.Binding{g.CopyIBAN, g.Range, g.Back}
	}
	return []key.Binding{g.OpenAccount, g.CopyIBAN, g.Range}
}

func (v *txView) rowActions(c *viewContext) []key.Binding {
	if v.store == nil || v.nav.cursor >= len(v.idx) {
		return nil
	}
	g := c.keys
	out := []key.Binding{g.Detail, g.CopyRow, g.CopyID}
	if v.store.Type(v.idx[v.nav.cursor]) == api.TransactionPayout {
		out = append(out, g.Track)
	}
	return out
}

func (v *trackerView) rowActions(c *viewContext) []key.Binding {
	p := v.selected()
	if p == nil {
		return nil
	}
	g := c.keys
	out := []key.Binding{g.CopyPayout}
	if p.reason != "" {
		out = append(out, g.CopyReason)
	}
	return append(out, correctKeys(c, p)...)
}

func (v *eventsView) rowActions(c *viewContext) []key.Binding {
	if v.open || v.nav.cursor >= len(v.shown) || len(v.shown) == 0 {
		return nil
	}
	return []key.Binding{c.keys.OpenEvent, c.keys.CopyBody}
}
