package ui

import (
	"errors"
	"reflect"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/huh"
	"github.com/charmbracelet/x/ansi"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/payout"
	"github.com/paydash/paydash/internal/platform/termtext"
	"github.com/paydash/paydash/webhookrelay/hub/hubapi"
)

// sendTimeout bounds one attempt to create a payout, payment or mandate.
// A timeout is not a failure of the payment: the form keeps its
// transaction id / idempotency key, so retrying is safe.
const sendTimeout = 30 * time.Second

// tokenLifetime is how long a resource token authorises the user flow.
const tokenLifetime = 15 * time.Minute

type formPhase int

const (
	phaseEdit    formPhase = iota // filling in (huh form has the keys)
	phaseSending                  // one request in flight; keys cannot send another
	phaseFailed                   // last attempt failed; retry reuses the key
	phaseDone                     // accepted
)

// formSpec is one kind of form (payout, payment, mandate). Its values live
// in the spec and survive rebuilding the huh form, which happens when the
// operator goes back to edit.
type formSpec interface {
	title() string
	noun() string // "payout", "payment", "mandate"
	keyName() string
	reset(c *viewContext)
	pristine() bool
	build(c *viewContext, fv *formView) []*huh.Group
	// problems validates the whole request (including what the form
	// itself parses, such as amounts) with the api rules.
	problems(c *viewContext, key string) api.Problems
	// paths lists the request paths the form has fields for; a problem
	// shows at the field whose path is its longest prefix.
	paths() []string
	hint(c *viewContext, fieldKey string) string
	summary(c *viewContext, fv *formView, w int) string
	send(c *viewContext, key string) tea.Cmd
	// onSent records an accepted request; its command tells other views.
	onSent(c *viewContext, fv *formView, msg sentMsg) tea.Cmd
	result(c *viewContext, fv *formView, w int) string
}

// sentMsg is the outcome of one send attempt.
type sentMsg struct {
	tab  tab
	key  string
	resp any
	err  error
}

type formView struct {
	tab     tab
	spec    formSpec
	form    *huh.Form
	built   bool
	phase   formPhase
	key     string // transaction_id or Idempotency-Key: one per form
	confirm bool
	retype  string
	err     error
	// definite is set when the service answered the failed attempt
	// with a client error: nothing was created, so an edited request may
	// take a fresh key. After a timeout or 5xx it may have been, so the
	// key stays.
	definite bool
	// mayExist is set once an attempt under the current key had no
	// definite answer: a payout (or payment, mandate) may exist under it,
	// so an edit keeps the key, and the service (or the payout
	// pipeline's id check) stops an edited request under it.
	mayExist bool
	attempts int
	sentAt   time.Time
	resp     any
	firstKey string
	// sized and sizedForm are the size last given to form, so an
	// unchanged size is not sent again.
	sized     [2]int
	sizedForm *huh.Form
	// lastField is the field last edited before the confirmation.
	lastField string
	// clearAsk is set while ctrl+n waits for y to discard a filled form.
	clearAsk bool
	// labels names each request path by its field's title, so messages
	// say "Beneficiary name", not beneficiary_name.
	labels map[string]string
	// fieldKeys is the huh field key of each request path.
	fieldKeys map[string]string
}

func newFormView(t tab, spec formSpec) *formView {
	return &formView{tab: t, spec: spec}
}

const (
	confirmKey = "confirm"
	retypeKey  = "retype"
)

// focus prepares the form when its tab opens. An untouched form is rebuilt
// so choices that come from live data (payout source accounts) are fresh.
func (fv *formView) focus(c *viewContext) tea.Cmd {
	if !fv.built || (fv.phase == phaseEdit && fv.spec.pristine() && !fv.progressed()) {
		if !fv.built {
			fv.spec.reset(c)
			fv.key = c.newID()
		}
		return fv.rebuild(c)
	}
	return nil
}

// redrawMsg makes a huh form lay itself out again (its groups cache
// their rendering until their next message).
type redrawMsg struct{}

