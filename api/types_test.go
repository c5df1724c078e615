package api_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/paydash/paydash/api"
)

// fxDir holds the JSON fixtures built from the field tables of
// interface.md.
const fxDir = "../testdata/api"

// fxRead returns a fixture's bytes.
func fxRead(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(fxDir, name))
	if err != nil {
		t.Fatalf("read fixture: %v", err)
	}
	return b
}

// fxDecodeGeneric decodes JSON into maps, slices and json.Number so that
// two documents can be compared by meaning rather than by bytes.
func fxDecodeGeneric(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// fxDiff lists the paths at which two generically decoded JSON values
// differ, so a failing round trip names the member that was lost, renamed
// or retyped.
func fxDiff(path string, want, got any) []string {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return []string{fmt.Sprintf("%s: want object, got %T", path, got)}
		}
		keys := map[string]bool{}
		for k := range w {
			keys[k] = true
		}
		for k := range g {
			keys[k] = true
		}
		var names []string
		for k := range keys {
			names = append(names, k)
		}
		sort.Strings(names)
		var out []string
		for _, k := range names {
			wv, inW := w[k]
			gv, inG := g[k]
			switch {
			case !inG:
				out = append(out, fmt.Sprintf("%s.%s: missing after round trip (want %v)", path, k, wv))
			case !inW:
				out = append(out, fmt.Sprintf("%s.%s: unexpected member after round trip (%v)", path, k, gv))
			default:
				out = append(out, fxDiff(path+"."+k, wv, gv)...)
			}
		}
		return out
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return []string{fmt.Sprintf("%s: want %v, got %v", path, want, got)}
		}
		var out []string
		for i := range w {
			out = append(out, fxDiff(fmt.Sprintf("%s[%d]", path, i), w[i], g[i])...)
		}
		return out
	default:
		if !reflect.DeepEqual(want, got) {
			return []string{fmt.Sprintf("%s: want %v, got %v", path, want, got)}
		}
		return nil
	}
}

// fxRoundTripDiff decodes doc into a T (rejecting members T does not
// know), encodes it again, and returns the semantic differences.
func fxRoundTripDiff[T any](doc []byte) (*T, []string, error) {
	v := new(T)
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return nil, nil, fmt.Errorf("decode into %T: %w", v, err)
	}
	out, err := json.Marshal(v)
	if err != nil {
		return nil, nil, fmt.Errorf("encode %T: %w", v, err)
	}
	want, err := fxDecodeGeneric(doc)
	if err != nil {
		return nil, nil, fmt.Errorf("fixture is not JSON: %w", err)
	}
	got, err := fxDecodeGeneric(out)
	if err != nil {
		return nil, nil, fmt.Errorf("re-encoded %T is not JSON: %w", v, err)
	}
	return v, fxDiff("$", want, got), nil
}

// fxRoundTrip is fxRoundTripDiff on a fixture file, failing the test on
// any difference.
func fxRoundTrip[T any](t *testing.T, name string) *T {
	t.Helper()
	v, diff, err := fxRoundTripDiff[T](fxRead(t, name))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if len(diff) > 0 {
		t.Fatalf("%s: round trip through %T changed the document:\n  %s", name, v, strings.Join(diff, "\n  "))
	}
	return v
}

// fxEqual reports a field whose decoded value is not the fixture's.
func fxEqual[V comparable](t *testing.T, field string, got, want V) {
	t.Helper()
	if got != want {
		t.Errorf("%s = %v, want %v", field, got, want)
	}
}

