package ui

import (
	"errors"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/lipgloss"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/platform/termtext"
	"github.com/paydash/paydash/webhookrelay/hub/hubapi"
	"github.com/paydash/paydash/webhookrelay/hub/hubclient"
)

var approvalCols = []colSpec{
	{title: "Age", w: 4, right: true},
	{title: "Request", w: 14, drop: 2}, // apr-… or, for a row of a batch, bat-…
	{title: "By", w: 6, max: 16, flex: 1},
	{title: "Payee", w: 12, flex: 3},
	{title: "Reference", w: 10, drop: 3, flex: 2},
	{title: "Amount", w: 11, right: true},
	{title: "Status", w: 11},
	{title: "Warnings", w: 9, flex: 2},
}

// detailLines is how many lines the selected request's detail takes
// under the list, at least: a warning or a reason that does not fit its
// line wraps onto more (the list gives way, down to maxDetailWrap more).
const (
	detailLines   = 5
	maxDetailWrap = 5
)

// age is how long ago t was, in one short unit: 45s, 12m, 3h, 2d.
func age(now, t time.Time) string {
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return itoa(int(max(d, 0)/time.Second)) + "s"
	case d < time.Hour:
		return itoa(int(d/time.Minute)) + "m"
	case d < 48*time.Hour:
		return itoa(int(d/time.Hour)) + "h"
	}
	return itoa(int(d/(24*time.Hour))) + "d"
}

// hint is a key's help as the bar shows it ("y yes"), from the keymap.
func hint(b key.Binding) string { return b.Help().Key + " " + b.Help().Desc }

func (v *approvalsView) view(c *viewContext, w, h int) string {
	if !c.teamMode() {
		return c.st.muted.Render(wrapText("Approvals need a team profile: payouts_via_relay = true, with relay_url at the team's hub and your own relay_token (see docs/operators.md, Team mode).", w))
	}
	var b strings.Builder
	b.WriteString(v.topLine(c, w) + "\n")
	b.WriteString(v.infoLine(c, w) + "\n")
	ws := layoutCols(approvalCols, w-1)
	b.WriteString(c.st.header.Render(" "+headerCells(approvalCols, ws)) + "\n")
	v.nav.clamp(len(v.rows), max(h-3-detailLines, 1))
	detail := v.detail(c, w)
	listH := max(h-3-max(strings.Count(detail, "\n")+1, detailLines), 1)
	v.pageH = listH
	v.nav.clamp(len(v.rows), listH)
	now := c.now()
	cells := make([]string, len(approvalCols))
	styles := make([]*lipgloss.Style, len(approvalCols))
	shown := 0
	if len(v.rows) == 0 {
		msg := "Nothing awaits approval."
		switch {
		case v.listErr != nil && !v.loaded:
			msg = ""
		case !v.loaded:
			msg = "asking the hub…"
		}
		b.WriteString(c.st.muted.Render(fit(" "+msg, w)) + "\n")
		shown = 1
	}
	for i := v.nav.top; i < min(v.nav.top+listH, len(v.rows)); i++ {
		r := &v.rows[i]
		cells[0] = age(now, r.RequestedAt)
		cells[1] = r.ID
		if r.Batch != "" {
			cells[1] = r.Batch // its line is in the detail
		}
		cells[2] = termtext.Safe(r.RequestedBy)
		cells[3] = termtext.Safe(r.BeneficiaryName)
		if r.Kind != "" {
			// A payment or mandate held by the rule: its kind before
			// its beneficiary, and its amount (a mandate's largest
			// single payment), so it never reads as a payout.
			cells[3] = r.Kind + ": " + cells[3]
		}
		cells[4] = termtext.Safe(r.BeneficiaryReference)
		cells[5] = api.FormatAmount(r.Shown(), r.Currency)
		cells[6] = r.Status
		if r.Status == hubapi.StatusPending && r.ApprovalsNeeded > 0 {
			cells[6] += " " + itoa(len(r.ApprovedBy)) + "/" + itoa(r.ApprovalsNeeded)
		}
		styles[6] = c.requestStyle(r.Status)
		cells[7], styles[7] = v.warnCell(c, r)
		var line strings.Builder
		line.WriteString(gutter(i == v.nav.cursor, false))
		if i == v.nav.cursor {
			renderCells(&line, approvalCols, ws, cells)
			b.WriteString(c.st.selected.Render(fit(line.String(), w)))
		} else {
			renderCells(&line, approvalCols, ws, cells, styles...)
			b.WriteString(line.String())
		}
		b.WriteByte('\n')
		shown++
	}
	for ; shown < listH; shown++ {
		b.WriteByte('\n')
	}
	b.WriteString(detail)
	return b.String()
}

