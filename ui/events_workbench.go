package ui

import (
	"errors"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/paydash/paydash/api/sandbox/sandboxapi"
	"github.com/paydash/paydash/internal/platform/termtext"
	"github.com/paydash/paydash/webhookrelay/relayclient"
	"github.com/paydash/paydash/webhookrelay/webhooklate"
)

// Workbench gives the Events view the webhook workbench: each forward's
// answer from the developer's handler, resending an event, the payouts
// whose final webhook is late, and (on the demo) triggering events.
type Workbench struct {
	// Relay reads the relay's forward attempts and stored events (with
	// the dashboard's relay token); a zero URL turns those off.
	Relay relayclient.History
	// ResendLog keeps this machine's resends ("" Path: not kept).
	ResendLog relayclient.ResendLog
	// SandboxURL, set on the demo, lets T trigger sandbox webhooks.
	SandboxURL string
	// WebhookLate is the profile's webhook_late per currency; nil means
	// the rails' defaults.
	WebhookLate func(currency string) time.Duration
	// Sent are the payouts the profile's audit record holds as sent.
	Sent []webhooklate.Payout
}

// attemptPoll is how often the dashboard asks the relay for new forward
// attempts.
const attemptPoll = time.Second

// maxResendsShown bounds the resends kept per event for the inspector.
const maxResendsShown = 10

// maxResendEvents bounds the events whose resends are kept.
const maxResendEvents = 50000

// workbenchState is the dashboard-wide part of the workbench, shared
// through the viewContext: the late-webhook book the tracker and the
// Events view both mark from, and the resends made this session.
type workbenchState struct {
	book *webhooklate.Book
	// fed holds the tracker's own payouts already given to the book.
	fed     map[string]bool
	resends map[string][]relayclient.Attempt
	since   uint64 // the last attempt seq applied
	noPoll  bool   // the relay logs no attempts (clustered) or none is set
	polling bool
	// report is what the transaction report says of a payout the tracker
	// follows (its status), for the late banner.
	report map[string]string
}

func newWorkbenchState(opts Options) *workbenchState {
	limit := defaultLate
	if wb := opts.Workbench; wb != nil && wb.WebhookLate != nil {
		limit = wb.WebhookLate
	}
	s := &workbenchState{book: webhooklate.New(limit), fed: map[string]bool{}, resends: map[string][]relayclient.Attempt{},
		report: map[string]string{}}
	if wb := opts.Workbench; wb != nil {
		for _, p := range wb.Sent {
			s.book.Sent(p)
		}
	}
	return s
}

// defaultLate is webhook_late's defaults by rail (config.WebhookLate.For
// of an empty profile).
func defaultLate(currency string) time.Duration {
	if strings.EqualFold(currency, "GBP") {
		return 15 * time.Minute
	}
	return 48 * time.Hour
}

// lateMark is what the tracker puts before a payout's timeline while its
// final webhook is overdue: "LATE 5m · " (the final webhook is past the
// profile's webhook_late).
func (c *viewContext) lateMark(id string) string {
	if c.wb == nil {
		return ""
	}
	if st, ok := c.wb.book.Get(id, c.now()); ok && st.Late {
		return "LATE " + webhooklate.Round(st.LateBy).String() + " · "
	}
	return ""
}

// ---- messages ----

type attemptsMsg struct {
	page relayclient.AttemptPage
	err  error
}

type attemptTickMsg struct{}

type resendMsg struct {
	attempt  relayclient.Attempt
	warnings []string
	err      error
}

type triggeredMsg struct {
	res sandboxapi.Injected
	err error
}

// pollAttempts asks the relay for forward attempts after the last one
// applied; the answer schedules the next poll.
func (m *model) pollAttempts() tea.Cmd {
	wb := m.opts.Workbench
	if wb == nil || wb.Relay.URL == "" || m.wb.noPoll || m.wb.polling {
		return nil
	}
	m.wb.polling = true
	h, since, ctx := wb.Relay, m.wb.since, m.ctx
	return func() tea.Msg {
		page, err := h.Attempts(ctx, since, 1000)
		return attemptsMsg{page: page, err: err}
	}
}

