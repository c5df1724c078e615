package ui

import (
	"context"
	"errors"
	"net"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/huh"
	"github.com/charmbracelet/x/ansi"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/payout"
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
	confirm := huh.NewConfirm().Key(confirmKey).
		Title("Send this " + fv.spec.noun() + "?").
		Description("y sends · n goes back to edit (or ←/→ and enter)").
		Affirmative("Send").Negative("Back to edit").
		Value(&fv.confirm).
		Validate(func(ok bool) error {
			if !ok {
				return nil
			}
			if ps := fv.spec.problems(c, fv.key); len(ps) > 0 {
				return errors.New("cannot send yet: " + strings.Join(fv.described(ps), "; "))
			}
			return nil
		})
	last := []huh.Field{}
	if c.opts.Production {
		fv.retype = ""
		last = append(last, huh.NewInput().Key(retypeKey).
			Title("PRODUCTION: re-type the amount to confirm").
			Value(&fv.retype).
			Validate(func(s string) error { return fv.checkRetype(c, s) }))
	}
	last = append(last, confirm)
	groups = append(groups, huh.NewGroup(last...).Title(fv.spec.title()+" · confirm"))
	fv.confirm = false
	// huh's own error line is hard-wrapped at the form width and repeats
	// what the field's hint already says; view draws the errors instead,
	// wrapped at word boundaries and once.
	fv.form = huh.NewForm(groups...).WithTheme(formTheme()).WithShowHelp(true).WithShowErrors(false)
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
	c.setFlash(fv.spec.noun()+" not sent: edit it and confirm again", false)
	return fv.rebuild(c)
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
	if msg.err != nil {
		fv.phase, fv.err = phaseFailed, msg.err
		fv.definite = definiteRejection(msg.err)
		fv.mayExist = fv.mayExist || failureClass(msg.err) == payout.ClassUnknown
		return nil
	}
	fv.phase, fv.err, fv.resp = phaseDone, nil, msg.resp
	fv.sentAt = c.now()
	return fv.spec.onSent(c, fv, msg)
}

// definiteRejection reports an error after which nothing was created by
// this attempt: stopped before sending, or an answer the payout
// pipeline's classifier reads as refused.
func definiteRejection(err error) bool {
	c := failureClass(err)
	return c != payout.ClassUnknown && c != ""
}

// failureClass is the class of a failed send: the payout pipeline's
// (payout.ErrorClass: refused, unknown, or why it stopped before
// sending), else the classifier's reading of a payment's or mandate's
// answer (refused or unknown); "" for a check the pipeline could not make
// (nothing was sent).
func failureClass(err error) string {
	if c := payout.ErrorClass(err); c != "" {
		return c
	}
	var ps api.Problems
	if errors.As(err, &ps) {
		return payout.ClassInvalid
	}
	var stage *payout.StageError
	if errors.As(err, &stage) {
		return ""
	}
	return payout.Classify(err).Outcome
}

