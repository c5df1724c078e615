package ui

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/google/uuid"

	"github.com/paydash/paydash/internal/platform/clock"
	"github.com/paydash/paydash/internal/platform/termtext"
	"github.com/paydash/paydash/webhookrelay/relayclient"
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
	tabApprovals // team mode only
	numTabs
)

// tabNames are the views' titles (help, quit question).
var tabNames = [numTabs]string{"Balances", "Transactions", "Payouts", "Events", "New payout", "New payment", "New mandate", "Approvals"}

// tabShort are the tab bar's labels: one set at every width (they fit 80
// columns), so a view is always called the same.
var tabShort = [numTabs]string{"Balances", "Report", "Payouts", "Events", "Payout+", "Payment+", "Mandate+", "Approvals"}

// tabTiny are the tab bar's labels when tabShort does not fit (eight
// tabs at 80 columns): cut names end in "…", as everything cut does.
var tabTiny = [numTabs]string{"Bal…", "Rep…", "Payouts", "Events", "Payout+", "Paym…", "Mand…", "Appr…"}

// commands maps ':' commands to tabs.
var commands = map[string]tab{
	"balances": tabBalances, "balance": tabBalances, "bal": tabBalances,
	"transactions": tabTransactions, "transaction": tabTransactions, "tx": tabTransactions, "report": tabTransactions,
	"payouts": tabPayouts, "tracker": tabPayouts,
	"events": tabEvents, "ev": tabEvents,
	"payout": tabPayout, "payment": tabPayment, "mandate": tabMandate,
	"approvals": tabApprovals, "approve": tabApprovals,
}

// view is one tab's model. The root routes keys to the active view and
// gives it the area below the header to draw in.
type view interface {
	update(c *viewContext, msg tea.KeyMsg) tea.Cmd
	view(c *viewContext, w, h int) string
	// capturing reports that the view is taking text input, so the
	// frame's single-key shortcuts must not fire.
	capturing() bool
	// startFilter handles '/'; it returns false when the view has none.
	startFilter() (tea.Cmd, bool)
	keys(c *viewContext) helpMap
}

// model is the root: it owns the frame and the views, and routes
// messages between them. The views see only the shared viewContext.
type model struct {
	*viewContext
	help help.Model

	tab      tab
	prevTab  tab
	showHelp bool
	helpTop  int // the help overlay's first line of keys (it scrolls)
	// helpScrolls is set when the overlay's keys are longer than the
	// screen: only then does the bar offer the keys that scroll them.
	helpScrolls bool
	// menu is the actions menu of the selected row, while it is up.
	menu *actionsMenu
	// switchAsk is a profile switch waiting for y; switchTo the profile
	// the program ended to open.
	switchAsk *profileSwitch
	switchTo  string
	quitAsk   bool
	cmdActive bool
	cmdline   textinput.Model
	completer completer
	// refreshing holds the refresh kinds r asked for that have not
	// answered yet.
	refreshing int

	relay      relayclient.ConnState
	relayAt    time.Time
	relayKnown bool

	bal     balancesView
	tx      txView
	tracker trackerView
	events  eventsView
	payout  *formView
	payment *formView
	mandate *formView
	// approvals is the team hub's Approvals view (team mode only).
	approvals approvalsView

	memo frameMemo // the frame's lines kept between draws (frame_memo.go)

	// picker is the saved views list (:view), when up (views_saved.go).
	picker *viewPicker
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
	clk := opts.Clock
	if clk == nil {
		clk = clock.Real()
	}
	loc := opts.Location
	if loc == nil {
		loc = time.Local
	}
	ci := textinput.New()
	ci.Prompt = ":"
	ci.Placeholder = "balances, transactions, payouts, events, payout, payment, mandate, quit"
	staticCursor(&ci)
	m := &model{
		viewContext: &viewContext{
			ctx:     ctx,
			opts:    opts,
			clock:   clk,
			loc:     loc,
			backend: opts.Backend,
			st:      themedStyles(opts.Custom.Theme),
			keys:    customKeyMap(opts.Custom),
			clip:    os.Stdout,
			newID:   uuid.NewString,
			wb:      newWorkbenchState(opts),
		},
		help:    help.New(),
		cmdline: ci,
	}
	m.bal = newBalancesView()
	m.tx = newTxView()
	m.tracker = newTrackerView(opts.TrackerKeepFinal)
	m.events = newEventsView()
	m.payout = newFormView(tabPayout, &payoutForm{})
	m.payment = newFormView(tabPayment, &paymentForm{})
	m.mandate = newFormView(tabMandate, &mandateForm{})
	m.approvals = newApprovalsView()
	if opts.Approvals != nil {
		m.keys.withApprovalsTab()
	}
	if opts.ReadOnly != "" {
		m.keys.withoutForms(opts.Approvals != nil)
		m.cmdline.Placeholder = "balances, transactions, payouts, events, quit"
	}
	m.startAt()
	return m
}