// onWorkbench handles the workbench's messages; ok is false for others.
func (m *model) onWorkbench(msg tea.Msg) (tea.Cmd, bool) {
	switch msg := msg.(type) {
	case attemptTickMsg:
		return m.pollAttempts(), true
	case attemptsMsg:
		m.wb.polling = false
		if msg.err != nil {
			if errors.Is(msg.err, relayclient.ErrNoAttempts) {
				m.wb.noPoll = true
				return nil, true
			}
			return after(m.clock, attemptPoll, attemptTickMsg{}), true
		}
		for _, a := range msg.page.Attempts {
			if a.Kind == relayclient.AttemptResend {
				m.wb.addResend(a) // reported by a client, this one or another
			} else {
				m.events.applyAttempt(a)
			}
			m.wb.since = max(m.wb.since, a.Seq)
		}
		if len(msg.page.Attempts) > 0 {
			m.events.refilter()
		}
		if len(msg.page.Attempts) == 1000 {
			return m.pollAttempts(), true
		}
		return after(m.clock, attemptPoll, attemptTickMsg{}), true
	case resendMsg:
		for _, w := range msg.warnings {
			m.setFlash("resend: "+termtext.Safe(w), true)
		}
		if msg.err != nil {
			m.setFlash("resend: "+termtext.Safe(msg.err.Error()), true)
			return nil, true
		}
		a := msg.attempt
		m.wb.addResend(a)
		m.events.reopen(m.c())
		if len(msg.warnings) == 0 || a.OK() {
			m.setFlash("resent: "+strings.TrimPrefix(relayclient.AttemptLine(a), "  -> "), !a.OK())
		}
		return nil, true
	case triggeredMsg:
		if msg.err != nil {
			m.setFlash("trigger: "+termtext.Safe(msg.err.Error()), true)
			return nil, true
		}
		text := "sandbox sent " + termtext.Safe(msg.res.EventType)
		if msg.res.Moved {
			text += " for payout " + termtext.Safe(msg.res.PayoutID) + " (its state moved)"
		}
		m.setFlash(text, false)
		return nil, true
	}
	return nil, false
}

// addResend keeps a resend for the inspector, once: this dashboard's own
// comes back from the relay's attempt log too.
func (s *workbenchState) addResend(a relayclient.Attempt) {
	list := s.resends[a.EventID]
	for _, b := range list {
		if b.At.Equal(a.At) && b.URL == a.URL {
			return
		}
	}
	list = append(list, a)
	if len(list) > maxResendsShown {
		list = list[len(list)-maxResendsShown:]
	}
	s.resends[a.EventID] = list
}

// noteLate feeds the late-webhook book with new relay events and the
// tracker's payouts, and says when a final webhook came after its payout
// was marked late.
func (m *model) noteLate(evs []relayclient.Event) {
	now := m.now()
	// Only the payouts that are new or learned their details since the
	// last call: walking every tracked payout on each batch made an event
	// cost more the more payouts were followed.
	m.tracker.eachTouched(func(p *trackedPayout) {
		if p.row != nil {
			m.wb.report[p.id] = p.row.Status
		}
		if m.wb.fed[p.id] {
			return
		}
		_, _, _, minor, cur, ok := p.details()
		if !ok && !p.mine {
			return
		}
		m.wb.fed[p.id] = true
		since := p.firstSeen
		src := webhooklate.SourceSent
		if !p.mine {
			src = webhooklate.SourceAuthorised
		}
		m.wb.book.Sent(webhooklate.Payout{ID: p.id, Currency: cur, Amount: minor, Since: since, Source: src})
	})
	for _, ev := range evs {
		// Late as of when the relay took this event, not as of now: a
		// dashboard catching up on a backlog would otherwise take every
		// final webhook that came in time for a late one.
		asOf := ev.ReceivedAt
		if asOf.IsZero() {
			asOf = now
		}
		wasLate := false
		if st, ok := m.wb.book.Get(ev.PayoutID, asOf); ok {
			wasLate = st.Late
		}
		if st, final := m.wb.book.Observe(ev); final && (st.ArrivedLate || wasLate) {
			m.events.lateCame(st.ID) // the banner loses it now
			m.setFlash("payout "+termtext.ShortID(st.ID)+": "+termtext.Safe(st.Final)+" came "+webhooklate.Round(st.LateBy).String()+" late (late mark cleared)", false)
		}
	}
	m.boundLate()
}

