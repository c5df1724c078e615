package ui

import (
	"context"
	"errors"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/platform/termtext"
	"github.com/paydash/paydash/webhookrelay/hub/hubapi"
	"github.com/paydash/paydash/webhookrelay/hub/hubclient"
)

// ApprovalsHub is the team's hub as the Approvals view uses it, with the
// person's own token; *hubclient.Client is one. The hub decides every
// rule (who may approve, what lapsed, what is sent): the view only shows
// what it answers.
type ApprovalsHub interface {
	Me(ctx context.Context) (hubapi.Me, error)
	List(ctx context.Context, all bool) ([]hubapi.Request, error)
	// Check is what the pipeline would say if the request were approved
	// now (duplicates, funds), without sending.
	Check(ctx context.Context, id string) ([]hubapi.Warning, error)
	Approve(ctx context.Context, id string) (hubapi.Request, error)
	Reject(ctx context.Context, id, reason string) (hubapi.Request, error)
	ApproveBatch(ctx context.Context, id string) (hubapi.BatchResult, error)
	RejectBatch(ctx context.Context, id, reason string) (hubapi.BatchResult, error)
	// Submit is the payout form's send on a team profile: the hub runs
	// the payout pipeline and its policy (sent at once, or awaiting
	// approval).
	Submit(ctx context.Context, s hubapi.Submission) (hubapi.Result, error)
	// Get is one request, for the tracker following the form's payout.
	Get(ctx context.Context, id string) (hubapi.Request, error)
}

// ApprovalsFeed is a hub that pushes each change of a request's status
// (*hubclient.Client is one, over the hub's approvals websocket). Watch
// runs until ctx is done, reconnecting; it reports each change and each
// time the feed comes up or goes down.
type ApprovalsFeed interface {
	Watch(ctx context.Context, onChange func(hubapi.Change), onState func(hubclient.FeedState)) error
}

// approvalsPollEvery is how often the view asks the hub for its list
// while no live feed tells it of changes (the hub's feed unreachable, or
// a hub without one).
const approvalsPollEvery = 2 * time.Second

// approvalsSafetyPoll is how often the list is read while the live feed
// is up: each change is pushed, so this only bounds how stale the list
// can get if a push were lost.
const approvalsSafetyPoll = 30 * time.Second

// readTimeout bounds one read of the hub (who, list, check), so a hub
// that stopped answering delays the next poll by this much at most.
const readTimeout = 15 * time.Second

// checkTimeout bounds one check: the hub reads the service's report for
// it, which takes longer than a list.
const checkTimeout = time.Minute

// recheckEvery is how often a pending request's warnings are asked for
// again (funds move; r asks at once).
const recheckEvery = time.Minute

// approvalsMsg is every message of the Approvals view; the root routes
// them all to it.
type approvalsMsg interface{ forApprovals() }

type apprMeMsg struct {
	me  hubapi.Me
	err error
}

type apprListMsg struct {
	rs  []hubapi.Request
	err error
}

// apprTickMsg is a poll of the list; gen is the poll schedule it belongs
// to (a feed coming up or going down starts a new one).
type apprTickMsg struct{ gen int }

// apprPushMsg is a change the hub pushed over its feed.
type apprPushMsg struct{ change hubapi.Change }

// apprFeedMsg is the feed coming up or going down.
type apprFeedMsg struct{ state hubclient.FeedState }

type apprCheckMsg struct {
	id  string
	ws  []hubapi.Warning
	err error
}

// apprDoneMsg is the hub's answer to an approval or rejection.
type apprDoneMsg struct {
	text string
	err  error
}

func (apprMeMsg) forApprovals()    {}
func (apprListMsg) forApprovals()  {}
func (apprTickMsg) forApprovals()  {}
func (apprCheckMsg) forApprovals() {}
func (apprDoneMsg) forApprovals()  {}
func (apprPushMsg) forApprovals()  {}
func (apprFeedMsg) forApprovals()  {}