func TestFixtureRoundTrip(t *testing.T) {
	tests := []struct {
		file  string
		check func(t *testing.T, file string)
	}{
		{"mandate_request_sweeping.json", func(t *testing.T, file string) {
			m := fxRoundTrip[api.MandateRequest](t, file)
			fxEqual(t, "mandate.type", m.Mandate.Type, api.MandateSweeping)
			fxEqual(t, "mandate.provider_selection.type", m.Mandate.ProviderSelection.Type, api.ProviderUserSelected)
			if f := m.Mandate.ProviderSelection.Filter; f == nil {
				t.Fatal("mandate.provider_selection.filter: not decoded")
			} else {
				fxEqual(t, "filter.release_channel", f.ReleaseChannel, "general_availability")
				fxEqual(t, "filter.customer_segments", strings.Join(f.CustomerSegments, ","), "retail")
			}
			fxEqual(t, "mandate.beneficiary.type", m.Mandate.Beneficiary.Type, api.BeneficiaryExternalAccount)
			if ai := m.Mandate.Beneficiary.AccountIdentifier; ai == nil {
				t.Fatal("mandate.beneficiary.account_identifier: not decoded")
			} else {
				fxEqual(t, "account_identifier.type", ai.Type, api.AccountIdentifierSortCode)
				fxEqual(t, "account_identifier.sort_code", ai.SortCode, "040668")
				fxEqual(t, "account_identifier.account_number", ai.AccountNumber, "00001234")
			}
			fxEqual(t, "constraints.maximum_individual_amount", m.Constraints.MaximumIndividualAmount, int64(5000))
			if pl := m.Constraints.PeriodicLimits; pl == nil || pl.Month == nil {
				t.Fatal("constraints.periodic_limits.month: not decoded")
			} else {
				fxEqual(t, "month.maximum_amount", pl.Month.MaximumAmount, int64(20000))
				fxEqual(t, "month.period_alignment", pl.Month.PeriodAlignment, api.AlignmentCalendar)
			}
		}},
		{"mandate_request_commercial.json", func(t *testing.T, file string) {
			m := fxRoundTrip[api.MandateRequest](t, file)
			fxEqual(t, "mandate.type", m.Mandate.Type, api.MandateCommercial)
			fxEqual(t, "mandate.provider_selection.type", m.Mandate.ProviderSelection.Type, api.ProviderPreselected)
			fxEqual(t, "mandate.provider_selection.provider_id", m.Mandate.ProviderSelection.ProviderID, "ob-natwest")
			fxEqual(t, "mandate.beneficiary.merchant_account_id", m.Mandate.Beneficiary.MerchantAccountID, "c5a4e8bb-6d5b-4a47-9b1a-5a9c3f0e5d21")
			fxEqual(t, "mandate.reference", m.Mandate.Reference, "ACME-SUB-0001")
			want := map[string]int64{"day": 10000, "week": 30000, "fortnight": 50000, "month": 80000, "half_year": 300000, "year": 500000}
			periods := m.Constraints.PeriodicLimits.Periods()
			if len(periods) != len(want) {
				t.Fatalf("periodic_limits: %d periods, want %d", len(periods), len(want))
			}
			for _, p := range periods {
				if p.Limit == nil {
					t.Errorf("periodic_limits.%s: not decoded", p.Name)
					continue
				}
				fxEqual(t, "periodic_limits."+p.Name+".maximum_amount", p.Limit.MaximumAmount, want[p.Name])
			}
			fxEqual(t, "metadata.plan", m.Metadata["plan"], "gold")
			if _, ok := m.RelatedProducts["signup_plus"]; !ok || len(m.RelatedProducts) != 1 {
				t.Errorf("related_products = %v, want one member signup_plus", m.RelatedProducts)
			}
		}},
		{"mandate_response.json", func(t *testing.T, file string) {
			r := fxRoundTrip[api.MandateResponse](t, file)
			fxEqual(t, "id", r.ID, "2f9d5a0c-7c1e-4b8e-9a51-3d6f0b2e8c77")
			fxEqual(t, "user.id", r.User.ID, "f61c0ec7-0f83-414e-8e5f-aace86e0ed35")
			fxEqual(t, "resource_token", r.ResourceToken, "mandate-resource-token-abc123")
		}},
		{"payment_request.json", func(t *testing.T, file string) {
			p := fxRoundTrip[api.PaymentRequest](t, file)
			fxEqual(t, "amount_in_minor", p.AmountInMinor, int64(12345))
			fxEqual(t, "currency", p.Currency, "EUR")
			fxEqual(t, "payment_method.type", p.PaymentMethod.Type, api.PaymentMethodBankTransfer)
			ps := p.PaymentMethod.ProviderSelection
			if ps == nil || ps.SchemeSelection == nil || ps.SchemeSelection.AllowRemitterFee == nil {
				t.Fatal("payment_method.provider_selection.scheme_selection: not decoded")
			}
			fxEqual(t, "scheme_selection.type", ps.SchemeSelection.Type, "instant_only")
			fxEqual(t, "scheme_selection.allow_remitter_fee", *ps.SchemeSelection.AllowRemitterFee, false)
			b := p.PaymentMethod.Beneficiary
			if b.AccountIdentifier == nil {
				t.Fatal("beneficiary.account_identifier: not decoded")
			}
			fxEqual(t, "beneficiary.account_identifier.type", b.AccountIdentifier.Type, api.AccountIdentifierIBAN)
			fxEqual(t, "beneficiary.account_identifier.iban", b.AccountIdentifier.IBAN, "DE89370400440532013000")
			fxEqual(t, "beneficiary.reference", b.Reference, "INV-2025-0042")
			fxEqual(t, "user.date_of_birth", p.User.DateOfBirth, "1990-05-17")
		}},
		{"payment_response.json", func(t *testing.T, file string) {
			r := fxRoundTrip[api.PaymentResponse](t, file)
			fxEqual(t, "status", r.Status, api.PaymentStatusAuthorizationRequired)
			fxEqual(t, "user.id", r.User.ID, "5b1f3c2a-9d8e-4f7a-b6c5-1e2d3f4a5b6c")
		}},
		{"token_response.json", func(t *testing.T, file string) {
			r := fxRoundTrip[api.TokenResponse](t, file)
			fxEqual(t, "expires_in", r.ExpiresIn, int64(3600))
			fxEqual(t, "scope", r.Scope, api.ScopePayouts)
		}},
		{"balances_response.json", func(t *testing.T, file string) {
			r := fxRoundTrip[api.BalancesResponse](t, file)
			if len(r.Results) != 2 {
				t.Fatalf("results: %d balances, want 2", len(r.Results))
			}
			fxEqual(t, "results[0].current_balance_in_minor", r.Results[0].CurrentBalanceInMinor, int64(1250000))
			fxEqual(t, "results[0].available_balance_in_minor", r.Results[0].AvailableBalanceInMinor, int64(1200000))
			fxEqual(t, "results[1].status", r.Results[1].Status, api.AccountDisabled)
		}},
		{"payout_request.json", func(t *testing.T, file string) {
			r := fxRoundTrip[api.PayoutRequest](t, file)
			fxEqual(t, "transaction_id", r.TransactionID, "d9c1e5a4-8b2f-4c3d-9e7a-6f5b4a3c2d1e")
			fxEqual(t, "beneficiary_iban", r.BeneficiaryIBAN, "GB33BUKB20201555555555")
			fxEqual(t, "amount_in_minor", r.AmountInMinor, int64(2500))
			fxEqual(t, "context_code", r.ContextCode, api.ContextCodeWithdrawal)
		}},
		{"transactions_response.json", func(t *testing.T, file string) {
			r := fxRoundTrip[api.TransactionsResponse](t, file)
			if len(r.Results) != 2 {
				t.Fatalf("results: %d transactions, want 2", len(r.Results))
			}
			settled := r.Results[0]
			fxEqual(t, "results[0].status", settled.Status, api.StateSettled)
			fxEqual(t, "results[0].authorised_at nanoseconds", settled.AuthorisedAt.Nanosecond(), 123456700)
			fxEqual(t, "results[0].settled_at", settled.SettledAt.String(), "2024-03-01T10:16:02.9999999Z")
			pending := r.Results[1]
			if !pending.SubmittedAt.IsZero() || !pending.SettledAt.IsZero() {
				t.Errorf("results[1]: absent submitted_at/settled_at decoded as %v / %v, want zero", pending.SubmittedAt, pending.SettledAt)
			}
			fxEqual(t, "results[1].amount_in_minor", pending.AmountInMinor, int64(100001))
		}},
		{"payout_webhook_authorised.json", func(t *testing.T, file string) {
			w := fxRoundTrip[api.PayoutWebhook](t, file)
			fxEqual(t, "event_type", w.EventType, api.EventPayoutAuthorised)
			fxEqual(t, "event_id", w.EventID, "a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d")
			body, diff, err := fxRoundTripDiff[api.PayoutEventBody](w.EventBody)
			if err != nil {
				t.Fatalf("event_body: %v", err)
			}
			if len(diff) > 0 {
				t.Fatalf("event_body round trip changed the document:\n  %s", strings.Join(diff, "\n  "))
			}
			fxEqual(t, "event_body.transaction_id", body.TransactionID, "d9c1e5a4-8b2f-4c3d-9e7a-6f5b4a3c2d1e")
			fxEqual(t, "event_body.authorised_at", body.AuthorisedAt, "2024-03-01T10:15:30.123Z")
		}},
		{"payout_executed_external_account.json", func(t *testing.T, file string) {
			e := fxRoundTrip[api.PaymentsPayoutEvent](t, file)
			fxEqual(t, "type", e.Type, api.EventPayoutExecuted)
			fxEqual(t, "event_version", e.EventVersion, 1)
			fxEqual(t, "scheme_id", e.SchemeID, api.SchemeFasterPayments)
			fxEqual(t, "merchant_account_id", e.MerchantAccountID, "c5a4e8bb-6d5b-4a47-9b1a-5a9c3f0e5d21")
			if e.Beneficiary != nil {
				t.Errorf("beneficiary = %+v, want absent on an open-loop executed event", e.Beneficiary)
			}
			fxEqual(t, "metadata.batch", e.Metadata["batch"], "2024-03-01")
		}},
		{"payout_failed_returned.json", func(t *testing.T, file string) {
			e := fxRoundTrip[api.PaymentsPayoutEvent](t, file)
			fxEqual(t, "type", e.Type, api.EventPaymentsPayoutFailed)
			fxEqual(t, "failure_reason", e.FailureReason, api.FailureReturned)
			if e.FailureDetails == nil || e.Beneficiary == nil {
				t.Fatal("failure_details or beneficiary: not decoded")
			}
			fxEqual(t, "failure_details.message", e.FailureDetails.Message, "Beneficiary account closed")
			fxEqual(t, "failure_details.is_transient", e.FailureDetails.IsTransient, false)
			fxEqual(t, "beneficiary.type", e.Beneficiary.Type, api.BeneficiaryExternalAccount)
		}},
		{"payout_executed_payment_source.json", func(t *testing.T, file string) {
			e := fxRoundTrip[api.PaymentsPayoutEvent](t, file)
			if e.Beneficiary == nil {
				t.Fatal("beneficiary: not decoded")
			}
			fxEqual(t, "beneficiary.type", e.Beneficiary.Type, api.BeneficiaryPaymentSource)
			fxEqual(t, "beneficiary.payment_source_id", e.Beneficiary.PaymentSourceID, "ps-4c5d6e7f")
			fxEqual(t, "beneficiary.user_id", e.Beneficiary.UserID, "5b1f3c2a-9d8e-4f7a-b6c5-1e2d3f4a5b6c")
			fxEqual(t, "scheme_id", e.SchemeID, api.SchemeSEPACreditTransferInstan)
		}},
		{"payout_failed_business_account.json", func(t *testing.T, file string) {
			e := fxRoundTrip[api.PaymentsPayoutEvent](t, file)
			if e.Beneficiary == nil {
				t.Fatal("beneficiary: not decoded")
			}
			fxEqual(t, "beneficiary.type", e.Beneficiary.Type, api.BeneficiaryBusinessAccount)
			fxEqual(t, "failure_reason", e.FailureReason, "")
			fxEqual(t, "failed_at", e.FailedAt, "2024-03-06T15:30:00.000Z")
		}},
	}
	seen := map[string]bool{}
	for _, tt := range tests {
		seen[tt.file] = true
		t.Run(tt.file, func(t *testing.T) { tt.check(t, tt.file) })
	}
	// Every fixture in the directory must be exercised, so one added
	// later cannot silently go untested.
	entries, err := os.ReadDir(fxDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".json") && !seen[e.Name()] {
			t.Errorf("fixture %s has no round-trip case", e.Name())
		}
	}
}

