package ui

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/platform/termtext"
	"github.com/paydash/paydash/webhookrelay/relayclient"
)

type eventsView struct {
	heldEvents
	follow  bool
	unseen  int // events arrived while paused
	typ     string
	nav     listNav
	filter  filterBar
	open    bool
	openIdx int // absolute number of the open event
	vp      viewport.Model
	pageH   int
	wb      eventsWorkbench // events_workbench.go
	rows    rowMemo         // the list's rows as last drawn
}

func newEventsView() eventsView {
	return eventsView{heldEvents: newHeldEvents(maxEvents), follow: true,
		filter: newFilterBar("type, event id, payout id, summary"), vp: viewport.New(80, 10)}
}

// add appends a batch from the subscriber (backlog first, then live):
// each event is checked against the active filter as it arrives, and the
// oldest beyond the cap are let go.
func (v *eventsView) add(evs []relayclient.Event) {
	sel := v.cursorEvent()
	added := 0
	for _, ev := range evs {
		if v.push(ev) {
			added++
		}
	}
	if v.open && !v.isHeld(v.openIdx) {
		v.open = false
	}
	if v.follow {
		v.nav.cursor = len(v.shown) - 1
	} else {
		v.unseen += added
		v.reselect(sel)
	}
}

// cursorEvent is the absolute number of the event under the cursor, or -1.
func (v *eventsView) cursorEvent() int {
	if v.nav.cursor >= 0 && v.nav.cursor < len(v.shown) {
		return v.shown[v.nav.cursor]
	}
	return -1
}

// reselect puts the cursor back on event sel (or the next one shown)
// rather than on the same line number.
func (v *eventsView) reselect(sel int) {
	if sel >= 0 {
		v.nav.cursor, _ = slices.BinarySearch(v.shown, sel)
		v.nav.clamp(len(v.shown), v.pageH)
	}
}

// refilter applies the type, failed-only and text filters, keeping the
// selection.
func (v *eventsView) refilter() {
	sel := v.cursorEvent()
	v.setFilter(eventFilter{typ: v.typ, failedOnly: v.wb.failedOnly, q: v.filter.query()})
	v.reselect(sel)
}

// eventSummary is the relay's one-line summary plus, when the relay
// forwards events, how forwarding went.
func eventSummary(ev *relayclient.Event) string { return listSummary(ev, true) }

// listSummary is the summary for the events list: without the payout id
// when the list has a Payout ID column on screen (saying it twice pushed
// the state and reason off the line), and with the amount of an
// external payment from its body.
func listSummary(ev *relayclient.Event, withID bool) string {
	var s string
	switch {
	case !withID && ev.PayoutID != "":
		s = ev.State
		if s == "" {
			s = ev.Type
		}
		s = clean(s)
		if ev.Reason != "" {
			s += ": " + clean(ev.Reason)
		}
	case ev.Type == api.EventExternalPaymentReceived:
		s = "received" // the Type column names the event
		var body struct {
			Amount   *int64 `json:"amount_in_minor"`
			Currency string `json:"currency"`
		}
		if json.Unmarshal(ev.Body, &body) == nil && body.Amount != nil {
			if body.Currency != "" {
				s += " " + api.FormatAmount(*body.Amount, clean(body.Currency))
			} else {
				s += " " + thousands(int(*body.Amount)) + " (minor units)"
			}
		}
	default:
		s = ev.Summary()
	}
	if f := ev.Forward; f != nil {
		switch {
		case f.Answer != nil && f.Answer.Status > 0 && !f.Answer.OK():
			s += " · forward failed: HTTP " + itoa(f.Answer.Status)
		case f.Error != "":
			s += " · forward failed: " + clean(f.Error)
		case f.StatusCode != 0:
			s += " · forwarded " + itoa(f.StatusCode)
		}
	}
	return s
}

func (v *eventsView) capturing() bool { return v.filter.active || v.wb.searching || v.wb.picking }

func (v *eventsView) startFilter() (tea.Cmd, bool) {
	if v.open {
		return v.startSearch(), true
	}
	return v.filter.start(), true
}

