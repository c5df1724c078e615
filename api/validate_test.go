package api

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/paydash/paydash/internal/platform/clock"
)

// validationNow is the fixed "now" of the date-of-birth rule.
func validationNow() time.Time { return time.Date(2025, 6, 15, 12, 0, 0, 0, time.UTC) }

// validationOptions validates at validationNow, so the fixtures' mandate
// validity (2025-2026) does not expire as real time passes.
func validationOptions() ValidateOptions {
	return ValidateOptions{Clock: clock.NewFake(validationNow())}
}

func validationMandate() *MandateRequest {
	return &MandateRequest{
		Mandate: Mandate{
			Type: MandateSweeping,
			ProviderSelection: ProviderSelection{
				Type: ProviderUserSelected,
				Filter: &ProviderFilter{
					Countries:        []string{"GB", "IE"},
					ReleaseChannel:   ReleaseChannelGeneralAvailability,
					CustomerSegments: []string{"retail"},
				},
			},
			Beneficiary: Beneficiary{
				Type:              BeneficiaryExternalAccount,
				AccountHolderName: "Ada Lovelace Ltd",
				AccountIdentifier: &AccountIdentifier{Type: AccountIdentifierSortCode, SortCode: "123456", AccountNumber: "12345678"},
			},
		},
		Currency: "GBP",
		User:     &User{ID: "f5a4e1b8-2b0a-4c5e-9b3a-6d2f1e0c9a87", Name: "Jane Doe", Email: "jane@example.com", Phone: "+447911123456"},
		Constraints: Constraints{
			ValidFrom:               "2025-01-01T00:00:00.000Z",
			ValidTo:                 "2026-01-01T00:00:00.000Z",
			MaximumIndividualAmount: 5000,
			PeriodicLimits:          &PeriodicLimits{Month: &PeriodicLimit{MaximumAmount: 20000, PeriodAlignment: AlignmentCalendar}},
		},
		Metadata: map[string]string{"order": "42"},
	}
}

func validationPayment() *PaymentRequest {
	return &PaymentRequest{
		AmountInMinor: 1999,
		Currency:      "GBP",
		PaymentMethod: PaymentMethod{
			Type:              PaymentMethodBankTransfer,
			ProviderSelection: &ProviderSelection{Type: ProviderUserSelected},
			Beneficiary: Beneficiary{
				Type:              BeneficiaryExternalAccount,
				AccountHolderName: "Ada Lovelace Ltd",
				AccountIdentifier: &AccountIdentifier{Type: AccountIdentifierSortCode, SortCode: "123456", AccountNumber: "12345678"},
				Reference:         "INV-42",
			},
		},
		User: &User{Name: "Jane Doe", Email: "jane@example.com", DateOfBirth: "1990-01-31"},
	}
}

func validationPayout() *PayoutRequest {
	return &PayoutRequest{
		TransactionID:        "0e8f7a6b-5c4d-4e3f-a2b1-c0d9e8f7a6b5",
		BeneficiaryName:      "Jane Doe",
		BeneficiaryIBAN:      "GB82WEST12345698765432",
		BeneficiaryReference: "Withdrawal 42",
		Currency:             "GBP",
		AmountInMinor:        2500,
		ContextCode:          ContextCodeWithdrawal,
	}
}

// vCase is one rule's case: edit a valid request, then expect exactly the
// listed field paths (none for a valid variant), and the first message to
// contain msg.
type vCase[T any] struct {
	name   string
	opt    ValidateOptions
	edit   func(*T)
	fields []string
	msg    string
}

func runValidationCases[T any](t *testing.T, base func() *T, validate func(*T, ValidateOptions) Problems, cases []vCase[T]) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req := base()
			c.edit(req)
			if c.opt.Clock == nil {
				c.opt.Clock = clock.NewFake(validationNow())
			}
			ps := validate(req, c.opt)
			got := make([]string, len(ps))
			for i, p := range ps {
				got[i] = p.Field
				checkSentence(t, p)
			}
			if !slices.Equal(got, c.fields) {
				t.Fatalf("fields = %q, want %q\n%v", got, c.fields, ps)
			}
			if c.msg != "" && !strings.Contains(ps[0].Message, c.msg) {
				t.Errorf("message %q should say %q", ps[0].Message, c.msg)
			}
		})
	}
}

// checkSentence: a message continues "field: " as words a person reads,
// with no formatting debris.
func checkSentence(t *testing.T, p Problem) {
	t.Helper()
	m := p.Message
	first, _ := utf8First(m)
	switch {
	case len(strings.Fields(m)) < 3:
		t.Errorf("%s: message %q is not a sentence", p.Field, m)
	case !unicode.IsLower(first):
		t.Errorf("%s: message %q should continue the field name in lower case", p.Field, m)
	case strings.Contains(m, "%!"), strings.Contains(m, "<nil>"), strings.ContainsAny(m, "\n\t"):
		t.Errorf("%s: message %q has formatting debris", p.Field, m)
	case strings.HasSuffix(m, ".") || strings.HasSuffix(m, " "):
		t.Errorf("%s: message %q should end without a full stop, like an error string", p.Field, m)
	}
}