type secondMsg struct{}
type balanceTickMsg struct{}
type reportTickMsg struct{}

func (m *model) Init() tea.Cmd {
	cmds := []tea.Cmd{
		after(m.clock, time.Second, secondMsg{}),
		after(m.clock, m.opts.BalanceRefresh, balanceTickMsg{}),
		after(m.clock, m.opts.ReportRefresh, reportTickMsg{}),
		m.bal.fetch(m.viewContext),
		m.tx.load(m.viewContext),
		m.listenEvents(),
		m.listenStates(),
		after(m.clock, pollEvery, trackerPollMsg{}),
		m.approvals.start(m.viewContext),
		m.pollAttempts(),
	}
	return tea.Batch(cmds...)
}

func (m *model) views() [numTabs]view {
	return [numTabs]view{&m.bal, &m.tx, &m.tracker, &m.events, m.payout, m.payment, m.mandate, &m.approvals}
}

func (m *model) current() view { return m.views()[m.tab] }

// c is the context the views are given.
func (m *model) c() *viewContext { return m.viewContext }

func (m *model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	c := m.c()
	if cmd, ok := m.onWorkbench(msg); ok {
		return m, cmd
	}
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.help.Width = msg.Width
		return m, m.resizeForms()
	case secondMsg:
		// The header clock, the relay retry countdown, the token countdowns
		// and the tracker's change highlight all read the clock in View;
		// this tick just redraws them.
		if !m.flash.until.IsZero() && m.now().After(m.flash.until) {
			m.flash = flash{owner: m.tab}
		}
		return m, after(m.clock, time.Second, secondMsg{})
	case balanceNudgeMsg:
		return m, m.bal.nudgeDue(c)
	case balanceTickMsg:
		return m, tea.Batch(m.bal.fetch(c), after(m.clock, m.opts.BalanceRefresh, balanceTickMsg{}))
	case reportTickMsg:
		next := after(m.clock, m.opts.ReportRefresh, reportTickMsg{})
		// Only what is new since the last load; refresh starts nothing
		// while a load or refresh is running.
		return m, tea.Batch(m.tx.refresh(c), next)
	case balancesMsg:
		cmd := m.bal.apply(c, msg)
		if msg.err == nil {
			m.accounts = m.bal.accounts()
			m.payout.accountsChanged(c)
			m.refreshed(refreshBalances)
		}
		return m, cmd
	case relayEventsMsg:
		return m, m.onEvents(msg)
	case relayStateMsg:
		return m, m.onState(msg)
	case trackerPollMsg:
		return m, m.notePollTick()
	case polledMsg:
		m.tracker.applyPolled(c, msg)
		m.followPayout()
		return m, m.tracker.recordOutcomes(c)
	case txLoadedMsg:
		cmd := tea.Batch(m.tx.loaded(c, msg), m.bal.historyFor(msg.store, msg.base, msg.stats.Changed, m.now()))
		m.refreshed(refreshReport)
		return m, tea.Batch(cmd, m.tracker.lookup(c, m.tx.report()))
	case txSavedMsg:
		return m, m.tx.savedCache(c, msg)
	case txVerifiedMsg:
		return m, m.tx.verified(c, msg)
	case balanceHistoryMsg:
		m.bal.setHistory(msg)
		return m, nil
	case payoutRowsMsg:
		m.tracker.applyRows(c, msg)
		m.noteLate(nil)
		m.followPayout()
		return m, m.tracker.lookup(c, m.tx.report()) // the payouts that came meanwhile
	case txResultMsg:
		return m, m.tx.result(c, msg)
	case txProgressMsg:
		return m, m.tx.progressed(msg)
	case viewSavedMsg:
		m.viewSaved(msg)
		return m, nil
	case spareMsg:
		m.tx.spare(msg)
		return m, nil
	case exportedMsg:
		m.tx.exported(c, msg)
		return m, nil
	case flashMsg:
		m.setFlash(msg.text, msg.err)
		return m, nil
	case formMsg:
		return m, m.routeFormMsg(msg)
	case sentMsg:
		if f := m.formFor(msg.tab); f != nil {
			return m, f.sent(c, msg)
		}
		return m, nil
	case payoutAcceptedMsg:
		// The payout form's send was accepted: the tracker follows it.
		m.tracker.addSent(c, msg.req)
		m.tracker.throughHub(msg.req.TransactionID, msg.approvalID)
		// The operator's own payout is the one to see when they open the
		// tracker (the form says to): selected while they are elsewhere,
		// so nothing moves under their eyes.
		if m.tab != tabPayouts {
			m.tracker.selectID(msg.req.TransactionID)
		}
		m.followPayout()
		if m.relayLive = m.relayIsLive(); !m.relayLive {
			return m, m.tracker.poll(c) // no webhooks coming: ask the report now
		}
		return m, nil
	case correctPayoutMsg:
		// A payout picked in the tracker to correct: the form opens
		// filled in with it.
		if !m.sends() {
			m.setFlash(m.readOnlyNote(), true)
			return m, nil
		}
		cmd := m.switchTab(tabPayout)
		return m, tea.Batch(cmd, m.payout.correctFrom(c, msg.req))
	case trackPayoutMsg:
		// A payout picked in the report: the tracker follows it.
		m.tracker.follow(c, msg.tx)
		return m, m.switchTab(tabPayouts)
	case payoutRequestedMsg:
		// The hub holds the form's payout for approval: the tracker
		// shows it awaiting, and follows it through the hub.
		m.tracker.addRequested(c, msg.req, msg.res)
		if m.tab != tabPayouts {
			m.tracker.selectID(msg.req.TransactionID)
		}
		m.followPayout()
		return m, nil
	case hubRequestMsg:
		for _, r := range msg.rs {
			m.tracker.applyHub(c, r)
		}
		m.followPayout()
		return m, nil
	case approvalsMsg:
		cmd := m.approvals.route(c, msg)
		if l, ok := msg.(apprListMsg); ok && l.err == nil {
			// The hub's list also moves the payouts the form asked it
			// for (approved, sent) in the tracker.
			moved, get := m.tracker.followHub(c, l.rs)
			if moved {
				m.followPayout()
			}
			cmd = tea.Batch(cmd, get)
		}
		return m, cmd
	case profileCheckedMsg:
		return m, m.profileChecked(msg)
	case leaveFormMsg:
		return m, m.switchTab(m.prevTab)
	case tea.KeyMsg:
		k, ok := m.safeKey(msg)
		if !ok {
			return m, nil
		}
		return m, m.handleKey(k)
	}
	return m, nil
}

