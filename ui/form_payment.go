package ui

import (
	"context"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/huh"

	"github.com/paydash/paydash/api"
)

// paymentForm is the New payment form: a single payment with every field
// of the payment creation request. The formView's key is its
// Idempotency-Key, one per form.
type paymentForm struct {
	amountText, currency string
	ben                  benFields
	prov                 provFields
	user                 userFields
	extra                extraFields
}

const paymentPrefix = "payment_method"

func (p *paymentForm) title() string   { return "New payment" }
func (p *paymentForm) noun() string    { return "payment" }
func (p *paymentForm) keyName() string { return "Idempotency-Key" }

func defaultPayment() paymentForm {
	return paymentForm{
		currency: "GBP",
		ben:      benFields{typ: api.BeneficiaryExternalAccount, idType: api.AccountIdentifierSortCode},
		prov:     provFields{typ: api.ProviderUserSelected},
	}
}

func (p *paymentForm) reset(*viewContext) { *p = defaultPayment() }
func (p *paymentForm) pristine() bool     { return *p == defaultPayment() }

func (p *paymentForm) paths() []string {
	out := []string{"amount_in_minor", "currency", "payment_method.type"}
	out = append(out, p.ben.paths(paymentPrefix, true)...)
	out = append(out, p.prov.paths(paymentPrefix, true)...)
	out = append(out, p.user.paths(true)...)
	return append(out, p.extra.paths()...)
}

func (p *paymentForm) build(c *viewContext, fv *formView) []*huh.Group {
	groups := []*huh.Group{
		huh.NewGroup(
			fv.input(c, "amount", "Amount           ", "amount_in_minor", &p.amountText, "e.g. 12.34 (major units)"),
			fv.choice(c, "currency", "Currency ", "currency", &p.currency, opts("GBP", "EUR")...),
		).Title("New payment · amount").Description("A GBP payment cannot go to an EUR account, nor the reverse."),
	}
	groups = append(groups, p.ben.groups(c, fv, "New payment", paymentPrefix, &p.currency, []string{
		api.AccountIdentifierSortCode, api.AccountIdentifierIBAN, api.AccountIdentifierBBAN, api.AccountIdentifierNRB}, true)...)
	groups = append(groups, p.prov.groups(c, fv, "New payment", paymentPrefix, true)...)
	groups = append(groups, p.user.group(c, fv, "New payment", true), p.extra.group(c, fv, "New payment"))
	return groups
}

func (p *paymentForm) amount(*viewContext) (int64, string, bool) {
	minor, err := api.ParseAmount(p.amountText, p.currency, false)
	return minor, p.currency, err == nil
}

func (p *paymentForm) request() (*api.PaymentRequest, api.Problems) {
	var ps api.Problems
	minor, err := api.ParseAmount(strings.TrimSpace(p.amountText), p.currency, false)
	if err != nil {
		ps = append(ps, api.Problem{Field: "amount_in_minor", Message: err.Error()})
	}
	prov, pps := p.prov.value(paymentPrefix, true)
	md, rp, eps := p.extra.value()
	ps = append(append(ps, pps...), eps...)
	return &api.PaymentRequest{
		AmountInMinor: minor,
		Currency:      p.currency,
		PaymentMethod: api.PaymentMethod{
			Type:              api.PaymentMethodBankTransfer,
			ProviderSelection: &prov,
			Beneficiary:       p.ben.value(true),
		},
		User:            p.user.value(),
		Metadata:        md,
		RelatedProducts: rp,
	}, ps
}

func (p *paymentForm) problems(c *viewContext, _ string) api.Problems {
	req, ps := p.request()
	return mergeProblems(ps, api.ValidatePayment(req, api.ValidateOptions{Regulated: c.opts.Regulated, Clock: c.clock, AccountCurrency: c.merchantCurrency}))
}

func (p *paymentForm) hint(c *viewContext, key string) string {
	switch key {
	case "amount":
		return amountHint(c, p.amountText, p.currency)
	case "ben_iban":
		return ibanHint(c, p.ben.iban)
	}
	return ""
}

func amountHint(c *viewContext, text, cur string) string {
	if strings.TrimSpace(text) == "" {
		return c.st.muted.Render("major units, e.g. 1,234.56")
	}
	minor, err := api.ParseAmount(text, cur, false)
	if err != nil {
		return c.st.bad.Render("✗ " + err.Error())
	}
	return c.st.good.Render("= " + api.FormatAmount(minor, cur))
}

func ibanHint(c *viewContext, iban string) string {
	if strings.TrimSpace(iban) == "" {
		return c.st.muted.Render("IBAN is checked as you type")
	}
	if err := api.ValidateIBAN(api.NormalizeIBAN(iban)); err != nil {
		return c.st.bad.Render("✗ " + err.Error())
	}
	return c.st.good.Render("✓ valid IBAN " + api.NormalizeIBAN(iban))
}

func (p *paymentForm) summary(c *viewContext, fv *formView, w int) string {
	req, _ := p.request()
	var b strings.Builder
	row := func(k, v string) { b.WriteString(wrapRowW(c, k, v, w, 14)) }
	row("amount", c.st.bold.Render(api.FormatAmount(req.AmountInMinor, req.Currency)))
	row("to", p.ben.describe())
	row("reference", req.PaymentMethod.Beneficiary.Reference)
	prov := req.PaymentMethod.ProviderSelection
	ps := prov.Type
	if prov.ProviderID != "" {
		ps += " " + prov.ProviderID
	}
	if prov.SchemeSelection != nil {
		ps += " · scheme " + prov.SchemeSelection.Type
	}
	row("provider", ps)
	if u := req.User; u != nil {
		row("user", strings.Join(nonEmpty(u.Name, u.Email, u.Phone, u.DateOfBirth, u.ID), " · "))
	}
	if len(req.Metadata) > 0 {
		row("metadata", itoa(len(req.Metadata))+" pairs")
	}
	for _, u := range unowned(p.problems(c, fv.key), p.paths()) {
		b.WriteString("  " + c.st.bad.Render("✗ "+fv.human(u)) + "\n")
	}
	return b.String()
}

func nonEmpty(s ...string) []string {
	var out []string
	for _, x := range s {
		if x != "" {
			out = append(out, x)
		}
	}
	return out
}

func (p *paymentForm) send(c *viewContext, key string) tea.Cmd {
	req, _ := p.request()
	be, ctx := c.opts.Backend, c.ctx
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, sendTimeout)
		defer cancel()
		resp, err := be.CreatePayment(ctx, req, key)
		return sentMsg{tab: tabPayment, key: key, resp: resp, err: err}
	}
}

func (p *paymentForm) onSent(c *viewContext, _ *formView, msg sentMsg) tea.Cmd {
	if r, ok := msg.resp.(*api.PaymentResponse); ok && r != nil {
		c.setFlash("payment "+r.ID+" created: the resource token is valid for 15 minutes", false)
	}
	return nil
}

func (p *paymentForm) result(c *viewContext, fv *formView, w int) string {
	r, _ := fv.resp.(*api.PaymentResponse)
	if r == nil {
		return c.st.good.Render("✓ Payment created")
	}
	return tokenResult(c, fv, w, "Payment", r.ID, r.User.ID, r.Status, r.ResourceToken)
}