func utf8First(s string) (rune, bool) {
	for _, r := range s {
		return r, true
	}
	return 0, false
}

func metadataOf(n int, keyLen, valueLen int) map[string]string {
	m := make(map[string]string, n)
	for i := range n {
		key := fmt.Sprintf("%02d", i) + strings.Repeat("é", keyLen-2)
		m[key] = strings.Repeat("ß", valueLen)
	}
	return m
}

const (
	mb  = "mandate.beneficiary"
	mps = "mandate.provider_selection"
	mai = "mandate.beneficiary.account_identifier"
	pb  = "payment_method.beneficiary"
	pai = "payment_method.beneficiary.account_identifier"
	pps = "payment_method.provider_selection"
)

func TestValidateMandate(t *testing.T) {
	type M = MandateRequest
	cases := []vCase[M]{
		{name: "valid sweeping", edit: func(r *M) {}},
		{name: "valid commercial", edit: func(r *M) { r.Mandate.Type = MandateCommercial }},
		{name: "type missing", edit: func(r *M) { r.Mandate.Type = "" }, fields: []string{"mandate.type"}, msg: "is required; use sweeping or commercial"},
		{name: "type unknown", edit: func(r *M) { r.Mandate.Type = "recurring" }, fields: []string{"mandate.type"}, msg: `must be sweeping or commercial, not "recurring"`},

		{name: "valid preselected with remitter", edit: func(r *M) {
			r.Mandate.ProviderSelection = ProviderSelection{Type: ProviderPreselected, ProviderID: "ob-bank", Remitter: json.RawMessage(`{"account_holder_name":"Jane"}`)}
		}},
		{name: "provider selection type missing", edit: func(r *M) { r.Mandate.ProviderSelection.Type = "" }, fields: []string{mps + ".type"}, msg: "user_selected or preselected"},
		{name: "provider selection type unknown", edit: func(r *M) { r.Mandate.ProviderSelection.Type = "merchant" }, fields: []string{mps + ".type"}, msg: `not "merchant"`},
		{name: "preselected without provider_id", edit: func(r *M) { r.Mandate.ProviderSelection = ProviderSelection{Type: ProviderPreselected} }, fields: []string{mps + ".provider_id"}, msg: "is required"},
		{name: "filter with preselected", edit: func(r *M) {
			r.Mandate.ProviderSelection.Type, r.Mandate.ProviderSelection.ProviderID = ProviderPreselected, "ob-bank"
		}, fields: []string{mps + ".filter"}, msg: "only used with user_selected"},
		{name: "provider_id with user_selected", edit: func(r *M) { r.Mandate.ProviderSelection.ProviderID = "ob-bank" }, fields: []string{mps + ".provider_id"}, msg: "only used with preselected"},
		{name: "remitter with user_selected", edit: func(r *M) { r.Mandate.ProviderSelection.Remitter = json.RawMessage(`{}`) }, fields: []string{mps + ".remitter"}, msg: "only used with preselected"},
		{name: "null remitter is absent", edit: func(r *M) { r.Mandate.ProviderSelection.Remitter = json.RawMessage(`null`) }},
		{name: "remitter not an object", edit: func(r *M) {
			r.Mandate.ProviderSelection = ProviderSelection{Type: ProviderPreselected, ProviderID: "ob-bank", Remitter: json.RawMessage(`"Jane"`)}
		}, fields: []string{mps + ".remitter"}, msg: "must be an object"},
		{name: "country codes", edit: func(r *M) { r.Mandate.ProviderSelection.Filter.Countries = []string{"GB", "gb", "GBR"} },
			fields: []string{mps + ".filter.countries[1]", mps + ".filter.countries[2]"}, msg: `two-letter upper-case country code such as GB or DE, not "gb"`},
		{name: "valid private beta", edit: func(r *M) { r.Mandate.ProviderSelection.Filter.ReleaseChannel = ReleaseChannelPrivateBeta }},
		{name: "release channel unknown", edit: func(r *M) { r.Mandate.ProviderSelection.Filter.ReleaseChannel = "beta" }, fields: []string{mps + ".filter.release_channel"}, msg: "private_beta or general_availability"},
		{name: "customer segment empty", edit: func(r *M) { r.Mandate.ProviderSelection.Filter.CustomerSegments = []string{"retail", " "} }, fields: []string{mps + ".filter.customer_segments[1]"}, msg: "such as retail"},
		{name: "scheme selection on a mandate", edit: func(r *M) {
			r.Mandate.ProviderSelection.SchemeSelection = &SchemeSelection{Type: SchemeSelectionInstantOnly}
		}, fields: []string{mps + ".scheme_selection"}, msg: "single payments only"},

		{name: "valid merchant account", edit: func(r *M) {
			r.Mandate.Beneficiary = Beneficiary{Type: BeneficiaryMerchantAccount, MerchantAccountID: "ma-gbp-1"}
		}},
		{name: "valid IBAN beneficiary", edit: func(r *M) {
			r.Mandate.Beneficiary.AccountIdentifier = &AccountIdentifier{Type: AccountIdentifierIBAN, IBAN: "GB82WEST12345698765432"}
		}},
		{name: "beneficiary type missing", edit: func(r *M) { r.Mandate.Beneficiary.Type = "" }, fields: []string{mb + ".type"}, msg: "merchant_account or external_account"},
		{name: "beneficiary type unknown", edit: func(r *M) { r.Mandate.Beneficiary.Type = "business_account" }, fields: []string{mb + ".type"}, msg: `not "business_account"`},
		{name: "merchant account without id", edit: func(r *M) { r.Mandate.Beneficiary = Beneficiary{Type: BeneficiaryMerchantAccount} }, fields: []string{mb + ".merchant_account_id"}, msg: "is required"},
		{name: "external account without name", edit: func(r *M) { r.Mandate.Beneficiary.AccountHolderName = " " }, fields: []string{mb + ".account_holder_name"}, msg: "is required"},
		{name: "external account without identifier", edit: func(r *M) { r.Mandate.Beneficiary.AccountIdentifier = nil }, fields: []string{mb + ".account_identifier"}, msg: "sort_code_account_number or iban"},
		{name: "identifier type not for mandates", edit: func(r *M) {
			r.Mandate.Beneficiary.AccountIdentifier = &AccountIdentifier{Type: AccountIdentifierBBAN, BBAN: "ABC123"}
		}, fields: []string{mai + ".type"}, msg: `must be sort_code_account_number or iban, not "bban"`},
		{name: "sort code with dashes", edit: func(r *M) { r.Mandate.Beneficiary.AccountIdentifier.SortCode = "12-34-56" }, fields: []string{mai + ".sort_code"}, msg: "exactly 6 digits"},
		{name: "sort code missing", edit: func(r *M) { r.Mandate.Beneficiary.AccountIdentifier.SortCode = "" }, fields: []string{mai + ".sort_code"}, msg: "is required"},
		{name: "account number short", edit: func(r *M) { r.Mandate.Beneficiary.AccountIdentifier.AccountNumber = "1234567" }, fields: []string{mai + ".account_number"}, msg: "exactly 8 digits"},
		{name: "account number missing", edit: func(r *M) { r.Mandate.Beneficiary.AccountIdentifier.AccountNumber = "" }, fields: []string{mai + ".account_number"}, msg: "is required"},
		{name: "IBAN checksum", edit: func(r *M) {
			r.Mandate.Beneficiary.AccountIdentifier = &AccountIdentifier{Type: AccountIdentifierIBAN, IBAN: "GB82WEST12345698765431"}
		}, fields: []string{mai + ".iban"}, msg: "check-digit test"},
		{name: "IBAN missing", edit: func(r *M) { r.Mandate.Beneficiary.AccountIdentifier = &AccountIdentifier{Type: AccountIdentifierIBAN} }, fields: []string{mai + ".iban"}, msg: "is required"},

		{name: "valid regulated with reference and no user", opt: ValidateOptions{Regulated: true}, edit: func(r *M) { r.Mandate.Reference, r.User = "REF-1", nil }},
		{name: "reference when not regulated", edit: func(r *M) { r.Mandate.Reference = "REF-1" }, fields: []string{"mandate.reference"}, msg: "regulated customers only"},

		{name: "valid yen mandate", edit: func(r *M) { r.Currency = "JPY" }},
		{name: "currency missing", edit: func(r *M) { r.Currency = "" }, fields: []string{"currency"}, msg: "is required"},
		{name: "currency unknown", edit: func(r *M) { r.Currency = "XYZ" }, fields: []string{"currency"}, msg: `such as GBP or EUR, not "XYZ"`},
		{name: "currency lower case", edit: func(r *M) { r.Currency = "gbp" }, fields: []string{"currency"}, msg: "capitals: GBP"},

		{name: "valid user with phone only", edit: func(r *M) { r.User.Email = "" }},
		{name: "valid user with email only", edit: func(r *M) { r.User.Phone = "" }},
		{name: "user missing", edit: func(r *M) { r.User = nil }, fields: []string{"user"}, msg: "is required"},
		{name: "user name missing", edit: func(r *M) { r.User.Name = "" }, fields: []string{"user.name"}, msg: "full name"},
		{name: "user without email or phone", edit: func(r *M) { r.User.Email, r.User.Phone = "", "" }, fields: []string{"user"}, msg: "email or a phone number"},
		{name: "valid regulated user without details", opt: ValidateOptions{Regulated: true}, edit: func(r *M) { r.User = &User{ID: r.User.ID} }},
		{name: "email without domain", edit: func(r *M) { r.User.Email = "jane@" }, fields: []string{"user.email"}, msg: "name@example.com"},
		{name: "email with display name", edit: func(r *M) { r.User.Email = "Jane <jane@example.com>" }, fields: []string{"user.email"}, msg: "name@example.com"},
		{name: "email without dot in domain", edit: func(r *M) { r.User.Email = "jane@localhost" }, fields: []string{"user.email"}, msg: "name@example.com"},
		{name: "phone national", edit: func(r *M) { r.User.Phone = "07911123456" }, fields: []string{"user.phone"}, msg: "+447911123456"},
		{name: "phone with spaces", edit: func(r *M) { r.User.Phone = "+44 7911 123456" }, fields: []string{"user.phone"}, msg: "like +447911123456"},
		{name: "phone format checked when regulated", opt: ValidateOptions{Regulated: true}, edit: func(r *M) { r.User.Phone = "12" }, fields: []string{"user.phone"}},
		{name: "user id not a UUID", edit: func(r *M) { r.User.ID = "user-1" }, fields: []string{"user.id"}, msg: `must be a UUID`},
		{name: "user id UUID in braces", edit: func(r *M) { r.User.ID = "{f5a4e1b8-2b0a-4c5e-9b3a-6d2f1e0c9a87}" }, fields: []string{"user.id"}, msg: `must be a UUID`},

		{name: "valid without validity window", edit: func(r *M) { r.Constraints.ValidFrom, r.Constraints.ValidTo = "", "" }},
		{name: "valid colon milliseconds", edit: func(r *M) { r.Constraints.ValidFrom = "2025-01-01T00:00:00:000Z" }},
		{name: "valid_from unreadable", edit: func(r *M) { r.Constraints.ValidFrom = "1 Jan 2025" }, fields: []string{"constraints.valid_from"}, msg: "2025-01-31T09:30:00.000Z"},
		{name: "valid_to unreadable", edit: func(r *M) { r.Constraints.ValidTo = "2026-13-01T00:00:00.000Z" }, fields: []string{"constraints.valid_to"}, msg: "UTC date-time"},
		{name: "valid_to before valid_from", edit: func(r *M) {
			r.Constraints.ValidFrom, r.Constraints.ValidTo = "2025-09-01T00:00:00.000Z", "2025-08-31T23:59:59.999Z"
		}, fields: []string{"constraints.valid_to"}, msg: "must be after constraints.valid_from (2025-09-01T00:00:00.000Z)"},
		{name: "valid_to equal to valid_from", edit: func(r *M) {
			r.Constraints.ValidFrom, r.Constraints.ValidTo = "2025-09-01T00:00:00.000Z", "2025-09-01T00:00:00.000Z"
		}, fields: []string{"constraints.valid_to"}, msg: "must be after"},
		// validationNow is 2025-06-15T12:00:00Z: a validity that ended
		// before it, or ends exactly then, could never be used.
		{name: "valid_to already passed", edit: func(r *M) {
			r.Constraints.ValidFrom, r.Constraints.ValidTo = "2024-02-01T00:00:00.000Z", "2025-02-01T00:00:00.000Z"
		}, fields: []string{"constraints.valid_to"}, msg: "has already passed (2025-02-01T00:00:00.000Z is not after now, 2025-06-15T12:00:00.000Z)"},
		{name: "valid_to exactly now", edit: func(r *M) { r.Constraints.ValidTo = "2025-06-15T12:00:00.000Z" }, fields: []string{"constraints.valid_to"}, msg: "has already passed"},
		{name: "valid_to already passed without valid_from", edit: func(r *M) { r.Constraints.ValidFrom, r.Constraints.ValidTo = "", "2025-06-15T11:59:59.999Z" },
			fields: []string{"constraints.valid_to"}, msg: "has already passed"},
		{name: "valid_to a millisecond after now", edit: func(r *M) { r.Constraints.ValidTo = "2025-06-15T12:00:00.001Z" }},
		{name: "maximum individual amount zero", edit: func(r *M) { r.Constraints.MaximumIndividualAmount = 0 }, fields: []string{"constraints.maximum_individual_amount"}, msg: "more than zero"},
		{name: "maximum individual amount negative", edit: func(r *M) { r.Constraints.MaximumIndividualAmount = -1 }, fields: []string{"constraints.maximum_individual_amount"}, msg: "more than zero"},
		{name: "valid periodic limit equal to individual", edit: func(r *M) { r.Constraints.PeriodicLimits.Month.MaximumAmount = 5000 }},
		{name: "valid every period", edit: func(r *M) {
			l := func() *PeriodicLimit { return &PeriodicLimit{MaximumAmount: 9000, PeriodAlignment: AlignmentConsent} }
			r.Constraints.PeriodicLimits = &PeriodicLimits{Day: l(), Week: l(), Fortnight: l(), Month: l(), HalfYear: l(), Year: l()}
		}},
		{name: "periodic limit below individual", edit: func(r *M) { r.Constraints.PeriodicLimits.Month.MaximumAmount = 4999 },
			fields: []string{"constraints.periodic_limits.month.maximum_amount"}, msg: "must be at least constraints.maximum_individual_amount (50.00)"},
		{name: "periodic limit zero", edit: func(r *M) { r.Constraints.PeriodicLimits.Year = &PeriodicLimit{PeriodAlignment: AlignmentConsent} },
			fields: []string{"constraints.periodic_limits.year.maximum_amount"}, msg: "more than zero"},
		{name: "period alignment unknown", edit: func(r *M) { r.Constraints.PeriodicLimits.Month.PeriodAlignment = "monthly" },
			fields: []string{"constraints.periodic_limits.month.period_alignment"}, msg: `must be consent or calendar, not "monthly"`},
		{name: "period alignment missing", edit: func(r *M) { r.Constraints.PeriodicLimits.Week = &PeriodicLimit{MaximumAmount: 5000} },
			fields: []string{"constraints.periodic_limits.week.period_alignment"}, msg: "is required"},

		{name: "valid metadata at every limit", edit: func(r *M) { r.Metadata = metadataOf(MaxMetadataPairs, MaxMetadataKeyLen, MaxMetadataValueLen) }},
		{name: "metadata too many pairs", edit: func(r *M) { r.Metadata = metadataOf(11, 5, 5) }, fields: []string{"metadata"}, msg: "has 11 pairs; keep it to at most 10"},
		{name: "metadata key too long", edit: func(r *M) { r.Metadata = map[string]string{strings.Repeat("k", 41): "v"} },
			fields: []string{"metadata." + strings.Repeat("k", 41)}, msg: "key of 41 characters"},
		{name: "metadata value too long", edit: func(r *M) { r.Metadata = map[string]string{"note": strings.Repeat("é", 501)} },
			fields: []string{"metadata.note"}, msg: "value of 501 characters"},
		{name: "metadata empty key", edit: func(r *M) { r.Metadata = map[string]string{"": "v"} }, fields: []string{"metadata"}, msg: "empty key"},

		{name: "valid related products", edit: func(r *M) { r.RelatedProducts = map[string]json.RawMessage{"signup_plus": json.RawMessage(`{}`)} }},
		{name: "related products empty", edit: func(r *M) { r.RelatedProducts = map[string]json.RawMessage{} }, fields: []string{"related_products"}, msg: "at least one"},
		{name: "related products only null", edit: func(r *M) { r.RelatedProducts = map[string]json.RawMessage{"signup_plus": json.RawMessage(`null`)} },
			fields: []string{"related_products"}, msg: "at least one"},
	}
	runValidationCases(t, validationMandate, ValidateMandate, cases)
}