func (v *eventsView) keys(c *viewContext) helpMap {
	g := c.keys
	switch {
	case v.filter.active:
		return filterBarKeys(c.keys)
	case v.open:
		h := openEventKeys(c, &v.vp)
		// The workbench's search before the way back.
		h.short = append(h.short[:len(h.short)-1], g.Search, g.Back)
		h.full = append(h.full, v.workbenchHelp(c))
		return h
	}
	return helpMap{
		short: []key.Binding{c.keys.Follow, c.keys.EventType, g.Filter, c.keys.OpenEvent, g.Actions},
		full: [][]key.Binding{{g.Up, g.Down, g.PgUp, g.PgDown, g.HalfUp, g.HalfDown, g.Top, g.Bottom}, {c.keys.Follow, c.keys.EventType, g.Filter},
			{c.keys.OpenEvent, c.keys.CopyBody, g.Actions}, v.workbenchHelp(c)},
	}
}

func (v *eventsView) update(c *viewContext, k tea.KeyMsg) tea.Cmd {
	if v.filter.active {
		cmd, changed := v.filter.update(c.keys, k)
		if changed {
			v.refilter()
			v.nav.clamp(len(v.shown), v.pageH)
		}
		return cmd
	}
	if cmd, ok := v.workbenchKey(c, k); ok {
		return cmd
	}
	if v.open {
		switch {
		case key.Matches(k, c.keys.Back, c.keys.Enter):
			v.open = false
		case key.Matches(k, c.keys.CopyBody):
			return c.copyText(string(v.at(v.openIdx).Body), "event body")
		default:
			var cmd tea.Cmd
			v.vp, cmd = v.vp.Update(k)
			return cmd
		}
		return nil
	}
	if v.nav.move(k, c.keys, len(v.shown), v.pageH) {
		// Moving off the newest event pauses following, as in a log pager;
		// going back to the end resumes it.
		v.follow = v.nav.cursor == len(v.shown)-1
		if v.follow {
			v.unseen = 0
		}
		return nil
	}
	switch {
	case key.Matches(k, c.keys.Follow):
		v.follow = !v.follow
		if v.follow {
			v.unseen = 0
			v.nav.cursor = len(v.shown) - 1
		}
	case key.Matches(k, c.keys.EventType):
		v.typ = cycle(v.types(), v.typ)
		v.refilter()
		v.nav.cursor = len(v.shown) - 1
	case key.Matches(k, c.keys.OpenEvent) && v.nav.cursor < len(v.shown) && len(v.shown) > 0:
		v.open = true
		v.openIdx = v.shown[v.nav.cursor]
		v.wb.base, v.wb.query = v.detail(c, v.full(v.openIdx)), ""
		v.vp.GotoTop()
		v.setContent(c)
	case key.Matches(k, c.keys.CopyBody) && v.nav.cursor < len(v.shown) && len(v.shown) > 0:
		return c.copyText(string(v.at(v.shown[v.nav.cursor]).Body), "event body")
	case key.Matches(k, c.keys.Back):
		v.typ = ""
		v.filter.set("")
		v.refilter()
	}
	return nil
}

var eventCols = []colSpec{
	{title: "Seq", w: 6, right: true},
	{title: "Time", w: 8},
	{title: "Type", w: 25}, // external_payment_received; spare room goes to the summary
	{title: "Event ID", w: 36, drop: 3},
	{title: "Payout ID", w: 36, drop: 2},
	{title: "Summary", w: 20, flex: 3},
}

