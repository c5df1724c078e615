package ui

import (
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/charmbracelet/huh"

	"github.com/paydash/paydash/api"
)

// The payment and mandate forms share their beneficiary, provider
// selection, user and extras sections; prefix is the JSON path of the
// object that holds each section in that request.

func opts(values ...string) []huh.Option[string] {
	out := make([]huh.Option[string], len(values))
	for i, v := range values {
		label := v
		if v == "" {
			label = "(none)"
		}
		out[i] = huh.NewOption(label, v)
	}
	return out
}

type benFields struct {
	typ, merchantAccountID, holderName, reference    string
	idType, sortCode, accountNumber, iban, bban, nrb string
}

func (b *benFields) paths(prefix string, withReference bool) []string {
	p := prefix + ".beneficiary"
	out := []string{p + ".type", p + ".merchant_account_id", p + ".account_holder_name",
		p + ".account_identifier", p + ".account_identifier.sort_code", p + ".account_identifier.account_number",
		p + ".account_identifier.iban", p + ".account_identifier.bban", p + ".account_identifier.nrb", p}
	if withReference {
		out = append(out, p+".reference")
	}
	return out
}

// groups are the beneficiary's pages; cur is the request's currency, to
// which the merchant accounts offered are filtered.
func (b *benFields) groups(c *viewContext, fv *formView, title, prefix string, cur *string, idTypes []string, withReference bool) []*huh.Group {
	p := prefix + ".beneficiary"
	first := []huh.Field{
		fv.choice(c, "ben_type", "Beneficiary type ", p, &b.typ, opts(api.BeneficiaryMerchantAccount, api.BeneficiaryExternalAccount)...),
		// The holder's name is required for an external account only; a
		// merchant-account pay-in falls back to the account's own name.
		fv.input(c, "ben_name", "Account holder   ", p+".account_holder_name", &b.holderName, "").
			PlaceholderFunc(b.holderPlaceholder, &b.typ),
	}
	if withReference {
		first = append(first, fv.input(c, "ben_ref", "Reference        ", p+".reference", &b.reference, "shown on the payer's statement"))
	}
	external := func() bool { return b.typ != api.BeneficiaryExternalAccount }
	idIs := func(t string) func() bool {
		return func() bool { return b.typ != api.BeneficiaryExternalAccount || b.idType != t }
	}
	notMerchant := func() bool { return b.typ != api.BeneficiaryMerchantAccount }
	listed := func() []huh.Option[string] { return merchantOptions(c, *cur) }
	groups := []*huh.Group{huh.NewGroup(first...).Title(title + " · beneficiary")}
	// With the profile's merchant accounts, a list of those holding the
	// request's currency; otherwise (or when none does) the id as text.
	if len(c.opts.MerchantAccounts) > 0 {
		path := p + ".merchant_account_id"
		groups = append(groups, huh.NewGroup(
			fv.fieldSelect("ben_merchant", "Merchant account ", path).OptionsFunc(listed, cur).
				Value(&b.merchantAccountID).Inline(true).Validate(fv.check(c, path)),
		).Title(title+" · beneficiary (merchant account)").WithHideFunc(func() bool { return notMerchant() || len(listed()) == 0 }))
	}
	groups = append(groups,
		huh.NewGroup(
			fv.input(c, "ben_merchant", "Merchant account ", p+".merchant_account_id", &b.merchantAccountID, "merchant account id"),
		).Title(title+" · beneficiary (merchant account)").WithHideFunc(func() bool { return notMerchant() || len(listed()) > 0 }),
		huh.NewGroup(
			fv.choice(c, "ben_id_type", "Account identifier ", p+".account_identifier", &b.idType, opts(idTypes...)...),
		).Title(title+" · beneficiary (external account)").WithHideFunc(external),
		huh.NewGroup(
			fv.input(c, "ben_sort_code", "Sort code        ", p+".account_identifier.sort_code", &b.sortCode, "e.g. 040004"),
			fv.input(c, "ben_account_number", "Account number   ", p+".account_identifier.account_number", &b.accountNumber, "e.g. 12345678"),
		).Title(title+" · sort code and account number").WithHideFunc(idIs(api.AccountIdentifierSortCode)),
		huh.NewGroup(
			fv.input(c, "ben_iban", "IBAN             ", p+".account_identifier.iban", &b.iban, "e.g. GB33 BUKB 2020 1555 5555 55"),
		).Title(title+" · IBAN").WithHideFunc(idIs(api.AccountIdentifierIBAN)),
	)
	if slicesContains(idTypes, api.AccountIdentifierBBAN) {
		groups = append(groups, huh.NewGroup(
			fv.input(c, "ben_bban", "BBAN             ", p+".account_identifier.bban", &b.bban, "basic bank account number"),
		).Title(title+" · BBAN").WithHideFunc(idIs(api.AccountIdentifierBBAN)))
	}
	if slicesContains(idTypes, api.AccountIdentifierNRB) {
		groups = append(groups, huh.NewGroup(
			fv.input(c, "ben_nrb", "NRB              ", p+".account_identifier.nrb", &b.nrb, "Polish NRB"),
		).Title(title+" · NRB").WithHideFunc(idIs(api.AccountIdentifierNRB)))
	}
	return groups
}

