package ui

import (
	tea "github.com/charmbracelet/bubbletea"

	"github.com/paydash/paydash/api"
)

// The payout form's parts of the generic form's optional interfaces
// (form_hooks.go).

func (p *payoutForm) held(err error) bool {
	return asDuplicate(err) != nil || asHubDuplicate(err) != nil
}

func (p *payoutForm) heldView(c *viewContext, fv *formView, err error, w int) string {
	if d := asHubDuplicate(err); d != nil {
		return fv.hubDuplicateView(c, d, w)
	}
	return fv.duplicateView(c, asDuplicate(err), w)
}

func (p *payoutForm) confirmHeld(err error) {
	if asHubDuplicate(err) != nil {
		p.hubAllowDup = true
		return
	}
	p.allowDuplicates(asDuplicate(err))
}

func (p *payoutForm) heldPath() string { return "amount_in_minor" }

func (p *payoutForm) resultID(resp any) string {
	if r := payoutOf(resp); r != nil {
		return r.TransactionID
	}
	return ""
}

func (p *payoutForm) resultToken(any) string { return "" }

// payoutProgressMsg is the tracker's view of the payout the form sent,
// routed to the form by the root as webhooks and polls move it.
type payoutProgressMsg struct{ p *trackedPayout }

func (p *payoutForm) follow(_ *viewContext, msg tea.Msg) {
	if m, ok := msg.(payoutProgressMsg); ok {
		p.progress = m.p
	}
}

// correctable: the payout was accepted, then rejected or failed, or the
// team's hub closed it unpaid (not approved, lapsed, refused); nothing
// was paid, so a corrected payout goes under a new transaction id.
func (p *payoutForm) correctable() bool {
	return p.progress != nil && (p.progress.state == api.StateRejected || p.progress.state == api.StateFailed || hubClosed(p.progress.state))
}

func (p *paymentForm) resultID(resp any) string {
	if r, ok := resp.(*api.PaymentResponse); ok {
		return r.ID
	}
	return ""
}

func (p *paymentForm) resultToken(resp any) string {
	if r, ok := resp.(*api.PaymentResponse); ok {
		return r.ResourceToken
	}
	return ""
}

func (p *mandateForm) resultID(resp any) string {
	if r, ok := resp.(*api.MandateResponse); ok {
		return r.ID
	}
	return ""
}

func (p *mandateForm) resultToken(resp any) string {
	if r, ok := resp.(*api.MandateResponse); ok {
		return r.ResourceToken
	}
	return ""
}