// safeKey drops the control, format and bidi characters of typed or
// pasted text before any field, filter or command line gets them: every
// input echoes what it is given, and api refuses them in every field
// anyway. The status line names each by its code. ok is false when
// nothing is left to deliver.
func (m *model) safeKey(k tea.KeyMsg) (tea.KeyMsg, bool) {
	if k.Type != tea.KeyRunes {
		return k, true
	}
	var refused []string
	kept := k.Runes[:0:0]
	for _, r := range k.Runes {
		if termtext.Unsafe(r) {
			refused = append(refused, fmt.Sprintf("U+%04X", r))
			continue
		}
		kept = append(kept, r)
	}
	if len(refused) == 0 {
		return k, true
	}
	m.c().setFlash(strings.Join(refused, " ")+" not typed: control, format and bidi characters are refused in every field", true)
	k.Runes = kept
	return k, len(kept) > 0
}

// followPayout hands the payout form the tracker's view of the payout it
// sent, so its result follows the webhooks without reading the tracker.
func (m *model) followPayout() {
	if id := m.payout.doneID(); id != "" {
		m.payout.deliver(m.c(), payoutProgressMsg{p: m.tracker.snapshot(id)})
	}
}

// refresh kinds: r asks for some; the "refreshing…" message goes once
// all have answered.
const (
	refreshBalances = 1 << iota
	refreshReport
)

