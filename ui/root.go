package ui

import (
	"context"
	"io"
	"os"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/google/uuid"

	"github.com/paydash/paydash/webhookrelay"
)

// Minimum usable window; below it the dashboard says so instead of
// drawing a broken layout.
const (
	minWidth  = 60
	minHeight = 16
)

type tab int

const (
	tabBalances tab = iota
	tabTransactions
	tabPayouts
	tabEvents
	tabPayout
	tabPayment
	tabMandate
	numTabs
)

var tabNames = [numTabs]string{"Balances", "Transactions", "Payouts", "Events", "New payout", "New payment", "New mandate"}
var tabShort = [numTabs]string{"Balances", "Report", "Payouts", "Events", "Payout+", "Payment+", "Mandate+"}

// commands maps ':' commands to tabs.
var commands = map[string]tab{
	"balances": tabBalances, "balance": tabBalances, "bal": tabBalances,
	"transactions": tabTransactions, "transaction": tabTransactions, "tx": tabTransactions, "report": tabTransactions,
	"payouts": tabPayouts, "tracker": tabPayouts,
	"events": tabEvents, "ev": tabEvents,
	"payout": tabPayout, "payment": tabPayment, "mandate": tabMandate,
}

// view is one tab's model. The root routes keys to the active view and
// gives it the area below the header to draw in.
type view interface {
	update(m *model, msg tea.KeyMsg) tea.Cmd
	view(m *model, w, h int) string
	// capturing reports that the view is taking text input, so the
	// frame's single-key shortcuts must not fire.
	capturing() bool
	// startFilter handles '/'; it returns false when the view has none.
	startFilter() (tea.Cmd, bool)
	keys() helpMap
}

type model struct {
	ctx   context.Context
	opts  Options
	now   func() time.Time
	st    styles
	keys  globalKeys
	help  help.Model
	after func(d time.Duration, msg tea.Msg) tea.Cmd
	clip  io.Writer
	newID func() string // transaction ids and idempotency keys

	width, height int
	tab           tab
	showHelp      bool
	quitAsk       bool
	cmdActive     bool
	cmdline       textinput.Model

	flash      string
	flashErr   bool
	flashUntil time.Time

	relay      webhookrelay.ConnState
	relayAt    time.Time
	relayKnown bool

	bal     balancesView
	tx      txView
	tracker trackerView
	events  eventsView
	payout  *formView
	payment *formView
	mandate *formView
}

func newModel(ctx context.Context, opts Options) *model {
	if opts.BalanceRefresh <= 0 {
		opts.BalanceRefresh = 10 * time.Second
	}
	if opts.ReportRefresh <= 0 {
		opts.ReportRefresh = 60 * time.Second
	}
	if opts.ExportDir == "" {
		opts.ExportDir = "."
	}
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	ci := textinput.New()
	ci.Prompt = ":"
	ci.Placeholder = "balances, transactions, payouts, events, payout, payment, mandate, quit"
	staticCursor(&ci)
	m := &model{
		ctx:     ctx,
		opts:    opts,
		now:     now,
		st:      newStyles(),
		keys:    newGlobalKeys(),
		help:    help.New(),
		clip:    os.Stdout,
		cmdline: ci,
		newID:   uuid.NewString,
		after: func(d time.Duration, msg tea.Msg) tea.Cmd {
			return tea.Tick(d, func(time.Time) tea.Msg { return msg })
		},
	}
	m.bal = newBalancesView()
	m.tx = newTxView()
	m.tracker = newTrackerView()
	m.events = newEventsView()
	m.payout = newFormView(tabPayout, &payoutForm{})
	m.payment = newFormView(tabPayment, &paymentForm{})
	m.mandate = newFormView(tabMandate, &mandateForm{})
	return m
}

type secondMsg struct{}
type balanceTickMsg struct{}
type reportTickMsg struct{}

func (m *model) Init() tea.Cmd {
	cmds := []tea.Cmd{
		m.after(time.Second, secondMsg{}),
		m.after(m.opts.BalanceRefresh, balanceTickMsg{}),
		m.after(m.opts.ReportRefresh, reportTickMsg{}),
		m.bal.fetch(m),
		m.tx.load(m),
		m.listenEvents(),
		m.listenStates(),
	}
	return tea.Batch(cmds...)
}