// merchantOptions are the profile's merchant accounts holding cur, shown
// as "GBP · id".
func merchantOptions(c *viewContext, cur string) []huh.Option[string] {
	var out []huh.Option[string]
	for _, a := range c.opts.MerchantAccounts {
		if a.Currency == cur {
			out = append(out, huh.NewOption(a.Currency+" · "+a.ID, a.ID))
		}
	}
	return out
}

func (b *benFields) holderPlaceholder() string {
	if b.typ == api.BeneficiaryMerchantAccount {
		return "optional: the merchant account's name is used if empty"
	}
	return "required: the name shown on the payer's statement"
}

func slicesContains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func (b *benFields) value(withReference bool) api.Beneficiary {
	out := api.Beneficiary{Type: b.typ, AccountHolderName: strings.TrimSpace(b.holderName)}
	if withReference {
		out.Reference = strings.TrimSpace(b.reference)
	}
	switch b.typ {
	case api.BeneficiaryMerchantAccount:
		out.MerchantAccountID = strings.TrimSpace(b.merchantAccountID)
	case api.BeneficiaryExternalAccount:
		id := &api.AccountIdentifier{Type: b.idType}
		switch b.idType {
		case api.AccountIdentifierSortCode:
			id.SortCode = api.NormalizeSortCode(b.sortCode)
			id.AccountNumber = strings.TrimSpace(b.accountNumber)
		case api.AccountIdentifierIBAN:
			id.IBAN = api.NormalizeIBAN(b.iban)
		case api.AccountIdentifierBBAN:
			id.BBAN = strings.TrimSpace(b.bban)
		case api.AccountIdentifierNRB:
			id.NRB = strings.TrimSpace(b.nrb)
		}
		out.AccountIdentifier = id
	}
	return out
}

func (b *benFields) describe() string {
	v := b.value(true)
	switch v.Type {
	case api.BeneficiaryMerchantAccount:
		return "merchant account " + v.MerchantAccountID
	case api.BeneficiaryExternalAccount:
		id := v.AccountIdentifier
		acct := id.IBAN + id.BBAN + id.NRB
		if id.Type == api.AccountIdentifierSortCode {
			acct = id.SortCode + " " + id.AccountNumber
		}
		return v.AccountHolderName + " · " + id.Type + " " + acct
	}
	return v.Type
}

type provFields struct {
	typ, countries, releaseChannel, segments, providerID, remitter string
	schemeType, remitterFee                                        string
}

func (p *provFields) paths(prefix string, withScheme bool) []string {
	s := prefix + ".provider_selection"
	out := []string{s, s + ".filter", s + ".filter.countries", s + ".filter.release_channel", s + ".filter.customer_segments",
		s + ".provider_id", s + ".remitter"}
	if withScheme {
		out = append(out, s+".scheme_selection", s+".scheme_selection.allow_remitter_fee")
	}
	return out
}

