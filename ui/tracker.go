package ui

import (
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/report"
	"github.com/paydash/paydash/webhookrelay/relayclient"
)

// highlightFor is how long a payout row stays highlighted after it moved.
const highlightFor = 2 * time.Second

// stateSent is the tracker's state for a payout this session sent and the
// service accepted (202) before any webhook arrived.
const stateSent = "sent"

type payoutStep struct {
	state   string
	at      time.Time
	reason  string
	eventID string
	from    string // fromRelay or fromReport
}

type trackedPayout struct {
	id   string
	mine bool
	req  *api.PayoutRequest // when created in this session
	// row is the payout's record from the transaction report, for
	// payouts seen only through the relay (whose events carry no amount
	// or beneficiary).
	row *api.Transaction
	// recorded is the payout as the profile's audit record holds it, for
	// one sent before this session (or by another paydash on this
	// profile) that the report does not show.
	recorded  *api.PayoutRequest
	state     string
	reason    string
	steps     []payoutStep
	firstSeen time.Time
	changedAt time.Time
	// from is where the current state came from (fromRelay, fromReport);
	// note explains a payout the report does not show.
	from string
	note string
	// approvalID is the team hub's request for this payout, when the form
	// sent it through the hub ("" otherwise).
	approvalID string

	// Bookkeeping of the tracker's bounds (tracker_bounds.go).
	pos             int    // index in payoutOrder.order
	finishTurn      int    // its live entry in the finished queue, 0 if none
	finishedAs      string // the final state it was queued with
	outcomeRecorded bool   // its final state went to the audit record
	pinned          bool   // followed from the report (p): never dropped
	touched         bool   // in trackerView.touched
	lookupGen       int    // the lookup generation it was last searched in
}

type trackerView struct {
	payouts payoutOrder
	byID    map[string]*trackedPayout
	events  idWindow // the latest event ids applied (the relay resends on reconnect)
	// toLookUp are the payouts created since the last lookup, each
	// searched once per loaded report (lookupGen), not once per event.
	toLookUp    []*trackedPayout
	lookupStore *report.Store
	lookupGen   int
	// lookupBusy is set while a lookup runs: one at a time, so under a
	// stream of events the new payouts gather into the next one instead
	// of each batch scanning the report and reading the record.
	lookupBusy bool
	nav        listNav
	cols       colOrder  // the columns shown (nil: all), from a view or :columns
	sel        selection // the selected payout, by id
	filter     filterBar
	pageH      int
	// navigated is set once the operator moved the cursor with the keys:
	// from then on the rows beside it are kept too (trim).
	navigated bool
	// toRecord are the payouts that finished since the last
	// recordOutcomes, for the audit record.
	toRecord []*trackedPayout
	// touched are the payouts new or with details learned since the
	// late-webhook book last took them (eachTouched).
	touched []*trackedPayout
	// finished orders the finished payouts of others; beyond keepFinal
	// the oldest are dropped, droppedFinal counts them.
	finished     finishedQueue
	keepFinal    int
	droppedFinal int
}

func newTrackerView(keepFinal int) trackerView {
	if keepFinal <= 0 {
		keepFinal = DefaultTrackerKeepFinal
	}
	return trackerView{byID: map[string]*trackedPayout{}, events: newIDWindow(recentEventIDs), keepFinal: keepFinal,
		filter: newFilterBar("id, beneficiary, state, amount (£12.34, -£12.34, 12.34), currency")}
}

// details returns what the tracker knows of a payout's beneficiary and
// amount: the request this session sent, else the report's row, else the
// audit record's attempt, else nothing.
func (p *trackedPayout) details() (name, iban, ref string, minor int64, cur string, ok bool) {
	switch {
	case p.req != nil:
		r := p.req
		return r.BeneficiaryName, r.BeneficiaryIBAN, r.BeneficiaryReference, r.AmountInMinor, r.Currency, true
	case p.row != nil:
		r := p.row
		return r.BeneficiaryName, r.BeneficiaryIBAN, r.BeneficiaryReference, r.AmountInMinor, r.Currency, true
	case p.recorded != nil:
		r := p.recorded
		return r.BeneficiaryName, r.BeneficiaryIBAN, r.BeneficiaryReference, r.AmountInMinor, r.Currency, true
	}
	return "", "", "", 0, "", false
}

