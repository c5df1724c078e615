package ui

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/report"
)

// maxHistory bounds each account's sparkline history (one point per
// refresh: 10 s polls give about 40 minutes).
const maxHistory = 240

type balanceRow struct {
	b     api.Balance
	first int64   // available balance when first seen this session
	hist  []int64 // available balance at each refresh
}

func (r *balanceRow) key() string { return r.b.Currency + "|" + r.b.IBAN }

type balancesView struct {
	rows     []*balanceRow
	lastAt   time.Time
	err      error
	inFlight bool
	pending  bool
	// Refreshes asked for by relay events (nudge): nudgedAt is when the
	// last one started, nudgeWait is set while one waits for the gap to
	// pass, nudged while one waits for the fetch in flight.
	nudgedAt  time.Time
	nudgeWait bool
	nudged    bool
	nav       listNav
	filter    filterBar
	// hist is the report's movements per currency (nil until a report
	// loaded: its byCur is nil), and what the next one may start from;
	// open shows the selected account's own page; days is the chart's
	// span, 30 or 90. histWant is the report whose history was last asked
	// for (an older one's, coming late, is dropped).
	hist     balanceHistoryMsg
	histWant *report.Store
	open     bool
	days     int
}

type balancesMsg struct {
	list []api.Balance
	err  error
	at   time.Time
}

func newBalancesView() balancesView {
	return balancesView{filter: newFilterBar("currency or IBAN"), days: 30}
}

// fetch asks for balances unless a request is already out; then one more
// runs as soon as it returns, so a refresh asked for during a fetch is
// never lost (the webhook that triggered it may postdate that fetch).
func (v *balancesView) fetch(c *viewContext) tea.Cmd {
	if c.opts.Backend == nil {
		return nil
	}
	if v.inFlight {
		v.pending = true
		return nil
	}
	v.inFlight = true
	be, ctx, now := c.opts.Backend, c.ctx, c.now
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		defer cancel()
		list, err := be.Balances(ctx)
		return balancesMsg{list: list, err: err, at: now()}
	}
}

// balanceNudgeGap is the least time between two balance fetches asked
// for by relay events: at a busy hour's 100 events a second, each
// fetched at once kept one request always out.
const balanceNudgeGap = 2 * time.Second

// balanceNudgeMsg is the end of a nudge's wait.
type balanceNudgeMsg struct{}

// nudge asks for balances after a relay event moved money. The first
// fetches at once; those that follow within balanceNudgeGap, or while
// a fetch is out, are gathered into one fetch when the gap has passed,
// so the last event of a burst is always followed by one.
func (v *balancesView) nudge(c *viewContext) tea.Cmd {
	if c.opts.Backend == nil || v.nudgeWait {
		return nil // the fetch waiting for the gap covers this one
	}
	if v.inFlight {
		v.nudged = true
		return nil
	}
	if wait := v.nudgedAt.Add(balanceNudgeGap).Sub(c.now()); !v.nudgedAt.IsZero() && wait > 0 {
		v.nudgeWait = true
		return after(c.clock, wait, balanceNudgeMsg{})
	}
	v.nudgedAt = c.now()
	return v.fetch(c)
}

// nudgeDue fetches for the nudges gathered during the gap.
func (v *balancesView) nudgeDue(c *viewContext) tea.Cmd {
	v.nudgeWait = false
	return v.nudge(c)
}

func (v *balancesView) apply(c *viewContext, msg balancesMsg) tea.Cmd {
	v.inFlight = false
	if msg.err != nil {
		v.err = msg.err
		c.setFlash("balances: "+msg.err.Error()+" (retrying on the next refresh; r to retry now)", true)
	} else {
		v.err = nil
		v.lastAt = msg.at
		seen := make(map[string]bool, len(msg.list))
		for _, b := range msg.list {
			r := v.find(b.Currency, b.IBAN)
			if r == nil {
				r = &balanceRow{b: b, first: b.AvailableBalanceInMinor}
				v.rows = append(v.rows, r)
			}
			r.b = b
			r.hist = append(r.hist, b.AvailableBalanceInMinor)
			if len(r.hist) > maxHistory {
				r.hist = slices.Delete(r.hist, 0, len(r.hist)-maxHistory)
			}
			seen[r.key()] = true
		}
		// An account the service no longer lists is dropped; the rest keep
		// the service's order, as the CLI prints them.
		v.rows = slices.DeleteFunc(v.rows, func(r *balanceRow) bool { return !seen[r.key()] })
		order := make(map[string]int, len(msg.list))
		for i, b := range msg.list {
			order[b.Currency+"|"+b.IBAN] = i
		}
		slices.SortStableFunc(v.rows, func(a, b *balanceRow) int { return order[a.key()] - order[b.key()] })
	}
	if v.pending {
		v.pending = false
		return v.fetch(c)
	}
	if v.nudged {
		v.nudged = false
		return v.nudge(c)
	}
	return nil
}