func (m *model) views() [numTabs]view {
	return [numTabs]view{&m.bal, &m.tx, &m.tracker, &m.events, m.payout, m.payment, m.mandate}
}

func (m *model) current() view { return m.views()[m.tab] }

// setFlash shows a one-line message in the status bar for a while.
func (m *model) setFlash(msg string, isErr bool) {
	m.flash, m.flashErr, m.flashUntil = msg, isErr, m.now().Add(8*time.Second)
}

func (m *model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.help.Width = msg.Width
		return m, m.resizeForms()
	case secondMsg:
		// The header clock, the relay retry countdown, the token countdowns
		// and the tracker's change highlight all read m.now() in View; this
		// tick just redraws them.
		if !m.flashUntil.IsZero() && m.now().After(m.flashUntil) {
			m.flash = ""
		}
		return m, m.after(time.Second, secondMsg{})
	case balanceTickMsg:
		return m, tea.Batch(m.bal.fetch(m), m.after(m.opts.BalanceRefresh, balanceTickMsg{}))
	case reportTickMsg:
		next := m.after(m.opts.ReportRefresh, reportTickMsg{})
		// Only what is new since the last load; refresh starts nothing
		// while a load or refresh is running.
		return m, tea.Batch(m.tx.refresh(m), next)
	case balancesMsg:
		return m, m.bal.apply(m, msg)
	case relayEventsMsg:
		return m, m.onEvents(msg)
	case relayStateMsg:
		return m, m.onState(msg)
	case txLoadedMsg:
		cmd := m.tx.loaded(m, msg)
		return m, tea.Batch(cmd, m.tracker.lookup(m.tx.store))
	case payoutRowsMsg:
		m.tracker.applyRows(m, msg)
		return m, nil
	case txResultMsg:
		m.tx.result(m, msg)
		return m, nil
	case exportedMsg:
		if msg.err != nil {
			m.setFlash("export failed: "+msg.err.Error(), true)
		} else {
			m.setFlash("exported "+thousands(msg.n)+" rows to "+msg.path, false)
		}
		return m, nil
	case flashMsg:
		m.setFlash(msg.text, msg.err)
		return m, nil
	case formMsg:
		return m, m.routeFormMsg(msg)
	case sentMsg:
		if f := m.formFor(msg.tab); f != nil {
			return m, f.sent(m, msg)
		}
		return m, nil
	case tea.KeyMsg:
		return m, m.handleKey(msg)
	}
	return m, nil
}

func (m *model) handleKey(k tea.KeyMsg) tea.Cmd {
	// Keys typed faster than the program reads them (or sent by a script)
	// can arrive as one message of several runes; each is its own key
	// here, so "/abc" opens the filter and types abc into it.
	if k.Type == tea.KeyRunes && len(k.Runes) > 1 && !k.Paste {
		cmds := make([]tea.Cmd, 0, len(k.Runes))
		for _, r := range k.Runes {
			cmds = append(cmds, m.handleKey(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}, Alt: k.Alt}))
		}
		return tea.Batch(cmds...)
	}
	s := k.String()
	if m.quitAsk {
		switch s {
		case "y", "Y", "ctrl+c":
			return tea.Quit
		case "n", "N", "esc":
			m.quitAsk = false
		}
		return nil
	}
	if s == "ctrl+c" {
		return m.requestQuit()
	}
	if strings.HasPrefix(s, "alt+") && len(s) == 5 && s[4] >= '1' && s[4] <= '7' {
		return m.switchTab(tab(s[4] - '1'))
	}
	if m.cmdActive {
		return m.updateCmdline(k)
	}
	if m.showHelp {
		switch s {
		case "?", "esc", "q", "enter":
			m.showHelp = false
		}
		return nil
	}
	v := m.current()
	// A form that has just opened sits on a choice (source account, type)
	// where digits mean nothing: 1-7 still switch views there, so
	// pressing 5 and then 1 does not leave the operator stuck.
	if f := m.formFor(m.tab); f != nil && f.digitsFree() && key.Matches(k, m.keys.Tabs) {
		return m.switchTab(tab(s[0] - '1'))
	}
	if v.capturing() {
		return v.update(m, k)
	}
	switch {
	case key.Matches(k, m.keys.Quit):
		return m.requestQuit()
	case key.Matches(k, m.keys.Help):
		m.showHelp = true
		return nil
	case key.Matches(k, m.keys.Command):
		m.cmdActive = true
		m.cmdline.SetValue("")
		return m.cmdline.Focus()
	case key.Matches(k, m.keys.Tabs):
		return m.switchTab(tab(s[0] - '1'))
	case key.Matches(k, m.keys.Refresh):
		return m.refresh()
	case key.Matches(k, m.keys.Filter):
		if cmd, ok := v.startFilter(); ok {
			return cmd
		}
		m.setFlash("this view has nothing to filter", false)
		return nil
	}
	return v.update(m, k)
}