// trackPayoutMsg asks the root to have the tracker follow a payout the
// user picked in the report.
type trackPayoutMsg struct{ tx api.Transaction }

// payoutRowsMsg carries report rows found for payouts the tracker knew
// only by id, and the audit record's attempts for those the report lacks.
type payoutRowsMsg struct {
	rows     map[string]api.Transaction
	recorded map[string]api.PayoutRequest
}

// lookup searches the loaded report, off the Update path, for payouts
// the tracker has no details for, and the audit record (through the
// guard) for those the report lacks. The report is immutable once
// loaded, so the scan shares it safely; each id is searched once per
// report.
func (v *trackerView) lookup(c *viewContext, st *report.Store) tea.Cmd {
	g := c.opts.Guard
	hasRows := st != nil && st.Len() > 0
	if st != v.lookupStore {
		// A new report: every payout still without details is searched
		// again (once per load, not per event).
		v.lookupStore = st
		v.lookupGen++
		v.toLookUp = append(v.toLookUp[:0], v.payouts.newestFirst()...)
	}
	if v.lookupBusy {
		return nil // the payouts wait in toLookUp for the next one
	}
	queued := v.toLookUp
	v.toLookUp = v.toLookUp[:0]
	if !hasRows && g == nil {
		return nil
	}
	want := map[string]bool{}
	for _, p := range queued {
		if p.req == nil && p.row == nil && p.lookupGen != v.lookupGen && v.byID[p.id] == p {
			want[p.id] = true
			p.lookupGen = v.lookupGen
		}
	}
	if len(want) == 0 {
		return nil
	}
	v.lookupBusy = true
	return func() tea.Msg {
		var msg payoutRowsMsg
		if hasRows {
			msg.rows = st.FindIDs(want)
		}
		missing := map[string]bool{}
		for id := range want {
			if _, ok := msg.rows[id]; !ok {
				missing[id] = true
			}
		}
		if g != nil && len(missing) > 0 {
			// A record that cannot be read leaves the payee unknown, as
			// before; the duplicate check reports the record's damage.
			msg.recorded, _ = g.Recorded(missing)
		}
		return msg
	}
}

func (v *trackerView) applyRows(c *viewContext, msg payoutRowsMsg) {
	v.lookupBusy = false
	for id, t := range msg.rows {
		if p := v.byID[id]; p != nil && p.req == nil && p.row == nil {
			t := t
			p.row = &t
			v.touch(p)
		}
	}
	for id, r := range msg.recorded {
		if p := v.byID[id]; p != nil && p.req == nil && p.row == nil {
			r := r
			p.recorded = &r
			v.touch(p)
		}
	}
}

// unknown counts payouts shown without beneficiary and amount.
func (v *trackerView) unknown() int {
	n := 0
	for _, p := range v.payouts.newestFirst() {
		if _, _, _, _, _, ok := p.details(); !ok {
			n++
		}
	}
	return n
}

func (v *trackerView) get(c *viewContext, id string) *trackedPayout {
	p := v.byID[id]
	if p == nil {
		p = &trackedPayout{id: id, firstSeen: c.now()}
		v.byID[id] = p
		v.payouts.add(p)
		v.toLookUp = append(v.toLookUp, p)
		v.touch(p)
	}
	return p
}

// addSent records a payout this session sent and the service accepted.
func (v *trackerView) addSent(c *viewContext, req *api.PayoutRequest) {
	p := v.get(c, req.TransactionID)
	p.mine, p.req = true, req
	v.touch(p)
	if p.state == "" {
		p.state = stateSent
	}
	p.steps = append(p.steps, payoutStep{state: stateSent, at: c.now()})
	p.changedAt = c.now()
}