func TestValidatePayment(t *testing.T) {
	type P = PaymentRequest
	eurAccounts := ValidateOptions{AccountCurrency: func(id string) (string, bool) {
		c, ok := map[string]string{"ma-eur": "EUR", "ma-gbp": "GBP"}[id]
		return c, ok
	}}
	iban := func(s string) func(*P) {
		return func(r *P) {
			r.PaymentMethod.Beneficiary.AccountIdentifier = &AccountIdentifier{Type: AccountIdentifierIBAN, IBAN: s}
		}
	}
	eur := func(edit func(*P)) func(*P) {
		return func(r *P) { r.Currency = "EUR"; edit(r) }
	}
	merchant := func(currency, id string) func(*P) {
		return func(r *P) {
			r.Currency = currency
			r.PaymentMethod.Beneficiary = Beneficiary{Type: BeneficiaryMerchantAccount, MerchantAccountID: id}
		}
	}
	cases := []vCase[P]{
		{name: "valid GBP to sort code", edit: func(r *P) {}},
		{name: "valid GBP to GB IBAN", edit: iban("GB82WEST12345698765432")},
		{name: "valid EUR to DE IBAN", edit: eur(iban("DE89370400440532013000"))},
		{name: "valid EUR to BBAN", edit: eur(func(r *P) {
			r.PaymentMethod.Beneficiary.AccountIdentifier = &AccountIdentifier{Type: AccountIdentifierBBAN, BBAN: "370400440532013000"}
		})},
		{name: "valid EUR to NRB", edit: eur(func(r *P) {
			r.PaymentMethod.Beneficiary.AccountIdentifier = &AccountIdentifier{Type: AccountIdentifierNRB, NRB: "61109010140000071219812874"}
		})},
		{name: "amount zero", edit: func(r *P) { r.AmountInMinor = 0 }, fields: []string{"amount_in_minor"}, msg: "more than zero"},
		{name: "amount negative", edit: func(r *P) { r.AmountInMinor = -100 }, fields: []string{"amount_in_minor"}, msg: "more than zero"},
		{name: "currency USD", edit: func(r *P) { r.Currency = "USD" }, fields: []string{"currency"}, msg: `must be GBP or EUR, not "USD"`},
		{name: "currency missing", edit: func(r *P) { r.Currency = "" }, fields: []string{"currency"}, msg: "is required; use GBP or EUR"},
		{name: "method mandate", edit: func(r *P) { r.PaymentMethod.Type = "mandate" }, fields: []string{"payment_method.type"}, msg: "recurring payments"},
		{name: "method unknown", edit: func(r *P) { r.PaymentMethod.Type = "card" }, fields: []string{"payment_method.type"}, msg: `must be bank_transfer, not "card"`},
		{name: "method missing", edit: func(r *P) { r.PaymentMethod.Type = "" }, fields: []string{"payment_method.type"}, msg: "is required; use bank_transfer"},
		{name: "provider selection missing", edit: func(r *P) { r.PaymentMethod.ProviderSelection = nil }, fields: []string{pps}, msg: "user_selected or preselected"},
		{name: "preselected without provider_id", edit: func(r *P) { r.PaymentMethod.ProviderSelection.Type = ProviderPreselected }, fields: []string{pps + ".provider_id"}},
		{name: "valid scheme selection", edit: func(r *P) {
			r.PaymentMethod.ProviderSelection.SchemeSelection = &SchemeSelection{Type: SchemeSelectionInstantOnly}
		}},
		{name: "scheme selection without type", edit: func(r *P) { r.PaymentMethod.ProviderSelection.SchemeSelection = &SchemeSelection{} },
			fields: []string{pps + ".scheme_selection.type"}, msg: "use instant_only"},
		{name: "scheme selection type malformed", edit: func(r *P) { r.PaymentMethod.ProviderSelection.SchemeSelection = &SchemeSelection{Type: "Instant-Only"} },
			fields: []string{pps + ".scheme_selection.type"}, msg: `such as instant_only, not "Instant-Only"`},
		{name: "external account without holder name", edit: func(r *P) { r.PaymentMethod.Beneficiary.AccountHolderName = "" }, fields: []string{pb + ".account_holder_name"}},
		{name: "identifier type unknown", edit: func(r *P) { r.PaymentMethod.Beneficiary.AccountIdentifier.Type = "pan" },
			fields: []string{pai + ".type"}, msg: "sort_code_account_number, iban, bban or nrb"},
		{name: "IBAN wrong length", edit: iban("DE8937040044053201300"), fields: []string{pai + ".iban"}, msg: "21 characters, but a DE IBAN has 22"},
		{name: "BBAN with spaces", edit: eur(func(r *P) {
			r.PaymentMethod.Beneficiary.AccountIdentifier = &AccountIdentifier{Type: AccountIdentifierBBAN, BBAN: "3704 0044"}
		}), fields: []string{pai + ".bban"}, msg: "without spaces"},
		{name: "NRB short", edit: eur(func(r *P) {
			r.PaymentMethod.Beneficiary.AccountIdentifier = &AccountIdentifier{Type: AccountIdentifierNRB, NRB: "6110901014"}
		}), fields: []string{pai + ".nrb"}, msg: "26 digits"},
		{name: "NRB checksum", edit: eur(func(r *P) {
			r.PaymentMethod.Beneficiary.AccountIdentifier = &AccountIdentifier{Type: AccountIdentifierNRB, NRB: "61109010140000071219812875"}
		}), fields: []string{pai + ".nrb"}, msg: "check-digit"},

		{name: "GBP to DE IBAN", edit: iban("DE89370400440532013000"), fields: []string{pai + ".iban"}, msg: "is a DE IBAN, and a GBP payment must go to a UK account"},
		{name: "EUR to GB IBAN", edit: eur(iban("GB82WEST12345698765432")), fields: []string{pai + ".iban"}, msg: "an EUR payment cannot go to it"},
		{name: "EUR to sort code", edit: eur(func(r *P) {}), fields: []string{pai + ".type"}, msg: "an EUR payment cannot go to one"},
		{name: "GBP to BBAN", edit: func(r *P) {
			r.PaymentMethod.Beneficiary.AccountIdentifier = &AccountIdentifier{Type: AccountIdentifierBBAN, BBAN: "370400440532013000"}
		}, fields: []string{pai + ".type"}, msg: "a GBP payment must go to one"},
		{name: "GBP to NRB", edit: func(r *P) {
			r.PaymentMethod.Beneficiary.AccountIdentifier = &AccountIdentifier{Type: AccountIdentifierNRB, NRB: "61109010140000071219812874"}
		}, fields: []string{pai + ".type"}, msg: "a GBP payment must go to one"},
		{name: "valid GBP into GBP merchant account", opt: eurAccounts, edit: merchant("GBP", "ma-gbp")},
		{name: "valid merchant account of unknown currency", opt: eurAccounts, edit: merchant("GBP", "ma-other")},
		{name: "GBP into EUR merchant account", opt: eurAccounts, edit: merchant("GBP", "ma-eur"), fields: []string{pb + ".merchant_account_id"},
			msg: "holds EUR, and a GBP payment cannot go into it"},
		{name: "EUR into GBP merchant account", opt: eurAccounts, edit: merchant("EUR", "ma-gbp"), fields: []string{pb + ".merchant_account_id"}},

		{name: "valid regulated without user", opt: ValidateOptions{Regulated: true}, edit: func(r *P) { r.User = nil }},
		{name: "user missing", edit: func(r *P) { r.User = nil }, fields: []string{"user"}},
		{name: "date of birth malformed", edit: func(r *P) { r.User.DateOfBirth = "31/01/1990" }, fields: []string{"user.date_of_birth"}, msg: "YYYY-MM-DD"},
		{name: "date of birth today", edit: func(r *P) { r.User.DateOfBirth = "2025-06-15" }, fields: []string{"user.date_of_birth"}, msg: "in the past, before 2025-06-15"},
		{name: "date of birth in the future", edit: func(r *P) { r.User.DateOfBirth = "2030-01-01" }, fields: []string{"user.date_of_birth"}, msg: "in the past"},
		{name: "metadata too many pairs", edit: func(r *P) { r.Metadata = metadataOf(12, 3, 3) }, fields: []string{"metadata"}},
		{name: "related products empty", edit: func(r *P) { r.RelatedProducts = map[string]json.RawMessage{} }, fields: []string{"related_products"}},
	}
	runValidationCases(t, validationPayment, ValidatePayment, cases)
}