// keyUnusable reports a failure after which the form's key can never
// send this request: another request holds it.
func keyUnusable(err error) bool {
	var used *payout.IDUsedError
	return api.IsIdempotencyKeyReused(err) || errors.As(err, &used)
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

func (fv *formView) keys(c *viewContext) helpMap {
	k := c.keys
	switch {
	case fv.clearAsk:
		return helpMap{short: []key.Binding{k.Yes, k.No}}
	case fv.phase == phaseEdit:
		return helpMap{
			short: []key.Binding{k.Next, k.Prev, k.LeaveForm, k.ClearForm},
			full:  [][]key.Binding{{k.Next, k.Prev, k.ClearForm}, {k.LeaveForm, k.AltTabs}},
		}
	case fv.phase == phaseFailed && asDuplicate(fv.err) != nil:
		return helpMap{short: []key.Binding{k.SendAnyway, k.Edit, k.NewForm}, full: [][]key.Binding{{k.SendAnyway, k.Edit, k.NewForm}}}
	case fv.phase == phaseFailed && keyUnusable(fv.err):
		// Retrying as is would be refused again: no enter.
		return helpMap{short: []key.Binding{k.Edit, k.NewForm}, full: [][]key.Binding{{k.Edit, k.NewForm}}}
	case fv.phase == phaseFailed:
		return helpMap{short: []key.Binding{k.Retry, k.Edit, k.NewForm}, full: [][]key.Binding{{k.Retry, k.Edit, k.NewForm}}}
	case fv.phase == phaseDone:
		b := []key.Binding{k.NewForm, k.CopyResID}
		if fv.tab != tabPayout {
			b = append(b, k.CopyToken)
		}
		return helpMap{short: b, full: [][]key.Binding{b}}
	}
	return helpMap{}
}

// leaveFormMsg asks the root to go back to the view the user came from;
// the form keeps its input.
type leaveFormMsg struct{}

func (fv *formView) update(c *viewContext, k tea.KeyMsg) tea.Cmd {
	keys := c.keys
	if fv.clearAsk {
		// ctrl+n on a filled form asks first: it discards the input and
		// the transaction id / idempotency key.
		fv.clearAsk = false
		if key.Matches(k, keys.Yes) {
			return fv.startOver(c)
		}
		return nil
	}
	switch fv.phase {
	case phaseEdit:
		if fv.form == nil {
			return fv.focus(c)
		}
		switch {
		case key.Matches(k, keys.ClearForm):
			if fv.spec.pristine() {
				return fv.startOver(c)
			}
			fv.clearAsk = true
			return nil
		case key.Matches(k, keys.LeaveForm) && !fv.filteringChoice():
			// esc leaves the form from any field (its input stays, and no
			// field takes esc); in a select being filtered esc ends the
			// filter.
			return func() tea.Msg { return leaveFormMsg{} }
		}
		_, cmd := fv.form.Update(k)
		return tea.Batch(tagCmd(fv.tab, cmd), fv.checkDone(c), fv.resize(c))
	case phaseSending:
		return nil // one request at a time
	case phaseFailed:
		switch {
		case key.Matches(k, keys.SendAnyway) && asDuplicate(fv.err) != nil:
			// The second confirmation of a possible duplicate.
			if p, ok := fv.spec.(*payoutForm); ok {
				p.allowDuplicates(asDuplicate(fv.err))
				return fv.startSend(c)
			}
		case key.Matches(k, keys.Retry):
			if keyUnusable(fv.err) {
				// The key belongs to another request: sending it again
				// can only be refused again.
				return nil
			}
			return fv.startSend(c)
		case key.Matches(k, keys.Edit):
			target := fv.errorField()
			if asDuplicate(fv.err) != nil {
				// Stopped before sending: the payout keeps its id, and
				// e lands on the amount, what usually tells two
				// payments to one payee apart, not on the confirmation.
				target = fv.fieldKeys[owner("amount_in_minor", fv.spec.paths())]
			} else if keyUnusable(fv.err) || (fv.definite && !fv.mayExist) {
				// Nothing was created under the key (or another request
				// holds it), so the edited request is a new one.
				fv.key, fv.mayExist = c.newID(), false
			}
			fv.err = nil
			return tea.Batch(fv.rebuild(c), fv.advanceTo(c, target))
		case key.Matches(k, keys.NewForm):
			return fv.startOver(c)
		}
	case phaseDone:
		switch {
		case key.Matches(k, keys.NewForm):
			return fv.startOver(c)
		case key.Matches(k, keys.CopyResID):
			if id := fv.resultID(); id != "" {
				return c.copyText(id, fv.spec.noun()+" id "+id)
			}
		case key.Matches(k, keys.CopyToken) && fv.tab != tabPayout:
			if tok := fv.resultToken(); tok != "" {
				return c.copyText(tok, "resource token")
			}
		}
	}
	return nil
}

func (fv *formView) resultID() string {
	switch r := fv.resp.(type) {
	case *api.PayoutRequest:
		return r.TransactionID
	case *api.PaymentResponse:
		return r.ID
	case *api.MandateResponse:
		return r.ID
	}
	return ""
}

func (fv *formView) resultToken() string {
	switch r := fv.resp.(type) {
	case *api.PaymentResponse:
		return r.ResourceToken
	case *api.MandateResponse:
		return r.ResourceToken
	}
	return ""
}

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
	b.WriteString(c.st.title.Render(fv.spec.title()) + c.st.muted.Render(" · "+fv.spec.keyName()+" "+fv.key) + "\n")
	if fv.clearAsk {
		b.WriteString("\n" + c.st.warn.Render(wrapText("Clear this "+fv.spec.noun()+"? Everything typed goes and it gets a new "+fv.spec.keyName()+".  y = clear   any other key = keep", w)) + "\n")
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
				b.WriteString("\n" + hint)
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
		b.WriteString(c.st.warn.Render("Sending… attempt " + itoa(fv.attempts) + "; enter does nothing while the request is in flight"))
	case phaseFailed:
		b.WriteString(fv.failureView(c, w))
	case phaseDone:
		b.WriteString(fv.spec.result(c, fv, w))
	}
	return b.String()
}