func (m *model) refresh() tea.Cmd {
	cmds := []tea.Cmd{m.bal.fetch(m)}
	// On the tracker, a refresh also reloads the report when some payouts
	// are known only by id: the new report has their amount and
	// beneficiary (one report call, not one per payout).
	if m.tab == tabTransactions || (m.tab == tabPayouts && m.tracker.unknown() > 0) {
		cmds = append(cmds, m.tx.refresh(m))
	}
	m.setFlash("refreshing…", false)
	return tea.Batch(cmds...)
}

func (m *model) switchTab(t tab) tea.Cmd {
	if t < 0 || t >= numTabs {
		return nil
	}
	m.tab = t
	m.showHelp = false
	switch t {
	case tabPayout:
		return m.payout.focus(m)
	case tabPayment:
		return m.payment.focus(m)
	case tabMandate:
		return m.mandate.focus(m)
	}
	return nil
}

func (m *model) updateCmdline(k tea.KeyMsg) tea.Cmd {
	switch k.String() {
	case "esc":
		m.cmdActive = false
		m.cmdline.Blur()
		return nil
	case "enter":
		m.cmdActive = false
		m.cmdline.Blur()
		c := strings.ToLower(strings.TrimSpace(strings.TrimPrefix(m.cmdline.Value(), ":")))
		switch c {
		case "":
			return nil
		case "q", "quit", "exit":
			return m.requestQuit()
		case "help":
			m.showHelp = true
			return nil
		}
		if t, ok := commands[c]; ok {
			return m.switchTab(t)
		}
		m.setFlash("unknown command :"+c+" — try :balances :transactions :payouts :events :payout :payment :mandate :quit", true)
		return nil
	}
	var cmd tea.Cmd
	m.cmdline, cmd = m.cmdline.Update(k)
	return cmd
}

// requestQuit quits, unless a form holds input that was never sent; then
// it asks first.
func (m *model) requestQuit() tea.Cmd {
	if len(m.unsentForms()) == 0 {
		return tea.Quit
	}
	m.quitAsk = true
	return nil
}

func (m *model) unsentForms() []string {
	var names []string
	for _, f := range []*formView{m.payout, m.payment, m.mandate} {
		if f.unsent() {
			names = append(names, tabNames[f.tab])
		}
	}
	return names
}

func (m *model) formFor(t tab) *formView {
	switch t {
	case tabPayout:
		return m.payout
	case tabPayment:
		return m.payment
	case tabMandate:
		return m.mandate
	}
	return nil
}

func (m *model) routeFormMsg(msg formMsg) tea.Cmd {
	if f := m.formFor(msg.tab); f != nil {
		return f.route(m, msg.msg)
	}
	return nil
}

func (m *model) resizeForms() tea.Cmd {
	var cmds []tea.Cmd
	for _, f := range []*formView{m.payout, m.payment, m.mandate} {
		cmds = append(cmds, f.resize(m))
	}
	return tea.Batch(cmds...)
}

// ---- relay ----

type relayEventsMsg struct {
	events []webhookrelay.Event
	closed bool
}

type relayStateMsg struct {
	state  webhookrelay.ConnState
	closed bool
}

// maxEventBatch bounds one batch so a huge backlog still shows progress.
const maxEventBatch = 512

// drainEvents blocks for one event, then takes whatever else is already
// queued (up to max) without waiting, so a burst costs one redraw.
func drainEvents(ch <-chan webhookrelay.Event, max int) relayEventsMsg {
	ev, ok := <-ch
	if !ok {
		return relayEventsMsg{closed: true}
	}
	batch := []webhookrelay.Event{ev}
	for len(batch) < max {
		select {
		case ev, ok := <-ch:
			if !ok {
				return relayEventsMsg{events: batch, closed: true}
			}
			batch = append(batch, ev)
		default:
			return relayEventsMsg{events: batch}
		}
	}
	return relayEventsMsg{events: batch}
}

