package api

import (
	"strings"
	"testing"
)

func validPayout() *PayoutRequest {
	return &PayoutRequest{TransactionID: "123e4567-e89b-12d3-a456-426614174000", BeneficiaryName: "Ada Lovelace",
		BeneficiaryIBAN: "GB33BUKB20201555555555", BeneficiaryReference: "INV-1", Currency: "GBP", AmountInMinor: 100, ContextCode: ContextCodeWithdrawal}
}

func TestValidatePayoutCapsStringLengths(t *testing.T) {
	if ps := ValidatePayout(validPayout()); len(ps) != 0 {
		t.Fatalf("valid payout: %v", ps)
	}
	atCap := validPayout()
	atCap.BeneficiaryName = strings.Repeat("é", MaxNameLen) // characters, not bytes
	if ps := ValidatePayout(atCap); len(ps) != 0 {
		t.Fatalf("a name of exactly %d characters must pass: %v", MaxNameLen, ps)
	}
	huge := validPayout()
	huge.BeneficiaryName = strings.Repeat("A", 900<<10)
	huge.BeneficiaryReference = strings.Repeat("R", MaxReferenceLen+1)
	huge.TransactionID = strings.Repeat("x", 1000)
	ps := ValidatePayout(huge)
	fields := ps.Fields()
	for _, f := range []string{"beneficiary_name", "beneficiary_reference", "transaction_id"} {
		if len(fields[f]) != 1 || !strings.Contains(fields[f][0], "keep it to at most") {
			t.Errorf("%s: %v", f, fields[f])
		}
	}
	if len(ps.Error()) > 1000 {
		t.Errorf("the problems quote the over-long values (%d bytes)", len(ps.Error()))
	}
}

func TestValidatePaymentAndMandateCapNestedFields(t *testing.T) {
	pay := &PaymentRequest{Currency: "GBP", AmountInMinor: 1}
	pay.PaymentMethod.Beneficiary.AccountHolderName = strings.Repeat("n", MaxNameLen+1)
	pay.PaymentMethod.Beneficiary.AccountIdentifier = &AccountIdentifier{Type: AccountIdentifierIBAN, IBAN: strings.Repeat("9", 300)}
	pay.User = &User{Email: strings.Repeat("e", MaxEmailLen) + "@x.example"}
	f := ValidatePayment(pay, ValidateOptions{}).Fields()
	for _, want := range []string{
		"payment_method.beneficiary.account_holder_name", "payment_method.beneficiary.account_identifier.iban", "user.email",
	} {
		if len(f[want]) == 0 {
			t.Errorf("no problem for %s; got %v", want, keys(f))
		}
	}
	// Metadata follows the interface's Limits table, and a hostile key is
	// cut short in the field path.
	pay = &PaymentRequest{Metadata: map[string]string{strings.Repeat("k", 5000): "v", "ok": strings.Repeat("v", MaxMetadataValueLen+1)}}
	for _, f := range []map[string][]string{ValidatePayment(pay, ValidateOptions{}).Fields(), ValidateLengths(pay).Fields()} {
		for _, want := range []string{"metadata." + strings.Repeat("k", maxShownKey) + "…", "metadata.ok"} {
			if len(f[want]) == 0 {
				t.Errorf("no problem for %s; got %v", want, keys(f))
			}
		}
	}
	m := &MandateRequest{Currency: "GBP"}
	m.Mandate.ProviderSelection.Filter = &ProviderFilter{CustomerSegments: []string{"retail", strings.Repeat("s", 256)}}
	if f := ValidateMandate(m, validationOptions()).Fields(); len(f["mandate.provider_selection.filter.customer_segments[1]"]) == 0 {
		t.Errorf("slice element not capped: %v", keys(f))
	}
}

func keys(m map[string][]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