// feedState is where the view's live feed stands.
type feedState int

const (
	feedNone       feedState = iota // the hub offers no feed: the view polls
	feedConnecting                  // polling until the feed is up
	feedUp                          // changes pushed; a slow safety poll
	feedDown                        // polling: the feed is unreachable
)

// followApprovals runs the hub's feed for the dashboard's life, handing
// its changes and states to the program (send is tea.Program.Send).
func followApprovals(ctx context.Context, f ApprovalsFeed, send func(tea.Msg)) {
	_ = f.Watch(ctx,
		func(ch hubapi.Change) { send(apprPushMsg{change: ch}) },
		func(st hubclient.FeedState) { send(apprFeedMsg{state: st}) })
}

// apprCheck is the last check of one request.
type apprCheck struct {
	ws  []hubapi.Warning
	err error
	at  time.Time
}

// apprMode is what the view is asking for.
type apprMode int

const (
	apprList    apprMode = iota
	apprConfirm          // y/n (not production)
	apprAmount           // production: the amount typed
	apprReason           // a rejection's reason
)

type approvalsView struct {
	me      hubapi.Me
	meKnown bool
	meErr   error

	rows    []hubapi.Request // pending first, then oldest first
	loaded  bool
	loading bool
	// again asks for one more list after the one loading: changes were
	// pushed while it was on its way.
	again   bool
	listErr error
	loadAt  time.Time

	feed    feedState
	feedErr error
	// tickGen is the poll schedule running; ticks of an older one stop.
	tickGen int

	checks   map[string]apprCheck
	checking map[string]bool

	nav   listNav
	sel   selection // the selected request, by id: selection follows it
	pageH int

	mode   apprMode
	target hubapi.Request // the row acted on
	input  textinput.Model
	busy   bool // an approval or rejection is on its way
}

func newApprovalsView() approvalsView {
	ti := textinput.New()
	ti.CharLimit = 500
	staticCursor(&ti)
	return approvalsView{checks: map[string]apprCheck{}, checking: map[string]bool{}, input: ti}
}

// teamMode reports whether the dashboard is on a team profile (its hub
// given): only then is there an Approvals view.
func (c *viewContext) teamMode() bool { return c.opts.Approvals != nil }

// start asks the hub who the user is and what awaits; the tick repeats
// the list.
func (v *approvalsView) start(c *viewContext) tea.Cmd {
	if !c.teamMode() {
		return nil
	}
	if _, ok := c.opts.Approvals.(ApprovalsFeed); ok {
		v.feed = feedConnecting
	}
	return tea.Batch(v.fetchMe(c), v.load(c), v.nextTick(c))
}

// nextTick schedules the next poll of the schedule running: every 2 s
// without a live feed, every 30 s with one.
func (v *approvalsView) nextTick(c *viewContext) tea.Cmd {
	every := approvalsPollEvery
	if v.feed == feedUp {
		every = approvalsSafetyPoll
	}
	return after(c.clock, every, apprTickMsg{gen: v.tickGen})
}

// reschedule replaces the poll schedule (the feed came up or went down).
func (v *approvalsView) reschedule(c *viewContext) tea.Cmd {
	v.tickGen++
	return v.nextTick(c)
}

func (v *approvalsView) fetchMe(c *viewContext) tea.Cmd {
	h, ctx := c.opts.Approvals, c.ctx
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, readTimeout)
		defer cancel()
		me, err := h.Me(ctx)
		return apprMeMsg{me: me, err: err}
	}
}

func (v *approvalsView) load(c *viewContext) tea.Cmd {
	if v.loading {
		return nil
	}
	v.loading = true
	h, ctx := c.opts.Approvals, c.ctx
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, readTimeout)
		defer cancel()
		rs, err := h.List(ctx, false)
		return apprListMsg{rs: rs, err: err}
	}
}