func (v *eventsView) view(c *viewContext, w, h int) string {
	if v.open {
		return v.openView(c, w, h)
	}
	var b strings.Builder
	b.Grow(w*(h+1) + 256) // drawn after every message: one allocation, not a doubling series
	switch {
	case v.filter.shown():
		b.WriteString(v.filter.view())
	default:
		b.WriteString(c.st.muted.Render(keysLine(w, keyWord{c.keys.Filter, "filter"}, keyWord{c.keys.EventType, "type"}, keyWord{c.keys.Follow, "follow/pause"}, keyWord{c.keys.OpenEvent, "open"}, keyWord{c.keys.CopyBody, "copy body"})))
	}
	b.WriteByte('\n')
	state := c.st.good.Render("following")
	if !v.follow {
		state = c.st.warn.Render("paused")
		if v.unseen > 0 {
			state += c.st.warn.Render(" · " + itoa(v.unseen) + " new (" + keyOf(c.keys.Follow) + " to follow)")
		}
	}
	info := v.countLine() + " · " + state
	if v.typ != "" {
		info += " · type " + v.typ
	}
	if c.opts.Events == nil {
		info = c.st.muted.Render("no relay configured: events and live payout updates need paydash relay")
	}
	b.WriteString(fit(info, w) + "\n")
	if v.wb.picking {
		return b.String() + v.pickerView(c, w)
	}
	listH := max(h-3, 1)
	if banner := v.lateBanner(c, w); banner != "" {
		b.WriteString(banner + "\n")
		listH = max(listH-1, 1)
	}
	ws := layoutCols(eventCols, w-1)
	b.WriteString(c.st.header.Render(" "+headerCells(eventCols, ws)) + "\n")
	v.pageH = listH
	v.nav.clamp(len(v.shown), listH)
	if v.follow {
		v.nav.cursor = len(v.shown) - 1
		v.nav.clamp(len(v.shown), listH)
	}
	loc := c.now().Location()
	cells := make([]string, len(eventCols))
	v.rows.begin(w)
	for i := v.nav.top; i < min(v.nav.top+listH, len(v.shown)); i++ {
		n := v.shown[i]
		ev := v.at(n)
		last := c.lateMark(ev.PayoutID) + v.summary(n, ws[4] == 0)
		if i != v.nav.cursor {
			if line, ok := v.rows.find(n, last); ok {
				v.rows.keep(n, last, line)
				b.WriteString(line)
				b.WriteByte('\n')
				continue
			}
		}
		cells[0] = strconv.FormatUint(ev.Seq, 10)
		cells[1] = clockTime(ev.ReceivedAt, loc)
		cells[2] = ev.Type
		cells[3] = ev.EventID
		cells[4] = ev.PayoutID
		cells[5] = last
		var line strings.Builder
		line.Grow(w + 8) // one allocation per row, not a doubling series
		line.WriteString(gutter(i == v.nav.cursor, false))
		renderCells(&line, eventCols, ws, cells)
		if i == v.nav.cursor {
			b.WriteString(c.st.selected.Render(fit(line.String(), w)))
		} else {
			v.rows.keep(n, last, line.String())
			b.WriteString(line.String())
		}
		b.WriteByte('\n')
	}
	v.rows.end()
	if len(v.shown) == 0 && c.opts.Events != nil {
		b.WriteString(c.st.muted.Render(wrapText(v.emptyWhy(c), w)) + "\n")
	}
	return b.String()
}

// rowMemo keeps the last frame's list rows (all but the cursor's), each
// with its last cell (late mark and summary, the one part of a row that
// changes while it is held): following, each event moves every row up
// one, and every cell of every row was cut, cleaned and padded again.
type rowMemo struct {
	w          int
	rows, next []memoRow // ascending event numbers
}

type memoRow struct {
	n          int
	last, line string
}

// begin starts a frame w cells wide (a new width draws every row again).
func (r *rowMemo) begin(w int) {
	if w != r.w {
		r.rows, r.w = r.rows[:0], w
	}
	r.next = r.next[:0]
}

// find returns event n's row as last drawn, when its last cell is still
// last.
func (r *rowMemo) find(n int, last string) (string, bool) {
	i, ok := slices.BinarySearchFunc(r.rows, n, func(m memoRow, n int) int { return m.n - n })
	if !ok || r.rows[i].last != last {
		return "", false
	}
	return r.rows[i].line, true
}

// keep notes a row drawn in this frame.
func (r *rowMemo) keep(n int, last, line string) { r.next = append(r.next, memoRow{n, last, line}) }

// end makes this frame's rows the ones to find in the next.
func (r *rowMemo) end() {
	clear(r.rows)
	r.rows, r.next = r.next, r.rows
}

