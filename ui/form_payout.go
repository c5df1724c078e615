package ui

import (
	"context"
	"errors"
	"maps"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/huh"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/payout"
)

// payoutForm is the New payout form: one payout from a payout account.
// Its transaction_id is the formView's key: made once per form and reused
// on every retry, so the service can never pay the same form twice.
type payoutForm struct {
	account     string // currency|iban of the source account
	name        string
	iban        string
	reference   string
	amountText  string
	contextCode string
	// acked holds earlier payouts the operator confirmed, a second time,
	// to pay again (the duplicate check's second confirmation).
	acked map[string]bool
	// progress is the tracker's view of the payout this form sent, handed
	// over by the root as webhooks arrive.
	progress *trackedPayout
	// sourceSel is the source account choice of the form on screen.
	sourceSel *huh.Select[string]
	// hubAllowDup asks the team's hub to send despite its duplicate
	// check (the second confirmation); an edit asks the check again.
	hubAllowDup bool
}

func (p *payoutForm) title() string   { return "New payout" }
func (p *payoutForm) noun() string    { return "payout" }
func (p *payoutForm) keyName() string { return "transaction_id" }

func (p *payoutForm) reset(*viewContext) {
	*p = payoutForm{contextCode: api.ContextCodeWithdrawal}
}

func (p *payoutForm) pristine() bool {
	return p.name == "" && p.iban == "" && p.reference == "" && p.amountText == "" &&
		(p.contextCode == api.ContextCodeWithdrawal || p.contextCode == "")
}

func (p *payoutForm) paths() []string {
	return []string{"currency", "beneficiary_name", "beneficiary_iban", "beneficiary_reference", "amount_in_minor", "context_code"}
}

func (p *payoutForm) currency() string {
	cur, _, _ := strings.Cut(p.account, "|")
	return cur
}

// source is the chosen account's balance, if balances are loaded.
func (p *payoutForm) source(c *viewContext) *api.Balance {
	cur, iban, _ := strings.Cut(p.account, "|")
	return c.account(cur, iban)
}

// sourceOptions are the payout accounts with their available balance.
func sourceOptions(c *viewContext) []huh.Option[string] {
	var opts []huh.Option[string]
	for _, b := range c.accounts {
		label := b.Currency + " · " + rail(b.Currency) + " · " + b.IBAN + " · available " + api.FormatAmount(b.AvailableBalanceInMinor, b.Currency)
		if b.Status != api.AccountEnabled {
			label += " · " + b.Status
		}
		opts = append(opts, huh.NewOption(label, b.Currency+"|"+b.IBAN))
	}
	if len(opts) == 0 {
		// Balances not loaded (yet): the currency is still enough to send.
		for _, c := range []string{"GBP", "EUR"} {
			opts = append(opts, huh.NewOption(c+" account (balances not loaded yet)", c+"|"))
		}
	}
	return opts
}

// accountsChanged puts fresh balances in the open form's source choices
// (they went stale while the form was open), keeping the choice.
func (p *payoutForm) accountsChanged(c *viewContext) {
	if p.sourceSel != nil && len(c.accounts) > 0 {
		p.sourceSel.Options(sourceOptions(c)...)
	}
}

func (p *payoutForm) build(c *viewContext, fv *formView) []*huh.Group {
	opts := sourceOptions(c)
	p.hubAllowDup = false
	if p.account == "" {
		p.account = opts[0].Value
	}
	p.sourceSel = fv.fieldSelect("source", "Source account", "currency").Title("Source account").Options(opts...).Value(&p.account).
		Validate(fv.check(c, "currency"))
	return []*huh.Group{
		huh.NewGroup(
			p.sourceSel,
			fv.input(c, "name", "Beneficiary name ", "beneficiary_name", &p.name, "e.g. Ada Lovelace"),
			fv.input(c, "iban", "Beneficiary IBAN ", "beneficiary_iban", &p.iban, "e.g. GB33 BUKB 2020 1555 5555 55"),
		).Title("New payout · 1/2 · from and to"),
		huh.NewGroup(
			fv.input(c, "reference", "Reference        ", "beneficiary_reference", &p.reference, "e.g. INV-2025-001"),
			fv.input(c, "amount", "Amount           ", "amount_in_minor", &p.amountText, "e.g. 1,234.56 (major units)"),
			fv.input(c, "context", "Context code     ", "context_code", &p.contextCode, "e.g. "+api.ContextCodeWithdrawal),
		).Title("New payout · 2/2 · what"),
	}
}

func (p *payoutForm) amount(*viewContext) (int64, string, bool) {
	minor, err := api.ParseAmount(p.amountText, p.currency(), false)
	return minor, p.currency(), err == nil
}