// reload lists now, or once more after the list on its way (which may
// have been read before the change that asks for this one).
func (v *approvalsView) reload(c *viewContext) tea.Cmd {
	if v.loading {
		v.again = true
		return nil
	}
	return v.load(c)
}

func (v *approvalsView) check(c *viewContext, id string) tea.Cmd {
	if v.checking[id] {
		return nil
	}
	v.checking[id] = true
	h, ctx := c.opts.Approvals, c.ctx
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, checkTimeout)
		defer cancel()
		ws, err := h.Check(ctx, id)
		return apprCheckMsg{id: id, ws: ws, err: err}
	}
}

// route handles the view's messages, whichever view is showing.
func (v *approvalsView) route(c *viewContext, msg approvalsMsg) tea.Cmd {
	switch msg := msg.(type) {
	case apprTickMsg:
		if msg.gen != v.tickGen {
			return nil // a schedule replaced since
		}
		cmds := []tea.Cmd{v.load(c), v.nextTick(c)}
		if !v.meKnown {
			cmds = append(cmds, v.fetchMe(c))
		}
		return tea.Batch(cmds...)
	case apprMeMsg:
		if msg.err == nil {
			v.me, v.meKnown = msg.me, true
		}
		v.meErr = msg.err
		return nil
	case apprPushMsg:
		// Bursts coalesce: one list on its way, one more after it.
		return v.reload(c)
	case apprFeedMsg:
		if msg.state.Up {
			// Subscribed first, listed now: nothing changed between the
			// two is missed.
			v.feed, v.feedErr = feedUp, nil
			return tea.Batch(v.reload(c), v.reschedule(c))
		}
		was := v.feed
		v.feed, v.feedErr = feedDown, msg.state.Err
		if was == feedUp {
			// Back to polling at once: what changed since the feed went
			// quiet is read now, the rest every 2 s.
			return tea.Batch(v.reload(c), v.reschedule(c))
		}
		return nil
	case apprListMsg:
		v.loading = false
		var again tea.Cmd
		if v.again {
			v.again = false
			again = v.load(c)
		}
		v.listErr = msg.err
		if msg.err != nil {
			return again
		}
		v.loaded, v.loadAt = true, c.now()
		v.setRows(msg.rs)
		return tea.Batch(v.checkDue(c, false), again)
	case apprCheckMsg:
		delete(v.checking, msg.id)
		v.checks[msg.id] = apprCheck{ws: msg.ws, err: msg.err, at: c.now()}
		return nil
	case apprDoneMsg:
		v.busy = false
		if msg.err != nil {
			c.setFlash(msg.err.Error(), true)
		} else {
			c.setFlash(msg.text, false)
		}
		return v.load(c)
	}
	return nil
}

// setRows replaces the list, keeping the selection on the same request
// (by id) wherever it moved; when it is gone, on the row now at its
// place.
func (v *approvalsView) setRows(rs []hubapi.Request) {
	sort.SliceStable(rs, func(i, j int) bool {
		pi, pj := rs[i].Status == hubapi.StatusPending, rs[j].Status == hubapi.StatusPending
		if pi != pj {
			return pi
		}
		if !rs[i].RequestedAt.Equal(rs[j].RequestedAt) {
			return rs[i].RequestedAt.Before(rs[j].RequestedAt)
		}
		return rs[i].ID < rs[j].ID
	})
	v.rows = rs
	v.sel.restore(&v.nav, len(v.rows), v.pageH, v.idAt)
	// Checks of requests no longer listed are dropped.
	for id := range v.checks {
		if !slices.ContainsFunc(rs, func(r hubapi.Request) bool { return r.ID == id }) {
			delete(v.checks, id)
		}
	}
}