func TestValidatePayout(t *testing.T) {
	type R = PayoutRequest
	cases := []vCase[R]{
		{name: "valid", edit: func(r *R) {}},
		{name: "valid EUR with another purpose code", edit: func(r *R) {
			r.Currency, r.BeneficiaryIBAN, r.ContextCode = "EUR", "FR1420041010050500013M02606", "salary_2025"
		}},
		{name: "transaction id missing", edit: func(r *R) { r.TransactionID = "" }, fields: []string{"transaction_id"}, msg: "new UUID"},
		{name: "transaction id not a UUID", edit: func(r *R) { r.TransactionID = "payout-1" }, fields: []string{"transaction_id"}, msg: `not "payout-1"`},
		{name: "transaction id URN", edit: func(r *R) { r.TransactionID = "urn:uuid:" + validationPayout().TransactionID }, fields: []string{"transaction_id"}},
		{name: "name blank", edit: func(r *R) { r.BeneficiaryName = "  " }, fields: []string{"beneficiary_name"}, msg: "recipient's name"},
		{name: "IBAN missing", edit: func(r *R) { r.BeneficiaryIBAN = "" }, fields: []string{"beneficiary_iban"}, msg: "is required"},
		{name: "IBAN invalid", edit: func(r *R) { r.BeneficiaryIBAN = "NL91ABNA0417164301" }, fields: []string{"beneficiary_iban"}, msg: "check-digit test"},
		{name: "IBAN with spaces", edit: func(r *R) { r.BeneficiaryIBAN = "NL91 ABNA 0417 1643 00" }, fields: []string{"beneficiary_iban"}, msg: "without spaces"},
		{name: "reference missing", edit: func(r *R) { r.BeneficiaryReference = "" }, fields: []string{"beneficiary_reference"}},
		{name: "currency missing", edit: func(r *R) { r.Currency = "" }, fields: []string{"currency"}},
		{name: "currency unknown", edit: func(r *R) { r.Currency = "ABC" }, fields: []string{"currency"}, msg: `not "ABC"`},
		{name: "amount zero", edit: func(r *R) { r.AmountInMinor = 0 }, fields: []string{"amount_in_minor"}},
		{name: "amount negative", edit: func(r *R) { r.AmountInMinor = -1 }, fields: []string{"amount_in_minor"}},
		{name: "context code missing", edit: func(r *R) { r.ContextCode = "" }, fields: []string{"context_code"}, msg: "use withdrawal"},
		{name: "context code capitalised", edit: func(r *R) { r.ContextCode = "Withdrawal" }, fields: []string{"context_code"}, msg: `not "Withdrawal"`},
		{name: "context code with space", edit: func(r *R) { r.ContextCode = "with drawal" }, fields: []string{"context_code"}},
	}
	runValidationCases(t, validationPayout, func(r *R, _ ValidateOptions) Problems { return ValidatePayout(r) }, cases)
}