// refreshed notes that one kind of refresh answered.
func (m *model) refreshed(kind int) {
	if m.refreshing&kind == 0 {
		return
	}
	m.refreshing &^= kind
	if m.refreshing == 0 && m.flash.text == refreshingText {
		m.flash = flash{owner: m.tab}
	}
}

const refreshingText = "refreshing…"

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
	keys := m.keys
	if m.switchAsk != nil {
		return m.updateSwitchAsk(k)
	}
	if m.quitAsk {
		switch {
		case key.Matches(k, keys.QuitYes):
			return tea.Quit
		case key.Matches(k, keys.QuitNo):
			m.quitAsk = false
		}
		return nil
	}
	if key.Matches(k, keys.ForceQuit) {
		return m.requestQuit()
	}
	if key.Matches(k, keys.AltTabs) {
		return m.switchTab(tabKey(k))
	}
	if m.cmdActive {
		return m.updateCmdline(k)
	}
	if m.menu != nil {
		return m.updateActions(k)
	}
	if m.picker != nil {
		return m.updatePicker(k)
	}
	if m.showHelp {
		if !m.scrollHelp(k) && key.Matches(k, keys.CloseHelp) {
			m.showHelp = false
		}
		return nil
	}
	v := m.current()
	// In a form every key is the form's, even on a choice field: a UUID
	// typed there must never switch views or act on another view. ? on a
	// choice or the confirmation (which take no text) opens help.
	if f := m.formFor(m.tab); f != nil && f.capturing() {
		if key.Matches(k, keys.Help) && f.choiceFocused() {
			m.openHelp()
			return nil
		}
		return f.update(m.c(), k)
	}
	if v.capturing() {
		return v.update(m.c(), k)
	}
	switch {
	case key.Matches(k, keys.Quit):
		return m.requestQuit()
	case key.Matches(k, keys.Help):
		m.openHelp()
		return nil
	case key.Matches(k, keys.Actions):
		return m.openActions()
	case key.Matches(k, keys.ViewNext):
		return m.switchTab(m.nextTab(1))
	case key.Matches(k, keys.ViewPrev):
		return m.switchTab(m.nextTab(-1))
	case key.Matches(k, keys.Views):
		cmd, _ := m.viewCommand("view")
		return cmd
	case key.Matches(k, keys.Command):
		m.cmdActive = true
		m.cmdline.SetValue("")
		return m.cmdline.Focus()
	case key.Matches(k, keys.Tabs):
		return m.switchTab(tabKey(k))
	case key.Matches(k, keys.Refresh):
		return m.refresh()
	case key.Matches(k, keys.Filter):
		if cmd, ok := v.startFilter(); ok {
			return cmd
		}
		m.setFlash("this view has nothing to filter", false)
		return nil
	}
	return v.update(m.c(), k)
}

// nextTab is the view step (1 or -1) away from the one shown, round the
// ends, passing over the views not offered (Approvals without a hub,
// the forms on a read-only profile).
func (m *model) nextTab(step int) tab {
	t := m.tab
	for {
		t = (t + tab(step) + numTabs) % numTabs
		if m.offered(t) {
			return t
		}
	}
}

// openHelp shows the `?` overlay from its first line.
func (m *model) openHelp() {
	m.showHelp, m.helpTop = true, 0
}

func (m *model) refresh() tea.Cmd {
	cmds := []tea.Cmd{m.bal.fetch(m.c())}
	m.refreshing |= refreshBalances
	// On the tracker, a refresh also reloads the report when some payouts
	// are known only by id: the new report has their amount and
	// beneficiary (one report call, not one per payout).
	if m.tab == tabTransactions || (m.tab == tabPayouts && m.tracker.unknown() > 0) {
		if cmd := m.tx.refresh(m.c()); cmd != nil {
			cmds = append(cmds, cmd)
			m.refreshing |= refreshReport
		}
	}
	if m.tab == tabApprovals {
		cmds = append(cmds, m.approvals.refresh(m.c()))
	}
	m.setFlash(refreshingText, false)
	return tea.Batch(cmds...)
}