// accountsChanged tells a form whose choices come from the balances that
// they changed.
func (fv *formView) accountsChanged(c *viewContext) {
	s, ok := fv.spec.(interface{ accountsChanged(*viewContext) })
	if !ok || !fv.built || fv.form == nil || fv.phase != phaseEdit {
		return
	}
	s.accountsChanged(c)
	fv.form.Update(redrawMsg{})
}

// progressed reports whether the operator moved past the first field.
func (fv *formView) progressed() bool {
	if fv.form == nil {
		return false
	}
	f := fv.form.GetFocusedField()
	return f != nil && f.GetKey() != fv.firstKey
}

func (fv *formView) rebuild(c *viewContext) tea.Cmd {
	groups := fv.spec.build(c, fv)
	confirm := fv.confirmField(c)
	last := []huh.Field{}
	if c.opts.Production {
		fv.retype = ""
		title := "PRODUCTION: re-type the amount to confirm"
		if t, ok := fv.spec.(interface{ retypeTitle() string }); ok {
			title = t.retypeTitle()
		}
		last = append(last, huh.NewInput().Key(retypeKey).
			Title(title).
			Value(&fv.retype).
			Validate(func(s string) error { return fv.checkRetype(c, s) }))
	}
	last = append(last, confirm)
	groups = append(groups, huh.NewGroup(last...).Title(fv.spec.title()+" · confirm"))
	fv.confirm = false
	// huh's own error line is hard-wrapped at the form width and repeats
	// what the field's hint already says; view draws the errors instead,
	// wrapped at word boundaries and once.
	fv.form = huh.NewForm(groups...).WithTheme(formTheme()).WithKeyMap(formKeyMap(c)).WithShowHelp(true).WithShowErrors(false)
	fv.firstKey = ""
	if f := fv.form.GetFocusedField(); f != nil {
		fv.firstKey = f.GetKey()
	}
	fv.built = true
	fv.phase = phaseEdit
	return tea.Batch(tagCmd(fv.tab, fv.form.Init()), fv.resize(c))
}

// checkRetype makes a production operator type the amount a second time.
func (fv *formView) checkRetype(c *viewContext, s string) error {
	want, cur, ok := fv.amount(c)
	if !ok {
		return errors.New("fix the amount first")
	}
	got, err := api.ParseAmount(s, cur, false)
	if err != nil || got != want {
		return errors.New("does not match the amount " + api.FormatAmount(want, cur))
	}
	return nil
}

// amount is the form's parsed amount, for the production re-type check.
func (fv *formView) amount(c *viewContext) (int64, string, bool) {
	if a, ok := fv.spec.(interface {
		amount(c *viewContext) (int64, string, bool)
	}); ok {
		return a.amount(c)
	}
	return 0, "", false
}

func formTheme() *huh.Theme {
	t := huh.ThemeCharm()
	return t
}

func (fv *formView) size(c *viewContext) (int, int) {
	w := min(c.width, 100)
	h := c.height - 8
	if fv.summaryVisible() {
		h -= 12
	}
	return max(w, 20), max(h, 6)
}

// resize tells the huh form its size when that changed. It is called on
// every key (the summary above the confirmation takes room), and a huh
// resize lays out every group again: most of a keystroke's cost, which
// let typed keys queue up behind an enter still moving to the next field.
func (fv *formView) resize(c *viewContext) tea.Cmd {
	if fv.form == nil || c.width == 0 {
		return nil
	}
	w, h := fv.size(c)
	if fv.sizedForm == fv.form && fv.sized == [2]int{w, h} {
		return nil
	}
	fv.sizedForm, fv.sized = fv.form, [2]int{w, h}
	_, cmd := fv.form.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return tagCmd(fv.tab, cmd)
}

// route delivers one of the form's own messages (from tagCmd).
func (fv *formView) route(c *viewContext, msg tea.Msg) tea.Cmd {
	if fv.form == nil || fv.phase != phaseEdit {
		return nil
	}
	before := fv.form.GetFocusedField()
	_, cmd := fv.form.Update(msg)
	fv.noteFocus()
	return tea.Batch(tagCmd(fv.tab, cmd), fv.keepFocusOnRefusedBack(msg, before), fv.checkDone(c))
}