// apply feeds relay events into the tracker. It reports whether any was
// about a payout, which is the cue to refresh balances.
func (v *trackerView) apply(c *viewContext, evs []relayclient.Event) bool {
	touched := false
	for _, ev := range evs {
		if ev.PayoutID == "" || ev.State == "" {
			if strings.HasPrefix(ev.Type, "payout") || ev.Type == api.EventExternalPaymentReceived {
				touched = true
			}
			continue
		}
		touched = true
		if ev.EventID != "" && !v.events.add(ev.EventID) {
			continue
		}
		p := v.get(c, ev.PayoutID)
		at := ev.OccurredAt
		if at.IsZero() {
			at = ev.ReceivedAt
		}
		p.steps = append(p.steps, payoutStep{state: ev.State, at: at, reason: ev.Reason, eventID: ev.EventID, from: fromRelay})
		slices.SortStableFunc(p.steps, func(a, b payoutStep) int {
			if c := api.StateRank(a.state) - api.StateRank(b.state); c != 0 {
				return c
			}
			return a.at.Compare(b.at)
		})
		if api.StateRank(ev.State) >= api.StateRank(p.state) || p.state == "" {
			p.state, p.from, p.note = ev.State, fromRelay, ""
			if ev.Reason != "" {
				p.reason = ev.Reason
			}
		}
		p.changedAt = c.now()
		v.noteState(p)
	}
	return touched
}

func (v *trackerView) visible() []*trackedPayout {
	q := shownQuery(v.filter.query())
	amounts := hasDigit(q)
	all := v.payouts.newestFirst()
	if q == "" {
		return all
	}
	var out []*trackedPayout
	for _, p := range all {
		if strings.Contains(strings.ToLower(payoutMatchText(p, amounts)), q) {
			out = append(out, p)
		}
	}
	return out
}

func (v *trackerView) capturing() bool { return v.filter.active }

func (v *trackerView) startFilter() (tea.Cmd, bool) { return v.filter.start(), true }

func (v *trackerView) keys(c *viewContext) helpMap {
	if v.filter.active {
		return filterBarKeys(c.keys)
	}
	return trackerKeys(c, v.selected())
}

func (v *trackerView) update(c *viewContext, k tea.KeyMsg) tea.Cmd {
	if v.filter.active {
		cmd, _ := v.filter.update(c.keys, k)
		return cmd
	}
	rows := v.visible()
	v.sel.restore(&v.nav, len(rows), v.pageH, payoutID(rows))
	if v.nav.move(k, c.keys, len(rows), v.pageH) {
		v.sel.remember(&v.nav, len(rows), payoutID(rows))
		v.navigated = true
		return nil
	}
	switch {
	case key.Matches(k, c.keys.Back):
		v.filter.set("")
	case key.Matches(k, c.keys.CopyPayout) && v.nav.cursor < len(rows):
		id := rows[v.nav.cursor].id
		return c.copyText(id, "payout id "+id)
	case key.Matches(k, c.keys.CopyReason) && v.nav.cursor < len(rows) && rows[v.nav.cursor].reason != "":
		return c.copyText(rows[v.nav.cursor].reason, "failure reason")
	case key.Matches(k, c.keys.Correct) && v.nav.cursor < len(rows) && rows[v.nav.cursor].correctable() && c.sends():
		return correctCmd(rows[v.nav.cursor])
	}
	return nil
}

var trackerCols = []colSpec{
	{title: "Payout ID", w: 13, flex: 3, max: 36},
	{title: "Beneficiary", w: 14, flex: 1, max: 28, drop: 2},
	{title: "Amount", w: 12, right: true, drop: 1},
	{title: "State", w: 10},
	{title: "Timeline", w: 20, flex: 4},
}

// timeline is a payout's steps with their times in now's zone. A step on
// another day than the one before it (the first: than today) carries its
// date, so an old payout followed from the report does not read as
// today's.
func timeline(p *trackedPayout, now time.Time) string {
	loc := now.Location()
	parts := make([]string, 0, len(p.steps))
	day := now.Format(time.DateOnly)
	for _, s := range p.steps {
		at := clockTime(s.at, loc)
		if d := s.at.In(loc).Format(time.DateOnly); !s.at.IsZero() && d != day {
			at, day = d+" "+at, d
		}
		t := s.state + " " + at
		if s.reason != "" {
			t += " (" + s.reason + ")"
		}
		parts = append(parts, t)
	}
	return strings.Join(parts, " → ")
}

