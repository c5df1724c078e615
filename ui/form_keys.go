package ui

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

func (fv *formView) keys(c *viewContext) helpMap {
	k := c.keys
	switch {
	case fv.clearAsk:
		return helpMap{short: []key.Binding{k.Yes, k.No}}
	case fv.phase == phaseEdit && fv.onConfirm() && fv.form.GetFocusedField().GetKey() == confirmKey:
		return confirmKeys(k)
	case fv.phase == phaseEdit && !fv.progressed():
		// On the first field there is no previous one.
		return helpMap{
			short: []key.Binding{k.Next, k.LeaveForm, k.ClearForm},
			full:  [][]key.Binding{{k.Next, k.ClearForm}, {k.LeaveForm, k.AltTabs}},
		}
	case fv.phase == phaseEdit:
		return helpMap{
			short: []key.Binding{k.Next, k.Prev, k.LeaveForm, k.ClearForm},
			full:  [][]key.Binding{{k.Next, k.Prev, k.ClearForm}, {k.LeaveForm, k.AltTabs}},
		}
	case fv.phase == phaseFailed && fv.heldErr(fv.err):
		return helpMap{short: []key.Binding{k.SendAnyway, k.Edit, k.NewForm}, full: [][]key.Binding{{k.SendAnyway, k.Edit, k.NewForm}}}
	case fv.phase == phaseFailed && keyUnusable(fv.err):
		// Retrying as is would be refused again: no enter.
		return helpMap{short: []key.Binding{k.Edit, k.NewForm}, full: [][]key.Binding{{k.Edit, k.NewForm}}}
	case fv.phase == phaseFailed:
		return helpMap{short: []key.Binding{k.Retry, k.Edit, k.NewForm}, full: [][]key.Binding{{k.Retry, k.Edit, k.NewForm}}}
	case fv.phase == phaseDone:
		b := []key.Binding{k.NewForm, k.CopyResID}
		if fv.resultToken() != "" {
			b = append(b, k.CopyToken)
		}
		if fv.correctable() {
			b = append([]key.Binding{k.Correct}, b...)
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
		fv.noteFocus()
		return tea.Batch(tagCmd(fv.tab, cmd), fv.checkDone(c), fv.resize(c))
	case phaseSending:
		return nil // one request at a time
	case phaseFailed:
		switch {
		case key.Matches(k, keys.SendAnyway) && fv.heldErr(fv.err):
			// The second confirmation of a possible duplicate.
			fv.spec.(heldSender).confirmHeld(fv.err)
			return fv.startSend(c)
		case key.Matches(k, keys.Retry):
			if keyUnusable(fv.err) {
				// The key belongs to another request: sending it again
				// can only be refused again.
				return nil
			}
			return fv.startSend(c)
		case key.Matches(k, keys.Edit):
			target := fv.errorField()
			if fv.heldErr(fv.err) {
				// Stopped before sending: the payout keeps its id, and
				// e lands on the amount, what usually tells two
				// payments to one payee apart, not on the confirmation.
				target = fv.fieldKeys[owner(fv.spec.(heldSender).heldPath(), fv.spec.paths())]
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
		case key.Matches(k, keys.Correct) && fv.correctable():
			return fv.correct(c)
		case key.Matches(k, keys.CopyToken):
			if tok := fv.resultToken(); tok != "" {
				return c.copyText(tok, "resource token")
			}
		}
	}
	return nil
}
