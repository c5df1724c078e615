package ui

import (
	"slices"
	"strings"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/report"
)

func (v *txView) view(c *viewContext, w, h int) string {
	var b strings.Builder
	// Line 1: the filter bar.
	switch {
	case v.filter.active:
		b.WriteString(v.filter.view())
	case v.filter.value() != "":
		b.WriteString(fit("/"+v.filter.value(), w))
	default:
		b.WriteString(c.st.muted.Render(keysLine(w, keyWord{c.keys.Filter, "filter"}, keyWord{c.keys.Date, "date"}, keyWord{c.keys.Type, "type"}, keyWord{c.keys.Currency, "currency"}, keyWord{c.keys.Status, "status"}, keyWord{c.keys.Sort, "sort"}, keyWord{c.keys.Export, "export"})))
	}
	b.WriteByte('\n')
	// Line 2: counts and state.
	total := 0
	if v.store != nil {
		total = v.store.Len()
	}
	var info string
	// Filter problems get lines of their own, wrapped: the hint that says
	// how to write the term is what the user needs whole.
	var problemLines []string
	switch {
	case v.exportAsk:
		info = c.st.warn.Render("Export " + itoa(len(v.idx)) + " rows as " + keyOf(c.keys.CSV) + " CSV or " + keyOf(c.keys.JSON) + " JSON?  (" + keyOf(c.keys.Back) + " cancels)")
	case v.store == nil && v.loading:
		info = "Loading transactions… " + itoa(int(v.loadCount.Load())) + " rows"
	case v.store == nil && c.opts.Backend == nil:
		info = c.st.bad.Render("no backend configured")
	case v.store == nil:
		info = "No report loaded"
	case v.loadErr != nil && total == 0:
		// A failed load is not an empty filter: say what failed, in full.
		b.WriteString(c.st.bad.Render("Could not load the transaction report.") + "\n")
		b.WriteString(c.st.bad.Render(wrapText(clean(v.loadErr.Error()), w)) + "\n")
		b.WriteString(c.st.muted.Render(wrapText("r retries; the report reloads by itself every "+c.opts.ReportRefresh.String()+".", w)))
		return b.String()
	default:
		dir := "↑"
		if v.sort.Desc {
			dir = "↓"
		}
		info = itoa(len(v.idx)) + " of " + itoa(total) + " transactions" + v.viewNote() + " · sorted by " + report.ColumnNames[v.sort.Col] + " " + dir
		if v.busy && v.preview != nil {
			info = "first " + itoa(len(v.preview)) + " matches of " + itoa(total) + " transactions" + v.viewNote() + " · sorted by " + report.ColumnNames[v.sort.Col] + " " + dir
		}
		if v.busy {
			info += " · " + c.st.warn.Render("filtering…"+v.progressNote())
		}
		if v.loading {
			info += " · " + c.st.warn.Render("reloading… "+itoa(int(v.loadCount.Load())))
		}
		if v.refreshing {
			info += " · " + c.st.muted.Render("refreshing…")
		}
		if v.cache.older {
			// Filters, sort and totals cover the rows held: say that
			// older ones are still coming.
			info += " · " + c.st.warn.Render("loading older history… "+itoa(int(v.loadCount.Load()))+" rows")
		} else if v.cache.c != nil && !v.cache.ranges.Complete() && v.loadErr == nil {
			info += " · " + c.st.warn.Render("older history not loaded yet")
		}
		if v.loadErr != nil {
			info += " · " + c.st.bad.Render("incomplete, the load failed: "+clean(v.loadErr.Error())+" ("+keyOf(c.keys.Refresh)+" retries)")
		}
		if strings.Contains(strings.ToLower(v.filter.value()), "date:today") {
			// Which day "today" is depends on the zone: say it.
			now := c.now()
			info += " · today = " + now.Format("2006-01-02") + " " + zoneName(now)
		}
		if len(v.problems) > 0 {
			problemLines = strings.Split(wrapText(strings.Join(v.problems, "; "), w), "\n")
		}
	}
	b.WriteString(fit(info, w))
	b.WriteByte('\n')
	for _, l := range problemLines {
		b.WriteString(c.st.warn.Render(fit(l, w)))
		b.WriteByte('\n')
	}
	// Line 3: what the rows on screen add up to, always in view.
	b.WriteString(v.totalsLine(c, w))
	b.WriteByte('\n')
	// Table. The sorted column is wide enough for its arrow.
	specs := txCols
	arrow := " ↑"
	if v.sort.Desc {
		arrow = " ↓"
	}
	specs[v.sort.Col].title += arrow
	specs[v.sort.Col].w = max(specs[v.sort.Col].w, width(specs[v.sort.Col].title))
	shown := v.cols.specs(specs[:])
	ws := layoutCols(shown, w-1)
	b.WriteString(c.st.header.Render(" " + headerCells(shown, ws)))
	b.WriteByte('\n')
	rowsH := h - 4 - len(problemLines)
	if v.detail {
		rowsH -= detailHeight(w)
	}
	rowsH = max(rowsH, 1)
	v.pageH = rowsH
	v.nav.clamp(len(v.idx), rowsH)
	loc := c.now().Location()
	row := newTxRow(shown, ws, v.cols)
	rows, top, cursor := v.idx, v.nav.top, v.nav.cursor
	if v.busy && v.preview != nil {
		// A big filter's first matches, from the top, until its whole
		// result comes (which starts at the top too).
		rows, top, cursor = v.preview, 0, 0
	}
	end := min(top+rowsH, len(rows))
	for p := top; p < end; p++ {
		b.WriteString(row.render(c, v.store, rows[p], p == cursor, loc, w))
		b.WriteByte('\n')
	}
	if v.store != nil && len(rows) == 0 && !v.busy {
		b.WriteString(c.st.muted.Render(wrapText(v.emptyWhy(c), w)) + "\n")
	}
	if v.detail {
		out := padLines(strings.TrimSuffix(b.String(), "\n"), h-detailHeight(w))
		return out + "\n" + v.detailView(c, w)
	}
	return b.String()
}