func TestValidateReturnsEveryProblemInFieldOrder(t *testing.T) {
	t.Run("payout", func(t *testing.T) {
		ps := ValidatePayout(&PayoutRequest{})
		want := []string{"transaction_id", "beneficiary_name", "beneficiary_iban", "beneficiary_reference", "currency", "amount_in_minor", "context_code"}
		assertFields(t, ps, want)
	})
	t.Run("mandate", func(t *testing.T) {
		r := validationMandate()
		r.Mandate.Type = "x"
		r.Mandate.Beneficiary.AccountIdentifier.SortCode = "12-34-56"
		r.User.Email = "nope"
		r.Constraints.PeriodicLimits.Day = &PeriodicLimit{MaximumAmount: 10, PeriodAlignment: "x"}
		r.Metadata = map[string]string{"b": strings.Repeat("v", 501), "a": strings.Repeat("v", 501)}
		want := []string{
			"mandate.type", mai + ".sort_code", "user.email",
			"constraints.periodic_limits.day.maximum_amount", "constraints.periodic_limits.day.period_alignment",
			"metadata.a", "metadata.b",
		}
		for range 20 { // map order must not leak into the result
			assertFields(t, ValidateMandate(r, validationOptions()), want)
		}
	})
	t.Run("payment", func(t *testing.T) {
		ps := ValidatePayment(&PaymentRequest{}, ValidateOptions{})
		want := []string{"amount_in_minor", "currency", "payment_method.type", pps, pb + ".type", "user"}
		assertFields(t, ps, want)
	})
}