func (v *balancesView) find(cur, iban string) *balanceRow {
	for _, r := range v.rows {
		if r.b.Currency == cur && r.b.IBAN == iban {
			return r
		}
	}
	return nil
}

func (v *balancesView) low(c *viewContext, r *balanceRow) bool {
	th, ok := c.opts.LowBalance[r.b.Currency]
	return ok && r.b.AvailableBalanceInMinor < th
}

// lowAlerts lists the accounts below their threshold, for the header.
func (v *balancesView) lowAlerts(c *viewContext) string {
	var out []string
	for _, r := range v.rows {
		if v.low(c, r) {
			out = append(out, r.b.Currency+" "+api.FormatAmount(r.b.AvailableBalanceInMinor, r.b.Currency))
		}
	}
	return strings.Join(out, ", ")
}

func (v *balancesView) visible() []*balanceRow {
	q := v.filter.query()
	if q == "" {
		return v.rows
	}
	var out []*balanceRow
	for _, r := range v.rows {
		if strings.Contains(strings.ToLower(r.b.Currency+" "+r.b.IBAN+" "+r.b.Status+" "+rail(r.b.Currency)), q) {
			out = append(out, r)
		}
	}
	return out
}

func (v *balancesView) capturing() bool { return v.filter.active }

func (v *balancesView) startFilter() (tea.Cmd, bool) { return v.filter.start(), true }

func (v *balancesView) keys(c *viewContext) helpMap {
	g := c.keys
	if v.filter.active {
		return filterBarKeys(c.keys)
	}
	if v.open {
		return helpMap{
			short: []key.Binding{g.CopyIBAN, g.Range, g.Back},
			full:  [][]key.Binding{{g.CopyIBAN, g.Range, g.Back}, {g.Refresh}},
		}
	}
	return helpMap{
		short: []key.Binding{g.OpenAccount, g.CopyIBAN, g.Range, g.Filter, g.Actions},
		full:  [][]key.Binding{{g.Up, g.Down, g.Top, g.Bottom}, {g.OpenAccount, g.CopyIBAN, g.Range, g.Actions}, {g.Filter, g.Refresh}},
	}
}

// selected is the account under the cursor.
func (v *balancesView) selected() *balanceRow {
	rows := v.visible()
	if v.nav.cursor < len(rows) {
		return rows[v.nav.cursor]
	}
	return nil
}

func (v *balancesView) update(c *viewContext, k tea.KeyMsg) tea.Cmd {
	if v.filter.active {
		cmd, _ := v.filter.update(c.keys, k)
		v.nav.clamp(len(v.visible()), 0)
		return cmd
	}
	switch {
	case key.Matches(k, c.keys.CopyIBAN):
		if r := v.selected(); r != nil {
			return c.copyText(r.b.IBAN, r.b.Currency+" account IBAN "+r.b.IBAN)
		}
		return nil
	case key.Matches(k, c.keys.Range):
		if v.days == 30 {
			v.days = historyDays
		} else {
			v.days = 30
		}
		return nil
	case key.Matches(k, c.keys.Back):
		if v.open {
			v.open = false
			return nil
		}
		v.filter.set("")
		return nil
	case !v.open && key.Matches(k, c.keys.OpenAccount):
		v.open = v.selected() != nil
		return nil
	}
	if !v.open {
		v.nav.move(k, c.keys, len(v.visible()), 0)
	}
	return nil
}

// history is the account's end-of-day available balance over days days,
// reconstructed from the report; nil before a report has loaded.
func (v *balancesView) history(r *balanceRow, days int) []int64 {
	if v.hist.byCur == nil {
		return nil
	}
	h := v.hist.byCur[r.b.Currency]
	if h == nil {
		h = &curHistory{} // no movements: a flat line at today's balance
	}
	return h.series(r.b.AvailableBalanceInMinor, days)
}

var balanceCols = []colSpec{
	{title: "Cur", w: 3},
	{title: "Rail", w: 15, drop: 3},
	{title: "IBAN", w: 22, drop: 4, flex: 1, max: 34},
	{title: "Status", w: 8, drop: 2},
	{title: "Current", w: 13, right: true},
	{title: "Available", w: 13, right: true},
	{title: "Reserved", w: 12, right: true, drop: 5},
	{title: "Since start", w: 12, right: true, drop: 6}, // change since the session began
	{title: "30 days", w: 10, drop: 1, flex: 2, max: 60},
}

// trend is the Trend cell: the last 30 or 90 days (h) from the report, else this
// session's samples.
func (v *balancesView) trend(r *balanceRow, w int) string {
	if hist := v.history(r, v.days); hist != nil {
		return sparkline(hist, w)
	}
	return sparkline(r.hist, w)
}

