package ui

import (
	"context"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/huh"

	"github.com/paydash/paydash/api"
)

// periodNames are the six periodic limits in the document's order.
var periodNames = [6]string{"day", "week", "fortnight", "month", "half_year", "year"}

type limitFields struct {
	amount, alignment string
}

// mandateForm is the New mandate form: a VRP mandate with every field of
// the mandate creation request, including the six periodic limits.
type mandateForm struct {
	typ, currency, reference string
	ben                      benFields
	prov                     provFields
	user                     userFields
	validFrom, validTo       string
	maxIndividual            string
	limits                   [6]limitFields
	extra                    extraFields
}

const mandatePrefix = "mandate"

func (f *mandateForm) title() string { return "New mandate" }

// amount is what a production operator re-types before the mandate is
// created: its largest single payment, as the hub shows a mandate
// awaiting approval and as mandate create asks for it.
func (f *mandateForm) amount(*viewContext) (int64, string, bool) {
	minor, err := api.ParseAmount(strings.TrimSpace(f.maxIndividual), f.currency, false)
	return minor, f.currency, err == nil && minor > 0
}

func (f *mandateForm) retypeTitle() string {
	return "PRODUCTION: re-type the largest single payment (max per payment) to confirm"
}
func (f *mandateForm) noun() string    { return "mandate" }
func (f *mandateForm) keyName() string { return "Idempotency-Key" }

func defaultMandate() mandateForm {
	d := mandateForm{
		typ:      api.MandateSweeping,
		currency: "GBP",
		ben:      benFields{typ: api.BeneficiaryExternalAccount, idType: api.AccountIdentifierSortCode},
		prov:     provFields{typ: api.ProviderUserSelected},
	}
	for i := range d.limits {
		d.limits[i].alignment = api.AlignmentConsent
	}
	return d
}

func (f *mandateForm) reset(*viewContext) { *f = defaultMandate() }
func (f *mandateForm) pristine() bool     { return *f == defaultMandate() }

func (f *mandateForm) paths() []string {
	out := []string{"mandate.type", "currency", "mandate.reference",
		"constraints", "constraints.valid_from", "constraints.valid_to", "constraints.maximum_individual_amount", "constraints.periodic_limits"}
	for _, n := range periodNames {
		out = append(out, "constraints.periodic_limits."+n, "constraints.periodic_limits."+n+".period_alignment")
	}
	out = append(out, f.ben.paths(mandatePrefix, false)...)
	out = append(out, f.prov.paths(mandatePrefix, false)...)
	out = append(out, f.user.paths(false)...)
	return append(out, f.extra.paths()...)
}

func (f *mandateForm) build(c *viewContext, fv *formView) []*huh.Group {
	first := []huh.Field{
		fv.choice(c, "mandate_type", "Mandate type ", "mandate.type", &f.typ, opts(api.MandateSweeping, api.MandateCommercial)...),
		fv.choice(c, "currency", "Currency ", "currency", &f.currency, opts("GBP", "EUR")...),
	}
	if c.opts.Regulated {
		first = append(first, fv.input(c, "mandate_ref", "Reference        ", "mandate.reference", &f.reference, "regulated customers only"))
	}
	groups := []*huh.Group{huh.NewGroup(first...).Title("New mandate · kind").
		Description("The access token's scope follows the type: recurring_payments:<type>.")}
	groups = append(groups, f.ben.groups(c, fv, "New mandate", mandatePrefix, &f.currency, []string{api.AccountIdentifierSortCode, api.AccountIdentifierIBAN}, false)...)
	groups = append(groups, f.prov.groups(c, fv, "New mandate", mandatePrefix, false)...)
	groups = append(groups, f.user.group(c, fv, "New mandate", false))
	groups = append(groups, huh.NewGroup(
		fv.input(c, "valid_from", "Valid from       ", "constraints.valid_from", &f.validFrom, "e.g. 2025-01-31T09:30:00.000Z or 2025-01-31"),
		fv.input(c, "valid_to", "Valid to         ", "constraints.valid_to", &f.validTo, "e.g. 2026-01-31"),
		fv.input(c, "max_individual", "Max per payment  ", "constraints.maximum_individual_amount", &f.maxIndividual, "e.g. 100.00 (major units)"),
	).Title("New mandate · constraints").Description("Fixed at creation: a mandate cannot be edited later."))
	// Two periods per page so each page fits a 24-line terminal.
	for page := 0; page < 3; page++ {
		var fields []huh.Field
		for i := page * 2; i < page*2+2; i++ {
			n := periodNames[i]
			path := "constraints.periodic_limits." + n
			fields = append(fields,
				fv.input(c, "limit_"+n, fit(strings.ReplaceAll(n, "_", " ")+" limit", 17), path, &f.limits[i].amount, "blank: no "+n+" limit"),
				fv.choice(c, "align_"+n, "  alignment ", path+".period_alignment", &f.limits[i].alignment, opts(api.AlignmentConsent, api.AlignmentCalendar)...),
			)
		}
		groups = append(groups, huh.NewGroup(fields...).Title("New mandate · periodic limits "+itoa(page+1)+"/3").
			Description("Each limit is at least the per-payment maximum; all given limits apply."))
	}
	groups = append(groups, f.extra.group(c, fv, "New mandate"))
	return groups
}

