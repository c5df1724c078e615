package headless

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"github.com/paydash/paydash/api"
)

// The request flags of `payment create` and `mandate create` mirror the
// field tables of the interface: one flag per field, with the choice
// fields (beneficiary type, identifier type, provider selection type)
// inferred from which flags are given when left out, so the common case
// is short and every field is still reachable.

// requestFlags are the flags payments and mandates share.
type requestFlags struct {
	IdempotencyKey string
	JSON           bool
	// Yes creates without asking; without a terminal it is required, as
	// for payout create: nothing is created unconfirmed.
	Yes bool

	// profile and production name the profile in the confirmation
	// (SetProfile); a production profile is said loudly there.
	profile    string
	production bool

	ben  beneficiaryFlags
	prov providerFlags
	user userFlags
	ext  extraFlags
	// unparsed lists request fields whose flag could not be parsed.
	unparsed []string
}

// SetProfile names the profile the request is created under, for the
// confirmation.
func (r *requestFlags) SetProfile(name string, production bool) {
	r.profile, r.production = name, production
}

// bind registers them; payment adds the fields only single payments
// have (BBAN/NRB identifiers, scheme selection, date of birth).
func (r *requestFlags) bind(fs *pflag.FlagSet, payment bool) {
	fs.StringVar(&r.IdempotencyKey, "idempotency-key", "", "Idempotency-Key to send (default: a new UUID; reuse one to retry safely)")
	fs.BoolVar(&r.JSON, "json", false, "print the result as JSON")
	fs.BoolVarP(&r.Yes, "yes", "y", false, "create without asking for confirmation (required when not at a terminal)")
	r.ben.bind(fs, payment)
	r.prov.bind(fs, payment)
	r.user.bind(fs, payment)
	r.ext.bind(fs)
}

// beneficiaryFlags fill a Beneficiary.
type beneficiaryFlags struct {
	Type              string
	MerchantAccountID string
	AccountHolderName string
	SortCode          string
	AccountNumber     string
	IBAN              string
	BBAN              string
	NRB               string
}

func (b *beneficiaryFlags) bind(fs *pflag.FlagSet, withVariants bool) {
	fs.StringVar(&b.Type, "beneficiary-type", "", "merchant_account or external_account (default: merchant_account when --merchant-account-id is given, else external_account)")
	fs.StringVar(&b.MerchantAccountID, "merchant-account-id", "", "merchant account to pay into (beneficiary type merchant_account)")
	fs.StringVar(&b.AccountHolderName, "account-holder-name", "", "beneficiary name shown on the payer's statement")
	fs.StringVar(&b.SortCode, "sort-code", "", "beneficiary sort code (with --account-number)")
	fs.StringVar(&b.AccountNumber, "account-number", "", "beneficiary account number (with --sort-code)")
	fs.StringVar(&b.IBAN, "iban", "", "beneficiary IBAN")
	if withVariants {
		fs.StringVar(&b.BBAN, "bban", "", "beneficiary BBAN")
		fs.StringVar(&b.NRB, "nrb", "", "beneficiary NRB (Polish account number)")
	}
}

// build returns the beneficiary and usage problems the API validation
// cannot see (two identifier kinds given at once).
func (b *beneficiaryFlags) build() (api.Beneficiary, []string) {
	var problems []string
	ben := api.Beneficiary{
		Type:              b.Type,
		MerchantAccountID: strings.TrimSpace(b.MerchantAccountID),
		AccountHolderName: strings.TrimSpace(b.AccountHolderName),
	}
	var kinds []string
	id := &api.AccountIdentifier{}
	if b.SortCode != "" || b.AccountNumber != "" {
		kinds = append(kinds, "--sort-code/--account-number")
		id.Type = api.AccountIdentifierSortCode
		id.SortCode = api.NormalizeSortCode(b.SortCode)
		id.AccountNumber = strings.TrimSpace(b.AccountNumber)
	}
	if b.IBAN != "" {
		kinds = append(kinds, "--iban")
		id.Type, id.IBAN = api.AccountIdentifierIBAN, api.NormalizeIBAN(b.IBAN)
	}
	if b.BBAN != "" {
		kinds = append(kinds, "--bban")
		id.Type, id.BBAN = api.AccountIdentifierBBAN, strings.TrimSpace(b.BBAN)
	}
	if b.NRB != "" {
		kinds = append(kinds, "--nrb")
		id.Type, id.NRB = api.AccountIdentifierNRB, strings.TrimSpace(b.NRB)
	}
	if len(kinds) > 1 {
		problems = append(problems, fmt.Sprintf("give one account identifier, not %s", strings.Join(kinds, " and ")))
	}
	if id.Type != "" {
		ben.AccountIdentifier = id
	}
	if ben.Type == "" {
		if ben.MerchantAccountID != "" {
			ben.Type = api.BeneficiaryMerchantAccount
		} else {
			ben.Type = api.BeneficiaryExternalAccount
		}
	}
	return ben, problems
}

