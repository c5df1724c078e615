package ui

import (
	"context"
	"errors"
	"net/http"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/payout"
	"github.com/paydash/paydash/internal/platform/termtext"
	"github.com/paydash/paydash/webhookrelay/hub/hubapi"
	"github.com/paydash/paydash/webhookrelay/hub/hubclient"
)

// On a team profile (payouts_via_relay) the payout form sends through the
// team's hub with the operator's own token, as `payout create` does: the
// hub runs the payout pipeline (validate, funds, duplicates, record,
// send, classify) and its policy, with the signing key only it holds.
// The form keeps no rule of its own: it shows each of the hub's answers
// the way it shows the pipeline's.

// hubSent is the hub's answer to the form's payout when the hub took it:
// sent at once, or awaiting approval.
type hubSent struct {
	req *api.PayoutRequest
	res hubapi.Result
}

// awaiting reports that the payout waits for other people's approval.
func (s *hubSent) awaiting() bool { return s.res.Status == hubapi.StatusAwaitingApproval }

// payoutOf is the payout a form's result is about.
func payoutOf(resp any) *api.PayoutRequest {
	switch r := resp.(type) {
	case *api.PayoutRequest:
		return r
	case *hubSent:
		return r.req
	}
	return nil
}

// hubRefusal is an answer of the hub after which the form did not get its
// payout through: the hub's own refusal (funds, no account, invalid),
// or the service's answer to the hub's send (refused, unknown). Its
// class is the pipeline's, so the form's failure screen reads it as it
// reads the pipeline's errors.
type hubRefusal struct {
	class      string
	field      string
	detail     string
	approvalID string
}

func (e *hubRefusal) Error() string {
	s := "the team's hub: " + e.detail
	if e.approvalID != "" {
		s += " (" + e.approvalID + ")"
	}
	return s
}

// ErrorClass is the pipeline's class of the answer.
func (e *hubRefusal) ErrorClass() string { return e.class }

// ErrorField is the request path at fault, when the class names one.
func (e *hubRefusal) ErrorField() string { return e.field }

// answer is the refusal as the pipeline's classifier says it: the
// service's answer to the hub's send, which reached the service.
func (e *hubRefusal) answer() payout.Answer {
	return payout.Answer{Outcome: e.class, Reached: true, Err: e}
}

// hubDuplicate is the hub's duplicate check stopping the payout: nothing
// was requested, and the operator may confirm a second time, which asks
// the hub again with allow_duplicate (payout create's --allow-duplicate).
type hubDuplicate struct{ detail string }

func (e *hubDuplicate) Error() string { return "the team's hub: " + e.detail }

// ErrorClass is ClassDuplicate.
func (e *hubDuplicate) ErrorClass() string { return payout.ClassDuplicate }

func asHubDuplicate(err error) *hubDuplicate {
	var d *hubDuplicate
	if errors.As(err, &d) {
		return d
	}
	return nil
}

// sendViaHub submits the form's payout to the hub under the form's
// transaction id: a retry after a lost answer finds the request the
// first attempt made (the hub returns it, never a second one).
func (p *payoutForm) sendViaHub(c *viewContext, req *api.PayoutRequest, key string) tea.Cmd {
	h, ctx := c.opts.Approvals, c.ctx
	sub := hubapi.Submission{PayoutRequest: *req, AllowDuplicate: p.hubAllowDup}
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, sendTimeout)
		defer cancel()
		res, err := h.Submit(ctx, sub)
		if err != nil {
			return sentMsg{tab: tabPayout, key: key, resp: req, err: hubSubmitError(err, req.TransactionID)}
		}
		if err := hubOutcome(res); err != nil {
			return sentMsg{tab: tabPayout, key: key, resp: req, err: err}
		}
		return sentMsg{tab: tabPayout, key: key, resp: &hubSent{req: req, res: safeResult(res)}}
	}
}

// safeResult is the hub's answer with the text it names, the form shows
// and the tracker keeps made safe to draw, once, as it arrives.
func safeResult(res hubapi.Result) hubapi.Result {
	res.ApprovalID, res.Reason = termtext.Safe(res.ApprovalID), termtext.Safe(res.Reason)
	approvers := make([]string, len(res.Approvers))
	for i, a := range res.Approvers {
		approvers[i] = termtext.Safe(a)
	}
	res.Approvers = approvers
	return res
}

// hubOutcome is the error of a request the hub stored but did not get
// sent: the service refused the hub's send, or its answer was lost.
func hubOutcome(res hubapi.Result) error {
	r := res.Request
	switch res.Status {
	case hubapi.StatusRefused:
		return &hubRefusal{class: payout.ClassRefused, detail: termtext.Safe(r.Detail), approvalID: termtext.Safe(res.ApprovalID)}
	case hubapi.StatusUnknown:
		return &hubRefusal{class: payout.ClassUnknown, detail: termtext.Safe(r.Detail), approvalID: termtext.Safe(res.ApprovalID)}
	}
	return nil
}