func (m *model) switchTab(t tab) tea.Cmd {
	if t < 0 || t >= numTabs {
		return nil
	}
	if t == tabApprovals && !m.teamMode() {
		m.setFlash("approvals need a team profile (payouts_via_relay = true; see docs/operators.md, Team mode)", true)
		return nil
	}
	if isForm(t) && !m.sends() {
		m.setFlash(m.readOnlyNote(), true)
		return nil
	}
	if t != m.tab {
		m.prevTab, m.tab = m.tab, t
		// A message belongs to the view it was said on.
		if m.flash.owner != t {
			m.flash = flash{}
		}
	}
	m.flash.owner = t
	m.showHelp, m.menu = false, nil
	switch t {
	case tabPayout:
		return m.payout.focus(m.c())
	case tabPayment:
		return m.payment.focus(m.c())
	case tabMandate:
		return m.mandate.focus(m.c())
	}
	return nil
}

// commandNames are the ':' commands, in the order completion offers them.
var commandNames = []string{"balances", "transactions", "payouts", "events", "payout", "payment", "mandate", "approvals", "profile", "view", "save", "columns", "help", "quit"}

// completer is tab completion on the ':' line: the first tab shows the
// shortest command the typed text begins (":payo" is the payout form,
// not the tracker :payouts), and each further tab the next one, round
// and round, until something else is typed.
type completer struct {
	typed, shown string
	i            int
}

// next returns what tab makes of value.
func (c *completer) next(value string) string {
	if c.shown == "" || value != c.shown {
		c.typed, c.i = value, -1
	}
	matches := completions(c.typed)
	if len(matches) == 0 {
		return value
	}
	c.i = (c.i + 1) % len(matches)
	c.shown = matches[c.i]
	return c.shown
}

// completions are the commands prefix begins, shortest first, then in
// commandNames order.
func completions(prefix string) []string {
	p := strings.ToLower(strings.TrimSpace(prefix))
	if p == "" {
		return nil
	}
	var out []string
	for _, c := range commandNames {
		if strings.HasPrefix(c, p) {
			out = append(out, c)
		}
	}
	slices.SortStableFunc(out, func(a, b string) int { return len(a) - len(b) })
	return out
}

func (m *model) updateCmdline(k tea.KeyMsg) tea.Cmd {
	switch {
	case key.Matches(k, m.keys.CloseLine):
		m.cmdActive = false
		m.cmdline.Blur()
		return nil
	case key.Matches(k, m.keys.Complete):
		m.cmdline.SetValue(m.completer.next(m.cmdline.Value()))
		m.cmdline.CursorEnd()
		return nil
	case key.Matches(k, m.keys.RunCommand):
		m.cmdActive = false
		m.cmdline.Blur()
		line := strings.TrimSpace(strings.TrimPrefix(m.cmdline.Value(), ":"))
		if verb, name, _ := strings.Cut(line, " "); strings.EqualFold(verb, "profile") || strings.EqualFold(verb, "ctx") {
			m.flash = flash{owner: m.tab}
			return m.askProfile(name)
		}
		if cmd, ok := m.viewCommand(line); ok {
			return cmd
		}
		c := strings.ToLower(line)
		switch c {
		case "":
			return nil
		case "q", "quit", "exit":
			return m.requestQuit()
		case "help":
			m.openHelp()
			return nil
		}
		if t, ok := commands[c]; ok {
			// A command that worked replaces whatever the last one said.
			m.flash = flash{owner: m.tab}
			return m.switchTab(t)
		}
		m.setFlash("unknown command :"+c+" — try "+m.commandList()+" (tab completes)", true)
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
		return f.route(m.c(), msg.msg)
	}
	return nil
}

func (m *model) resizeForms() tea.Cmd {
	var cmds []tea.Cmd
	for _, f := range []*formView{m.payout, m.payment, m.mandate} {
		cmds = append(cmds, f.resize(m.c()))
	}
	return tea.Batch(cmds...)
}

// ---- relay ----

type relayEventsMsg struct {
	events []relayclient.Event
	closed bool
}

type relayStateMsg struct {
	state  relayclient.ConnState
	closed bool
}

// maxEventBatch bounds one batch so a huge backlog still shows progress.
const maxEventBatch = 512

