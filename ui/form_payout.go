package ui

import (
	"context"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/huh"

	"github.com/paydash/paydash/api"
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
}

func (p *payoutForm) title() string   { return "New payout" }
func (p *payoutForm) noun() string    { return "payout" }
func (p *payoutForm) keyName() string { return "transaction_id" }

func (p *payoutForm) reset(*model) {
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
func (p *payoutForm) source(m *model) *api.Balance {
	cur, iban, _ := strings.Cut(p.account, "|")
	if r := m.bal.find(cur, iban); r != nil {
		return &r.b
	}
	return nil
}

func (p *payoutForm) build(m *model, fv *formView) []*huh.Group {
	var opts []huh.Option[string]
	for _, r := range m.bal.rows {
		b := r.b
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
	if p.account == "" {
		p.account = opts[0].Value
	}
	return []*huh.Group{
		huh.NewGroup(
			huh.NewSelect[string]().Key("source").Title("Source account").Options(opts...).Value(&p.account).
				Validate(func(string) error { return problemsAt(p.problems(m, fv.key), "currency", p.paths()) }),
			fv.input(m, "name", "Beneficiary name ", "beneficiary_name", &p.name, "e.g. Ada Lovelace"),
			fv.input(m, "iban", "Beneficiary IBAN ", "beneficiary_iban", &p.iban, "e.g. GB33 BUKB 2020 1555 5555 55"),
		).Title("New payout · 1/2 · from and to"),
		huh.NewGroup(
			fv.input(m, "reference", "Reference        ", "beneficiary_reference", &p.reference, "e.g. INV-2025-001"),
			fv.input(m, "amount", "Amount           ", "amount_in_minor", &p.amountText, "e.g. 1,234.56 (major units)"),
			fv.input(m, "context", "Context code     ", "context_code", &p.contextCode, "e.g. "+api.ContextCodeWithdrawal),
		).Title("New payout · 2/2 · what"),
	}
}

func (p *payoutForm) amount(*model) (int64, string, bool) {
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

func (p *payoutForm) problems(_ *model, key string) api.Problems {
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

func (p *payoutForm) hint(m *model, key string) string {
	switch key {
	case "iban":
		if strings.TrimSpace(p.iban) == "" {
			return m.st.muted.Render("IBAN is checked as you type (country, length, checksum)")
		}
		if err := api.ValidateIBAN(api.NormalizeIBAN(p.iban)); err != nil {
			return m.st.bad.Render("✗ " + err.Error())
		}
		return m.st.good.Render("✓ valid IBAN " + api.NormalizeIBAN(p.iban))
	case "amount":
		if strings.TrimSpace(p.amountText) == "" {
			return m.st.muted.Render("in " + p.currency() + " major units, e.g. 1,234.56")
		}
		minor, cur, ok := p.amount(m)
		if !ok {
			_, err := api.ParseAmount(p.amountText, cur, false)
			return m.st.bad.Render("✗ " + err.Error())
		}
		s := m.st.good.Render("= " + api.FormatAmount(minor, cur))
		if w := p.overdraw(m, minor); w != "" {
			s += "  " + m.st.warn.Render(w)
		}
		return s
	case "source":
		return m.st.muted.Render("the payout's currency is the account's")
	}
	return ""
}

func (p *payoutForm) overdraw(m *model, minor int64) string {
	if b := p.source(m); b != nil && minor > b.AvailableBalanceInMinor {
		return "⚠ more than the available " + api.FormatAmount(b.AvailableBalanceInMinor, b.Currency) + ": the service will reject it"
	}
	return ""
}

func (p *payoutForm) summary(m *model, fv *formView, w int) string {
	req, _ := p.request(fv.key)
	var b strings.Builder
	row := func(k, v string) { b.WriteString("  " + m.st.muted.Render(fit(k, 16)) + fit(v, w-18) + "\n") }
	from := req.Currency + " account"
	if src := p.source(m); src != nil {
		from = req.Currency + " · " + src.IBAN + " (available " + api.FormatAmount(src.AvailableBalanceInMinor, src.Currency) + ")"
	}
	row("from", from)
	row("to", req.BeneficiaryName+" · "+req.BeneficiaryIBAN)
	row("reference", req.BeneficiaryReference)
	row("amount", m.st.bold.Render(api.FormatAmount(req.AmountInMinor, req.Currency)))
	row("context code", req.ContextCode)
	row("transaction id", req.TransactionID+" (fixed: a retry cannot pay twice)")
	if s := p.overdraw(m, req.AmountInMinor); s != "" {
		b.WriteString("  " + m.st.warn.Render(s) + "\n")
	}
	for _, u := range unowned(p.problems(m, fv.key), p.paths()) {
		b.WriteString("  " + m.st.bad.Render("✗ "+u) + "\n")
	}
	return b.String()
}

func (p *payoutForm) send(m *model, key string) tea.Cmd {
	req, _ := p.request(key)
	be, ctx := m.opts.Backend, m.ctx
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, sendTimeout)
		defer cancel()
		err := be.CreatePayout(ctx, req)
		return sentMsg{tab: tabPayout, key: key, resp: req, err: err}
	}
}

func (p *payoutForm) onSent(m *model, _ *formView, msg sentMsg) {
	req := msg.resp.(*api.PayoutRequest)
	m.tracker.addSent(m, req)
	m.setFlash("payout "+req.TransactionID+" accepted: follow it in 3 Payouts", false)
}

func (p *payoutForm) result(m *model, fv *formView, w int) string {
	req, _ := fv.resp.(*api.PayoutRequest)
	if req == nil {
		return ""
	}
	var b strings.Builder
	t := m.tracker.byID[req.TransactionID]
	// The headline follows the webhooks: an accepted payout can still be
	// rejected or fail, and a green tick above "rejected" would mislead.
	switch {
	case t != nil && (t.state == api.StateRejected || t.state == api.StateFailed):
		head := "✗ Payout accepted (202), then " + t.state
		if t.reason != "" {
			head += ": " + t.reason
		}
		b.WriteString(m.st.bad.Render(clean(head)) + "\n\n")
	case t != nil && (t.state == api.StateSettled || t.state == api.StateExecuted):
		b.WriteString(m.st.good.Render("✓ Payout accepted (202) and "+t.state) + "\n\n")
	default:
		b.WriteString(m.st.good.Render("✓ Payout accepted (202): the outcome arrives by webhook") + "\n\n")
	}
	row := func(k, v string) { b.WriteString("  " + m.st.muted.Render(fit(k, 16)) + fit(v, w-18) + "\n") }
	row("transaction id", req.TransactionID)
	row("amount", api.FormatAmount(req.AmountInMinor, req.Currency))
	row("to", req.BeneficiaryName+" · "+req.BeneficiaryIBAN)
	if t != nil {
		st := t.state
		if t.reason != "" {
			st += " (" + t.reason + ")"
		}
		row("state now", m.stateStyle(t.state).Render(clean(st)))
		row("timeline", timeline(t, m.now().Location()))
	}
	b.WriteString("\n" + m.st.muted.Render("3 opens the tracker · n new payout · y copy id"))
	return b.String()
}