func (fv *formView) failureView(c *viewContext, w int) string {
	if d := asDuplicate(fv.err); d != nil {
		return fv.duplicateView(c, d, w)
	}
	var b strings.Builder
	noun := strings.ToUpper(fv.spec.noun()[:1]) + fv.spec.noun()[1:]
	class := failureClass(fv.err)
	sent := class == payout.ClassRefused || class == payout.ClassUnknown
	if sent || keyUnusable(fv.err) {
		b.WriteString(c.st.bad.Render("✗ "+noun+" not created") + "\n\n")
	} else {
		b.WriteString(c.st.bad.Render("✗ "+noun+" not sent") + "\n\n")
	}
	b.WriteString(errorDetails(c, fv, fv.err, w))
	b.WriteString("\n")
	// What the answer means is the payout pipeline's wording, the same as
	// payout create's and the batch's; the keys to act on it are the form's.
	advice := func(a payout.Answer) string {
		s := a.Advice()
		if fv.tab != tabPayout {
			s = strings.ReplaceAll(s, "transaction id", fv.spec.keyName())
		}
		return strings.ToUpper(s[:1]) + s[1:] + "."
	}
	switch {
	case keyUnusable(fv.err):
		// Only an earlier attempt of this form can have used the key: one
		// whose answer was lost, before an edit. That one may exist.
		b.WriteString(c.st.warn.Render(wrapText("This edited "+fv.spec.noun()+" was not created, but an earlier attempt of this form reached the service under the same "+fv.spec.keyName()+
			" with the details as they were before your edit: that "+fv.spec.noun()+" may exist. Check it before sending this one: a fresh "+fv.spec.keyName()+" sends a second "+fv.spec.noun()+".", w)) + "\n")
		b.WriteString(c.st.muted.Render(wrapText("e edits (a fresh "+fv.spec.keyName()+"), n starts over.", w)) + "\n")
	case class == payout.ClassRefused:
		a := payout.Classify(fv.err)
		b.WriteString(c.st.muted.Render(wrapText(advice(a), w)) + "\n")
		if a.Reached {
			b.WriteString(c.st.muted.Render(wrapText("e edits (a fresh "+fv.spec.keyName()+"), enter retries as is, n starts over.", w)) + "\n")
		} else {
			b.WriteString(c.st.muted.Render(wrapText("enter sends it again, e edits, n starts over.", w)) + "\n")
		}
	case class == payout.ClassUnknown:
		b.WriteString(c.st.warn.Render(wrapText(advice(payout.Classify(fv.err))+" enter retries with the same "+fv.spec.keyName()+", so it can never be created twice.", w)) + "\n")
		b.WriteString(c.st.muted.Render(wrapText("e edits (same key: if the first attempt arrived, the service keeps it and refuses the edit), n discards and starts over.", w)) + "\n")
	case class == "":
		b.WriteString(c.st.warn.Render(wrapText("Nothing was sent: the checks before sending could not be made. enter tries again, e edits, n starts over.", w)) + "\n")
	default:
		// Stopped before sending (funds, account, invalid): e goes to the
		// field at fault.
		b.WriteString(c.st.muted.Render(wrapText("Nothing was sent. e goes to "+fv.name(errorPath(fv.err))+" to correct it, n starts over.", w)) + "\n")
	}
	return b.String()
}

// errorPath is the request path a failure names: its ErrorField (the payout
// pipeline's errors), else "".
func errorPath(err error) string {
	var f interface{ ErrorField() string }
	if errors.As(err, &f) {
		return f.ErrorField()
	}
	return ""
}

