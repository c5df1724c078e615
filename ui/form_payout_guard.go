package ui

import (
	"context"
	"errors"
	"strings"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/payout"
)

// PayoutGuard is the duplicate check and audit record the payout form
// sends through (*payout.Guard is one): Check before sending, Reserve
// records the attempt (refusing a duplicate the record shows unless
// allowed), Outcome records the answer. Recorded returns the payouts
// the record holds among ids, as they were sent: the tracker's payee and
// amount for payouts the report lacks.
type PayoutGuard interface {
	Check(ctx context.Context, req *api.PayoutRequest) ([]payout.Payment, error)
	Reserve(ctx context.Context, req *api.PayoutRequest, allowDuplicate bool) ([]payout.Payment, error)
	Outcome(id string, err error) error
	Recorded(ids map[string]bool) (map[string]api.PayoutRequest, error)
}

// guardedSend is the form's send with the guard: a payout matching one
// already made (record or report) comes back as a *payout.DuplicateError
// and nothing is sent, unless every match is one the operator confirmed a
// second time (acked).
func guardedSend(ctx context.Context, g PayoutGuard, be Backend, req *api.PayoutRequest, acked map[string]bool) error {
	if g == nil {
		return be.CreatePayout(ctx, req)
	}
	m, err := g.Check(ctx, req)
	if err != nil {
		return err
	}
	if !allAcked(m, acked) {
		return &payout.DuplicateError{Matches: m}
	}
	m, err = g.Reserve(ctx, req, len(m) > 0)
	if err != nil {
		return err
	}
	if !allAcked(m, acked) {
		return &payout.DuplicateError{Matches: m} // sent elsewhere since the check
	}
	err = be.CreatePayout(ctx, req)
	_ = g.Outcome(req.TransactionID, err) // the payout's fate does not hang on the record
	return err
}

func allAcked(m []payout.Payment, acked map[string]bool) bool {
	for _, p := range m {
		if !acked[p.TransactionID] {
			return false
		}
	}
	return true
}

func asDuplicate(err error) *payout.DuplicateError {
	var d *payout.DuplicateError
	if errors.As(err, &d) {
		return d
	}
	return nil
}

// duplicateView is the second confirmation: the earlier payouts with
// their date and id, and the one key that sends anyway.
func (fv *formView) duplicateView(c *viewContext, d *payout.DuplicateError, w int) string {
	var b strings.Builder
	b.WriteString(c.st.bad.Render("⚠ Possible duplicate: nothing was sent") + "\n\n")
	b.WriteString(wrapText("The same IBAN, amount, currency and reference were already paid:", w) + "\n")
	for _, m := range d.Matches {
		// The date is 16 wide; the key column leaves a gap after it.
		b.WriteString(wrapRowW(c, m.At.In(c.loc).Format("2006-01-02 15:04"), m.TransactionID+" · "+api.FormatAmount(m.AmountInMinor, m.Currency)+
			" to "+m.Name+" · "+m.IBAN+" · ref "+m.Reference+" (from the "+m.Where+")", w, summaryKeyW+2))
	}
	b.WriteString("\n" + c.st.warn.Render(wrapText("a sends it anyway as a second payment · e edits · n discards it", w)) + "\n")
	return b.String()
}

// allowDuplicates records that the operator confirmed, a second time,
// sending despite these matches.
func (p *payoutForm) allowDuplicates(d *payout.DuplicateError) {
	if p.acked == nil {
		p.acked = map[string]bool{}
	}
	for _, m := range d.Matches {
		p.acked[m.TransactionID] = true
	}
}
