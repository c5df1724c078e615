package ui

import (
	"context"
	"errors"
	"strings"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/payout"
)

// PayoutGuard is the payout pipeline the form sends through
// (*payout.Pipeline is one): WithService gives the pipeline sending
// through the dashboard's backend, Recorded the payouts the audit record
// holds among ids, as they were sent (the tracker's payee and amount for
// payouts the report lacks).
type PayoutGuard interface {
	WithService(svc payout.Service) *payout.Pipeline
	Recorded(ids map[string]bool) (map[string]api.PayoutRequest, error)
}

// guardedSend runs the form's payout through the payout pipeline (check,
// record, send, classify, record): the form keeps no step of its own. A
// payout matching one already made comes back as a *payout.DuplicateError
// and nothing is sent, unless every match is one the operator confirmed a
// second time (acked). Without a guard only the send and its
// classification run.
func guardedSend(ctx context.Context, g PayoutGuard, be Backend, req *api.PayoutRequest, acked map[string]bool) error {
	pl := &payout.Pipeline{Sender: be, Source: payout.SourceForm}
	if g != nil {
		pl = g.WithService(be)
	}
	_, err := pl.Run(ctx, req, payout.Options{Acked: acked}, payout.Hooks{})
	return err
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
		// The date is 16 wide; the key column leaves a gap after it. The
		// reference stays on one line with its label (a no-break space).
		b.WriteString(wrapRowW(c, m.At.In(c.loc).Format("2006-01-02 15:04"), m.TransactionID+" · "+api.FormatAmount(m.AmountInMinor, m.Currency)+
			" to "+m.Name+" · "+m.IBAN+" · ref\u00a0"+m.Reference+" (from the "+m.Where+")", w, summaryKeyW+2))
	}
	b.WriteString("\n" + c.st.warn.Render(wrapText(keyOf(c.keys.SendAnyway)+" sends it anyway as a second payment · "+keyOf(c.keys.Edit)+" edits · "+keyOf(c.keys.NewForm)+" discards it", w)) + "\n")
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