// checkDue asks for the warnings of pending requests not checked yet (or
// not for recheckEvery; all of them when force).
func (v *approvalsView) checkDue(c *viewContext, force bool) tea.Cmd {
	var cmds []tea.Cmd
	for _, r := range v.rows {
		if r.Status != hubapi.StatusPending {
			continue
		}
		ch, ok := v.checks[r.ID]
		if force || !ok || c.now().Sub(ch.at) >= recheckEvery {
			cmds = append(cmds, v.check(c, r.ID))
		}
	}
	return tea.Batch(cmds...)
}

// idAt is row i's request id (the selection's key).
func (v *approvalsView) idAt(i int) string { return v.rows[i].ID }

func (v *approvalsView) selected() *hubapi.Request {
	if v.nav.cursor < 0 || v.nav.cursor >= len(v.rows) {
		return nil
	}
	return &v.rows[v.nav.cursor]
}

// approver reports whether the user holds the approve role.
func (v *approvalsView) approver() bool {
	return v.meKnown && v.me.Has(hubapi.RoleApprove)
}

// awaiting counts the requests (a batch once) the user could approve
// now: the header shows it, as `approvals list` says it.
func (v *approvalsView) awaiting() int {
	return hubapi.AwaitingYou(v.rows, v.me.Name, v.approver())
}

// whyNot says why the user cannot decide r ("" when they can): the hub
// refuses each of these, the view says so before asking it.
func (v *approvalsView) whyNot(r *hubapi.Request) string {
	switch {
	case !v.meKnown:
		return "the hub has not said who you are yet"
	case !v.approver():
		return "your token does not hold the approve role: you see requests, others decide them"
	case r.RequestedBy == v.me.Name:
		return "your own request: another person decides it (the hub refuses the requester)"
	case slices.Contains(r.ApprovedBy, v.me.Name):
		return "you approved it already; it awaits another approver"
	case r.Status != hubapi.StatusPending:
		return "it is " + r.Status + ": only pending requests are approved or rejected"
	}
	return ""
}

func (v *approvalsView) capturing() bool { return v.mode != apprList }

func (v *approvalsView) startFilter() (tea.Cmd, bool) { return nil, false }

func (v *approvalsView) keys(c *viewContext) helpMap {
	g := c.keys
	switch v.mode {
	case apprConfirm:
		return helpMap{short: []key.Binding{g.Yes, g.No}, full: [][]key.Binding{{g.Yes, g.No}}}
	case apprAmount, apprReason:
		return helpMap{short: []key.Binding{g.SendDecision, g.CancelDecision}, full: [][]key.Binding{{g.SendDecision, g.CancelDecision}}}
	}
	short := []key.Binding{g.Up, g.Down}
	acts := []key.Binding{g.Refresh}
	// The decision keys show only where they work: never on the user's
	// own request, nor without the approve role.
	if r := v.selected(); r != nil && v.whyNot(r) == "" && !v.busy && c.sends() {
		short = append(short, g.Approve, g.Reject)
		acts = append([]key.Binding{g.Approve, g.Reject}, acts...)
	}
	return helpMap{short: short, full: [][]key.Binding{{g.Up, g.Down, g.PgUp, g.PgDown, g.Top, g.Bottom}, acts}}
}

