package ui

import (
	"context"
	"errors"
	"net"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/huh"
	"github.com/charmbracelet/x/ansi"

	"github.com/paydash/paydash/api"
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
	reset(m *model)
	pristine() bool
	build(m *model, fv *formView) []*huh.Group
	// problems validates the whole request (including what the form
	// itself parses, such as amounts) with the api rules.
	problems(m *model, key string) api.Problems
	// paths lists the request paths the form has fields for; a problem
	// shows at the field whose path is its longest prefix.
	paths() []string
	hint(m *model, fieldKey string) string
	summary(m *model, fv *formView, w int) string
	send(m *model, key string) tea.Cmd
	onSent(m *model, fv *formView, msg sentMsg)
	result(m *model, fv *formView, w int) string
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
	attempts int
	sentAt   time.Time
	resp     any
	firstKey string
	// sized and sizedForm are the size last given to form, so an
	// unchanged size is not sent again.
	sized     [2]int
	sizedForm *huh.Form
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
func (fv *formView) focus(m *model) tea.Cmd {
	if !fv.built || (fv.phase == phaseEdit && fv.spec.pristine() && !fv.progressed()) {
		if !fv.built {
			fv.spec.reset(m)
			fv.key = m.newID()
		}
		return fv.rebuild(m)
	}
	return nil
}

// progressed reports whether the operator moved past the first field.
func (fv *formView) progressed() bool {
	if fv.form == nil {
		return false
	}
	f := fv.form.GetFocusedField()
	return f != nil && f.GetKey() != fv.firstKey
}

func (fv *formView) rebuild(m *model) tea.Cmd {
	groups := fv.spec.build(m, fv)
	confirm := huh.NewConfirm().Key(confirmKey).
		Title("Send this " + fv.spec.noun() + "?").
		Description("y sends · n goes back to edit (or ←/→ and enter)").
		Affirmative("Send").Negative("Back to edit").
		Value(&fv.confirm).
		Validate(func(ok bool) error {
			if !ok {
				return nil
			}
			if ps := fv.spec.problems(m, fv.key); len(ps) > 0 {
				return errors.New("cannot send yet: " + ps.Error())
			}
			return nil
		})
	last := []huh.Field{}
	if m.opts.Production {
		fv.retype = ""
		last = append(last, huh.NewInput().Key(retypeKey).
			Title("PRODUCTION: re-type the amount to confirm").
			Value(&fv.retype).
			Validate(func(s string) error { return fv.checkRetype(m, s) }))
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
	return tea.Batch(tagCmd(fv.tab, fv.form.Init()), fv.resize(m))
}

// checkRetype makes a production operator type the amount a second time.
func (fv *formView) checkRetype(m *model, s string) error {
	want, cur, ok := fv.amount(m)
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
func (fv *formView) amount(m *model) (int64, string, bool) {
	if a, ok := fv.spec.(interface {
		amount(m *model) (int64, string, bool)
	}); ok {
		return a.amount(m)
	}
	return 0, "", false
}

func formTheme() *huh.Theme {
	t := huh.ThemeCharm()
	return t
}

func (fv *formView) size(m *model) (int, int) {
	w := min(m.width, 100)
	h := m.height - 8
	if fv.summaryVisible() {
		h -= 12
	}
	return max(w, 20), max(h, 6)
}

// resize tells the huh form its size when that changed. It is called on
// every key (the summary above the confirmation takes room), and a huh
// resize lays out every group again: most of a keystroke's cost, which
// let typed keys queue up behind an enter still moving to the next field.
func (fv *formView) resize(m *model) tea.Cmd {
	if fv.form == nil || m.width == 0 {
		return nil
	}
	w, h := fv.size(m)
	if fv.sizedForm == fv.form && fv.sized == [2]int{w, h} {
		return nil
	}
	fv.sizedForm, fv.sized = fv.form, [2]int{w, h}
	_, cmd := fv.form.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return tagCmd(fv.tab, cmd)
}

// route delivers one of the form's own messages (from tagCmd).
func (fv *formView) route(m *model, msg tea.Msg) tea.Cmd {
	if fv.form == nil || fv.phase != phaseEdit {
		return nil
	}
	_, cmd := fv.form.Update(msg)
	return tea.Batch(tagCmd(fv.tab, cmd), fv.checkDone(m))
}

// checkDone acts once huh reports the form complete: send if confirmed,
// otherwise back to editing with every value kept.
func (fv *formView) checkDone(m *model) tea.Cmd {
	if fv.phase != phaseEdit || fv.form == nil || fv.form.State == huh.StateNormal {
		return nil
	}
	if fv.form.State == huh.StateCompleted && fv.confirm {
		return fv.startSend(m)
	}
	m.setFlash(fv.spec.noun()+" not sent: edit it and confirm again", false)
	return fv.rebuild(m)
}

// startSend sends exactly one request; while one is in flight, nothing
// can start another (a double enter is a no-op).
func (fv *formView) startSend(m *model) tea.Cmd {
	if fv.phase == phaseSending || fv.phase == phaseDone {
		return nil
	}
	if ps := fv.spec.problems(m, fv.key); len(ps) > 0 {
		fv.phase, fv.err, fv.definite = phaseFailed, ps, true
		return nil
	}
	if m.opts.Backend == nil {
		fv.phase, fv.err = phaseFailed, errors.New("no backend configured")
		return nil
	}
	fv.phase = phaseSending
	fv.attempts++
	fv.sentAt = m.now()
	return fv.spec.send(m, fv.key)
}

func (fv *formView) sent(m *model, msg sentMsg) tea.Cmd {
	if msg.key != fv.key || fv.phase != phaseSending {
		return nil // an answer for a form since discarded
	}
	if msg.err != nil {
		fv.phase, fv.err = phaseFailed, msg.err
		fv.definite = definiteRejection(msg.err)
		return nil
	}
	fv.phase, fv.err, fv.resp = phaseDone, nil, msg.resp
	fv.sentAt = m.now()
	fv.spec.onSent(m, fv, msg)
	return nil
}

// definiteRejection reports an error after which the service certainly
// created nothing: it answered with a 4xx other than timeout, conflict or
// rate limit.
func definiteRejection(err error) bool {
	var ae *api.Error
	if !errors.As(err, &ae) {
		return false
	}
	switch ae.StatusCode {
	case 408, 409, 425, 429:
		return false
	}
	return ae.StatusCode >= 400 && ae.StatusCode < 500
}

// startOver discards the form for a new one with a new key.
func (fv *formView) startOver(m *model) tea.Cmd {
	fv.spec.reset(m)
	fv.key = m.newID()
	fv.err, fv.resp, fv.attempts = nil, nil, 0
	return fv.rebuild(m)
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

// digitsFree reports that the focused field takes no digits: a choice
// list that is not being filtered, or the confirmation.
func (fv *formView) digitsFree() bool {
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

func (fv *formView) startFilter() (tea.Cmd, bool) { return nil, false }

var formKeys = struct {
	next, prev, retry, edit, newForm, copyID, copyToken key.Binding
}{
	next:      kb("enter", "enter/tab", "next field"),
	prev:      kb("shift+tab", "shift+tab", "previous field"),
	retry:     kb("enter", "enter", "retry (same key: cannot pay twice)"),
	edit:      kb("e", "e", "edit"),
	newForm:   kb("n", "n", "new form"),
	copyID:    kb("y", "y", "copy id"),
	copyToken: kb("t", "t", "copy resource token"),
}

func (fv *formView) keys() helpMap {
	switch fv.phase {
	case phaseEdit:
		return helpMap{
			short: []key.Binding{formKeys.next, formKeys.prev, kb("ctrl+n", "ctrl+n", "clear form")},
			full:  [][]key.Binding{{formKeys.next, formKeys.prev, kb("ctrl+n", "ctrl+n", "clear form (new key)")}, {kb("alt+1-7", "alt+1-7", "switch view, keeping input")}},
		}
	case phaseFailed:
		return helpMap{short: []key.Binding{formKeys.retry, formKeys.edit, formKeys.newForm}, full: [][]key.Binding{{formKeys.retry, formKeys.edit, formKeys.newForm}}}
	case phaseDone:
		b := []key.Binding{formKeys.newForm, formKeys.copyID}
		if fv.tab != tabPayout {
			b = append(b, formKeys.copyToken)
		}
		return helpMap{short: b, full: [][]key.Binding{b}}
	}
	return helpMap{}
}

func (fv *formView) update(m *model, k tea.KeyMsg) tea.Cmd {
	switch fv.phase {
	case phaseEdit:
		if fv.form == nil {
			return fv.focus(m)
		}
		if k.String() == "ctrl+n" {
			return fv.startOver(m)
		}
		_, cmd := fv.form.Update(k)
		return tea.Batch(tagCmd(fv.tab, cmd), fv.checkDone(m), fv.resize(m))
	case phaseSending:
		return nil // one request at a time
	case phaseFailed:
		switch k.String() {
		case "enter":
			return fv.startSend(m)
		case "e":
			if fv.definite {
				// Nothing was created, so the edited request is a new one.
				fv.key = m.newID()
			}
			fv.err = nil
			return fv.rebuild(m)
		case "n", "ctrl+n":
			return fv.startOver(m)
		}
	case phaseDone:
		switch k.String() {
		case "n", "ctrl+n":
			return fv.startOver(m)
		case "y":
			if id := fv.resultID(); id != "" {
				return m.copyText(id, fv.spec.noun()+" id "+id)
			}
		case "t":
			if tok := fv.resultToken(); tok != "" {
				return m.copyText(tok, "resource token")
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

func (fv *formView) view(m *model, w, h int) string {
	if !fv.built {
		return m.st.muted.Render("Opening the form…")
	}
	var b strings.Builder
	b.WriteString(m.st.title.Render(fv.spec.title()) + m.st.muted.Render(" · "+fv.spec.keyName()+" "+fv.key) + "\n")
	switch fv.phase {
	case phaseEdit:
		if fv.summaryVisible() {
			b.WriteString(fv.spec.summary(m, fv, w) + "\n")
		}
		b.WriteString(fv.form.View())
		hint := ""
		if f := fv.form.GetFocusedField(); f != nil {
			if hint = fv.spec.hint(m, f.GetKey()); hint != "" {
				b.WriteString("\n" + hint)
			}
		}
		// The errors that stop the operator moving on, each once: a hint
		// that already says it is enough.
		for _, err := range fv.form.Errors() {
			if msg := err.Error(); !strings.Contains(ansi.Strip(hint), msg) {
				b.WriteString("\n" + m.st.bad.Render(wrapText("✗ "+clean(msg), w)))
			}
		}
	case phaseSending:
		b.WriteString(fv.spec.summary(m, fv, w) + "\n")
		b.WriteString(m.st.warn.Render("Sending… attempt " + itoa(fv.attempts) + "; enter does nothing while the request is in flight"))
	case phaseFailed:
		b.WriteString(fv.failureView(m, w))
	case phaseDone:
		b.WriteString(fv.spec.result(m, fv, w))
	}
	return b.String()
}

func (fv *formView) failureView(m *model, w int) string {
	var b strings.Builder
	b.WriteString(m.st.bad.Render("✗ "+strings.ToUpper(fv.spec.noun()[:1])+fv.spec.noun()[1:]+" not created") + "\n\n")
	b.WriteString(errorDetails(m, fv.err, w))
	b.WriteString("\n")
	if fv.definite {
		b.WriteString(m.st.muted.Render(wrapText("The service refused it, so nothing was created. e edits (a fresh "+fv.spec.keyName()+"), enter retries as is, n starts over.", w)) + "\n")
	} else {
		b.WriteString(m.st.warn.Render(wrapText("The request may or may not have reached the service. enter retries with the same "+fv.spec.keyName()+", so it can never be created twice.", w)) + "\n")
		b.WriteString(m.st.muted.Render(wrapText("e edits (same key), n discards and starts over.", w)) + "\n")
	}
	return b.String()
}

// errorDetails renders a service error (problem details, field errors,
// trace id) or any other error.
func errorDetails(m *model, err error, w int) string {
	var b strings.Builder
	var ae *api.Error
	var ps api.Problems
	switch {
	case errors.As(err, &ps):
		b.WriteString(m.st.bold.Render("Fix these first:") + "\n")
		for _, p := range ps {
			b.WriteString("  " + fit(p.Field+": "+p.Message, w-2) + "\n")
		}
	case errors.As(err, &ae):
		title, detail := "HTTP "+itoa(ae.StatusCode), ""
		if p := ae.Problem; p != nil {
			if p.Title != "" {
				title = clean(p.Title) + " (HTTP " + itoa(ae.StatusCode) + ")"
			}
			detail = cleanLines(p.Detail)
		}
		b.WriteString(m.st.bold.Render(title) + "\n")
		if detail != "" {
			b.WriteString(wrapText(detail, w) + "\n")
		}
		if p := ae.Problem; p != nil && len(p.Errors) > 0 {
			fields := make([]string, 0, len(p.Errors))
			for f := range p.Errors {
				fields = append(fields, f)
			}
			slices.Sort(fields)
			b.WriteString("\n" + m.st.bold.Render("Field errors") + "\n")
			for _, f := range fields {
				b.WriteString("  " + fit(clean(f+": "+strings.Join(p.Errors[f], "; ")), w-2) + "\n")
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
			b.WriteString(m.st.muted.Render("trace id "+clean(trace)) + "\n")
		}
		if ae.Method != "" {
			b.WriteString(m.st.muted.Render(ae.Method+" "+ae.URL) + "\n")
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
func (fv *formView) check(m *model, path string) func(string) error {
	return func(string) error {
		return problemsAt(fv.spec.problems(m, fv.key), path, fv.spec.paths())
	}
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

func (fv *formView) input(m *model, key, title, path string, val *string, placeholder string) *huh.Input {
	return huh.NewInput().Key(key).Title(title).Placeholder(placeholder).Value(val).Inline(true).
		Validate(fv.check(m, path))
}

func (fv *formView) choice(m *model, key, title, path string, val *string, opts ...huh.Option[string]) *huh.Select[string] {
	return huh.NewSelect[string]().Key(key).Title(title).Options(opts...).Value(val).Inline(true).
		Validate(func(string) error { return problemsAt(fv.spec.problems(m, fv.key), path, fv.spec.paths()) })
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