// drainEvents blocks for one event, then takes whatever else is already
// queued (up to max) without waiting, so a burst costs one redraw.
func drainEvents(ch <-chan relayclient.Event, max int) relayEventsMsg {
	ev, ok := <-ch
	if !ok {
		return relayEventsMsg{closed: true}
	}
	batch := []relayclient.Event{ev}
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
		m.noteLate(msg.events)
		if m.tracker.apply(m.c(), msg.events) {
			// Any payout movement changes balances: refresh now rather than
			// waiting for the next poll (at most one per balanceNudgeGap).
			cmds = append(cmds, m.bal.nudge(m.c()))
		}
		// Payouts from other operators arrive by id only: their amount and
		// beneficiary come from the report already loaded, if it has them.
		cmds = append(cmds, m.tracker.lookup(m.c(), m.tx.report()), m.tracker.recordOutcomes(m.c()))
		m.followPayout()
	}
	if !msg.closed {
		cmds = append(cmds, m.listenEvents())
	} else if !m.relayKnown || m.relay.Status != relayclient.StateOffline {
		m.relay = relayclient.ConnState{Status: relayclient.StateOffline}
		m.relayKnown, m.relayAt = true, m.now()
	}
	return tea.Batch(cmds...)
}

func (m *model) onState(msg relayStateMsg) tea.Cmd {
	if msg.closed {
		return nil
	}
	m.relay, m.relayAt, m.relayKnown = msg.state, m.now(), true
	m.relayLive = m.relayIsLive()
	if mi := msg.state.Missed; mi[1] > 0 {
		m.setFlash("relay: events "+strconv.FormatUint(mi[0], 10)+"–"+strconv.FormatUint(mi[1], 10)+
			" were dropped by the relay's retention before this dashboard resumed; the report ("+tabKeyName(tabTransactions)+") still has the payouts", true)
	}
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
	case relayclient.StateLive:
		return "relay: live", m.st.good
	case relayclient.StateReconnecting:
		left := m.relay.RetryIn - m.now().Sub(m.relayAt)
		secs := int((left + time.Second - 1) / time.Second)
		if secs < 0 {
			secs = 0
		}
		if errors.Is(m.relay.Err, relayclient.ErrRefused) {
			// Retrying will not fix it: say what will, short enough to
			// leave the header's profile on screen.
			if strings.Contains(m.relay.Err.Error(), "401") {
				return "relay: token refused (401)", m.st.bad
			}
			return "relay: refused (403)", m.st.bad
		}
		if errors.Is(m.relay.Err, relayclient.ErrNotARelay) {
			return "relay: URL is not a relay", m.st.bad
		}
		return "relay: reconnecting in " + itoa(secs) + "s", m.st.warn
	case relayclient.StateOffline:
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
		b.WriteString(m.st.prod.Render(fit(firstFit(m.width, "  !! PRODUCTION !!  profile "+m.opts.Profile+" moves real money  !! PRODUCTION !!",
			"!! PRODUCTION !! profile "+m.opts.Profile+" moves real money", "!! PRODUCTION !! "+m.opts.Profile), m.width)))
		b.WriteByte('\n')
		used++
	}
	b.WriteString(m.headerLine())
	b.WriteByte('\n')
	b.WriteString(m.tabsLine())
	b.WriteByte('\n')
	used += 2
	// A message wraps rather than lose its end (an id, the command that
	// fixes it): the body gives up the lines it takes.
	status := m.statusLine()
	bodyH := m.height - used - 1 - (strings.Count(status, "\n") + 1)
	var body string
	switch {
	case m.switchAsk != nil:
		body = m.switchAskView(bodyH)
	case m.quitAsk:
		body = m.quitView(bodyH)
	case m.showHelp:
		body = m.helpView(bodyH)
	case m.menu != nil:
		body = m.actionsView(bodyH)
	case m.picker != nil:
		body = m.pickerView(bodyH)
	default:
		body = m.current().view(m.c(), m.width, bodyH)
	}
	// Views size themselves to the width; clipping here is the guarantee
	// that no line ever wraps and scrolls the frame.
	b.Grow(len(body) + 3*m.width)
	writeBody(&b, body, bodyH, m.width)
	b.WriteByte('\n')
	b.WriteString(status)
	b.WriteByte('\n')
	b.WriteString(m.helpLine())
	return b.String()
}

