package ui

// selection keeps a list's cursor on the same item, by its id, while the
// list grows, shrinks or re-sorts under it: a payout arriving above the
// selected one must not move the selection onto another payout (what y
// copies and the detail pane shows follow the cursor).
//
// restore runs before a list is drawn or handles a key; remember runs
// after a key moved the cursor on purpose.
type selection struct {
	id string // the selected item's id; "" before anything was selected
}

// restore puts nav's cursor back on the remembered item among n rows
// (idAt is row i's id), keeping it on the same screen line when the list
// was scrolled; a list showing its head keeps showing it, so rows that
// arrive above the selection are in view rather than hidden above the
// screen. When the item is gone (filtered out, dropped) the cursor stays
// on its line and that row becomes the selection.
func (s *selection) restore(nav *listNav, n, h int, idAt func(int) string) {
	if s.id != "" && (nav.cursor >= n || idAt(nav.cursor) != s.id) {
		for i := range n {
			if idAt(i) == s.id {
				if nav.top > 0 {
					nav.top += i - nav.cursor
				}
				nav.cursor = i
				break
			}
		}
	}
	nav.clamp(n, h)
	s.remember(nav, n, idAt)
}

// remember takes the row under the cursor as the selection.
func (s *selection) remember(nav *listNav, n int, idAt func(int) string) {
	s.id = ""
	if nav.cursor >= 0 && nav.cursor < n {
		s.id = idAt(nav.cursor)
	}
}

// selected is the payout under the cursor (nil when the list shown is
// empty).
func (v *trackerView) selected() *trackedPayout {
	rows := v.visible()
	v.sel.restore(&v.nav, len(rows), v.pageH, payoutID(rows))
	if v.nav.cursor < len(rows) {
		return rows[v.nav.cursor]
	}
	return nil
}

// selectID makes the payout with this id the selection (it shows once
// the list is next drawn).
func (v *trackerView) selectID(id string) { v.sel.id = id }