func (v *approvalsView) update(c *viewContext, k tea.KeyMsg) tea.Cmd {
	g := c.keys
	switch v.mode {
	case apprConfirm:
		switch {
		case key.Matches(k, g.Yes):
			v.mode = apprList
			return v.decide(c, "")
		case key.Matches(k, g.No):
			v.mode = apprList
			c.setFlash("not approved", false)
		}
		return nil
	case apprAmount, apprReason:
		switch {
		case key.Matches(k, g.CancelDecision):
			v.mode = apprList
			v.input.Blur()
			c.setFlash("nothing was sent to the hub", false)
			return nil
		case key.Matches(k, g.SendDecision):
			return v.submitInput(c)
		}
		var cmd tea.Cmd
		v.input, cmd = v.input.Update(k)
		return cmd
	}
	if v.nav.move(k, g, len(v.rows), v.pageH) {
		v.sel.remember(&v.nav, len(v.rows), v.idAt)
		return nil
	}
	r := v.selected()
	switch {
	case key.Matches(k, g.Approve, g.Reject) && !c.sends():
		c.setFlash(c.readOnlyNote(), true)
	case key.Matches(k, g.Approve, g.Reject) && r == nil:
		c.setFlash("nothing awaits approval", false)
	case key.Matches(k, g.Approve, g.Reject) && v.busy:
		c.setFlash("the hub has not answered the last decision yet", false)
	case key.Matches(k, g.Approve, g.Reject) && v.whyNot(r) != "":
		c.setFlash(v.whyNot(r), true)
	case key.Matches(k, g.Approve):
		v.target = *r
		if c.opts.Production {
			v.mode = apprAmount
			v.input.Prompt = "PRODUCTION: type " + v.typedWant() + " to approve: "
			v.input.Placeholder = ""
			v.input.SetValue("")
			return v.input.Focus()
		}
		v.mode = apprConfirm
	case key.Matches(k, g.Reject):
		v.target = *r
		v.mode = apprReason
		v.input.Prompt = "Reject " + v.what(&v.target) + ". Reason: "
		v.input.Placeholder = "what the requester should correct"
		v.input.SetValue("")
		return v.input.Focus()
	}
	return nil
}

// refresh is r on this view: the list and every pending request's
// warnings again.
func (v *approvalsView) refresh(c *viewContext) tea.Cmd {
	if !c.teamMode() {
		return nil
	}
	// A list already on its way is as fresh as a new one.
	return tea.Batch(v.load(c), v.checkDue(c, true))
}

// batchRows are the rows of batch id.
func (v *approvalsView) batchRows(id string) []hubapi.Request {
	var out []hubapi.Request
	for _, r := range v.rows {
		if r.Batch == id {
			out = append(out, r)
		}
	}
	return out
}

// totalsText is "€20.00, £1,500.00" in currency order.
func totalsText(t map[string]int64, format func(int64, string) string) string {
	return api.FormatTotalsWith(t, ", ", format)
}

func plainWithCurrency(minor int64, cur string) string {
	return api.FormatAmountPlain(minor, cur) + " " + cur
}

// what names the request (or its whole batch) in a question.
func (v *approvalsView) what(r *hubapi.Request) string {
	if r.Batch != "" {
		rows := v.batchRows(r.Batch)
		return "batch " + r.Batch + " (" + plural(len(rows), "payout", "payouts") + ", " + totalsText(hubapi.Totals(rows), api.FormatAmount) + ")"
	}
	if r.Kind != "" {
		return termtext.Safe(r.What()) + " (ref " + termtext.Safe(r.BeneficiaryReference) + ")"
	}
	return api.FormatAmount(r.AmountInMinor, r.Currency) + " to " + termtext.Safe(r.BeneficiaryName) + " (ref " + termtext.Safe(r.BeneficiaryReference) + ")"
}

// typedWant is what a production approval must type: the amount as a
// form takes it, or a batch's totals with their currencies.
func (v *approvalsView) typedWant() string {
	r := &v.target
	if r.Batch != "" {
		return totalsText(hubapi.Totals(v.batchRows(r.Batch)), plainWithCurrency)
	}
	return api.FormatAmountPlain(r.Shown(), r.Currency)
}

// typedMatches reads the typed amount as the form would (1,500.00 and
// 1500 are 1500.00); a batch's totals are compared word for word.
func (v *approvalsView) typedMatches(typed string) bool {
	r := &v.target
	if r.Batch != "" {
		norm := func(s string) string {
			return strings.ToUpper(strings.Join(strings.Fields(strings.ReplaceAll(s, ",", " ")), " "))
		}
		return norm(typed) == norm(v.typedWant())
	}
	minor, err := api.ParseAmount(strings.TrimSpace(typed), r.Currency, false)
	return err == nil && minor == r.Shown()
}