// hubSubmitError reads the hub's refusal of a submission by its reason
// (the pipeline's class): a duplicate waits for a second confirmation,
// funds, account and validity go to the field at fault, a check that
// could not run sent nothing. A refusal of the token or role sent
// nothing either (api.ErrNotSent, as for payments through the hub). Any
// other error (the hub did not answer, or failed after taking it) is
// left as it is: the pipeline's classifier reads it as unknown, and the
// form keeps its transaction id.
func hubSubmitError(err error, transactionID string) error {
	var he *hubclient.Error
	if !errors.As(err, &he) {
		return err
	}
	detail := termtext.Safe(he.Detail)
	switch he.Reason {
	case payout.ClassDuplicate:
		if he.TransactionIDUsedBy != "" {
			// The form's own transaction id, first sent with other
			// details (an attempt whose answer was lost, then edited).
			return &payout.IDUsedError{TransactionID: transactionID, Was: "for another payout on the team's hub (" + detail + ")"}
		}
		return &hubDuplicate{detail: detail}
	case payout.ClassFunds:
		return &hubRefusal{class: payout.ClassFunds, field: "amount_in_minor", detail: detail}
	case payout.ClassNoAccount:
		return &hubRefusal{class: payout.ClassNoAccount, field: "currency", detail: detail}
	case payout.ClassInvalid:
		return &hubRefusal{class: payout.ClassInvalid, detail: detail}
	case payout.ClassUnknown, "":
		if he.Status == http.StatusBadGateway {
			// The hub's check could not run (the service did not answer
			// it): nothing was requested or sent.
			return &payout.StageError{Stage: payout.StageCheck, Err: errors.New("the team's hub: " + detail)}
		}
	}
	if he.Status >= http.StatusInternalServerError {
		return err
	}
	if he.Status == http.StatusUnauthorized || he.Status == http.StatusForbidden {
		return &hubAccess{detail: detail}
	}
	return errors.Join(api.ErrNotSent, errors.New("the team's hub refused it: "+detail))
}

// classHubAccess is the failure class of a submission the hub refused
// for its token or role: nothing was sent, and neither sending it again
// nor editing it changes that.
const classHubAccess = "access"

// hubAccess is the hub refusing the operator's token or role (a view-only
// user, a token removed or rotated, the shared token).
type hubAccess struct{ detail string }

func (e *hubAccess) Error() string { return "the team's hub refused it: " + e.detail }

// ErrorClass is classHubAccess.
func (e *hubAccess) ErrorClass() string { return classHubAccess }

// hubDuplicateView is the second confirmation of a duplicate the hub's
// check found: its words, and the one key that asks again.
func (fv *formView) hubDuplicateView(c *viewContext, d *hubDuplicate, w int) string {
	var b strings.Builder
	b.WriteString(c.st.bad.Render("⚠ Possible duplicate: nothing was sent") + "\n\n")
	b.WriteString(wrapText(clean(d.detail), w) + "\n")
	b.WriteString("\n" + c.st.warn.Render(wrapText(keyOf(c.keys.SendAnyway)+" asks the hub again to send it as a second payment · "+keyOf(c.keys.Edit)+" edits · "+keyOf(c.keys.NewForm)+" discards it", w)) + "\n")
	return b.String()
}

// payoutRequestedMsg tells the root that the hub holds the form's payout
// for approval; the tracker shows it awaiting until the hub sends it.
type payoutRequestedMsg struct {
	req *api.PayoutRequest
	res hubapi.Result
}

// onHubSent is onSent for the hub's answer.
func (p *payoutForm) onHubSent(c *viewContext, s *hubSent) tea.Cmd {
	p.progress = nil
	req := s.req
	if s.awaiting() {
		c.setFlash("payout "+req.TransactionID+" awaits approval ("+s.res.ApprovalID+"): follow it in "+tabKeyName(tabPayouts)+" Payouts", false)
		return func() tea.Msg { return payoutRequestedMsg{req: req, res: s.res} }
	}
	c.setFlash("payout "+req.TransactionID+" sent through the team's hub: follow it in "+tabKeyName(tabPayouts)+" Payouts", false)
	return func() tea.Msg { return payoutAcceptedMsg{req: req, approvalID: s.res.ApprovalID} }
}

// awaitingResult heads the result of a payout the hub holds for
// approval, as `payout create` says it: who may approve, how many must.
func (p *payoutForm) awaitingResult(c *viewContext, s *hubSent, w int) string {
	var b strings.Builder
	who := "nobody yet: ask an administrator to add an approver"
	if len(s.res.Approvers) > 0 {
		who = strings.Join(s.res.Approvers, ", ")
	}
	b.WriteString(c.st.warn.Render(wrapText("◷ Awaiting approval: "+s.res.ApprovalID+" ("+clean(s.res.Reason)+")", w)) + "\n")
	b.WriteString(wrapText("Nothing is sent until "+itoa(max(s.res.ApprovalsNeeded, 1))+" of "+clean(who)+" approve. The transaction id is fixed: approved, it is sent once under it.", w) + "\n")
	return b.String()
}
