package ui

import (
	"errors"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/huh"
)

// The confirmation that ends every form. Its keys say what they do on
// it: y sends, n goes back to the page last edited, ←/→ choose and enter
// does the highlighted choice, which the description names as it
// changes (it said "enter submit" while enter went back to page 1).

// confirmField is the form's last question.
func (fv *formView) confirmField(c *viewContext) *huh.Confirm {
	k := c.keys
	return huh.NewConfirm().Key(confirmKey).
		Title("Send this "+fv.spec.noun()+"?").
		DescriptionFunc(func() string {
			does := "goes back to edit"
			if fv.confirm {
				does = "sends"
			}
			return hints(k.ConfirmSend, k.ConfirmBack, k.ConfirmChoose) + " · " + keyOf(k.ConfirmEnter) + " " + does
		}, &fv.confirm).
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
}

// formKeyMap is huh's keymap with the confirmation's help from paydash's
// keymap, so huh's help line and the bar agree with what the keys do.
func formKeyMap(c *viewContext) *huh.KeyMap {
	km := huh.NewDefaultKeyMap()
	k := c.keys
	km.Confirm.Accept.SetHelp(keyOf(k.ConfirmSend), k.ConfirmSend.Help().Desc)
	km.Confirm.Reject.SetHelp(keyOf(k.ConfirmBack), k.ConfirmBack.Help().Desc)
	km.Confirm.Toggle.SetHelp(keyOf(k.ConfirmChoose), k.ConfirmChoose.Help().Desc)
	km.Confirm.Submit.SetHelp(keyOf(k.ConfirmEnter), k.ConfirmEnter.Help().Desc)
	return km
}

// onConfirm reports that the confirmation (or the production re-type
// above it) has the focus.
func (fv *formView) onConfirm() bool {
	if fv.form == nil {
		return false
	}
	f := fv.form.GetFocusedField()
	return f != nil && (f.GetKey() == confirmKey || f.GetKey() == retypeKey)
}

// noteFocus remembers the field last edited before the confirmation:
// going back lands on its page.
func (fv *formView) noteFocus() {
	if fv.form == nil || fv.onConfirm() {
		return
	}
	if f := fv.form.GetFocusedField(); f != nil {
		fv.lastField = f.GetKey()
	}
}

// backTarget is the field "back to edit" lands on: the first one the
// rules find at fault, else the one last edited.
func (fv *formView) backTarget(c *viewContext) string {
	if ps := fv.spec.problems(c, fv.key); len(ps) > 0 {
		for _, p := range ps {
			if k, ok := fv.fieldKeys[owner(p.Field, fv.spec.paths())]; ok {
				return k
			}
		}
	}
	return fv.lastField
}

// backToEdit rebuilds the form with every value kept and opens it on the
// page of the field to edit, not on page 1.
func (fv *formView) backToEdit(c *viewContext) tea.Cmd {
	target := fv.backTarget(c)
	c.setFlash(fv.spec.noun()+" not sent: edit it and confirm again", false)
	cmd := fv.rebuild(c)
	if target == "" {
		return cmd
	}
	return tea.Batch(cmd, fv.advanceTo(c, target))
}

// confirmKeys is the help while the confirmation has the focus.
func confirmKeys(k *keyMap) helpMap {
	b := []key.Binding{k.ConfirmSend, k.ConfirmBack, k.ConfirmEnter, k.Prev, k.LeaveForm}
	return helpMap{short: b, full: [][]key.Binding{{k.ConfirmSend, k.ConfirmBack, k.ConfirmChoose, k.ConfirmEnter}, {k.Prev, k.LeaveForm, k.AltTabs}}}
}