func (p *provFields) groups(c *viewContext, fv *formView, title, prefix string, withScheme bool) []*huh.Group {
	s := prefix + ".provider_selection"
	first := []huh.Field{
		fv.choice(c, "prov_type", "Provider selection ", s, &p.typ, opts(api.ProviderUserSelected, api.ProviderPreselected)...),
	}
	if withScheme {
		first = append(first,
			fv.choice(c, "scheme_type", "Scheme selection ", s+".scheme_selection", &p.schemeType, opts("", "instant_only")...),
			fv.choice(c, "scheme_fee", "Allow remitter fee ", s+".scheme_selection.allow_remitter_fee", &p.remitterFee, []huh.Option[string]{
				huh.NewOption("(unset)", ""), huh.NewOption("yes", "true"), huh.NewOption("no", "false")}...),
		)
	}
	return []*huh.Group{
		huh.NewGroup(first...).Title(title + " · provider"),
		huh.NewGroup(
			fv.input(c, "prov_countries", "Countries        ", s+".filter.countries", &p.countries, "e.g. GB, IE (blank: any)"),
			fv.choice(c, "prov_release", "Release channel ", s+".filter.release_channel", &p.releaseChannel, opts("", "general_availability", "private_beta")...),
			fv.input(c, "prov_segments", "Customer segments ", s+".filter.customer_segments", &p.segments, "e.g. retail (comma separated)"),
		).Title(title + " · provider filter (user selected)").WithHideFunc(func() bool { return p.typ != api.ProviderUserSelected }),
		huh.NewGroup(
			fv.input(c, "prov_id", "Provider id      ", s+".provider_id", &p.providerID, "e.g. ob-natwest"),
			fv.input(c, "prov_remitter", "Remitter (JSON)  ", s+".remitter", &p.remitter, `optional, e.g. {"account_holder_name":"Ada"}`),
		).Title(title + " · preselected provider").WithHideFunc(func() bool { return p.typ != api.ProviderPreselected }),
	}
}

func (p *provFields) value(prefix string, withScheme bool) (api.ProviderSelection, api.Problems) {
	var ps api.Problems
	out := api.ProviderSelection{Type: p.typ}
	switch p.typ {
	case api.ProviderUserSelected:
		f := api.ProviderFilter{Countries: upperAll(splitList(p.countries)), ReleaseChannel: p.releaseChannel, CustomerSegments: splitList(p.segments)}
		if len(f.Countries) > 0 || f.ReleaseChannel != "" || len(f.CustomerSegments) > 0 {
			out.Filter = &f
		}
	case api.ProviderPreselected:
		out.ProviderID = strings.TrimSpace(p.providerID)
		if r := strings.TrimSpace(p.remitter); r != "" {
			if !json.Valid([]byte(r)) || !strings.HasPrefix(r, "{") {
				ps = append(ps, api.Problem{Field: prefix + ".provider_selection.remitter", Message: "must be a JSON object, e.g. {\"account_holder_name\":\"Ada\"}"})
			} else {
				out.Remitter = json.RawMessage(r)
			}
		}
	}
	if withScheme && (p.schemeType != "" || p.remitterFee != "") {
		ss := &api.SchemeSelection{Type: p.schemeType}
		if p.remitterFee != "" {
			v := p.remitterFee == "true"
			ss.AllowRemitterFee = &v
		}
		out.SchemeSelection = ss
	}
	return out, ps
}

func upperAll(s []string) []string {
	for i := range s {
		s[i] = strings.ToUpper(s[i])
	}
	return s
}

type userFields struct {
	id, name, email, phone, dob string
}

func (u *userFields) paths(withDOB bool) []string {
	// "user" itself (a rule over the whole user: an email or a phone) is
	// checked on the page's last field, so the page says it before the
	// operator moves on, not at the confirmation.
	out := []string{"user", "user.name", "user.id", "user.email", "user.phone"}
	if withDOB {
		out = append(out, "user.date_of_birth")
	}
	return out
}

func (u *userFields) group(c *viewContext, fv *formView, title string, withDOB bool) *huh.Group {
	fields := []huh.Field{
		fv.input(c, "user_name", "Name             ", "user.name", &u.name, "full name"),
		fv.input(c, "user_email", "Email            ", "user.email", &u.email, "e.g. ada@example.com"),
		fv.input(c, "user_phone", "Phone            ", "user.phone", &u.phone, "e.g. +447700900123"),
	}
	if withDOB {
		fields = append(fields, fv.input(c, "user_dob", "Date of birth    ", "user.date_of_birth", &u.dob, "e.g. 1990-01-31"))
	}
	idField := fv.input(c, "user_id", "User id          ", "user.id", &u.id, "UUID (blank: the service makes one)")
	// The page's last field checks the whole page: a field is checked as
	// it is left, when the fields after it may still be empty (a name
	// left blank before any email is given is not yet "required").
	var checks []func(string) error
	for _, path := range u.paths(withDOB) {
		if path != "user" {
			checks = append(checks, fv.check(c, path))
		}
	}
	idField.Validate(func(s string) error {
		var errs []error
		for _, check := range checks {
			errs = append(errs, check(s))
		}
		// "user" itself is not a field, so not in fv.labels: a label
		// "user" would rewrite "the user's name" in every message.
		if err := problemsAt(fv.spec.problems(c, fv.key), "user", fv.spec.paths()); err != nil {
			errs = append(errs, errors.New("User: "+err.Error()))
		}
		return errors.Join(errs...)
	})
	fields = append(fields, idField)
	desc := "A customer who is not regulated must give the name and an email or a phone."
	if c.opts.Regulated {
		desc = "Regulated: personal details are optional."
	}
	return huh.NewGroup(fields...).Title(title + " · user").Description(desc)
}