// keepFocusOnRefusedBack works around huh v1.0.0: shift+tab on a page's
// first field blurs it (which validates it) and asks for the previous
// page, which huh refuses while the page shows an error, leaving no field
// focused and every key lost until the form was discarded. When that
// request is about to be refused, the field is focused again: shift+tab
// then stays where it is, as enter does on a field with an error. The
// message is huh's unexported prevFieldMsg, known by its type's name.
// (Focus's own command is the cursor blink, which forms do without.)
func (fv *formView) keepFocusOnRefusedBack(msg tea.Msg, before huh.Field) tea.Cmd {
	if before == nil || reflect.TypeOf(msg).String() != "huh.prevFieldMsg" {
		return nil
	}
	if fv.form.GetFocusedField() != before || len(fv.form.Errors()) == 0 {
		return nil // moved within the page, or the previous page will open
	}
	before.Focus()
	// The page keeps its rendering until its next message; the refusal
	// sends it none.
	return tagCmd(fv.tab, func() tea.Msg { return redrawMsg{} })
}

// checkDone acts once huh reports the form complete: send if confirmed,
// otherwise back to editing with every value kept.
func (fv *formView) checkDone(c *viewContext) tea.Cmd {
	if fv.phase != phaseEdit || fv.form == nil || fv.form.State == huh.StateNormal {
		return nil
	}
	if fv.form.State == huh.StateCompleted && fv.confirm {
		return fv.startSend(c)
	}
	return fv.backToEdit(c)
}

// startSend sends exactly one request; while one is in flight, nothing
// can start another (a double enter is a no-op).
func (fv *formView) startSend(c *viewContext) tea.Cmd {
	if fv.phase == phaseSending || fv.phase == phaseDone {
		return nil
	}
	if ps := fv.spec.problems(c, fv.key); len(ps) > 0 {
		fv.phase, fv.err, fv.definite = phaseFailed, ps, true
		return nil
	}
	if c.opts.Backend == nil {
		fv.phase, fv.err = phaseFailed, errors.New("no backend configured")
		return nil
	}
	fv.phase = phaseSending
	fv.attempts++
	fv.sentAt = c.now()
	return fv.spec.send(c, fv.key)
}

func (fv *formView) sent(c *viewContext, msg sentMsg) tea.Cmd {
	if msg.key != fv.key || fv.phase != phaseSending {
		return nil // an answer for a form since discarded
	}
	var held *hubapi.AwaitingApprovalError
	if errors.As(msg.err, &held) {
		// On a team profile the hub holds the payment or mandate for
		// approval: nothing was sent, and the hub creates it under this
		// form's key once other people approve. The form is done.
		fv.phase, fv.err, fv.resp = phaseDone, nil, held
		fv.sentAt = c.now()
		c.setFlash(held.Kind+" awaits approval as "+held.Result.ApprovalID, false)
		return nil
	}
	if msg.err != nil {
		fv.phase, fv.err = phaseFailed, msg.err
		fv.definite = fv.createdNothing(msg.err)
		fv.mayExist = fv.mayExist || failureClass(msg.err) == payout.ClassUnknown
		return nil
	}
	fv.phase, fv.err, fv.resp = phaseDone, nil, msg.resp
	fv.sentAt = c.now()
	return fv.spec.onSent(c, fv, msg)
}

// startOver discards the form for a new one with a new key.
func (fv *formView) startOver(c *viewContext) tea.Cmd {
	fv.spec.reset(c)
	fv.key = c.newID()
	fv.err, fv.resp, fv.attempts, fv.mayExist = nil, nil, 0, false
	return fv.rebuild(c)
}

func (fv *formView) unsent() bool {
	switch fv.phase {
	case phaseEdit:
		return fv.built && !fv.spec.pristine()
	case phaseFailed, phaseSending:
		return true
	}
	return false
}

func (fv *formView) capturing() bool { return fv.phase == phaseEdit }

// choiceFocused reports that the focused field takes no text: a choice
// list that is not being filtered, or the confirmation.
func (fv *formView) choiceFocused() bool {
	if fv.phase != phaseEdit || fv.form == nil {
		return false
	}
	switch f := fv.form.GetFocusedField().(type) {
	case *huh.Select[string]:
		return !f.GetFiltering()
	case *huh.Confirm:
		return true
	}
	return false
}