// errorDetails renders a service error (problem details, field errors,
// trace id) or any other error.
func errorDetails(c *viewContext, fv *formView, err error, w int) string {
	var b strings.Builder
	var ae *api.Error
	var ps api.Problems
	switch {
	case errors.As(err, &ps):
		b.WriteString(c.st.bold.Render("Fix these first:") + "\n")
		for _, d := range fv.described(ps) {
			b.WriteString(indent(wrapText(clean(d), w-2), "  ") + "\n")
		}
	case errors.As(err, &ae):
		title, detail := "HTTP "+itoa(ae.StatusCode), ""
		if p := ae.Problem; p != nil {
			if p.Title != "" {
				title = clean(p.Title) + " (HTTP " + itoa(ae.StatusCode) + ")"
			}
			detail = cleanLines(p.Detail)
		}
		b.WriteString(c.st.bold.Render(title) + "\n")
		if detail != "" {
			b.WriteString(wrapText(detail, w) + "\n")
		}
		if p := ae.Problem; p != nil && len(p.Errors) > 0 {
			fields := make([]string, 0, len(p.Errors))
			for f := range p.Errors {
				fields = append(fields, f)
			}
			slices.Sort(fields)
			b.WriteString("\n" + c.st.bold.Render("Field errors") + "\n")
			for _, f := range fields {
				// Whole, wrapped, and named as on the form.
				b.WriteString(indent(wrapText(clean(fv.name(f)+": "+fv.human(strings.Join(p.Errors[f], "; "))), w-2), "  ") + "\n")
			}
		}
		if ae.Problem == nil && len(ae.Body) > 0 {
			body := cleanLines(string(ae.Body))
			if len(body) > 300 {
				body = body[:300] + "…"
			}
			b.WriteString(wrapText(body, w) + "\n")
		}
		trace := ae.TraceID
		if trace == "" && ae.Problem != nil {
			trace = ae.Problem.TraceID
		}
		if trace != "" {
			b.WriteString(c.st.muted.Render("trace id "+clean(trace)) + "\n")
		}
		if ae.Method != "" {
			b.WriteString(c.st.muted.Render(ae.Method+" "+ae.URL) + "\n")
		}
	default:
		msg := cleanLines(err.Error())
		var ne net.Error
		if errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
			msg = "timed out after " + sendTimeout.String() + ": " + msg
		}
		b.WriteString(wrapText(msg, w) + "\n")
	}
	return b.String()
}

// indent puts pre before every line of s.
func indent(s, pre string) string {
	return pre + strings.ReplaceAll(s, "\n", "\n"+pre)
}

// wrapText breaks s into lines of at most w cells at spaces.
func wrapText(s string, w int) string {
	if w < 10 {
		return s
	}
	var out []string
	for _, para := range strings.Split(s, "\n") {
		line := ""
		for _, word := range strings.Fields(para) {
			if line != "" && width(line)+1+width(word) > w {
				out = append(out, line)
				line = ""
			}
			if line != "" {
				line += " "
			}
			line += word
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

// ---- field helpers shared by the three forms ----

// check returns a huh validator showing, at the field with this path, the
// api's problems that belong to it.
func (fv *formView) check(c *viewContext, path string) func(string) error {
	return func(string) error {
		err := problemsAt(fv.spec.problems(c, fv.key), path, fv.spec.paths())
		if err == nil {
			return nil
		}
		// Named after the field: the error line shows below the whole
		// page, not under the field it is about.
		return errors.New(fv.name(path) + ": " + fv.human(err.Error()))
	}
}

// name is what the operator calls the field with this request path: its
// title on the form, else the path itself.
func (fv *formView) name(path string) string {
	if l, ok := fv.labels[owner(path, fv.spec.paths())]; ok && l != "" {
		return l
	}
	return path
}

// human rewrites request paths in a message (the api's rules say "must be
// after constraints.valid_from") into the fields' titles.
func (fv *formView) human(msg string) string {
	paths := make([]string, 0, len(fv.labels))
	for p := range fv.labels {
		paths = append(paths, p)
	}
	// Longest first, so a.b.c is not rewritten as a's title + ".b.c".
	slices.SortFunc(paths, func(a, b string) int { return len(b) - len(a) })
	for _, p := range paths {
		if strings.Contains(msg, p) {
			msg = strings.ReplaceAll(msg, p, fv.labels[p])
		}
	}
	return msg
}

// described lists problems as "Field title: message".
func (fv *formView) described(ps api.Problems) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = fv.name(p.Field) + ": " + fv.human(p.Message)
	}
	return out
}

// owner is the field path a problem belongs to: the longest field path
// equal to or a dotted prefix of the problem's; "" when none is.
func owner(field string, paths []string) string {
	best := ""
	for _, p := range paths {
		if (field == p || strings.HasPrefix(field, p+".") || strings.HasPrefix(field, p+"[")) && len(p) > len(best) {
			best = p
		}
	}
	return best
}

func problemsAt(ps api.Problems, path string, paths []string) error {
	var msgs []string
	for _, p := range ps {
		if owner(p.Field, paths) == path {
			msgs = append(msgs, p.Message)
		}
	}
	if len(msgs) == 0 {
		return nil
	}
	return errors.New(strings.Join(msgs, "; "))
}

// unowned lists problems no field shows (cross-field rules), for the
// summary.
func unowned(ps api.Problems, paths []string) []string {
	var out []string
	for _, p := range ps {
		if owner(p.Field, paths) == "" {
			out = append(out, p.String())
		}
	}
	return out
}

// field records a field's title and key for its request path.
func (fv *formView) field(key, title, path string) {
	if fv.labels == nil {
		fv.labels, fv.fieldKeys = map[string]string{}, map[string]string{}
	}
	fv.labels[path] = strings.TrimSpace(title)
	fv.fieldKeys[path] = key
}

// fieldSelect is a select recorded as the field for path.
func (fv *formView) fieldSelect(key, title, path string) *huh.Select[string] {
	fv.field(key, title, path)
	return huh.NewSelect[string]().Key(key).Title(title)
}

func (fv *formView) input(c *viewContext, key, title, path string, val *string, placeholder string) *huh.Input {
	fv.field(key, title, path)
	return huh.NewInput().Key(key).Title(title).Placeholder(placeholder).Value(val).Inline(true).
		Validate(fv.check(c, path))
}

func (fv *formView) choice(c *viewContext, key, title, path string, val *string, opts ...huh.Option[string]) *huh.Select[string] {
	fv.field(key, title, path)
	return huh.NewSelect[string]().Key(key).Title(title).Options(opts...).Value(val).Inline(true).
		Validate(fv.check(c, path))
}

// splitList reads "GB, IE ,FR" as [GB IE FR].
func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// parseMetadata reads key=value lines; problems name the line.
func parseMetadata(s string, path string) (map[string]string, api.Problems) {
	var ps api.Problems
	var md map[string]string
	for i, line := range strings.Split(s, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			ps = append(ps, api.Problem{Field: path, Message: "line " + itoa(i+1) + ": write key=value"})
			continue
		}
		if md == nil {
			md = map[string]string{}
		}
		md[k] = strings.TrimSpace(v)
	}
	return md, ps
}