func assertFields(t *testing.T, ps Problems, want []string) {
	t.Helper()
	got := make([]string, len(ps))
	for i, p := range ps {
		got[i] = p.Field
		checkSentence(t, p)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("fields = %q\nwant     %q\n%v", got, want, ps)
	}
}

// A JSON body's `"related_products": {}` decodes to an empty, non-nil map,
// which the rule must catch; leaving the member out is fine.
func TestValidateMandateRelatedProductsFromJSON(t *testing.T) {
	body, err := json.Marshal(validationMandate())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		member string
		want   int
	}{{`{}`, 1}, {`{"p":null}`, 1}, {`{"p":{"on":true}}`, 0}} {
		withMember := strings.TrimSuffix(string(body), "}") + `,"related_products":` + c.member + "}"
		var r MandateRequest
		if err := json.Unmarshal([]byte(withMember), &r); err != nil {
			t.Fatal(err)
		}
		if ps := ValidateMandate(&r, validationOptions()); len(ps) != c.want {
			t.Errorf("related_products %s: got %v, want %d problems", c.member, ps, c.want)
		}
	}
}

func TestProblemsErrorAndFields(t *testing.T) {
	if err := ValidatePayout(validationPayout()).Err(); err != nil {
		t.Fatalf("valid payout: %v", err)
	}
	r := validationPayout()
	r.AmountInMinor, r.ContextCode = 0, "Bad"
	err := ValidatePayout(r).Err()
	if err == nil {
		t.Fatal("invalid payout: no error")
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "amount_in_minor: must be more than zero") || !strings.HasPrefix(lines[1], "context_code: ") {
		t.Errorf("Error() = %q; want one 'field: message' line per problem", err)
	}
	f := ValidatePayout(r).Fields()
	if len(f) != 2 || len(f["amount_in_minor"]) != 1 || len(f["context_code"]) != 1 {
		t.Errorf("Fields() = %v", f)
	}
}

