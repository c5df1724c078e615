package ui

import (
	tea "github.com/charmbracelet/bubbletea"
)

// What one kind of form adds to the generic form, as optional interfaces
// of its formSpec: the generic form asks, and never names a kind of form.

// heldSender is a form whose send can stop before anything goes out and
// wait for a second confirmation (the payout form's possible duplicate).
type heldSender interface {
	// held reports that err stopped the send before anything was sent.
	held(err error) bool
	// heldView is the screen that asks for the second confirmation.
	heldView(c *viewContext, fv *formView, err error, w int) string
	// confirmHeld records the second confirmation of what err held.
	confirmHeld(err error)
	// heldPath is the request path edit lands on after a held send: what
	// usually tells two payments to one payee apart.
	heldPath() string
}

// resulter names what the service answered an accepted send with.
type resulter interface {
	resultID(resp any) string
	// resultToken is the resource token the user flow needs ("" for
	// none).
	resultToken(resp any) string
}

// follower is a form whose result follows what happens after the send
// (the payout's webhooks); the root routes those messages to it.
type follower interface {
	follow(c *viewContext, msg tea.Msg)
}

// corrector is a form whose accepted send can still fail later (a payout
// rejected after acceptance): correctable reports that it did, and edit
// then fills the form in again under a new key.
type corrector interface {
	correctable() bool
}

// heldErr reports that err stopped the send before anything went out.
func (fv *formView) heldErr(err error) bool {
	h, ok := fv.spec.(heldSender)
	return ok && err != nil && h.held(err)
}

func (fv *formView) resultID() string {
	if r, ok := fv.spec.(resulter); ok && fv.resp != nil {
		return r.resultID(fv.resp)
	}
	return ""
}

func (fv *formView) resultToken() string {
	if r, ok := fv.spec.(resulter); ok && fv.resp != nil {
		return r.resultToken(fv.resp)
	}
	return ""
}

// doneID is the id of the accepted send whose result is on screen ("" in
// any other phase).
func (fv *formView) doneID() string {
	if fv.phase != phaseDone {
		return ""
	}
	return fv.resultID()
}

// deliver hands a following form a message about its sent request.
func (fv *formView) deliver(c *viewContext, msg tea.Msg) {
	if f, ok := fv.spec.(follower); ok {
		f.follow(c, msg)
	}
}

// correctable reports that the accepted send failed later and can be
// corrected from its result.
func (fv *formView) correctable() bool {
	cr, ok := fv.spec.(corrector)
	return ok && fv.phase == phaseDone && cr.correctable()
}

// correct fills the form in again with what was sent, under a new key:
// the failed request is final, so its correction is a new one.
func (fv *formView) correct(c *viewContext) tea.Cmd {
	fv.key = c.newID()
	fv.err, fv.resp, fv.attempts = nil, nil, 0
	c.setFlash(fv.spec.noun()+" filled in again with a new "+fv.spec.keyName()+": correct it and send", false)
	return fv.rebuild(c)
}