// errorField is the huh key of the field the last failure names (the
// first problem, or the service's first field error); the confirmation
// when it names none.
func (fv *formView) errorField() string {
	var fields []string
	var ps api.Problems
	var ae *api.Error
	switch {
	case errors.As(fv.err, &ps):
		for _, p := range ps {
			fields = append(fields, p.Field)
		}
	case errors.As(fv.err, &ae) && ae.Problem != nil && len(ae.Problem.Errors) > 0:
		for f := range ae.Problem.Errors {
			fields = append(fields, f)
		}
		slices.Sort(fields)
	case errorPath(fv.err) != "":
		// The payout pipeline names the field at fault (the amount for
		// funds, the source account for a disabled one).
		fields = append(fields, errorPath(fv.err))
	}
	for _, f := range fields {
		if k, ok := fv.fieldKeys[owner(f, fv.spec.paths())]; ok {
			return k
		}
	}
	return confirmKey
}

// advanceTo moves the rebuilt form forward to the field with this key,
// so e after a failure lands on the field to fix rather than on page 1
// of 6. It stops early at a field whose value does not validate, which
// is then the one to fix.
func (fv *formView) advanceTo(c *viewContext, fieldKey string) tea.Cmd {
	if fv.form == nil {
		return nil
	}
	var rest []tea.Cmd
	for range 200 {
		f := fv.form.GetFocusedField()
		if f == nil || f.GetKey() == fieldKey || fv.form.State != huh.StateNormal {
			break
		}
		before := f
		rest = append(rest, runFormCmd(fv.form, fv.form.NextField())...)
		if fv.form.GetFocusedField() == before {
			break // held by validation
		}
	}
	tagged := make([]tea.Cmd, len(rest))
	for i, cmd := range rest {
		tagged[i] = tagCmd(fv.tab, cmd)
	}
	return tea.Batch(append(tagged, fv.resize(c))...)
}

// runFormCmd runs a huh command synchronously and feeds its messages to
// the form, returning the commands it cannot run here (timers).
func runFormCmd(f *huh.Form, cmd tea.Cmd) []tea.Cmd {
	if cmd == nil || isCursorBlink(cmd) {
		return nil
	}
	msg := cmd()
	switch msg := msg.(type) {
	case nil:
		return nil
	case tea.BatchMsg:
		var out []tea.Cmd
		for _, c := range msg {
			out = append(out, runFormCmd(f, c)...)
		}
		return out
	}
	if v := reflect.ValueOf(msg); v.Kind() == reflect.Slice && v.Type().Elem() == cmdType {
		var out []tea.Cmd
		for i := range v.Len() {
			c, _ := v.Index(i).Interface().(tea.Cmd)
			out = append(out, runFormCmd(f, c)...)
		}
		return out
	}
	_, next := f.Update(msg)
	return runFormCmd(f, next)
}