// boundLate keeps the late-webhook book to what the tracker keeps: every
// payout still expecting its final webhook, and as many finished ones
// as the tracker keeps (tracker_keep_final). What it remembers of the
// tracker's payouts (fed, report) goes with them. Each costs the same
// per event after 100,000 payouts as after 100.
func (m *model) boundLate() {
	m.wb.book.Prune(m.tracker.keepFinal + m.wb.book.Pending())
	// Swept when twice what the tracker holds (and a margin): at least
	// as many payouts came as a sweep looks at.
	if len(m.wb.fed)+len(m.wb.report) > 2*(m.tracker.payouts.len()+m.tracker.keepFinal) {
		for id := range m.wb.fed {
			if m.tracker.byID[id] == nil {
				delete(m.wb.fed, id) // fed again if it comes back: the book keeps its first time
			}
		}
		for id := range m.wb.report {
			if m.tracker.byID[id] == nil {
				delete(m.wb.report, id)
			}
		}
	}
	if len(m.wb.resends) > maxResendEvents {
		clear(m.wb.resends)
	}
}

// lateCame takes a payout whose final webhook came off the late banner
// (without checking the whole book again).
func (v *eventsView) lateCame(id string) {
	v.wb.late = slices.DeleteFunc(v.wb.late, func(s webhooklate.Status) bool { return strings.EqualFold(s.ID, id) })
}

// ---- the Events view's part ----

// eventsWorkbench is the Events view's workbench state: the failed-only
// filter, the inspector's search and the trigger picker.
type eventsWorkbench struct {
	failedOnly bool
	searching  bool
	search     textinput.Model
	query      string
	matches    []int // content lines holding the query
	match      int
	picking    bool
	pick       int
	base       string // the inspector's content without highlights
	// late is the book's overdue payouts as of lateAt, for the banner.
	late      []webhooklate.Status
	lateAt    time.Time
	lateValid bool // late has been checked once
}

// forwardFailed reports whether the handler did not take the event
// (non-2xx, or no answer).
func forwardFailed(ev *relayclient.Event) bool {
	f := ev.Forward
	if f == nil {
		return false
	}
	if f.Answer != nil {
		return !f.Answer.OK()
	}
	return f.Error != "" || f.StatusCode < 200 || f.StatusCode >= 300
}

// applyAttempt records a forward attempt on its event, if the view still
// holds it (events are in seq order).
func (v *eventsView) applyAttempt(a relayclient.Attempt) {
	n := v.findSeq(a.EventSeq)
	if n < 0 {
		return
	}
	ans := a.Answer
	fr := &relayclient.ForwardResult{URL: a.URL, Attempts: a.N, StatusCode: a.Status, Error: a.Error, At: a.At, Answer: &ans}
	if a.Error == "" && !a.OK() {
		fr.Error = "answered HTTP " + itoa(a.Status)
	}
	v.setForward(n, fr)
}

// reopen redraws an open inspector (after a resend answered).
func (v *eventsView) reopen(c *viewContext) {
	if v.open && v.isHeld(v.openIdx) {
		v.wb.base = v.detail(c, v.full(v.openIdx))
		v.setContent(c)
	}
}

func (v *eventsView) selected() *relayclient.Event {
	switch {
	case v.open && v.isHeld(v.openIdx):
		return v.full(v.openIdx)
	case v.nav.cursor >= 0 && v.nav.cursor < len(v.shown):
		return v.full(v.shown[v.nav.cursor])
	}
	return nil
}