// TestFixtureRoundTripDetectsWrongNames proves the comparison can fail: a
// fixture whose member name is misspelt, or whose member is one the type
// drops, must not round-trip cleanly.
func TestFixtureRoundTripDetectsWrongNames(t *testing.T) {
	tests := []struct {
		name     string
		from, to string
	}{
		{"misspelt nested member", `"sort_code":`, `"sortcode":`},
		{"misspelt top-level member", `"currency":`, `"curency":`},
		{"number where a string is expected", `"account_number": "00001234"`, `"account_number": 1234`},
	}
	orig := fxRead(t, "mandate_request_sweeping.json")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !bytes.Contains(orig, []byte(tt.from)) {
				t.Fatalf("fixture lacks %s", tt.from)
			}
			doc := bytes.Replace(orig, []byte(tt.from), []byte(tt.to), 1)
			_, diff, err := fxRoundTripDiff[api.MandateRequest](doc)
			if err == nil && len(diff) == 0 {
				t.Fatalf("replacing %s with %s still round-tripped cleanly", tt.from, tt.to)
			}
		})
	}
	// A failure must name the path that changed, so a person can find the
	// wrong tag.
	want, _ := fxDecodeGeneric([]byte(`{"a":{"b":1,"c":[1,2]}}`))
	got, _ := fxDecodeGeneric([]byte(`{"a":{"b":1,"c":[1]}}`))
	if d := fxDiff("$", want, got); len(d) != 1 || !strings.Contains(d[0], "$.a.c") {
		t.Errorf("fxDiff = %q, want one difference at $.a.c", d)
	}
}

func TestUserTrimmed(t *testing.T) {
	if got := (api.User{Name: "  ", Email: "\t"}).Trimmed(); got != nil {
		t.Fatalf("blank user = %+v, want nil (no user object sent)", got)
	}
	got := api.User{Name: " Ada Lovelace ", Email: " ada@example.com"}.Trimmed()
	if got == nil || *got != (api.User{Name: "Ada Lovelace", Email: "ada@example.com"}) {
		t.Fatalf("Trimmed = %+v", got)
	}
}