func (v *balancesView) view(c *viewContext, w, h int) string {
	if r := v.selected(); v.open && r != nil {
		return v.accountView(c, r, w, h)
	}
	var b strings.Builder
	rows := v.visible()
	switch {
	case v.filter.shown():
		b.WriteString(v.filter.view())
	case v.err != nil && len(v.rows) == 0:
		// The whole cause, wrapped: cutting it hid the part that says why.
		b.WriteString(c.st.bad.Render(wrapText("Could not load balances: "+clean(v.err.Error())+" ("+keyOf(c.keys.Refresh)+" retries)", w)))
	case v.lastAt.IsZero():
		b.WriteString(c.st.muted.Render("Loading balances…"))
	default:
		b.WriteString(c.st.muted.Render(wholeParts(w, " · ", plural(len(v.rows), "payout account", "payout accounts"), "refresh every "+c.opts.BalanceRefresh.String()+" and after every payout event")))
	}
	b.WriteByte('\n')
	// Amount columns grow to the widest amount on screen: a balance of
	// hundreds of millions must never be cut.
	specs := slices.Clone(balanceCols)
	for _, r := range rows {
		for i, minor := range [...]int64{r.b.CurrentBalanceInMinor, r.b.AvailableBalanceInMinor,
			r.b.CurrentBalanceInMinor - r.b.AvailableBalanceInMinor, r.b.AvailableBalanceInMinor - r.first} {
			specs[4+i].w = max(specs[4+i].w, width(signed(minor, r.b.Currency)))
		}
	}
	// The trend column spans what h chose, as the account's page does.
	specs[8].title = itoa(v.days) + " days"
	ws := layoutCols(specs, w-1)
	b.WriteString(c.st.header.Render(" " + headerCells(specs, ws)))
	b.WriteByte('\n')
	v.nav.clamp(len(rows), len(rows))
	for i, r := range rows {
		trendW := ws[8]
		cells := []string{
			r.b.Currency, rail(r.b.Currency), r.b.IBAN, r.b.Status,
			api.FormatAmount(r.b.CurrentBalanceInMinor, r.b.Currency),
			api.FormatAmount(r.b.AvailableBalanceInMinor, r.b.Currency),
			api.FormatAmount(r.b.CurrentBalanceInMinor-r.b.AvailableBalanceInMinor, r.b.Currency),
			signed(r.b.AvailableBalanceInMinor-r.first, r.b.Currency),
			v.trend(r, trendW),
		}
		var line strings.Builder
		line.WriteString(gutter(i == v.nav.cursor, false))
		low := v.low(c, r)
		switch {
		case i == v.nav.cursor:
			renderCells(&line, specs, ws, cells)
			b.WriteString(c.st.selected.Render(fit(line.String(), w)))
		case low:
			renderCells(&line, specs, ws, cells)
			b.WriteString(c.st.warnRow.Render(line.String()))
		default:
			var stStatus *lipgloss.Style
			if r.b.Status != api.AccountEnabled {
				stStatus = &c.st.bad
			}
			renderCells(&line, specs, ws, cells, nil, nil, nil, stStatus)
			b.WriteString(line.String())
		}
		b.WriteByte('\n')
	}
	if len(rows) == 0 && !v.lastAt.IsZero() {
		b.WriteString(c.st.muted.Render("No payout accounts match.") + "\n")
	}
	if v.nav.cursor < len(rows) {
		b.WriteByte('\n')
		b.WriteString(v.detail(c, rows[v.nav.cursor], w))
	}
	return b.String()
}

// detail is the selected account in full, with a wide sparkline: at 80
// columns the table drops rail, IBAN and trend, and this shows them.
func (v *balancesView) detail(c *viewContext, r *balanceRow, w int) string {
	cur := r.b.Currency
	var b strings.Builder
	b.WriteString(c.st.bold.Render(clean(cur)+" · "+rail(cur)) + " · " + clean(r.b.IBAN) + " · " + clean(r.b.Status) + "\n")
	b.WriteString(fit(wholeParts(w, " · ", "current "+api.FormatAmount(r.b.CurrentBalanceInMinor, cur),
		"available "+api.FormatAmount(r.b.AvailableBalanceInMinor, cur),
		"reserved "+api.FormatAmount(r.b.CurrentBalanceInMinor-r.b.AvailableBalanceInMinor, cur)), w) + "\n")
	lo, hi := r.hist[0], r.hist[0]
	for _, x := range r.hist {
		lo, hi = min(lo, x), max(hi, x)
	}
	b.WriteString(fit(wholeParts(w, " · ", "change since start "+signed(r.b.AvailableBalanceInMinor-r.first, cur),
		"session low "+api.FormatAmount(lo, cur), "high "+api.FormatAmount(hi, cur), itoa(len(r.hist))+" samples"), w) + "\n")
	label := "available this session "
	b.WriteString(label + sparkline(r.hist, max(w-len(label)-1, 1)))
	if th, ok := c.opts.LowBalance[cur]; ok {
		b.WriteByte('\n')
		if v.low(c, r) {
			b.WriteString(c.st.alert.Render("⚠ below the low-balance threshold of " + api.FormatAmount(th, cur)))
		} else {
			b.WriteString(c.st.muted.Render("low-balance threshold " + api.FormatAmount(th, cur)))
		}
	}
	return b.String()
}