// filteringChoice reports that the focused field is a select whose
// options are being filtered, where esc ends the filter.
func (fv *formView) filteringChoice() bool {
	if fv.form == nil {
		return false
	}
	f, ok := fv.form.GetFocusedField().(*huh.Select[string])
	return ok && f.GetFiltering()
}

func (fv *formView) startFilter() (tea.Cmd, bool) { return nil, false }

func (fv *formView) summaryVisible() bool {
	if fv.form == nil || fv.phase != phaseEdit {
		return fv.phase == phaseSending
	}
	f := fv.form.GetFocusedField()
	return f != nil && (f.GetKey() == confirmKey || f.GetKey() == retypeKey)
}

func (fv *formView) view(c *viewContext, w, h int) string {
	if !fv.built {
		return c.st.muted.Render("Opening the form…")
	}
	var b strings.Builder
	// The key whole: it is what the operator quotes; its name goes first
	// when the line is narrow.
	keyLabel := firstFit(max(w-width(fv.spec.title()), 1), " · "+fv.spec.keyName()+" "+fv.key, " · "+fv.key)
	b.WriteString(c.st.title.Render(fv.spec.title()) + c.st.muted.Render(keyLabel) + "\n")
	if fv.clearAsk {
		b.WriteString("\n" + c.st.warn.Render(wrapText("Clear this "+fv.spec.noun()+"? Everything typed goes and it gets a new "+fv.spec.keyName()+".  "+keyOf(c.keys.Yes)+" = clear   any other key = keep", w)) + "\n")
		return b.String()
	}
	switch fv.phase {
	case phaseEdit:
		if fv.summaryVisible() {
			b.WriteString(fv.spec.summary(c, fv, w) + "\n")
		}
		b.WriteString(fv.form.View())
		hint := ""
		if f := fv.form.GetFocusedField(); f != nil {
			if hint = fv.spec.hint(c, f.GetKey()); hint != "" {
				// Wrapped between words, never cut: a refusal's remedy
				// ("or pay in EUR over SEPA") comes last (issue 28).
				b.WriteString("\n" + wrapWords(hint, w))
			}
		}
		// The errors that stop the operator moving on, each once: a hint
		// that already says it is enough.
		for _, err := range fv.form.Errors() {
			msg := err.Error()
			_, bare, _ := strings.Cut(msg, ": ")
			if bare == "" || !strings.Contains(ansi.Strip(hint), bare) {
				b.WriteString("\n" + c.st.bad.Render(wrapText("✗ "+clean(msg), w)))
			}
		}
	case phaseSending:
		b.WriteString(fv.spec.summary(c, fv, w) + "\n")
		b.WriteString(c.st.warn.Render("Sending… attempt " + itoa(fv.attempts) + "; " + keyOf(c.keys.Retry) + " does nothing while the request is in flight"))
	case phaseFailed:
		b.WriteString(fv.failureView(c, w))
	case phaseDone:
		if held, ok := fv.resp.(*hubapi.AwaitingApprovalError); ok {
			b.WriteString(heldResult(c, held, w))
			break
		}
		b.WriteString(fv.spec.result(c, fv, w))
	}
	return b.String()
}

// heldResult is a payment's or mandate's form once the hub holds it for
// approval: by whom, and what happens next.
func heldResult(c *viewContext, held *hubapi.AwaitingApprovalError, w int) string {
	r := held.Result
	who := "nobody yet: ask an administrator to add an approver"
	if len(r.Approvers) > 0 {
		who = strings.Join(r.Approvers, ", ")
	}
	text := "Awaiting approval: " + r.ApprovalID + " (" + termtext.Safe(r.Reason) + "). Nothing is created until " + itoa(max(r.ApprovalsNeeded, 1)) +
		" of " + termtext.Safe(who) + " approve; the hub then creates the " + held.Kind + " under this form's idempotency key. Follow it in Approvals."
	return c.st.warn.Render(wrapText(text, w))
}
