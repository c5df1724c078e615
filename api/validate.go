package api

import (
	"encoding/json"
	"fmt"
	"net/mail"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/paydash/paydash/internal/platform/clock"
)

// Problem is one thing wrong with a request: the dotted JSON path of the
// field and a sentence a person understands.
type Problem struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

// String renders "field: message".
func (p Problem) String() string { return p.Field + ": " + p.Message }

// Problems is every problem found in a request, in field order.
type Problems []Problem

// Error joins the problems one per line.
func (ps Problems) Error() string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = p.String()
	}
	return strings.Join(s, "\n")
}

// Err returns nil when there are no problems, so callers can write
// `if err := api.ValidatePayout(r).Err(); err != nil`.
func (ps Problems) Err() error {
	if len(ps) == 0 {
		return nil
	}
	return ps
}

// Fields groups the messages by field path (the shape of the problem+json
// "errors" member).
func (ps Problems) Fields() map[string][]string {
	m := make(map[string][]string, len(ps))
	for _, p := range ps {
		m[p.Field] = append(m[p.Field], p.Message)
	}
	return m
}

// ValidateOptions carries what the rules need beyond the request.
type ValidateOptions struct {
	// Regulated callers need not give the user's personal details and may
	// set mandate.reference.
	Regulated bool
	// AccountCurrency, when set, tells the currency of a merchant account,
	// so a GBP payment into an EUR merchant account is caught.
	AccountCurrency func(merchantAccountID string) (currency string, ok bool)
	// Clock tells the current time, for "date_of_birth is in the past";
	// nil means the real clock. The sandbox passes its own so tests are
	// repeatable.
	Clock clock.Clock
}

func (o ValidateOptions) now() time.Time {
	if o.Clock != nil {
		return o.Clock.Now()
	}
	return time.Now()
}

// Limits of the interface document (Limits table).
const (
	MaxMetadataPairs    = 10
	MaxMetadataKeyLen   = 40
	MaxMetadataValueLen = 500
)

// SchemeSelectionInstantOnly is the one scheme_selection.type the
// interface shows.
const SchemeSelectionInstantOnly = "instant_only"

// Release channels of a provider filter.
const (
	ReleaseChannelPrivateBeta         = "private_beta"
	ReleaseChannelGeneralAvailability = "general_availability"
)

// identifierTypes lists the account identifier types a request accepts:
// mandates take sort_code_account_number and iban, payments also bban and nrb.
func identifierTypes(payment bool) []string {
	if payment {
		return []string{AccountIdentifierSortCode, AccountIdentifierIBAN, AccountIdentifierBBAN, AccountIdentifierNRB}
	}
	return []string{AccountIdentifierSortCode, AccountIdentifierIBAN}
}

// problems collects Problems in the order the checks run, which follows
// the order of the fields in the request.
type problems struct{ list Problems }

func (p *problems) addf(field, format string, args ...any) {
	p.list = append(p.list, Problem{Field: field, Message: fmt.Sprintf(format, args...)})
}

// required reports a blank value and says whether it was present.
func (p *problems) required(field, value, hint string) bool {
	if strings.TrimSpace(value) == "" {
		p.addf(field, "is required; %s", hint)
		return false
	}
	return true
}

// oneOf reports a value outside allowed (a missing one as required) and
// says whether the value is allowed.
func (p *problems) oneOf(field, value string, allowed ...string) bool {
	for _, a := range allowed {
		if value == a {
			return true
		}
	}
	if value == "" {
		p.addf(field, "is required; use %s", orList(allowed))
	} else {
		p.addf(field, "must be %s, not %q", orList(allowed), value)
	}
	return false
}

