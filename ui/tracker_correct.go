package ui

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/paydash/paydash/api"
)

// A payout this dashboard sent that was rejected (or failed) after the
// service accepted it is corrected from the tracker too (e, or the row's
// actions): the payout form opens filled in with it, under a new
// transaction id. Nothing was paid, so the correction is a new payout.

// correctPayoutMsg asks the root to open the payout form filled in with
// req, to correct and send.
type correctPayoutMsg struct{ req api.PayoutRequest }

// correctable reports that p can be corrected from the tracker: it was
// sent from here (the request is known whole) and ended rejected or
// failed, or the team's hub closed its request unpaid (not approved,
// lapsed, refused): the hub holds its transaction id, so the correction
// goes under a new one.
func (p *trackedPayout) correctable() bool {
	return p.mine && p.req != nil && (p.state == api.StateRejected || p.state == api.StateFailed || hubClosed(p.state))
}

// correctCmd is the tracker's e on a payout.
func correctCmd(p *trackedPayout) tea.Cmd {
	req := *p.req
	return func() tea.Msg { return correctPayoutMsg{req: req} }
}

// correctKeys adds the correction to the tracker's keys for p.
func correctKeys(c *viewContext, p *trackedPayout) []key.Binding {
	if p != nil && p.correctable() && c.sends() {
		return []key.Binding{c.keys.Correct}
	}
	return nil
}

// refiller is a form that can be filled in again with a request it sent.
type refiller interface {
	refill(req any)
}

// refill puts a sent payout's details back into the form.
func (p *payoutForm) refill(req any) {
	r, ok := req.(api.PayoutRequest)
	if !ok {
		return
	}
	src := p.account
	*p = payoutForm{
		name: r.BeneficiaryName, iban: r.BeneficiaryIBAN, reference: r.BeneficiaryReference,
		amountText: api.FormatAmountPlain(r.AmountInMinor, r.Currency), contextCode: r.ContextCode,
	}
	// The same source account when it still holds that currency.
	if cur, _, _ := strings.Cut(src, "|"); cur == r.Currency {
		p.account = src
	} else {
		p.account = r.Currency + "|"
	}
}

// correctFrom fills the form in again with req under a new key; a form
// holding unsent input is left alone (correcting would lose it).
func (fv *formView) correctFrom(c *viewContext, req any) tea.Cmd {
	rf, ok := fv.spec.(refiller)
	if !ok {
		return nil
	}
	if fv.unsent() {
		c.setFlash("the "+fv.spec.noun()+" form holds unsent input: send or clear it ("+keyOf(c.keys.ClearForm)+") first", true)
		return nil
	}
	if !fv.built {
		fv.spec.reset(c)
	}
	rf.refill(req)
	fv.built = true
	return fv.correct(c)
}