func (m *model) listenEvents() tea.Cmd {
	ch := m.opts.Events
	if ch == nil {
		return nil
	}
	return func() tea.Msg { return drainEvents(ch, maxEventBatch) }
}

func (m *model) listenStates() tea.Cmd {
	ch := m.opts.States
	if ch == nil {
		return nil
	}
	return func() tea.Msg {
		st, ok := <-ch
		if !ok {
			return relayStateMsg{closed: true}
		}
		// Only the latest state matters for the header.
		for {
			select {
			case next, ok := <-ch:
				if !ok {
					return relayStateMsg{state: st}
				}
				st = next
			default:
				return relayStateMsg{state: st}
			}
		}
	}
}

func (m *model) onEvents(msg relayEventsMsg) tea.Cmd {
	var cmds []tea.Cmd
	if len(msg.events) > 0 {
		m.events.add(msg.events)
		if m.tracker.apply(m, msg.events) {
			// Any payout movement changes balances: refresh now rather than
			// waiting for the next poll.
			cmds = append(cmds, m.bal.fetch(m))
		}
		// Payouts from other operators arrive by id only: their amount and
		// beneficiary come from the report already loaded, if it has them.
		cmds = append(cmds, m.tracker.lookup(m.tx.store))
	}
	if !msg.closed {
		cmds = append(cmds, m.listenEvents())
	} else if !m.relayKnown || m.relay.Status != webhookrelay.StateOffline {
		m.relay = webhookrelay.ConnState{Status: webhookrelay.StateOffline}
		m.relayKnown, m.relayAt = true, m.now()
	}
	return tea.Batch(cmds...)
}

func (m *model) onState(msg relayStateMsg) tea.Cmd {
	if msg.closed {
		return nil
	}
	m.relay, m.relayAt, m.relayKnown = msg.state, m.now(), true
	return m.listenStates()
}

// relayText is the header's relay state: live, reconnecting in Ns, offline.
func (m *model) relayText() (string, lipgloss.Style) {
	if m.opts.Events == nil && m.opts.States == nil {
		return "relay: none", m.st.muted
	}
	if !m.relayKnown {
		return "relay: connecting", m.st.warn
	}
	switch m.relay.Status {
	case webhookrelay.StateLive:
		return "relay: live", m.st.good
	case webhookrelay.StateReconnecting:
		left := m.relay.RetryIn - m.now().Sub(m.relayAt)
		secs := int((left + time.Second - 1) / time.Second)
		if secs < 0 {
			secs = 0
		}
		return "relay: reconnecting in " + itoa(secs) + "s", m.st.warn
	case webhookrelay.StateOffline:
		return "relay: offline", m.st.bad
	}
	return "relay: " + m.relay.Status, m.st.warn
}

// ---- frame ----

func (m *model) View() string {
	if m.width == 0 || m.height == 0 {
		return "starting paydash…"
	}
	if m.width < minWidth || m.height < minHeight {
		lines := []string{
			"Window too small (" + itoa(m.width) + "x" + itoa(m.height) + ").",
			"paydash needs " + itoa(minWidth) + "x" + itoa(minHeight) + ".",
			"Enlarge it, or press q to quit.",
		}
		for i, l := range lines {
			lines[i] = fit(l, m.width)
		}
		return lipgloss.Place(m.width, m.height, lipgloss.Center, lipgloss.Center, strings.Join(lines, "\n"))
	}
	var b strings.Builder
	used := 0
	if m.opts.Production {
		b.WriteString(m.st.prod.Render(fit("  !! PRODUCTION !!  profile "+m.opts.Profile+" moves real money  !! PRODUCTION !!", m.width)))
		b.WriteByte('\n')
		used++
	}
	b.WriteString(m.headerLine())
	b.WriteByte('\n')
	b.WriteString(m.tabsLine())
	b.WriteByte('\n')
	used += 2
	bodyH := m.height - used - 2
	var body string
	switch {
	case m.quitAsk:
		body = m.quitView(bodyH)
	case m.showHelp:
		body = m.helpView()
	default:
		body = m.current().view(m, m.width, bodyH)
	}
	// Views size themselves to the width; clipping here is the guarantee
	// that no line ever wraps and scrolls the frame.
	b.WriteString(clipLines(padLines(body, bodyH), m.width))
	b.WriteByte('\n')
	b.WriteString(m.statusLine())
	b.WriteByte('\n')
	b.WriteString(m.helpLine())
	return b.String()
}