// workbenchKey handles the workbench's keys; ok is false for others.
func (v *eventsView) workbenchKey(c *viewContext, k tea.KeyMsg) (tea.Cmd, bool) {
	switch {
	case v.wb.searching:
		switch k.Type {
		case tea.KeyEnter:
			v.wb.searching = false
			return nil, true
		case tea.KeyEsc:
			v.wb.searching, v.wb.query = false, ""
			v.setContent(c)
			return nil, true
		}
		var cmd tea.Cmd
		v.wb.search, cmd = v.wb.search.Update(k)
		v.wb.query = v.wb.search.Value()
		v.setContent(c)
		return cmd, true
	case v.wb.picking:
		switch {
		case key.Matches(k, c.keys.Up):
			v.wb.pick = max(v.wb.pick-1, 0)
		case key.Matches(k, c.keys.Down):
			v.wb.pick = min(v.wb.pick+1, len(sandboxapi.TriggerEvents)-1)
		case key.Matches(k, c.keys.Enter):
			v.wb.picking = false
			return v.trigger(c, sandboxapi.TriggerEvents[v.wb.pick]), true
		case key.Matches(k, c.keys.Back):
			v.wb.picking = false
		}
		return nil, true
	case key.Matches(k, c.keys.Resend):
		return v.resend(c), true
	case key.Matches(k, c.keys.Trigger) && c.opts.Workbench != nil && c.opts.Workbench.SandboxURL != "":
		v.wb.picking = true
		return nil, true
	case v.open && key.Matches(k, c.keys.CopyHeaders):
		ev := v.selected()
		var b strings.Builder
		for _, name := range slices.Sorted(mapKeys(ev.Headers)) {
			b.WriteString(name + ": " + ev.Headers[name] + "\n")
		}
		return copyWithFallback(c, b.String(), "event headers", "paydash events show "+termtext.Safe(ev.EventID)), true
	case key.Matches(k, c.keys.CopyBody) && v.selected() != nil:
		ev := v.selected()
		return copyWithFallback(c, string(ev.Body), "event body", "paydash events show "+termtext.Safe(ev.EventID)+" --raw > event.json"), true
	case v.open && key.Matches(k, c.keys.NextMatch) && len(v.wb.matches) > 0:
		// The binding's first key goes to the next match, any other to
		// the previous (n and N by default).
		if k.String() != c.keys.NextMatch.Keys()[0] {
			v.wb.match = (v.wb.match + len(v.wb.matches) - 1) % len(v.wb.matches)
		} else {
			v.wb.match = (v.wb.match + 1) % len(v.wb.matches)
		}
		v.vp.SetYOffset(max(v.wb.matches[v.wb.match]-2, 0))
		return nil, true
	case !v.open && key.Matches(k, c.keys.FailedOnly):
		v.wb.failedOnly = !v.wb.failedOnly
		v.refilter()
		v.nav.clamp(len(v.shown), v.pageH)
		return nil, true
	}
	return nil, false
}