// accounts is the balances as the service last listed them.
func (v *balancesView) accounts() []api.Balance {
	out := make([]api.Balance, len(v.rows))
	for i, r := range v.rows {
		out[i] = r.b
	}
	return out
}

// accountView is one account's page: its balances, its available balance
// over the last 30 or 90 days reconstructed from the report with the
// low-balance threshold drawn, and its latest transactions.
func (v *balancesView) accountView(c *viewContext, r *balanceRow, w, h int) string {
	cur := r.b.Currency
	var b strings.Builder
	b.WriteString(c.st.title.Render(clean(cur)+" account · "+rail(cur)) + " · " + clean(r.b.IBAN) + " · " + clean(r.b.Status) + "\n")
	b.WriteString(fit(wholeParts(w, " · ", "current "+api.FormatAmount(r.b.CurrentBalanceInMinor, cur),
		"available "+api.FormatAmount(r.b.AvailableBalanceInMinor, cur),
		"reserved "+api.FormatAmount(r.b.CurrentBalanceInMinor-r.b.AvailableBalanceInMinor, cur)), w) + "\n")
	th, hasTh := c.opts.LowBalance[cur]
	series := v.history(r, v.days)
	chartH := max(min(h-6-recentRows, 10), 3)
	if series == nil {
		b.WriteString(c.st.muted.Render("Balance history: waiting for the transaction report…") + "\n")
	} else {
		lo, hi := series[0], series[0]
		for _, x := range series {
			lo, hi = min(lo, x), max(hi, x)
		}
		head := "available, end of each day, last " + itoa(v.days) + " days (from the report) · low " +
			api.FormatAmount(lo, cur) + " · high " + api.FormatAmount(hi, cur)
		if hasTh {
			head += " · ┄ threshold " + api.FormatAmount(th, cur)
		}
		b.WriteString(c.st.muted.Render(fit(head, w)) + "\n")
		for _, line := range chart(series, w, chartH, th, hasTh) {
			b.WriteString(line + "\n")
		}
		first := c.now().AddDate(0, 0, -(v.days - 1))
		left, right := first.Format("2006-01-02"), "today"
		// Under the bars, not the screen: the chart is a column a day.
		chartW := max(min(w, len(series)), len(left)+len(right)+1)
		b.WriteString(c.st.muted.Render(left+strings.Repeat(" ", max(chartW-len(left)-len(right), 1))+right) + "\n")
	}
	b.WriteString(c.st.bold.Render("Latest transactions") + c.st.muted.Render(" · by when the money last moved (settled, or else submitted or authorised)") + "\n")
	var recent []api.Transaction
	if h := v.hist.byCur[cur]; h != nil {
		recent = h.recent
	}
	if len(recent) == 0 {
		b.WriteString(c.st.muted.Render("none in the loaded report") + "\n")
	}
	loc := c.now().Location()
	for _, t := range recent {
		line := stamp(t.LatestTime(), loc) + "  " + fit(t.Type, 8) + fit(t.Status, 10) + fitRight(signedAmount(t.AmountInMinor, t.Currency, t.Type), 14) + "  " + clean(t.BeneficiaryName)
		b.WriteString(fit(line, w) + "\n")
	}
	return b.String()
}

// filterSyntax is what the filter bar accepts, for the help screen.
func (v *balancesView) filterSyntax() string { return v.filter.syntax() }

// setHistory takes the report's movements per currency, for the charts.
func (v *balancesView) setHistory(msg balanceHistoryMsg) {
	if v.histWant != nil && msg.store != v.histWant {
		return // a report since replaced
	}
	v.hist = msg
}

// historyFor asks for the history of st, a report just loaded: from the
// history shown when st was merged from its report (base, the rows
// changed listed) and the days are the same, else by a whole pass.
func (v *balancesView) historyFor(st, base *report.Store, changed []int32, now time.Time) tea.Cmd {
	if st == nil || st == v.histWant {
		return nil
	}
	v.histWant = st
	if _, bounds := historyBounds(now); base != nil && v.hist.store == base && v.hist.bounds == bounds {
		return balanceHistoryAfter(st, v.hist, changed)
	}
	return balanceHistory(st, now)
}

// refreshedAt is when the balances last answered.
func (v *balancesView) refreshedAt() time.Time { return v.lastAt }