// topLine is the question being asked, or who the user is and what
// awaits them.
func (v *approvalsView) topLine(c *viewContext, w int) string {
	g := c.keys
	switch v.mode {
	case apprConfirm:
		q := "Approve " + v.what(&v.target) + "?"
		return c.st.warn.Render(fit(q+"  "+hint(g.Yes)+" · "+hint(g.No), w))
	case apprAmount, apprReason:
		return clipLines(v.input.View(), w)
	}
	switch {
	case v.meErr != nil && !v.meKnown:
		return c.st.bad.Render(fit("hub: "+termtext.Safe(v.meErr.Error()), w))
	case !v.meKnown:
		return c.st.muted.Render(fit("asking the hub who you are…", w))
	}
	who := "you are " + termtext.Safe(v.me.Name) + " (" + termtext.Safe(strings.Join(v.me.Roles, ", ")) + ")"
	if n := v.awaiting(); n > 0 {
		return fit(c.st.alert.Render(plural(n, "request awaits", "requests await")+" your approval")+" · "+who, w)
	}
	if !v.approver() {
		return c.st.muted.Render(fit(who+": you see requests; approvers decide them", w))
	}
	return fit("nothing awaits your approval · "+who, w)
}

// infoLine counts what is listed and its totals per currency, and says
// when the list is stale.
func (v *approvalsView) infoLine(c *viewContext, w int) string {
	var pending []hubapi.Request
	for _, r := range v.rows {
		if r.Status == hubapi.StatusPending {
			pending = append(pending, r)
		}
	}
	info := plural(len(pending), "pending", "pending")
	if len(pending) > 0 {
		info += ": " + totalsText(hubapi.Totals(pending), api.FormatAmount)
	}
	if other := len(v.rows) - len(pending); other > 0 {
		info += " · " + itoa(other) + " approved, being sent or unknown"
	}
	if v.loaded {
		info += " · as of " + clockTime(v.loadAt, c.loc)
	}
	switch f := v.feedText(); {
	case v.feed == feedUp:
		info += " · " + f
	case f != "":
		// Polling is said first, where a narrow terminal still shows it.
		info = f + " · " + info
	}
	if v.listErr != nil {
		return c.st.bad.Render(fit(info+" · hub: "+termtext.Safe(v.listErr.Error()), w))
	}
	return c.st.muted.Render(fit(info, w))
}

// feedText says how the list is kept fresh: pushed live, or polled while
// the hub's live feed is unreachable (nothing for a hub without one).
func (v *approvalsView) feedText() string {
	switch v.feed {
	case feedUp:
		return "live"
	case feedConnecting:
		return "polling every 2 s: connecting to the hub's live feed"
	case feedDown:
		if errors.Is(v.feedErr, hubclient.ErrNoFeed) {
			return "polling every 2 s: this hub has no live feed (an older paydash relay)"
		}
		return "polling every 2 s: hub's live feed unreachable"
	}
	return ""
}

// requestStyle colours a request's status: sent green, refused or
// rejected red, pending and the rest amber.
func (c *viewContext) requestStyle(status string) *lipgloss.Style {
	switch status {
	case hubapi.StatusSent:
		return &c.st.good
	case hubapi.StatusRefused, hubapi.StatusRejected, hubapi.StatusLapsed, hubapi.StatusUnknown:
		return &c.st.bad
	}
	return &c.st.warn
}

// warnCell is the Warnings column: the classes the pipeline's check
// found, "checking…" until it answered.
func (v *approvalsView) warnCell(c *viewContext, r *hubapi.Request) (string, *lipgloss.Style) {
	if r.Status != hubapi.StatusPending {
		return "", nil
	}
	ch, ok := v.checks[r.ID]
	switch {
	case !ok:
		return "checking…", &c.st.muted
	case ch.err != nil:
		return "not checked", &c.st.warn
	case len(ch.ws) == 0:
		return "none", &c.st.good
	}
	seen := map[string]bool{}
	var parts []string
	for _, w := range ch.ws {
		if !seen[w.Class] {
			seen[w.Class] = true
			parts = append(parts, warnLabel(w.Class))
		}
	}
	return "⚠ " + strings.Join(parts, ", "), &c.st.bad
}

// warnLabel is a warning class as the list says it.
func warnLabel(class string) string {
	switch class {
	case hubapi.ClassDuplicate:
		return "duplicate"
	case hubapi.ClassFunds:
		return "funds"
	case hubapi.ClassNoAccount:
		return "no account"
	case hubapi.ClassUnknown:
		return "check failed"
	}
	return termtext.Safe(class)
}