// totalsLine is the rows on screen added up per currency: money in, money
// out and the net; when that does not fit, the net alone.
func (v *txView) totalsLine(c *viewContext, w int) string {
	if v.store == nil {
		return ""
	}
	if len(v.totals) == 0 {
		return c.st.muted.Render(fit("Totals: no rows", w))
	}
	net := func(t report.Total) string { return signed(t.Net, t.Currency) }
	var long, short []string
	failed := 0
	for _, t := range v.totals {
		long = append(long, t.Currency+" in "+signed(t.Credits, t.Currency)+" out "+signed(-t.Debits, t.Currency)+" net "+net(t))
		short = append(short, t.Currency+" net "+net(t))
		failed += t.Failed
	}
	note := ""
	if failed > 0 {
		// Only the statuses the report holds: the service's report lists
		// failed payouts, and rejected ones only if it ever does.
		what := "failed"
		if slices.ContainsFunc(v.store.EnumValues(report.EnumStatus), func(s string) bool { return strings.EqualFold(s, api.StateRejected) }) {
			what = "failed/rejected"
		}
		note = " (" + itoa(failed) + " " + what + " not counted)"
	}
	line := "Totals: " + strings.Join(long, " · ") + note
	if width(line) > w {
		line = "Totals: " + strings.Join(short, " · ") + note
	}
	if width(line) > w {
		line = "Totals: " + strings.Join(short, " · ")
	}
	return c.st.bold.Render(fit(line, w))
}

// progressNote is how far a running filter's whole pass has got, once it
// has started: the matches found so far and the share of rows tested.
func (v *txView) progressNote() string {
	p := v.progress
	if p == nil || p.Scanned.Load() == 0 || p.Total.Load() == 0 {
		return ""
	}
	pct := min(p.Scanned.Load()*100/p.Total.Load(), 99)
	return " " + itoa(int(p.Matched.Load())) + " found in " + itoa(int(pct)) + "%"
}