func (v *approvalsView) submitInput(c *viewContext) tea.Cmd {
	text := strings.TrimSpace(v.input.Value())
	switch v.mode {
	case apprAmount:
		if !v.typedMatches(text) {
			c.setFlash("that is not "+v.typedWant()+": nothing was approved; type it exactly, or "+c.keys.CancelDecision.Help().Key+" to cancel", true)
			v.input.SetValue("")
			return nil
		}
		v.mode = apprList
		v.input.Blur()
		return v.decide(c, "")
	case apprReason:
		if text == "" {
			c.setFlash("a rejection needs a reason: the requester reads it to know what to correct", true)
			return nil
		}
		v.mode = apprList
		v.input.Blur()
		return v.decide(c, text)
	}
	return nil
}

// decide sends the approval (reason "") or the rejection to the hub.
func (v *approvalsView) decide(c *viewContext, reason string) tea.Cmd {
	v.busy = true
	r := v.target
	h, ctx := c.opts.Approvals, c.ctx
	if reason == "" {
		c.setFlash("approving "+v.what(&r)+"…", false)
	} else {
		c.setFlash("rejecting "+v.what(&r)+"…", false)
	}
	return func() tea.Msg {
		if r.Batch != "" {
			var b hubapi.BatchResult
			var err error
			if reason == "" {
				b, err = h.ApproveBatch(ctx, r.Batch)
			} else {
				b, err = h.RejectBatch(ctx, r.Batch, reason)
			}
			if err != nil {
				return apprDoneMsg{err: decisionError(err)}
			}
			return apprDoneMsg{text: "batch " + b.BatchID + ": " + b.Status + " (" + plural(len(b.Rows), "payout", "payouts") + ", " + totalsText(b.Totals, api.FormatAmount) + ")"}
		}
		var out hubapi.Request
		var err error
		if reason == "" {
			out, err = h.Approve(ctx, r.ID)
		} else {
			out, err = h.Reject(ctx, r.ID, reason)
		}
		if err != nil {
			return apprDoneMsg{err: decisionError(err)}
		}
		return apprDoneMsg{text: decided(out)}
	}
}

// decisionError is the hub's refusal as the status line says it: its
// words (they name the rule), made safe to draw.
func decisionError(err error) error {
	return errors.New("the hub refused: " + termtext.Safe(err.Error()) + " (nothing was sent)")
}

// decided says where a request stands after a decision, in one line.
func decided(r hubapi.Request) string {
	what := api.FormatAmount(r.AmountInMinor, r.Currency) + " to " + termtext.Safe(r.BeneficiaryName)
	if r.Kind != "" {
		what = termtext.Safe(r.What())
		if r.Status == hubapi.StatusSent {
			return "created: " + what + ", " + r.Kind + " id " + termtext.Safe(r.CreatedID) + " (" + r.ID + ")"
		}
	}
	switch r.Status {
	case hubapi.StatusPending:
		return "approved by you; " + r.ID + " awaits " + itoa(r.ApprovalsNeeded-len(r.ApprovedBy)) + " more approval(s) (" + what + ")"
	case hubapi.StatusSent:
		return "sent: " + what + ", transaction id " + termtext.Safe(r.TransactionID) + " (" + r.ID + ")"
	case hubapi.StatusSending, hubapi.StatusApproved:
		return "approved: " + what + " is being sent (" + r.ID + ")"
	case hubapi.StatusRefused:
		return "approved, but not sent: " + termtext.Safe(r.Detail) + "; nothing was paid (" + r.ID + ")"
	case hubapi.StatusUnknown:
		return "sent, but the service's answer was lost: the hub looks transaction id " + termtext.Safe(r.TransactionID) + " up before any re-send (" + r.ID + ")"
	case hubapi.StatusRejected:
		return "rejected: " + what + ": " + termtext.Safe(r.Reason) + " (" + r.ID + ")"
	}
	return r.ID + " is " + r.Status + " (" + what + ")"
}