// detail is the selected request under the list: its payee's IBAN and
// transaction id, who asked and when it lapses, its warnings in the
// pipeline's words, and why the user cannot decide it, if they cannot.
func (v *approvalsView) detail(c *viewContext, w int) string {
	lines := make([]string, 0, detailLines)
	lines = append(lines, c.st.muted.Render(strings.Repeat("─", w)))
	r := v.selected()
	if r == nil {
		return strings.Join(lines, "\n")
	}
	now := c.now()
	id := r.ID
	if r.Batch != "" {
		rows := v.batchRows(r.Batch)
		id += " · batch " + r.Batch + " line " + itoa(r.Line) + " of " + termtext.Safe(r.BatchFile) +
			": " + plural(len(rows), "payout", "payouts") + " listed, totals " + totalsText(hubapi.Totals(rows), api.FormatAmount) + " (decided whole)"
	}
	lines = append(lines, fit(c.st.bold.Render(id), w))
	asked := "asked by " + termtext.Safe(r.RequestedBy) + " " + age(now, r.RequestedAt) + " ago · IBAN " + termtext.Safe(r.BeneficiaryIBAN) +
		" · transaction id " + termtext.Safe(r.TransactionID)
	if r.Kind != "" {
		asked = "asked by " + termtext.Safe(r.RequestedBy) + " " + age(now, r.RequestedAt) + " ago · " + termtext.Safe(r.What()) +
			" · idempotency key " + termtext.Safe(r.IdempotencyKey)
	}
	extra := maxDetailWrap // lines the detail may grow by
	lines = wrapDetail(lines, asked, nil, w, &extra)
	rule := termtext.Safe(r.Policy)
	if r.NeedsApproval {
		rule += " · approvals " + itoa(len(r.ApprovedBy)) + " of " + itoa(r.ApprovalsNeeded)
		if len(r.ApprovedBy) > 0 {
			rule += " (" + termtext.Safe(strings.Join(r.ApprovedBy, ", ")) + ")"
		}
	}
	if r.Status == hubapi.StatusPending && !r.ExpiresAt.IsZero() {
		if left := r.ExpiresAt.Sub(now); left > 0 {
			rule += " · lapses in " + until(left)
		} else {
			rule += " · lapsing now"
		}
	}
	lines = wrapDetail(lines, rule, nil, w, &extra)
	var last string
	st := c.st.muted
	if ch, ok := v.checks[r.ID]; ok && r.Status == hubapi.StatusPending {
		switch {
		case ch.err != nil:
			last, st = "could not check it: "+termtext.Safe(ch.err.Error()), c.st.warn
		case len(ch.ws) > 0:
			texts := make([]string, len(ch.ws))
			for i, x := range ch.ws {
				texts[i] = termtext.Safe(x.Detail)
			}
			last, st = "⚠ "+strings.Join(texts, " · "), c.st.bad
		}
	}
	if why := v.whyNot(r); why != "" && v.meKnown {
		if last != "" {
			last = why + " · " + last
		} else {
			last, st = why, c.st.warn
		}
	}
	if r.Detail != "" && last == "" {
		last = termtext.Safe(r.Detail)
	}
	lines = wrapDetail(lines, last, &st, w, &extra)
	return strings.Join(lines, "\n")
}

// wrapDetail appends text to lines, wrapped at w, in st (nil: plain):
// the payee's IBAN, the transaction id, a warning and a reason are what
// an approver acts on, so a line too long wraps rather than being cut,
// taking up to *extra more lines (the list above gives way), and only
// what is beyond those is cut.
func wrapDetail(lines []string, text string, st *lipgloss.Style, w int, extra *int) []string {
	wrapped := strings.Split(wrapText(text, w), "\n")
	if len(wrapped) > 1+*extra {
		wrapped = append(wrapped[:*extra], strings.Join(wrapped[*extra:], " "))
	}
	*extra -= len(wrapped) - 1
	for _, l := range wrapped {
		l = fit(l, w)
		if st != nil {
			l = st.Render(l)
		}
		lines = append(lines, l)
	}
	return lines
}

// until renders a time left as 23h59m, 5m, 40s.
func until(d time.Duration) string {
	if d <= 0 {
		return "0s"
	}
	switch {
	case d < time.Minute:
		return itoa(int(d/time.Second)) + "s"
	case d < time.Hour:
		return itoa(int(d/time.Minute)) + "m"
	}
	return itoa(int(d/time.Hour)) + "h" + pad2(int(d%time.Hour/time.Minute)) + "m"
}