func (v *trackerView) view(c *viewContext, w, h int) string {
	var b strings.Builder
	rows := v.visible()
	switch {
	case v.filter.shown():
		b.WriteString(v.filter.view())
	case v.payouts.len() == 0:
		empty := "No payouts yet: send one from " + tabKeyName(tabPayout) + " New payout, or wait for the relay's events."
		if !c.sends() {
			empty = "No payouts yet: this profile is read-only; payouts show here as the relay's events arrive."
		}
		b.WriteString(c.st.muted.Render(fit(empty, w)))
	default:
		b.WriteString(c.st.muted.Render(fit(v.infoLine(c, w), w)))
	}
	b.WriteByte('\n')
	noteH := 0
	if note := v.droppedNote(); note != "" {
		note = wrapText(note, w)
		b.WriteString(c.st.muted.Render(note) + "\n")
		noteH = strings.Count(note, "\n") + 1
	}
	// The amount column grows to the widest amount on screen, as on the
	// balances view: an amount must never be cut.
	specs := slices.Clone(trackerCols)
	for _, p := range rows {
		if _, _, _, minor, cur, ok := p.details(); ok {
			specs[2].w = max(specs[2].w, width(api.FormatAmount(minor, cur)))
		}
		// So does the state: the team hub's ("awaiting approval") are
		// longer than a payout's.
		specs[3].w = max(specs[3].w, width(p.state))
	}
	specs = v.cols.specs(specs)
	ws := layoutCols(specs, w-1)
	b.WriteString(c.st.header.Render(" " + headerCells(specs, ws)))
	if len(rows) == 0 {
		if v.payouts.len() > 0 {
			b.WriteString("\n" + c.st.muted.Render(wrapText(v.emptyWhy(c), w)))
		}
		// The tracker holds this session's payouts; older ones are in the
		// report, one key away.
		b.WriteString("\n" + c.st.muted.Render(wrapText("A payout from before this session: find it in "+tabKeyName(tabTransactions)+" Report (by id or search) and press "+keyOf(c.keys.Track)+" on its row to follow it here.", w)))
	}
	b.WriteByte('\n')
	detailH := 0
	if len(rows) > 0 {
		detailH = 8
	}
	listH := max(h-2-noteH-detailH, 1)
	v.pageH = listH
	v.sel.restore(&v.nav, len(rows), listH, payoutID(rows))
	now := c.now()
	cells := make([]string, len(trackerCols))
	var shown []string
	stateStyles := make([]*lipgloss.Style, len(trackerCols))
	var shownStyles []*lipgloss.Style
	for i := v.nav.top; i < min(v.nav.top+listH, len(rows)); i++ {
		p := rows[i]
		cells[0] = p.id
		cells[1], cells[2] = "—", "—"
		if name, _, _, minor, cur, ok := p.details(); ok {
			cells[1] = name
			cells[2] = api.FormatAmount(minor, cur)
		}
		cells[3] = p.state
		cells[4] = c.lateMark(p.id) + timeline(p, now)
		var line strings.Builder
		line.Grow(w + 8) // one allocation per row, not a doubling series
		line.WriteString(gutter(i == v.nav.cursor, now.Sub(p.changedAt) < highlightFor))
		shown = v.cols.cells(shown, cells)
		switch {
		case i == v.nav.cursor:
			renderCells(&line, specs, ws, shown)
			b.WriteString(c.st.selected.Render(fit(line.String(), w)))
		case now.Sub(p.changedAt) < highlightFor:
			renderCells(&line, specs, ws, shown)
			b.WriteString(c.st.highlight.Render(fit(line.String(), w)))
		default:
			stateStyles[3] = c.stateStyle(p.state)
			shownStyles = v.cols.styles(shownStyles, stateStyles)
			renderCells(&line, specs, ws, shown, shownStyles...)
			b.WriteString(line.String())
		}
		b.WriteByte('\n')
	}
	if detailH > 0 && v.nav.cursor < len(rows) {
		out := padLines(strings.TrimSuffix(b.String(), "\n"), h-detailH)
		return out + "\n" + v.detail(c, rows[v.nav.cursor], w)
	}
	return b.String()
}