func (v *eventsView) openView(c *viewContext, w, h int) string {
	ev := v.at(v.openIdx)
	v.vp.Width, v.vp.Height = w, max(h-2, 1)
	head := "Event #" + strconv.FormatUint(ev.Seq, 10) + " " + clean(ev.Type)
	keys := []string{keyOf(c.keys.Back) + " back", keyOf(c.keys.CopyBody) + " body", keyOf(c.keys.CopyHeaders) + " headers",
		keyOf(c.keys.Search) + " search", keyOf(c.keys.Resend) + " resend"}
	if v.vp.TotalLineCount() > v.vp.Height {
		keys = append(keys, keyOf(c.keys.Up)+" "+keyOf(c.keys.Down)+" scroll")
	}
	title := c.st.title.Render(head) + c.st.muted.Render("  "+wholeParts(max(w-width(head)-2, 1), " · ", keys...))
	second := ""
	switch {
	case v.wb.searching:
		second = v.wb.search.View()
	case v.wb.query != "":
		second = c.st.muted.Render("/" + termtext.Safe(v.wb.query) + " · " + plural(len(v.wb.matches), "line", "lines") + " · " + keyOf(c.keys.NextMatch) + " next/previous")
	}
	if second != "" {
		second = fit(second, w)
	}
	return fit(title, w) + "\n" + second + "\n" + v.vp.View()
}

func (v *eventsView) detail(c *viewContext, ev *relayclient.Event) string {
	loc := c.now().Location()
	var b strings.Builder
	kv := func(k, val string) {
		if val != "" {
			b.WriteString(c.st.muted.Render(fit(k, 13)) + clean(val) + "\n")
		}
	}
	kv("event id", ev.EventID)
	kv("family", ev.Family)
	kv("payout id", ev.PayoutID)
	kv("state", ev.State)
	kv("reason", ev.Reason)
	if !ev.OccurredAt.IsZero() {
		kv("occurred", stamp(ev.OccurredAt, loc))
	}
	kv("received", stamp(ev.ReceivedAt, loc))
	kv("summary", eventSummary(ev))
	b.WriteString(v.forwardSection(c, ev))
	b.WriteString("\n" + c.st.bold.Render("Headers") + "\n")
	names := make([]string, 0, len(ev.Headers))
	for k := range ev.Headers {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		b.WriteString("  " + c.st.jsonKey.Render(clean(k)) + ": " + clean(ev.Headers[k]) + "\n")
	}
	b.WriteString("\n" + c.st.bold.Render("Body") + "\n")
	b.WriteString(prettyJSON(c, ev.Body))
	return b.String()
}

// prettyJSON indents and colours a JSON document; anything that is not
// JSON is shown as received.
func prettyJSON(c *viewContext, raw []byte) string {
	var buf bytes.Buffer
	if err := json.Indent(&buf, raw, "", "  "); err != nil {
		return cleanLines(string(raw))
	}
	src := []byte(cleanLines(buf.String()))
	var b strings.Builder
	for i := 0; i < len(src); {
		ch := src[i]
		switch {
		case ch == '"':
			j := i + 1
			for j < len(src) && src[j] != '"' {
				if src[j] == '\\' {
					j++
				}
				j++
			}
			j = min(j+1, len(src))
			tok := string(src[i:j])
			k := j
			for k < len(src) && src[k] == ' ' {
				k++
			}
			if k < len(src) && src[k] == ':' {
				b.WriteString(c.st.jsonKey.Render(tok))
			} else {
				b.WriteString(c.st.jsonString.Render(tok))
			}
			i = j
		case ch == '-' || (ch >= '0' && ch <= '9'):
			j := i
			for j < len(src) && strings.IndexByte("-+.eE0123456789", src[j]) >= 0 {
				j++
			}
			b.WriteString(c.st.jsonNumber.Render(string(src[i:j])))
			i = j
		case ch == 't' || ch == 'f' || ch == 'n':
			j := i
			for j < len(src) && src[j] >= 'a' && src[j] <= 'z' {
				j++
			}
			b.WriteString(c.st.jsonLit.Render(string(src[i:j])))
			i = j
		default:
			b.WriteByte(ch)
			i++
		}
	}
	return b.String()
}

// filterSyntax is what the filter bar accepts, for the help screen.
func (v *eventsView) filterSyntax() string { return v.filter.syntax() }
