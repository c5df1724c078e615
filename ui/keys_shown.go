package ui

import (
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/viewport"
)

// The helps below show a key only where it acts on the screen as it is
// (issue 22 item 7): no scroll keys for a page that fits, no "copy
// reason" on a payout without one.

// trackerKeys is the Payouts view's help for the selected payout (nil
// when none).
func trackerKeys(c *viewContext, sel *trackedPayout) helpMap {
	g := c.keys
	var acts []key.Binding
	if sel != nil {
		acts = append(acts, correctKeys(c, sel)...)
		acts = append(acts, g.CopyPayout)
		if sel.reason != "" {
			acts = append(acts, g.CopyReason)
		}
		acts = append(acts, g.Actions)
	}
	return helpMap{
		short: append([]key.Binding{g.Filter}, acts...),
		full:  [][]key.Binding{{g.Up, g.Down, g.PgUp, g.PgDown, g.HalfUp, g.HalfDown, g.Top, g.Bottom}, append([]key.Binding{g.Filter}, acts...)},
	}
}

// openEventKeys is the help of an open event: scrolling only when its
// page is longer than the screen.
func openEventKeys(c *viewContext, vp *viewport.Model) helpMap {
	g := c.keys
	if vp.TotalLineCount() <= vp.Height {
		return helpMap{short: []key.Binding{g.CopyBody, g.Back}, full: [][]key.Binding{{g.CopyBody, g.Back}}}
	}
	return helpMap{
		short: []key.Binding{g.Up, g.Down, g.CopyBody, g.Back},
		full:  [][]key.Binding{{g.Up, g.Down, g.PgUp, g.PgDown}, {g.CopyBody, g.Back}},
	}
}