// orList writes "a", "a or b", "a, b or c".
func orList(xs []string) string {
	if len(xs) == 1 {
		return xs[0]
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " or " + xs[len(xs)-1]
}

// ValidateMandate checks a mandate creation request against every rule of
// the interface and returns all problems at once.
func ValidateMandate(req *MandateRequest, opt ValidateOptions) Problems {
	if ps := stringLengths(req); len(ps) > 0 {
		return ps
	}
	var p problems
	m := &req.Mandate
	p.oneOf("mandate.type", m.Type, MandateSweeping, MandateCommercial)
	checkProviderSelection(&p, "mandate.provider_selection", &m.ProviderSelection, false)
	checkBeneficiary(&p, "mandate.beneficiary", &m.Beneficiary, identifierTypes(false))
	if m.Reference != "" && !opt.Regulated {
		p.addf("mandate.reference", "is available to regulated customers only; leave it empty")
	}
	checkKnownCurrency(&p, "currency", req.Currency)
	checkMerchantAccountCurrency(&p, "mandate.beneficiary", "mandate", req.Currency, &m.Beneficiary, opt)
	checkUser(&p, req.User, opt)
	checkConstraints(&p, &req.Constraints, req.Currency, opt.now())
	checkMetadata(&p, req.Metadata)
	checkRelatedProducts(&p, req.RelatedProducts)
	return p.list
}

// ValidatePayment checks a single payment creation request.
func ValidatePayment(req *PaymentRequest, opt ValidateOptions) Problems {
	if ps := stringLengths(req); len(ps) > 0 {
		return ps
	}
	var p problems
	if req.AmountInMinor <= 0 {
		p.addf("amount_in_minor", "must be more than zero; it is in minor units, so 100 is 1.00")
	}
	currencyOK := p.oneOf("currency", req.Currency, "GBP", "EUR")
	checkPaymentMethodType(&p, req.PaymentMethod.Type)
	if req.PaymentMethod.ProviderSelection == nil {
		p.addf("payment_method.provider_selection", "is required; set its type to %s or %s", ProviderUserSelected, ProviderPreselected)
	} else {
		checkProviderSelection(&p, "payment_method.provider_selection", req.PaymentMethod.ProviderSelection, true)
	}
	b := &req.PaymentMethod.Beneficiary
	checkBeneficiary(&p, "payment_method.beneficiary", b, identifierTypes(true))
	if currencyOK {
		checkBeneficiaryCurrency(&p, "payment_method.beneficiary", req.Currency, b, opt)
	}
	checkUser(&p, req.User, opt)
	checkMetadata(&p, req.Metadata)
	checkRelatedProducts(&p, req.RelatedProducts)
	return p.list
}

// ValidatePayout checks a payout creation request.
//
// context_code: the interface shows only "withdrawal" and says the allowed
// values are not shown, so any lower_snake_case code is accepted rather than
// rejecting codes the service may well take; a typo in case or spacing is
// still caught.
func ValidatePayout(req *PayoutRequest) Problems {
	if ps := stringLengths(req); len(ps) > 0 {
		return ps
	}
	var p problems
	checkUUID(&p, "transaction_id", req.TransactionID, true, "give a new UUID for every payout")
	p.required("beneficiary_name", req.BeneficiaryName, "give the recipient's name")
	if p.required("beneficiary_iban", req.BeneficiaryIBAN, "give the recipient's IBAN, like GB82WEST12345698765432") {
		checkIBANField(&p, "beneficiary_iban", req.BeneficiaryIBAN)
		if ValidateIBAN(req.BeneficiaryIBAN) == nil {
			checkRail(&p, "beneficiary_iban", req.Currency, req.BeneficiaryIBAN)
		}
	}
	p.required("beneficiary_reference", req.BeneficiaryReference, "give the reference the recipient will see")
	checkKnownCurrency(&p, "currency", req.Currency)
	if req.AmountInMinor <= 0 {
		p.addf("amount_in_minor", "must be more than zero; it is in minor units, so 100 is 1.00")
	}
	if p.required("context_code", req.ContextCode, "use "+ContextCodeWithdrawal) && !isLowerSnake(req.ContextCode) {
		p.addf("context_code", "must be a lower_snake_case purpose code such as %s, not %q", ContextCodeWithdrawal, req.ContextCode)
	}
	return p.list
}

func checkPaymentMethodType(p *problems, t string) {
	switch t {
	case PaymentMethodBankTransfer:
	case "mandate":
		p.addf("payment_method.type", "mandate is for recurring payments on a mandate; a single payment uses %s", PaymentMethodBankTransfer)
	default:
		p.oneOf("payment_method.type", t, PaymentMethodBankTransfer)
	}
}

// checkProviderSelection checks the type and the fields each type uses:
// provider_id and remitter go with preselected, filter with user_selected.
func checkProviderSelection(p *problems, path string, ps *ProviderSelection, schemeAllowed bool) {
	switch {
	case !p.oneOf(path+".type", ps.Type, ProviderUserSelected, ProviderPreselected):
	case ps.Type == ProviderPreselected:
		p.required(path+".provider_id", ps.ProviderID, "give the id of the provider the user pays from when the type is preselected")
		if ps.Filter != nil {
			p.addf(path+".filter", "is only used with %s; remove it or set the type to %s", ProviderUserSelected, ProviderUserSelected)
		}
		if present(ps.Remitter) && !isJSONObject(ps.Remitter) {
			p.addf(path+".remitter", "must be an object holding the user's bank details")
		}
	default: // user_selected
		if ps.ProviderID != "" {
			p.addf(path+".provider_id", "is only used with %s; remove it or set the type to %s", ProviderPreselected, ProviderPreselected)
		}
		if present(ps.Remitter) {
			p.addf(path+".remitter", "is only used with %s; remove it or set the type to %s", ProviderPreselected, ProviderPreselected)
		}
	}
	if ps.Filter != nil {
		checkFilter(p, path+".filter", ps.Filter)
	}
	checkSchemeSelection(p, path+".scheme_selection", ps.SchemeSelection, schemeAllowed)
}

func checkFilter(p *problems, path string, f *ProviderFilter) {
	for i, c := range f.Countries {
		if !isUpperAlpha2(c) {
			p.addf(fmt.Sprintf("%s.countries[%d]", path, i), "must be a two-letter upper-case country code such as GB or DE, not %q", c)
		}
	}
	if f.ReleaseChannel != "" {
		p.oneOf(path+".release_channel", f.ReleaseChannel, ReleaseChannelPrivateBeta, ReleaseChannelGeneralAvailability)
	}
	for i, s := range f.CustomerSegments {
		if strings.TrimSpace(s) == "" {
			p.addf(fmt.Sprintf("%s.customer_segments[%d]", path, i), "is empty; give a segment such as retail or remove it")
		}
	}
}

// checkSchemeSelection: only instant_only is shown and other values are
// "not shown", so any lower_snake_case type passes (as for context_code).
func checkSchemeSelection(p *problems, path string, s *SchemeSelection, allowed bool) {
	switch {
	case s == nil:
	case !allowed:
		p.addf(path, "applies to single payments only; remove it from the mandate")
	case p.required(path+".type", s.Type, "use "+SchemeSelectionInstantOnly) && !isLowerSnake(s.Type):
		p.addf(path+".type", "must be a lower_snake_case scheme selection such as %s, not %q", SchemeSelectionInstantOnly, s.Type)
	}
}

// checkBeneficiary checks the type and the fields each type requires, and
// the account identifier wherever one is given.
func checkBeneficiary(p *problems, path string, b *Beneficiary, idTypes []string) {
	if p.oneOf(path+".type", b.Type, BeneficiaryMerchantAccount, BeneficiaryExternalAccount) {
		if b.Type == BeneficiaryMerchantAccount {
			p.required(path+".merchant_account_id", b.MerchantAccountID, "give the id of your merchant account when the type is merchant_account")
		} else {
			p.required(path+".account_holder_name", b.AccountHolderName, "give the name shown on the payer's statement when the type is external_account")
			if b.AccountIdentifier == nil {
				p.addf(path+".account_identifier", "is required when the type is external_account; use %s", orList(idTypes))
			}
		}
	}
	if b.AccountIdentifier != nil {
		checkAccountIdentifier(p, path+".account_identifier", b.AccountIdentifier, idTypes)
	}
}

func checkAccountIdentifier(p *problems, path string, id *AccountIdentifier, types []string) {
	if !p.oneOf(path+".type", id.Type, types...) {
		return
	}
	switch id.Type {
	case AccountIdentifierSortCode:
		if p.required(path+".sort_code", id.SortCode, "give the 6-digit sort code, like 123456") && !isDigits(id.SortCode, 6) {
			p.addf(path+".sort_code", "must be exactly 6 digits without dashes or spaces, like 123456")
		}
		if p.required(path+".account_number", id.AccountNumber, "give the 8-digit account number, like 12345678") && !isDigits(id.AccountNumber, 8) {
			p.addf(path+".account_number", "must be exactly 8 digits, like 12345678; pad a shorter number with leading zeros")
		}
	case AccountIdentifierIBAN:
		if p.required(path+".iban", id.IBAN, "give the account's IBAN, like GB82WEST12345698765432") {
			checkIBANField(p, path+".iban", id.IBAN)
		}
	case AccountIdentifierBBAN:
		if p.required(path+".bban", id.BBAN, "give the account's BBAN") && !isBBAN(id.BBAN) {
			p.addf(path+".bban", "must be up to 30 capital letters and digits, without spaces")
		}
	case AccountIdentifierNRB:
		if p.required(path+".nrb", id.NRB, "give the 26-digit Polish account number (NRB)") {
			checkNRB(p, path+".nrb", id.NRB)
		}
	}
}

func checkIBANField(p *problems, path, iban string) {
	if reason, kind := checkIBAN(iban); kind != nil {
		p.addf(path, "%s", reason)
	}
}

// checkNRB checks a Polish NRB: 26 digits whose first two are the check
// digits of the matching PL IBAN.
func checkNRB(p *problems, path, nrb string) {
	switch {
	case !isDigits(nrb, 26):
		p.addf(path, "must be exactly 26 digits without spaces")
	case ibanMod97("PL"+nrb) != 1:
		p.addf(path, "fails its check-digit test; check for a mistyped digit")
	}
}

// checkMerchantAccountCurrency refuses a payment or mandate into a
// merchant account the profile lists under another currency: the service
// would refuse it, and only after it was sent.
func checkMerchantAccountCurrency(p *problems, path, what, currency string, b *Beneficiary, opt ValidateOptions) {
	if b.Type == BeneficiaryMerchantAccount && opt.AccountCurrency != nil && b.MerchantAccountID != "" {
		if acct, ok := opt.AccountCurrency(b.MerchantAccountID); ok && acct != currency {
			p.addf(path+".merchant_account_id", "is a merchant account that holds %s, and a %s %s cannot go into it; pay in %s or choose a merchant account that holds %s", acct, currency, what, acct, currency)
		}
	}
}

// checkBeneficiaryCurrency enforces "a payment cannot go from GBP to an EUR
// beneficiary account, nor the other way round": GBP goes to UK accounts
// (sort code and account number, or a GB IBAN), EUR to non-UK IBANs, BBANs
// and NRBs; a merchant account must hold the payment's currency.
func checkBeneficiaryCurrency(p *problems, path, currency string, b *Beneficiary, opt ValidateOptions) {
	checkMerchantAccountCurrency(p, path, "payment", currency, b, opt)
	id := b.AccountIdentifier
	if id == nil {
		return
	}
	switch {
	case id.Type == AccountIdentifierIBAN && ValidateIBAN(id.IBAN) == nil:
		checkIBANCurrency(p, path+".account_identifier.iban", currency, id.IBAN[:2])
	case currency == "GBP" && (id.Type == AccountIdentifierBBAN || id.Type == AccountIdentifierNRB):
		p.addf(path+".account_identifier.type", "%s is not a UK account, and a GBP payment must go to one; use %s or a GB iban, or pay in EUR", id.Type, AccountIdentifierSortCode)
	case currency == "EUR" && id.Type == AccountIdentifierSortCode:
		p.addf(path+".account_identifier.type", "%s is for UK sterling accounts, and an EUR payment cannot go to one; use a euro iban or pay in GBP", id.Type)
	}
}

func checkIBANCurrency(p *problems, path, currency, country string) {
	switch {
	case currency == "GBP" && country != "GB":
		p.addf(path, "is a %s IBAN, and a GBP payment must go to a UK account; use a GB IBAN or a sort code and account number, or pay in EUR", country)
	case currency == "EUR" && country == "GB":
		p.addf(path, "is a GB IBAN of a sterling account, and an EUR payment cannot go to it; use a euro IBAN or pay in GBP")
	}
}

// checkKnownCurrency requires an ISO 4217 code that CurrencyDigits knows.
func checkKnownCurrency(p *problems, path, c string) {
	if !p.required(path, c, "give an ISO 4217 code such as GBP or EUR") {
		return
	}
	if _, ok := CurrencyDigits(c); ok {
		return
	}
	if _, ok := CurrencyDigits(strings.ToUpper(c)); ok {
		p.addf(path, "must be written in capitals: %s, not %q", strings.ToUpper(c), c)
		return
	}
	p.addf(path, "must be an ISO 4217 currency code paydash knows, such as GBP or EUR, not %q", c)
}

// checkUser: everyone but a regulated customer gives the user's name and
// an email or phone; whatever is given must be well formed.
func checkUser(p *problems, u *User, opt ValidateOptions) {
	if u == nil {
		if !opt.Regulated {
			p.addf("user", "is required; give the user's name and an email or phone number")
		}
		return
	}
	checkUUID(p, "user.id", u.ID, false, "")
	if !opt.Regulated {
		p.required("user.name", u.Name, "give the user's full name")
		if strings.TrimSpace(u.Email) == "" && strings.TrimSpace(u.Phone) == "" {
			p.addf("user", "needs an email or a phone number; give at least one")
		}
	}
	if u.Email != "" && !looksLikeEmail(u.Email) {
		p.addf("user.email", "must be an email address like name@example.com")
	}
	if u.Phone != "" && !looksLikePhone(u.Phone) {
		p.addf("user.phone", "must be an international number like +447911123456: a plus sign, the country code and the number")
	}
	if u.DateOfBirth != "" {
		checkDateOfBirth(p, u.DateOfBirth, opt.now())
	}
}

func checkDateOfBirth(p *problems, s string, now time.Time) {
	dob, err := time.Parse(time.DateOnly, s)
	if err != nil {
		p.addf("user.date_of_birth", "must be a date written YYYY-MM-DD, like 1990-01-31")
		return
	}
	today := now.UTC().Format(time.DateOnly)
	if dob.Format(time.DateOnly) >= today {
		p.addf("user.date_of_birth", "must be in the past, before %s", today)
	}
}

// checkUUID requires the canonical 36-character form, which is what the
// service generates and echoes back.
func checkUUID(p *problems, path, s string, required bool, hint string) {
	if s == "" {
		if required {
			p.addf(path, "is required; %s, like 123e4567-e89b-12d3-a456-426614174000", hint)
		}
		return
	}
	if _, err := uuid.Parse(s); err != nil || len(s) != 36 {
		p.addf(path, "must be a UUID like 123e4567-e89b-12d3-a456-426614174000, not %q", s)
	}
}

// checkConstraints also refuses a validity that has already ended
// (valid_to not after now): such a mandate could never be used, and the
// form, the CLI and the sandbox must agree on it, so the rule lives here
// and takes now from ValidateOptions.Clock.
func checkConstraints(p *problems, c *Constraints, currency string, now time.Time) {
	from, fromOK := checkMandateTime(p, "constraints.valid_from", c.ValidFrom)
	to, toOK := checkMandateTime(p, "constraints.valid_to", c.ValidTo)
	switch {
	case toOK && !to.After(now):
		p.addf("constraints.valid_to", "has already passed (%s is not after now, %s); give a future end, or leave it empty for no end",
			FormatMandateTime(to), FormatMandateTime(now.UTC().Truncate(time.Millisecond)))
	case fromOK && toOK && !from.Before(to):
		p.addf("constraints.valid_to", "must be after constraints.valid_from (%s)", c.ValidFrom)
	}
	maxInd := c.MaximumIndividualAmount
	if maxInd <= 0 {
		p.addf("constraints.maximum_individual_amount", "must be more than zero; it caps each single payment, in minor units")
	}
	for _, nl := range c.PeriodicLimits.Periods() {
		if nl.Limit != nil {
			checkPeriodicLimit(p, "constraints.periodic_limits."+nl.Name, nl.Limit, maxInd, currency)
		}
	}
}

// checkMandateTime reports a valid_from/valid_to that ParseMandateTime
// cannot read. Both are optional; ok is true only for a present, valid time.
func checkMandateTime(p *problems, path, s string) (t time.Time, ok bool) {
	if s == "" {
		return time.Time{}, false
	}
	t, err := ParseMandateTime(s)
	if err != nil {
		p.addf(path, "must be a UTC date-time like 2025-01-31T09:30:00.000Z, not %q", s)
		return time.Time{}, false
	}
	return t, true
}

func checkPeriodicLimit(p *problems, path string, l *PeriodicLimit, maxInd int64, currency string) {
	switch {
	case l.MaximumAmount <= 0:
		p.addf(path+".maximum_amount", "must be more than zero; it caps the total paid in the period, in minor units")
	case maxInd > 0 && l.MaximumAmount < maxInd:
		p.addf(path+".maximum_amount", "must be at least constraints.maximum_individual_amount (%s)", FormatAmountPlain(maxInd, currency))
	}
	p.oneOf(path+".period_alignment", l.PeriodAlignment, AlignmentConsent, AlignmentCalendar)
}

// checkMetadata applies the Limits table; keys are checked in sorted order
// so the problems come out the same on every run.
func checkMetadata(p *problems, m map[string]string) {
	if len(m) > MaxMetadataPairs {
		p.addf("metadata", "has %d pairs; keep it to at most %d", len(m), MaxMetadataPairs)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if k == "" {
			p.addf("metadata", "has an empty key; give every entry a name")
			continue
		}
		if n := utf8.RuneCountInString(k); n > MaxMetadataKeyLen {
			p.addf("metadata."+shorten(k), "has a key of %d characters; keep keys to at most %d", n, MaxMetadataKeyLen)
		}
		if n := utf8.RuneCountInString(m[k]); n > MaxMetadataValueLen {
			p.addf("metadata."+k, "has a value of %d characters; keep values to at most %d", n, MaxMetadataValueLen)
		}
	}
}

// checkRelatedProducts: "at least one product must be set if it is
// present". JSON {} decodes to an empty non-nil map, and a member that is
// null sets nothing.
func checkRelatedProducts(p *problems, rp map[string]json.RawMessage) {
	if rp == nil {
		return
	}
	for _, v := range rp {
		if present(v) {
			return
		}
	}
	p.addf("related_products", "sets no product; set at least one or leave related_products out")
}

// present tells whether an opaque JSON member holds something other than
// nothing or null.
func present(raw json.RawMessage) bool {
	s := strings.TrimSpace(string(raw))
	return s != "" && s != "null"
}

func isJSONObject(raw json.RawMessage) bool {
	var obj map[string]json.RawMessage
	return json.Unmarshal(raw, &obj) == nil && obj != nil
}

func isDigits(s string, n int) bool { return len(s) == n && allDigits(s) }

func isBBAN(s string) bool {
	if len(s) > 30 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if (s[i] < 'A' || s[i] > 'Z') && (s[i] < '0' || s[i] > '9') {
			return false
		}
	}
	return true
}

// isLowerSnake accepts codes like "withdrawal" or "instant_only".
func isLowerSnake(s string) bool {
	if s == "" || s[0] == '_' || s[len(s)-1] == '_' || strings.Contains(s, "__") {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '_' {
			return false
		}
	}
	return true
}

// looksLikeEmail accepts a bare address (no display name) whose domain has
// a dot, which is what a person means by "an email".
func looksLikeEmail(s string) bool {
	a, err := mail.ParseAddress(s)
	if err != nil || a.Address != s || a.Name != "" {
		return false
	}
	domain := s[strings.LastIndexByte(s, '@')+1:]
	return strings.Contains(domain, ".") && !strings.HasPrefix(domain, ".") && !strings.HasSuffix(domain, ".")
}

// looksLikePhone accepts E.164: "+", a non-zero digit, then 6 to 14 more
// digits (+447911123456).
func looksLikePhone(s string) bool {
	return len(s) >= 8 && len(s) <= 16 && s[0] == '+' && s[1] != '0' && allDigits(s[1:])
}