func (m *model) headerLine() string {
	rt, _ := m.relayText()
	at := clockTime(m.bal.refreshedAt(), m.now().Location()) + " " + zoneName(m.now())
	key := rt + "\x1f" + at + "\x1f" + m.bal.lowAlerts(m.c()) + "\x1f" + itoa(m.approvals.awaiting()) + "\x1f" + itoa(m.width)
	return m.memo.header.get(key, m.drawHeaderLine)
}

func (m *model) drawHeaderLine() string {
	loc := m.now().Location()
	prof := "profile " + m.st.bold.Render(m.opts.Profile)
	if m.opts.Production {
		prof += " " + m.st.prod.Render(" PRODUCTION ")
	}
	if !m.sends() {
		// Why the forms are not there, at a glance.
		prof += " " + m.st.warn.Render("read-only")
	}
	long, short := m.st.title.Render("paydash")+" · "+prof, prof
	rt, rs := m.relayText()
	// Every time on screen is in this zone; the header names it.
	at := clockTime(m.bal.refreshedAt(), loc) + " " + zoneName(m.now())
	// Requests awaiting this user's approval (team mode) are an alert
	// like a low balance: every width keeps them.
	var awaiting []string
	if n := m.approvals.awaiting(); n > 0 {
		awaiting = append(awaiting, m.st.alert.Render(itoa(n)+" await your approval"))
	}
	right := func(refreshed, lowLabel string) string {
		parts := []string{rs.Render(rt), refreshed + at}
		if low := m.bal.lowAlerts(m.c()); low != "" {
			parts = append(parts, m.st.alert.Render(lowLabel+low))
		}
		return strings.Join(append(parts, awaiting...), " · ")
	}
	// Longest first; each drops words, never cuts one: the product name,
	// then "refreshed", then "balance" go before the profile does.
	for _, f := range [][2]string{
		{long, right("refreshed ", "⚠ low balance: ")},
		{short, right("refreshed ", "⚠ low balance: ")},
		{short, right("", "⚠ low balance: ")},
		{short, right("", "⚠ low: ")},
		{short, strings.Join(append(append([]string{rs.Render(rt)}, lowOnly(m.bal.lowAlerts(m.c()), m.st.alert.Render)...), awaiting...), " · ")},
	} {
		if gap := m.width - lipgloss.Width(f[0]) - lipgloss.Width(f[1]); gap >= 1 {
			return f[0] + strings.Repeat(" ", gap) + f[1]
		}
	}
	// Narrow terminal: the alert and relay state matter more than the
	// profile.
	return fit(right("", "⚠ low: ")+" · "+short, m.width)
}

func (m *model) tabsLine() string {
	key := itoa(int(m.tab)) + "\x1f" + itoa(m.width) + "\x1f" + strconv.FormatBool(m.teamMode())
	return m.memo.tabs.get(key, m.drawTabsLine)
}

func (m *model) drawTabsLine() string {
	render := func(names [numTabs]string) string {
		parts := make([]string, 0, numTabs)
		for i, n := range names {
			if !m.offered(tab(i)) {
				continue
			}
			label := strings.TrimSpace(itoa(i+1) + " " + n)
			if tab(i) == m.tab {
				parts = append(parts, m.st.tabActive.Render("["+label+"]"))
			} else {
				parts = append(parts, m.st.tabIdle.Render(" "+label+" "))
			}
		}
		return strings.Join(parts, "")
	}
	if line := render(tabShort); width(line) <= m.width {
		return fit(line, m.width)
	}
	// Too narrow for every name (a team profile's eight tabs at 80
	// columns): the view shown keeps its name, the others a shorter one
	// (issue 28, item 6); narrower still, their keys alone, rather than
	// the last names cut mid-word.
	tiny := tabTiny
	tiny[m.tab] = tabShort[m.tab]
	if line := render(tiny); width(line) <= m.width {
		return fit(line, m.width)
	}
	var short [numTabs]string
	short[m.tab] = tabShort[m.tab]
	return fit(render(short), m.width)
}

func (m *model) statusLine() string {
	if m.cmdActive {
		return m.cmdline.View()
	}
	if m.flash.text != "" {
		st := m.st.good
		if m.flash.err {
			st = m.st.bad
		}
		// Flashes carry error texts from the service and the network.
		return renderLines(st, wrapAtMost(clean(m.flash.text), m.width, maxStatusLines), m.width)
	}
	return ""
}

func itoa(n int) string { return thousands(n) }
