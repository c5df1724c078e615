package ui

import (
	"strings"
)

// A list that shows nothing says why (issue 28, item 6): nothing arrived
// yet, or nothing matches the filter, and what brings rows back.

// emptyWhy is the Events view's line when it lists nothing.
func (v *eventsView) emptyWhy(c *viewContext) string {
	if v.held() == 0 {
		return "No events yet: they appear here as the relay receives them (" + keyOf(c.keys.Follow) + " follows the newest)."
	}
	switch {
	case v.filter.query() != "" && v.typ != "":
		return "No event of type " + v.typ + " matches the filter among the " + itoa(v.held()) + " held; " +
			keyOf(c.keys.Back) + " clears the filter, " + keyOf(c.keys.EventType) + " changes the type."
	case v.typ != "":
		return "No event of type " + v.typ + " among the " + itoa(v.held()) + " held; " + keyOf(c.keys.EventType) + " changes the type."
	}
	return "No event matches the filter among the " + itoa(v.held()) + " held; " + keyOf(c.keys.Back) + " clears it."
}

// emptyWhy is the tracker's line when its filter hides every payout.
func (v *trackerView) emptyWhy(c *viewContext) string {
	return "No followed payout matches the filter; " + keyOf(c.keys.Back) + " clears it."
}

// emptyWhy is the report's line when it shows no row: the report is
// empty, or nothing has the status asked for yet ("nothing failed yet"),
// or nothing matches the filter.
func (v *txView) emptyWhy(c *viewContext) string {
	if v.store.Len() == 0 {
		return "The report holds no transactions yet; it reloads every " + c.opts.ReportRefresh.String() + " (" + keyOf(c.keys.Refresh) + " now)."
	}
	clear := keyOf(c.keys.Back) + " clears it."
	q := v.parse(c)
	if q.Status != "" {
		only := q
		only.Status = ""
		if only.Empty() {
			return "Nothing " + strings.ToLower(q.Status) + " in the report yet (" + itoa(v.store.Len()) + " transactions loaded). " + clear
		}
	}
	if len(v.problems) > 0 {
		return "No transactions match the filter: a term above could not be read. " + clear
	}
	return "No transactions match the filter. " + clear
}