// request builds the payout; problems are what the form could not parse.
func (p *payoutForm) request(key string) (*api.PayoutRequest, api.Problems) {
	var ps api.Problems
	minor, err := api.ParseAmount(strings.TrimSpace(p.amountText), p.currency(), false)
	if err != nil {
		ps = append(ps, api.Problem{Field: "amount_in_minor", Message: err.Error()})
	}
	return &api.PayoutRequest{
		TransactionID:        key,
		BeneficiaryName:      strings.TrimSpace(p.name),
		BeneficiaryIBAN:      api.NormalizeIBAN(p.iban),
		BeneficiaryReference: strings.TrimSpace(p.reference),
		Currency:             p.currency(),
		AmountInMinor:        minor,
		ContextCode:          strings.TrimSpace(p.contextCode),
	}, ps
}

func (p *payoutForm) problems(_ *viewContext, key string) api.Problems {
	req, ps := p.request(key)
	return mergeProblems(ps, api.ValidatePayout(req))
}

// mergeProblems adds the validator's problems to the form's own parse
// problems, dropping the validator's for a field the form already
// reported (an unparsable amount would otherwise also be "zero").
func mergeProblems(own, validated api.Problems) api.Problems {
	seen := map[string]bool{}
	for _, p := range own {
		seen[p.Field] = true
	}
	out := own
	for _, p := range validated {
		if !seen[p.Field] {
			out = append(out, p)
		}
	}
	return out
}

func (p *payoutForm) hint(c *viewContext, key string) string {
	switch key {
	case "iban":
		if strings.TrimSpace(p.iban) == "" {
			return c.st.muted.Render("IBAN is checked as you type (country, length, checksum)")
		}
		if err := api.ValidateIBAN(api.NormalizeIBAN(p.iban)); err != nil {
			return c.st.bad.Render("✗ " + err.Error())
		}
		if err := api.RailRefusal(p.currency(), p.iban); err != nil {
			return c.st.bad.Render("✗ IBAN " + err.Error())
		}
		return c.st.good.Render("✓ valid IBAN " + api.NormalizeIBAN(p.iban))
	case "amount":
		if strings.TrimSpace(p.amountText) == "" {
			return c.st.muted.Render("in " + p.currency() + " major units, e.g. 1,234.56")
		}
		minor, cur, ok := p.amount(c)
		if !ok {
			_, err := api.ParseAmount(p.amountText, cur, false)
			return c.st.bad.Render("✗ " + err.Error())
		}
		s := c.st.good.Render("= " + api.FormatAmount(minor, cur))
		if w := p.overdraw(c, minor); w != "" {
			s += "  " + c.st.warn.Render(w)
		}
		return s
	case "source":
		s := c.st.muted.Render("the payout's currency is the account's")
		if w := p.overdraw(c, 0); w != "" {
			s += "  " + c.st.warn.Render(w)
		}
		return s
	}
	return ""
}

// overdraw warns, before the operator confirms, of what the payout
// pipeline's funds check (payout.CheckFunds, the rule payout create and
// the batch refuse by) will stop: an amount above the available
// balance, or a disabled account. "" when balances are not loaded.
func (p *payoutForm) overdraw(c *viewContext, minor int64) string {
	if len(c.accounts) == 0 {
		return ""
	}
	accts := c.accounts
	if b := p.source(c); b != nil {
		accts = []api.Balance{*b}
	}
	_, err := payout.CheckFunds(accts, p.currency(), minor)
	var funds *payout.FundsError
	var acct *payout.AccountError
	switch {
	case errors.As(err, &funds):
		return "⚠ more than the available " + api.FormatAmount(funds.AvailableInMinor, funds.Currency) + ": the service will reject it"
	case errors.As(err, &acct) && acct.Disabled:
		return "⚠ the " + acct.Currency + " payout account is disabled and takes no payouts: pick another source account"
	case errors.As(err, &acct):
		return "⚠ there is no " + acct.Currency + " payout account: pick another source account"
	}
	return ""
}

func (p *payoutForm) summary(c *viewContext, fv *formView, w int) string {
	req, _ := p.request(fv.key)
	var b strings.Builder
	row := func(k, v string) { b.WriteString(wrapRow(c, k, v, w)) }
	from := req.Currency + " account"
	if src := p.source(c); src != nil {
		from = req.Currency + " · " + src.IBAN + " (available " + api.FormatAmount(src.AvailableBalanceInMinor, src.Currency) + ")"
	}
	row("from", from)
	row("to", clean(req.BeneficiaryName))
	row("IBAN", clean(req.BeneficiaryIBAN))
	row("reference", clean(req.BeneficiaryReference))
	row("amount", c.st.bold.Render(api.FormatAmount(req.AmountInMinor, req.Currency))+" ("+req.Currency+")")
	row("context code", req.ContextCode)
	row("transaction id", req.TransactionID+" (fixed: a retry cannot pay twice)")
	if s := p.overdraw(c, req.AmountInMinor); s != "" {
		b.WriteString(indent(c.st.warn.Render(wrapText(s, w-2)), "  ") + "\n")
	}
	for _, u := range unowned(p.problems(c, fv.key), p.paths()) {
		b.WriteString("  " + c.st.bad.Render("✗ "+fv.human(u)) + "\n")
	}
	return b.String()
}