func (m *model) headerLine() string {
	loc := m.now().Location()
	left := m.st.title.Render("paydash") + " · profile " + m.st.bold.Render(m.opts.Profile)
	if m.opts.Production {
		left += " " + m.st.prod.Render(" PRODUCTION ")
	}
	rt, rs := m.relayText()
	parts := []string{rs.Render(rt), "refreshed " + clockTime(m.bal.lastAt, loc)}
	if low := m.bal.lowAlerts(m); low != "" {
		parts = append(parts, m.st.alert.Render("⚠ low balance: "+low))
	}
	right := strings.Join(parts, " · ")
	gap := m.width - lipgloss.Width(left) - lipgloss.Width(right)
	if gap < 1 {
		// Narrow terminal: the alert and relay state matter more than the
		// product name.
		return fit(right+" · "+left, m.width)
	}
	return left + strings.Repeat(" ", gap) + right
}

func (m *model) tabsLine() string {
	render := func(names [numTabs]string) string {
		parts := make([]string, 0, numTabs)
		for i, n := range names {
			label := itoa(i+1) + " " + n
			if tab(i) == m.tab {
				parts = append(parts, m.st.tabActive.Render("["+label+"]"))
			} else {
				parts = append(parts, m.st.tabIdle.Render(" "+label+" "))
			}
		}
		return strings.Join(parts, "")
	}
	line := render(tabNames)
	if lipgloss.Width(line) > m.width {
		line = render(tabShort)
	}
	return fit(line, m.width)
}

func (m *model) statusLine() string {
	if m.cmdActive {
		return m.cmdline.View()
	}
	if m.flash != "" {
		st := m.st.good
		if m.flashErr {
			st = m.st.bad
		}
		return st.Render(fit(m.flash, m.width))
	}
	return ""
}

func (m *model) helpLine() string {
	h := m.current().keys()
	short := append([]key.Binding{}, h.short...)
	if m.current().capturing() {
		short = append(short, m.keys.AltTabs, kb("ctrl+c", "ctrl+c", "quit"))
	} else {
		short = append(short, m.keys.Tabs, m.keys.Command, m.keys.Help, m.keys.Quit)
	}
	// bubbles/help can overrun a narrow line; the frame must not wrap.
	return fit(m.help.ShortHelpView(short), m.width)
}

func (m *model) helpView() string {
	g := m.keys
	frame := [][]key.Binding{
		{g.Tabs, g.AltTabs, g.Command, g.Filter},
		{g.Help, g.Refresh, g.Quit, kb("ctrl+c", "ctrl+c", "quit (asks if unsent)")},
	}
	var b strings.Builder
	b.WriteString(m.st.title.Render("Help — "+tabNames[m.tab]) + "\n\n")
	b.WriteString(m.st.bold.Render("This view") + "\n")
	full := m.current().keys().full
	hm := m.help
	hm.ShowAll = true
	b.WriteString(hm.FullHelpView(full) + "\n\n")
	b.WriteString(m.st.bold.Render("Everywhere") + "\n")
	b.WriteString(hm.FullHelpView(frame) + "\n\n")
	b.WriteString(m.st.muted.Render("Commands: :balances :transactions :payouts :events :payout :payment :mandate :quit — press ? or esc to close"))
	lines := strings.Split(b.String(), "\n")
	for i, l := range lines {
		lines[i] = fit(l, m.width)
	}
	return strings.Join(lines, "\n")
}

func (m *model) quitView(h int) string {
	msg := m.st.warn.Render("Unsent input in: "+strings.Join(m.unsentForms(), ", ")) +
		"\n\nQuit anyway and lose it?  y = quit   n / esc = stay"
	return lipgloss.Place(m.width, h, lipgloss.Center, lipgloss.Center, m.st.box.Render(msg))
}

func itoa(n int) string { return thousands(n) }