// providerFlags fill a ProviderSelection.
type providerFlags struct {
	Type             string
	ProviderID       string
	Remitter         string
	Countries        []string
	ReleaseChannel   string
	CustomerSegments []string
	// single payments only
	Scheme           string
	AllowRemitterFee bool
	fs               *pflag.FlagSet
}

func (p *providerFlags) bind(fs *pflag.FlagSet, withScheme bool) {
	p.fs = fs
	fs.StringVar(&p.Type, "provider-type", "", "user_selected or preselected (default: preselected when --provider-id is given)")
	fs.StringVar(&p.ProviderID, "provider-id", "", "provider to pay from (provider type preselected)")
	fs.StringVar(&p.Remitter, "remitter", "", "remitter bank details as a JSON object (preselected only)")
	fs.StringSliceVar(&p.Countries, "countries", nil, "provider filter: country codes, e.g. GB,IE")
	fs.StringVar(&p.ReleaseChannel, "release-channel", "", "provider filter: private_beta or general_availability")
	fs.StringSliceVar(&p.CustomerSegments, "customer-segments", nil, "provider filter: customer segments, e.g. retail")
	if withScheme {
		fs.StringVar(&p.Scheme, "scheme", "", "scheme selection type, e.g. instant_only")
		fs.BoolVar(&p.AllowRemitterFee, "allow-remitter-fee", false, "scheme selection: allow a fee charged to the remitter")
	}
}

func (p *providerFlags) build() (api.ProviderSelection, []string) {
	var problems []string
	ps := api.ProviderSelection{Type: p.Type, ProviderID: strings.TrimSpace(p.ProviderID)}
	if ps.Type == "" {
		if ps.ProviderID != "" {
			ps.Type = api.ProviderPreselected
		} else {
			ps.Type = api.ProviderUserSelected
		}
	}
	if p.Remitter != "" {
		if !json.Valid([]byte(p.Remitter)) {
			problems = append(problems, "--remitter is not valid JSON; give an object like '{\"account_holder_name\":\"...\"}'")
		} else {
			ps.Remitter = json.RawMessage(p.Remitter)
		}
	}
	if len(p.Countries) > 0 || p.ReleaseChannel != "" || len(p.CustomerSegments) > 0 {
		ps.Filter = &api.ProviderFilter{Countries: upperAll(p.Countries), ReleaseChannel: p.ReleaseChannel, CustomerSegments: p.CustomerSegments}
	}
	if p.Scheme != "" || (p.fs != nil && p.fs.Changed("allow-remitter-fee")) {
		ss := &api.SchemeSelection{Type: p.Scheme}
		if p.fs != nil && p.fs.Changed("allow-remitter-fee") {
			v := p.AllowRemitterFee
			ss.AllowRemitterFee = &v
		}
		ps.SchemeSelection = ss
	}
	return ps, problems
}

func upperAll(xs []string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = strings.ToUpper(strings.TrimSpace(x))
	}
	return out
}

// userFlags fill a User.
type userFlags struct {
	ID, Name, Email, Phone, DateOfBirth string
}

func (u *userFlags) bind(fs *pflag.FlagSet, withDOB bool) {
	fs.StringVar(&u.ID, "user-id", "", "user id (UUID); blank lets the service generate one")
	fs.StringVar(&u.Name, "user-name", "", "user's full name")
	fs.StringVar(&u.Email, "user-email", "", "user's email")
	fs.StringVar(&u.Phone, "user-phone", "", "user's phone number")
	if withDOB {
		fs.StringVar(&u.DateOfBirth, "user-dob", "", "user's date of birth, YYYY-MM-DD")
	}
}

func (u *userFlags) build() *api.User {
	return api.User{ID: u.ID, Name: u.Name, Email: u.Email, Phone: u.Phone, DateOfBirth: u.DateOfBirth}.Trimmed()
}

// extraFlags are metadata and related products.
type extraFlags struct {
	Metadata        []string
	RelatedProducts string
}

func (e *extraFlags) bind(fs *pflag.FlagSet) {
	fs.StringArrayVar(&e.Metadata, "metadata", nil, "metadata pair key=value (repeat for more, at most 10)")
	fs.StringVar(&e.RelatedProducts, "related-products", "", "related_products as a JSON object")
}

func (e *extraFlags) build() (map[string]string, map[string]json.RawMessage, []string) {
	var problems []string
	var md map[string]string
	for _, kv := range e.Metadata {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			problems = append(problems, fmt.Sprintf("--metadata %q: want key=value", kv))
			continue
		}
		if md == nil {
			md = map[string]string{}
		}
		if _, dup := md[k]; dup {
			problems = append(problems, fmt.Sprintf("--metadata key %q given twice", k))
		}
		md[k] = v
	}
	var rp map[string]json.RawMessage
	if e.RelatedProducts != "" {
		if err := json.Unmarshal([]byte(e.RelatedProducts), &rp); err != nil {
			problems = append(problems, fmt.Sprintf("--related-products: want a JSON object: %v", err))
		}
	}
	return md, rp, problems
}