func (p *payoutForm) send(c *viewContext, key string) tea.Cmd {
	req, _ := p.request(key)
	if c.teamMode() {
		return p.sendViaHub(c, req, key)
	}
	be, ctx, g := c.opts.Backend, c.ctx, c.opts.Guard
	acked := maps.Clone(p.acked)
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, sendTimeout)
		defer cancel()
		err := guardedSend(ctx, g, be, req, acked)
		return sentMsg{tab: tabPayout, key: key, resp: req, err: err}
	}
}

// payoutAcceptedMsg tells the root that the service accepted a payout;
// it routes it to the tracker. approvalID names the team hub's request
// when the hub sent it.
type payoutAcceptedMsg struct {
	req        *api.PayoutRequest
	approvalID string
}

func (p *payoutForm) onSent(c *viewContext, _ *formView, msg sentMsg) tea.Cmd {
	if s, ok := msg.resp.(*hubSent); ok {
		return p.onHubSent(c, s)
	}
	req := msg.resp.(*api.PayoutRequest)
	p.progress = nil
	c.setFlash("payout "+req.TransactionID+" accepted: follow it in "+tabKeyName(tabPayouts)+" Payouts", false)
	return func() tea.Msg { return payoutAcceptedMsg{req: req} }
}

func (p *payoutForm) result(c *viewContext, fv *formView, w int) string {
	req := payoutOf(fv.resp)
	if req == nil {
		return ""
	}
	var b strings.Builder
	t := p.progress
	viaHub, _ := fv.resp.(*hubSent)
	// The headline follows the webhooks: an accepted payout can still be
	// rejected or fail, and a green tick above "rejected" would mislead.
	switch {
	case viaHub != nil && t != nil && hubClosed(t.state):
		// Decided on the hub without being paid: rejected, lapsed, or
		// refused by the service when the hub sent it.
		head := "✗ Not paid: " + t.state
		if t.reason != "" {
			head += ": " + t.reason
		}
		b.WriteString(c.st.bad.Render(wrapText(clean(head), w)) + "\n")
	case viaHub != nil && viaHub.awaiting() && (t == nil || hubWaiting(t.state)):
		b.WriteString(p.awaitingResult(c, viaHub, w))
	case t != nil && api.StateUnpaid(t.state):
		head := "✗ Payout accepted (202), then " + t.state
		if t.reason != "" {
			head += ": " + t.reason
		}
		b.WriteString(c.st.bad.Render(clean(head)) + "\n")
	case t != nil && api.StatePaid(t.state):
		b.WriteString(c.st.good.Render("✓ Payout accepted (202) and "+t.state) + "\n")
	case c.relayLive:
		b.WriteString(c.st.good.Render("✓ Payout accepted (202): the outcome arrives by webhook (relay live)") + "\n")
	default:
		b.WriteString(c.st.good.Render(wrapText("✓ Payout accepted (202): the relay is not live, so paydash polls the transaction report for the outcome", w)) + "\n")
	}
	if t != nil && t.stateSource() != "" {
		b.WriteString(c.st.muted.Render("  state "+t.stateSource()) + "\n")
	}
	if t != nil && t.note != "" {
		b.WriteString(c.st.warn.Render(wrapText("  "+t.note, w)) + "\n")
	}
	b.WriteString("\n")
	row := func(k, v string) { b.WriteString(wrapRow(c, k, v, w)) }
	row("transaction id", req.TransactionID)
	if viaHub != nil {
		row("approval id", viaHub.res.ApprovalID+" (the team's hub)")
	}
	row("amount", api.FormatAmount(req.AmountInMinor, req.Currency)+" ("+req.Currency+")")
	row("to", clean(req.BeneficiaryName))
	row("IBAN", clean(req.BeneficiaryIBAN))
	row("reference", clean(req.BeneficiaryReference))
	if t != nil {
		st := t.state
		if t.reason != "" {
			st += " (" + t.reason + ")"
		}
		row("state now", c.stateStyle(t.state).Render(clean(st)))
		row("timeline", timeline(t, c.now()))
	}
	if p.correctable() {
		b.WriteString("\n" + c.st.warn.Render(wrapText("Nothing was paid. "+keyOf(c.keys.Correct)+" fills this payout in again under a new transaction id, to correct and send.", w)))
	}
	b.WriteString("\n" + c.st.muted.Render(tabKeyName(tabPayouts)+" opens the tracker · "+keyOf(c.keys.NewForm)+" new payout · "+keyOf(c.keys.CopyResID)+" copy id"))
	return b.String()
}