func (v *trackerView) detail(c *viewContext, p *trackedPayout, w int) string {
	loc := c.now().Location()
	var b strings.Builder
	b.WriteString(c.st.muted.Render(strings.Repeat("─", w)) + "\n")
	head := "payout " + clean(p.id) + " · " + c.stateStyle(p.state).Render(clean(p.state)) + c.st.warn.Render(strings.TrimSuffix(" · "+c.lateMark(p.id), " · "))
	if p.reason != "" {
		head += " · reason " + c.st.bad.Render(clean(p.reason))
	}
	if p.mine {
		head += " · sent from this dashboard"
	}
	if p.approvalID != "" {
		head += " · through the team's hub as " + p.approvalID
	}
	if src := p.stateSource(); src != "" {
		head += " · state " + src
	}
	// Wrapped, not cut: the full id and reason are what an operator
	// quotes to support.
	b.WriteString(wrapText(head, w) + "\n")
	if name, iban, ref, minor, cur, ok := p.details(); ok {
		line := api.FormatAmount(minor, cur) + " to " + name + " · " + iban + " · ref " + ref
		if p.req == nil {
			line += " (from the report)"
		}
		b.WriteString(fit(clean(line), w) + "\n")
	} else {
		b.WriteString(c.st.muted.Render(fit(firstFit(w, "amount and beneficiary: not in the loaded transaction report yet; "+keyOf(c.keys.Refresh)+" reloads it",
			"not in the loaded report yet; "+keyOf(c.keys.Refresh)+" reloads it", "not in the report yet"), w)) + "\n")
	}
	if p.note != "" {
		b.WriteString(c.st.warn.Render(fit(p.note, w)) + "\n")
	}
	stateW := 11
	for _, s := range p.steps {
		stateW = max(stateW, width(s.state)+1)
	}
	for i, s := range p.steps {
		if i >= 5 {
			break
		}
		line := "  " + fit(clean(s.state), stateW) + stamp(s.at, loc)
		if s.reason != "" {
			line += "  " + clean(s.reason)
		}
		if s.eventID != "" {
			line += c.st.muted.Render("  event " + clean(s.eventID))
		}
		b.WriteString(fit(line, w) + "\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// follow adds a payout found in the report (from before this session, or
// sent elsewhere) to the tracker: its payee and amount come from the
// row, its state and timeline from the row's times, and events that
// arrive later move it on as for any payout.
func (v *trackerView) follow(c *viewContext, t api.Transaction) {
	p := v.get(c, t.TransactionID)
	p.pinned = true
	if p.row == nil && p.req == nil {
		p.row = &t
		v.touch(p)
	}
	if len(p.steps) == 0 {
		for _, st := range []struct {
			state string
			at    api.ReportTime
		}{{api.StateAuthorised, t.AuthorisedAt}, {api.StateSubmitted, t.SubmittedAt}, {api.StateSettled, t.SettledAt}} {
			if !st.at.IsZero() {
				p.steps = append(p.steps, payoutStep{state: st.state, at: st.at.Time})
			}
		}
	}
	if p.state == "" || api.StateRank(t.Status) > api.StateRank(p.state) {
		p.state = t.Status
	}
	p.changedAt = c.now()
	v.noteState(p)
	// Select it.
	v.filter.set("")
	rows := v.visible()
	for i, q := range rows {
		if q == p {
			v.nav.cursor = i
		}
	}
	v.sel.remember(&v.nav, len(rows), payoutID(rows))
}

// snapshot is a copy of what the tracker knows of one payout, for the
// payout form's result (nil when it is not tracked).
func (v *trackerView) snapshot(id string) *trackedPayout {
	p := v.byID[id]
	if p == nil {
		return nil
	}
	cp := *p
	cp.steps = slices.Clone(p.steps)
	return &cp
}

// filterSyntax is what the filter bar accepts, for the help screen.
func (v *trackerView) filterSyntax() string { return v.filter.syntax() }

// payoutID is row i's id, for the selection.
func payoutID(rows []*trackedPayout) func(int) string {
	return func(i int) string { return rows[i].id }
}