func (f *mandateForm) request() (*api.MandateRequest, api.Problems) {
	var ps api.Problems
	parse := func(text, path string) int64 {
		if strings.TrimSpace(text) == "" {
			return 0
		}
		v, err := api.ParseAmount(strings.TrimSpace(text), f.currency, false)
		if err != nil {
			ps = append(ps, api.Problem{Field: path, Message: err.Error()})
		}
		return v
	}
	c := api.Constraints{MaximumIndividualAmount: parse(f.maxIndividual, "constraints.maximum_individual_amount")}
	var tps api.Problems
	c.ValidFrom, tps = normalizeMandateTime(f.validFrom, "constraints.valid_from")
	ps = append(ps, tps...)
	c.ValidTo, tps = normalizeMandateTime(f.validTo, "constraints.valid_to")
	ps = append(ps, tps...)
	var pl api.PeriodicLimits
	slots := [6]**api.PeriodicLimit{&pl.Day, &pl.Week, &pl.Fortnight, &pl.Month, &pl.HalfYear, &pl.Year}
	haveLimits := false
	for i, n := range periodNames {
		if strings.TrimSpace(f.limits[i].amount) == "" {
			continue
		}
		haveLimits = true
		*slots[i] = &api.PeriodicLimit{
			MaximumAmount:   parse(f.limits[i].amount, "constraints.periodic_limits."+n+".maximum_amount"),
			PeriodAlignment: f.limits[i].alignment,
		}
	}
	if haveLimits {
		c.PeriodicLimits = &pl
	}
	prov, pps := f.prov.value(mandatePrefix, false)
	md, rp, eps := f.extra.value()
	ps = append(append(ps, pps...), eps...)
	req := &api.MandateRequest{
		Mandate: api.Mandate{
			Type:              f.typ,
			ProviderSelection: prov,
			Beneficiary:       f.ben.value(false),
		},
		Currency:        f.currency,
		User:            f.user.value(),
		Constraints:     c,
		Metadata:        md,
		RelatedProducts: rp,
	}
	if ref := strings.TrimSpace(f.reference); ref != "" {
		req.Mandate.Reference = ref
	}
	return req, ps
}

func (f *mandateForm) problems(c *viewContext, _ string) api.Problems {
	req, ps := f.request()
	return mergeProblems(ps, api.ValidateMandate(req, api.ValidateOptions{Regulated: c.opts.Regulated, Clock: c.clock, AccountCurrency: c.merchantCurrency}))
}

func (f *mandateForm) hint(c *viewContext, key string) string {
	switch {
	case key == "ben_iban":
		return ibanHint(c, f.ben.iban)
	case key == "max_individual" || strings.HasPrefix(key, "limit_"):
		text := f.maxIndividual
		for i, n := range periodNames {
			if key == "limit_"+n {
				text = f.limits[i].amount
			}
		}
		if strings.TrimSpace(text) == "" && key != "max_individual" {
			return c.st.muted.Render("blank: no limit for this period")
		}
		return amountHint(c, text, f.currency)
	case key == "valid_from" || key == "valid_to":
		v := f.validFrom
		if key == "valid_to" {
			v = f.validTo
		}
		if strings.TrimSpace(v) == "" {
			return c.st.muted.Render("now is " + api.FormatMandateTime(c.now()))
		}
		if s, ps := normalizeMandateTime(v, key); len(ps) > 0 {
			return c.st.bad.Render("✗ " + ps[0].Message)
		} else {
			return c.st.good.Render("= " + s)
		}
	}
	return ""
}

func (f *mandateForm) summary(c *viewContext, fv *formView, w int) string {
	req, _ := f.request()
	var b strings.Builder
	row := func(k, v string) { b.WriteString(wrapRowW(c, k, v, w, 14)) }
	row("mandate", req.Mandate.Type+" · "+req.Currency+" · provider "+req.Mandate.ProviderSelection.Type)
	row("to", f.ben.describe())
	if u := req.User; u != nil {
		row("user", strings.Join(nonEmpty(u.Name, u.Email, u.Phone, u.ID), " · "))
	}
	cons := req.Constraints
	row("valid", strings.Join(nonEmpty(cons.ValidFrom, "→", cons.ValidTo), " "))
	row("max payment", api.FormatAmount(cons.MaximumIndividualAmount, req.Currency))
	var lim []string
	for _, nl := range cons.PeriodicLimits.Periods() {
		if nl.Limit != nil {
			lim = append(lim, nl.Name+" "+api.FormatAmount(nl.Limit.MaximumAmount, req.Currency)+" ("+nl.Limit.PeriodAlignment+")")
		}
	}
	if len(lim) > 0 {
		row("limits", strings.Join(lim, ", "))
	}
	for _, u := range unowned(f.problems(c, fv.key), f.paths()) {
		b.WriteString("  " + c.st.bad.Render("✗ "+fv.human(u)) + "\n")
	}
	return b.String()
}

func (f *mandateForm) send(c *viewContext, key string) tea.Cmd {
	req, _ := f.request()
	be, ctx := c.opts.Backend, c.ctx
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, sendTimeout)
		defer cancel()
		resp, err := be.CreateMandate(ctx, req, key)
		return sentMsg{tab: tabMandate, key: key, resp: resp, err: err}
	}
}

func (f *mandateForm) onSent(c *viewContext, _ *formView, msg sentMsg) tea.Cmd {
	if r, ok := msg.resp.(*api.MandateResponse); ok && r != nil {
		c.setFlash("mandate "+r.ID+" created: the resource token is valid for 15 minutes", false)
	}
	return nil
}

func (f *mandateForm) result(c *viewContext, fv *formView, w int) string {
	r, _ := fv.resp.(*api.MandateResponse)
	if r == nil {
		return c.st.good.Render("✓ Mandate created")
	}
	return tokenResult(c, fv, w, "Mandate", r.ID, r.User.ID, r.Status, r.ResourceToken)
}