// copyWithFallback copies with OSC 52 and, since no terminal says
// whether it passed the sequence on, names the command that gets the
// same text where it did not.
func copyWithFallback(c *viewContext, text, what, fallback string) tea.Cmd {
	copyCmd := c.copyText(text, what)
	return func() tea.Msg {
		msg := copyCmd()
		if f, ok := msg.(flashMsg); ok && !f.err {
			f.text += " · not there? " + fallback
			return f
		}
		return msg
	}
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// startSearch opens the inspector's search line.
func (v *eventsView) startSearch() tea.Cmd {
	v.wb.search = textinput.New()
	v.wb.search.Prompt = "/"
	staticCursor(&v.wb.search)
	v.wb.search.SetValue(v.wb.query)
	v.wb.searching = true
	return v.wb.search.Focus()
}

// setContent puts the inspector's content in its viewport, with every
// line holding the search highlighted (the match itself reversed) and
// the view scrolled to the first.
func (v *eventsView) setContent(c *viewContext) {
	q := strings.ToLower(v.wb.query)
	v.wb.matches = v.wb.matches[:0]
	if q == "" {
		v.vp.SetContent(v.wb.base)
		return
	}
	lines := strings.Split(v.wb.base, "\n")
	for i, l := range lines {
		plain := ansi.Strip(l)
		low := strings.ToLower(plain)
		at := strings.Index(low, q)
		if at < 0 {
			continue
		}
		v.wb.matches = append(v.wb.matches, i)
		var b strings.Builder
		for at >= 0 {
			b.WriteString(plain[:at])
			b.WriteString(c.st.selected.Reverse(true).Render(plain[at : at+len(q)]))
			plain, low = plain[at+len(q):], low[at+len(q):]
			at = strings.Index(low, q)
		}
		b.WriteString(plain)
		lines[i] = b.String()
	}
	v.vp.SetContent(strings.Join(lines, "\n"))
	v.wb.match = 0
	if len(v.wb.matches) > 0 {
		v.vp.SetYOffset(max(v.wb.matches[0]-2, 0))
	}
}

// resend fetches the selected event's stored bytes from the relay and
// posts them to the URL the relay forwarded it to, as `paydash events
// resend` does: the dashboard sends it, never the relay.
func (v *eventsView) resend(c *viewContext) tea.Cmd {
	ev := v.selected()
	wb := c.opts.Workbench
	switch {
	case ev == nil:
		return nil
	case wb == nil || wb.Relay.URL == "":
		c.setFlash("resend needs the relay: set relay_url in the profile", true)
		return nil
	case ev.Forward == nil || ev.Forward.URL == "":
		c.setFlash("this event was not forwarded, so there is no handler to resend to: paydash events resend "+termtext.Safe(ev.EventID)+" --to URL", true)
		return nil
	}
	id, ctx, now := ev.EventID, c.ctx, c.now()
	c.setFlash("resending "+termtext.ShortID(id)+"…", false)
	return func() tea.Msg {
		stored, err := wb.Relay.Event(ctx, id)
		if err != nil {
			return resendMsg{err: err}
		}
		target, err := relayclient.ResendTarget(stored, "", false)
		if err != nil {
			return resendMsg{err: err}
		}
		warnings := relayclient.ResendWarnings(stored, target, now)
		a := relayclient.Resend(ctx, &http.Client{Timeout: 10 * time.Second}, stored, target, nil)
		if wb.ResendLog.Path != "" {
			_ = wb.ResendLog.Append(a) // the answer is on screen either way
		}
		_ = wb.Relay.RecordResend(ctx, id, a.Answer) // kept with the event's forwards, for every reader
		return resendMsg{attempt: a, warnings: warnings}
	}
}

// trigger asks the demo's sandbox for an event: for the selected event's
// payout when it has one (its state moves), otherwise a new one.
func (v *eventsView) trigger(c *viewContext, eventType string) tea.Cmd {
	base, ctx := c.opts.Workbench.SandboxURL, c.ctx
	t := sandboxapi.Trigger{Event: eventType}
	if ev := v.selected(); ev != nil && eventType != "external_payment_received" {
		t.PayoutID = ev.PayoutID
	}
	return func() tea.Msg {
		res, err := sandboxapi.SendTrigger(ctx, base, t)
		return triggeredMsg{res: res, err: err}
	}
}

// lateBanner is the line above the events list naming the payouts whose
// final webhook is overdue, with what the report says meanwhile; "" when
// none is.
func (v *eventsView) lateBanner(c *viewContext, w int) string {
	if c.wb == nil {
		return ""
	}
	// The book is checked at most once a second (a frame comes with
	// nearly every event; Check looks at the payouts in flight), and at
	// once when a late payout's final webhook came.
	now := c.now()
	if !v.wb.lateValid || now.Sub(v.wb.lateAt) >= time.Second || now.Before(v.wb.lateAt) {
		v.wb.late, v.wb.lateAt, v.wb.lateValid = c.wb.book.Check(now), now, true
	}
	late := v.wb.late
	if len(late) == 0 {
		return ""
	}
	s := late[0]
	report := "not in it yet"
	if st := c.wb.report[s.ID]; st != "" {
		report = termtext.Safe(st)
	}
	text := "⚠ webhook LATE " + webhooklate.Round(s.LateBy).String() + ": payout " + termtext.ShortID(s.ID) + " · report: " + report +
		" · expects " + strings.ReplaceAll(strings.Join(s.Expects, "/"), "payout_", "")
	if len(late) > 1 {
		text += " · +" + itoa(len(late)-1) + " more (paydash events missing)"
	}
	return c.st.warn.Render(fit(text, w))
}

// pickerView is the trigger picker, drawn over the list.
func (v *eventsView) pickerView(c *viewContext, w int) string {
	var b strings.Builder
	target := "a new payout id"
	if ev := v.selected(); ev != nil && ev.PayoutID != "" {
		target = "payout " + termtext.ShortID(ev.PayoutID) + " (its state moves)"
	}
	b.WriteString(c.st.title.Render(fit("Trigger a sandbox webhook for "+target, w)) + "\n")
	for i, t := range sandboxapi.TriggerEvents {
		line := gutter(i == v.wb.pick, false) + t
		if i == v.wb.pick {
			b.WriteString(c.st.selected.Render(fit(line, w)) + "\n")
		} else {
			b.WriteString(fit(line, w) + "\n")
		}
	}
	b.WriteString(c.st.muted.Render(fit("enter send · esc cancel", w)))
	return b.String()
}

// forwardSection is the inspector's account of forwarding: the route's
// URL and outcome, the handler's last answer (status, latency, headers,
// the first 2 KiB of its body) and this session's resends.
func (v *eventsView) forwardSection(c *viewContext, ev *relayclient.Event) string {
	var b strings.Builder
	if f := ev.Forward; f != nil {
		b.WriteString("\n" + c.st.bold.Render("Forward") + " " + termtext.Safe(f.URL) + " · " + plural(f.Attempts, "attempt", "attempts") + "\n")
		if f.Answer != nil {
			b.WriteString(answerText(c, *f.Answer))
		} else if f.Error != "" {
			b.WriteString("  " + c.st.bad.Render(termtext.Safe(f.Error)) + "\n")
		}
	}
	if c.wb != nil {
		for _, a := range c.wb.resends[ev.EventID] {
			b.WriteString("\n" + c.st.bold.Render("Resent") + " " + termtext.Safe(a.URL) + " at " + clockTime(a.At, c.now().Location()) + "\n")
			b.WriteString(answerText(c, a.Answer))
		}
		if st, ok := c.wb.book.Get(ev.PayoutID, c.now()); ok && ev.PayoutID != "" {
			switch {
			case st.Late:
				b.WriteString("\n" + c.st.warn.Render("Final webhook LATE "+webhooklate.Round(st.LateBy).String()+": expects "+
					strings.ReplaceAll(webhooklate.ExpectsText(st), "payout_", "")) + "\n")
			case st.ArrivedLate:
				b.WriteString("\n" + c.st.muted.Render("Final webhook came "+webhooklate.Round(st.LateBy).String()+" late") + "\n")
			}
		}
	}
	return b.String()
}

// answerText is a handler's answer for the inspector.
func answerText(c *viewContext, a relayclient.Answer) string {
	var b strings.Builder
	status := c.st.good
	if !a.OK() {
		status = c.st.bad
	}
	if a.Status > 0 {
		b.WriteString("  " + status.Render("HTTP "+itoa(a.Status)) + " in " + relayclient.FormatLatency(a.LatencyMS) + "\n")
	} else {
		b.WriteString("  " + status.Render("no answer") + " after " + relayclient.FormatLatency(a.LatencyMS) + ": " + termtext.Safe(a.Error) + "\n")
	}
	for _, k := range slices.Sorted(mapKeys(a.Headers)) {
		b.WriteString("  " + c.st.jsonKey.Render(termtext.Safe(k)) + ": " + termtext.Safe(strings.Join(a.Headers[k], ", ")) + "\n")
	}
	if body := strings.TrimRight(a.Body, "\n"); body != "" {
		b.WriteString("  " + strings.ReplaceAll(termtext.Lines(body), "\n", "\n  "))
		if a.BodyTruncated {
			b.WriteString(c.st.muted.Render(" …(first 2 KiB)"))
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// workbenchHelp is the workbench's row in the Events view's full help.
func (v *eventsView) workbenchHelp(c *viewContext) []key.Binding {
	if v.open {
		if v.wb.query == "" {
			// n/N move between matches of a search: none yet.
			return []key.Binding{c.keys.Search, c.keys.CopyHeaders, c.keys.Resend}
		}
		return []key.Binding{c.keys.Search, c.keys.NextMatch, c.keys.CopyHeaders, c.keys.Resend}
	}
	keys := []key.Binding{c.keys.FailedOnly, c.keys.Resend}
	if c.opts.Workbench != nil && c.opts.Workbench.SandboxURL != "" {
		keys = append(keys, c.keys.Trigger)
	}
	return keys
}
