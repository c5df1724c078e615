package ui

import (
	"context"
	"slices"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/platform/termtext"
	"github.com/paydash/paydash/webhookrelay/hub/hubapi"
)

// The tracker's states of a payout the form asked the team's hub for,
// before the service has it: the hub's request status, said for the
// operator. None is a payout state (api.StateRank 0), so the first
// webhook of the payout, once sent, moves it on; none is final, so the
// audit record never takes one as a payout's outcome.
const (
	stateAwaiting    = "awaiting approval"
	stateApproved    = "approved"     // approved, being sent by the hub
	stateNotApproved = "not approved" // rejected by an approver
	stateLapsed      = "lapsed"       // nobody approved it in time
	stateHubRefused  = "refused"      // the service refused the hub's send
	stateHubUnknown  = "answer lost"  // the hub sent it; the service's answer was lost
)

// hubWaiting reports a tracker state of a request still open on the hub.
func hubWaiting(state string) bool { return state == stateAwaiting || state == stateApproved }

// hubClosed reports a tracker state of a request the hub decided without
// any payout being made: nothing follows it.
func hubClosed(state string) bool {
	return state == stateNotApproved || state == stateLapsed || state == stateHubRefused
}

// addRequested tracks a payout the hub holds for approval: this
// session's own, shown awaiting until the hub says it was sent.
func (v *trackerView) addRequested(c *viewContext, req *api.PayoutRequest, res hubapi.Result) {
	p := v.get(c, req.TransactionID)
	p.mine, p.req, p.approvalID = true, req, res.ApprovalID
	v.touch(p)
	if p.state == "" {
		p.state = stateAwaiting
		p.reason = termtext.Safe(res.Reason)
	}
	p.steps = append(p.steps, payoutStep{state: stateAwaiting, at: c.now()})
	p.changedAt = c.now()
}

// throughHub notes the hub's request of a payout the hub sent at once.
func (v *trackerView) throughHub(id, approvalID string) {
	if p := v.byID[id]; p != nil && approvalID != "" {
		p.approvalID = approvalID
	}
}

// awaitingIDs are the approval ids of the tracked payouts still open on
// the hub.
func (v *trackerView) awaitingIDs() []string {
	var ids []string
	for _, p := range v.payouts.newestFirst() {
		if p.approvalID != "" && hubWaiting(p.state) {
			ids = append(ids, p.approvalID)
		}
	}
	return ids
}

// applyHub moves a tracked payout on by its request on the hub. Once the
// hub sent it, the relay's webhooks (or the report) take over; a state
// they gave already is never moved back.
func (v *trackerView) applyHub(c *viewContext, r hubapi.Request) bool {
	p := v.byID[r.TransactionID]
	if p == nil || p.approvalID != termtext.Safe(r.ID) || !hubWaiting(p.state) {
		return false
	}
	state, reason := stateAwaiting, p.reason
	switch r.Status {
	case hubapi.StatusPending:
		if len(r.ApprovedBy) > 0 {
			reason = "approved by " + strings.Join(r.ApprovedBy, ", ") + "; " + itoa(r.ApprovalsNeeded-len(r.ApprovedBy)) + " more to go"
		}
	case hubapi.StatusApproved, hubapi.StatusSending:
		state, reason = stateApproved, "approved by "+strings.Join(r.ApprovedBy, ", ")
	case hubapi.StatusSent:
		state, reason = stateSent, "approved by "+strings.Join(r.ApprovedBy, ", ")
	case hubapi.StatusRejected:
		state, reason = stateNotApproved, "rejected by "+r.RejectedBy+": "+r.Reason
	case hubapi.StatusLapsed:
		state, reason = stateLapsed, "nobody approved it in time; nothing was paid"
	case hubapi.StatusRefused:
		state, reason = stateHubRefused, r.Detail
	case hubapi.StatusUnknown:
		state, reason = stateHubUnknown, r.Detail
	}
	reason = termtext.Safe(reason)
	if state == p.state && reason == p.reason {
		return false
	}
	if state != p.state {
		p.steps = append(p.steps, payoutStep{state: state, at: c.now()})
	}
	p.state, p.reason, p.changedAt = state, reason, c.now()
	if state == stateSent && r.PayoutState != "" && api.StateRank(r.PayoutState) > 0 {
		// The hub followed it further already.
		p.steps = append(p.steps, payoutStep{state: r.PayoutState, at: c.now()})
		p.state = r.PayoutState
		v.noteState(p)
	}
	return true
}

// hubRequestMsg is the hub's answer about requests the tracker follows.
type hubRequestMsg struct{ rs []hubapi.Request }

// followHub asks the hub about the tracked payouts still open there that
// its list (rs, the Approvals view's last read) no longer shows: decided
// since (sent, rejected, lapsed). Those it shows move on from rs.
func (v *trackerView) followHub(c *viewContext, rs []hubapi.Request) (bool, tea.Cmd) {
	ids := v.awaitingIDs()
	if len(ids) == 0 {
		return false, nil
	}
	moved := false
	var gone []string
	for _, id := range ids {
		i := slices.IndexFunc(rs, func(r hubapi.Request) bool { return termtext.Safe(r.ID) == id })
		if i < 0 {
			gone = append(gone, id)
			continue
		}
		moved = v.applyHub(c, rs[i]) || moved
	}
	if len(gone) == 0 {
		return moved, nil
	}
	h, ctx := c.opts.Approvals, c.ctx
	return moved, func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, readTimeout)
		defer cancel()
		var out []hubapi.Request
		for _, id := range gone {
			// One the hub cannot say now is asked again at the next list.
			if r, err := h.Get(ctx, id); err == nil {
				out = append(out, r)
			}
		}
		return hubRequestMsg{rs: out}
	}
}