func (u *userFields) value() *api.User {
	return api.User{ID: u.id, Name: u.name, Email: u.email, Phone: u.phone, DateOfBirth: u.dob}.Trimmed()
}

type extraFields struct {
	metadata, related string
}

func (e *extraFields) paths() []string { return []string{"metadata", "related_products"} }

func (e *extraFields) group(c *viewContext, fv *formView, title string) *huh.Group {
	return huh.NewGroup(
		huh.NewText().Key("metadata").Title("Metadata (key=value, one per line; up to 10)").Lines(4).Value(&e.metadata).
			Validate(fv.check(c, "metadata")),
		fv.input(c, "related", "Related products (JSON object) ", "related_products", &e.related, "optional"),
	).Title(title + " · extras")
}

func (e *extraFields) value() (map[string]string, map[string]json.RawMessage, api.Problems) {
	md, ps := parseMetadata(e.metadata, "metadata")
	var rp map[string]json.RawMessage
	if r := strings.TrimSpace(e.related); r != "" {
		if err := json.Unmarshal([]byte(r), &rp); err != nil {
			ps = append(ps, api.Problem{Field: "related_products", Message: "must be a JSON object: " + err.Error()})
		}
	}
	return md, rp, ps
}

// tokenResult shows a created payment or mandate and its resource token
// with the time left to use it.
func tokenResult(c *viewContext, fv *formView, w int, what, id, userID, status, token string) string {
	var b strings.Builder
	b.WriteString(c.st.good.Render("✓ "+what+" created") + "\n\n")
	row := func(k, v string) { b.WriteString("  " + c.st.muted.Render(fit(k, 16)) + v + "\n") }
	row("id", clean(id))
	row("user id", clean(userID))
	if status != "" {
		row("status", clean(status))
	}
	left := fv.sentAt.Add(tokenLifetime).Sub(c.now())
	if left > 0 {
		row("token expires", c.st.warn.Render("in "+mmss(left))+c.st.muted.Render(" (at "+clockTime(fv.sentAt.Add(tokenLifetime), c.now().Location())+")"))
	} else {
		row("token expires", c.st.bad.Render("expired: the user flow can no longer start with this token"))
	}
	row("resource token", "")
	for _, line := range strings.Split(wrapChars(clean(token), max(w-4, 20)), "\n") {
		b.WriteString("    " + line + "\n")
	}
	b.WriteString("\n" + c.st.muted.Render(keyOf(c.keys.CopyToken)+" copy the token · "+keyOf(c.keys.CopyResID)+" copy the id · "+keyOf(c.keys.NewForm)+" new "+fv.spec.noun()))
	return b.String()
}

// wrapChars breaks s every w characters (tokens have no spaces).
func wrapChars(s string, w int) string {
	var lines []string
	for len(s) > w {
		lines = append(lines, s[:w])
		s = s[w:]
	}
	return strings.Join(append(lines, s), "\n")
}

// normalizeMandateTime accepts what the operator types (the document's
// forms, RFC 3339, or a plain date meaning 00:00 UTC) and writes the
// mandate time format; problems name the field.
func normalizeMandateTime(s, path string) (string, api.Problems) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", nil
	}
	if t, err := api.ParseMandateTime(s); err == nil {
		return api.FormatMandateTime(t), nil
	}
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return api.FormatMandateTime(t), nil
	}
	return s, api.Problems{{Field: path, Message: "write a UTC date-time like 2025-01-31T09:30:00.000Z, or a date like 2025-01-31"}}
}