// flagOfField names the flag that sets a request field, so a validation
// problem can tell the person which flag to fix. Paths are matched by
// their last segments.
var flagOfField = map[string]string{
	"amount_in_minor":                        "--amount",
	"transaction_id":                         "--transaction-id",
	"beneficiary_name":                       "--name",
	"beneficiary_iban":                       "--iban",
	"beneficiary_reference":                  "--reference",
	"context_code":                           "--context-code",
	"currency":                               "--currency",
	"beneficiary.type":                       "--beneficiary-type",
	"beneficiary.merchant_account_id":        "--merchant-account-id",
	"beneficiary.account_holder_name":        "--account-holder-name",
	"beneficiary.reference":                  "--reference",
	"account_identifier.type":                "--iban/--sort-code",
	"account_identifier":                     "--iban/--sort-code",
	"account_identifier.sort_code":           "--sort-code",
	"account_identifier.account_number":      "--account-number",
	"account_identifier.iban":                "--iban",
	"account_identifier.bban":                "--bban",
	"account_identifier.nrb":                 "--nrb",
	"provider_selection.type":                "--provider-type",
	"provider_selection.provider_id":         "--provider-id",
	"provider_selection.remitter":            "--remitter",
	"filter.release_channel":                 "--release-channel",
	"scheme_selection.type":                  "--scheme",
	"scheme_selection.allow_remitter_fee":    "--allow-remitter-fee",
	"user":                                   "--user-name/--user-email/--user-phone",
	"user.id":                                "--user-id",
	"user.name":                              "--user-name",
	"user.email":                             "--user-email",
	"user.phone":                             "--user-phone",
	"user.date_of_birth":                     "--user-dob",
	"mandate.type":                           "--type",
	"mandate.reference":                      "--reference",
	"constraints.valid_from":                 "--valid-from",
	"constraints.valid_to":                   "--valid-to",
	"constraints.maximum_individual_amount":  "--max-individual",
	"constraints.periodic_limits":            "--limit",
	"metadata":                               "--metadata",
	"related_products":                       "--related-products",
	"payment_method.type":                    "",
	"payment_method.beneficiary.type":        "--beneficiary-type",
	"mandate.provider_selection.filter":      "--countries/--release-channel/--customer-segments",
	"payment_method.provider_selection.type": "--provider-type",
}

// flagAccepts says what a flag takes where paydash reads more than the
// interface's wire form the field's rule describes (the flag's value is
// normalised before it is checked).
var flagAccepts = map[string]string{
	"--sort-code": "written with or without dashes: 12-34-56 or 123456",
	"--countries": "in any case: gb,de or GB,DE",
}

// flagFor finds the flag for a field path, trying the longest suffix
// first ("payment_method.beneficiary.account_identifier.iban" matches
// "account_identifier.iban").
func flagFor(field string) string {
	if f, ok := flagOfField[field]; ok {
		return f
	}
	parts := strings.Split(field, ".")
	for i := 1; i < len(parts); i++ {
		suffix := strings.Join(parts[i:], ".")
		// metadata.KEY and constraints.periodic_limits.month.* map to
		// their flag family.
		if f, ok := flagOfField[suffix]; ok {
			return f
		}
	}
	switch {
	case strings.HasPrefix(field, "metadata"):
		return "--metadata"
	case strings.Contains(field, "periodic_limits"):
		return "--limit"
	case strings.Contains(field, "countries"):
		return "--countries"
	case strings.Contains(field, "customer_segments"):
		return "--customer-segments"
	}
	return ""
}

// ProblemsError reports every problem of a request with its field path
// and the flag that sets it. Nothing was sent.
type ProblemsError struct {
	What     string // "payment", "mandate", "payout"
	Usage    []string
	Problems api.Problems
}

func (e *ProblemsError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "the %s is not valid; nothing was sent:", e.What)
	for _, u := range e.Usage {
		b.WriteString("\n  ")
		b.WriteString(u)
	}
	for _, p := range e.Problems {
		b.WriteString("\n  ")
		b.WriteString(p.Field)
		b.WriteString(": ")
		b.WriteString(p.Message)
		if f := flagFor(p.Field); f != "" {
			b.WriteString(" (")
			b.WriteString(f)
			if h := flagAccepts[f]; h != "" {
				b.WriteString("; " + h)
			}
			b.WriteString(")")
		}
	}
	return b.String()
}

// dropFields removes problems about fields whose flag could not even be
// parsed: the parse error already says what is wrong, and "must be more
// than zero" after "has 3 decimals" would only confuse.
func dropFields(ps api.Problems, fields ...string) api.Problems {
	if len(fields) == 0 {
		return ps
	}
	out := ps[:0:0]
	for _, p := range ps {
		drop := false
		for _, f := range fields {
			if p.Field == f || strings.HasPrefix(p.Field, f+".") {
				drop = true
			}
		}
		if !drop {
			out = append(out, p)
		}
	}
	return out
}