// Without ValidateOptions.Clock the rule uses the real clock.
func TestValidateDateOfBirthDefaultsToRealClock(t *testing.T) {
	r := validationPayment()
	r.User.DateOfBirth = time.Now().AddDate(1, 0, 0).Format(time.DateOnly)
	if ps := ValidatePayment(r, ValidateOptions{}); len(ps) != 1 || ps[0].Field != "user.date_of_birth" {
		t.Fatalf("a birth date next year: got %v", ps)
	}
	r.User.DateOfBirth = "1990-01-31"
	if ps := ValidatePayment(r, ValidateOptions{}); len(ps) != 0 {
		t.Fatalf("a birth date in 1990: got %v", ps)
	}
}

func BenchmarkValidatePayment(b *testing.B) {
	r := validationPayment()
	r.Currency = "EUR"
	r.PaymentMethod.Beneficiary.AccountIdentifier = &AccountIdentifier{Type: AccountIdentifierIBAN, IBAN: "DE89370400440532013000"}
	for b.Loop() {
		if ps := ValidatePayment(r, ValidateOptions{}); len(ps) != 0 {
			b.Fatal(ps)
		}
	}
}

func BenchmarkValidateMandate(b *testing.B) {
	r := validationMandate()
	for b.Loop() {
		if ps := ValidateMandate(r, validationOptions()); len(ps) != 0 {
			b.Fatal(ps)
		}
	}
}

// A mandate into a merchant account the profile lists under another
// currency is refused before sending, as a payment is (the README's
// promise: exit 2, nothing sent).
func TestValidateMandateMerchantAccountCurrency(t *testing.T) {
	opt := ValidateOptions{AccountCurrency: func(id string) (string, bool) { return "EUR", id == "acct-eur" }}
	req := &MandateRequest{Currency: "GBP", Mandate: Mandate{Beneficiary: Beneficiary{Type: BeneficiaryMerchantAccount, MerchantAccountID: "acct-eur"}}}
	var found bool
	for _, p := range ValidateMandate(req, opt) {
		if p.Field == "mandate.beneficiary.merchant_account_id" && strings.Contains(p.Message, "holds EUR, and a GBP mandate cannot go into it") {
			found = true
		}
	}
	if !found {
		t.Errorf("GBP mandate into an EUR merchant account: no problem on mandate.beneficiary.merchant_account_id: %v", ValidateMandate(req, opt))
	}
}
