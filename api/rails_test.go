package api

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"
)

// ibanOf builds a valid IBAN of the country (right length, right check
// digits) whose BBAN is all zeros but for a trailing 1.
func ibanOf(t *testing.T, country string) string {
	t.Helper()
	n, ok := IBANLength(country)
	if !ok {
		t.Fatalf("no IBAN length for %s", country)
	}
	bban := strings.Repeat("0", n-5) + "1"
	check := 98 - Mod97(bban+country+"00")
	iban := fmt.Sprintf("%s%02d%s", country, check, bban)
	if err := ValidateIBAN(iban); err != nil {
		t.Fatalf("built %s: %v", iban, err)
	}
	return iban
}

// TestPayoutRailReachesOnlyItsAccounts: a GBP payout goes over Faster
// Payments, which reaches UK (GB) IBANs only; an EUR payout goes over
// SEPA, which reaches the IBANs of SEPA countries other than GB. Every
// country of the IBAN registry is tried with both currencies; a payout
// the rail cannot carry is refused on beneficiary_iban, naming the rail.
func TestPayoutRailReachesOnlyItsAccounts(t *testing.T) {
	var countries []string
	for c := range ibanLengths {
		countries = append(countries, c)
	}
	slices.Sort(countries)
	for _, cur := range []string{"GBP", "EUR"} {
		for _, c := range countries {
			req := &PayoutRequest{TransactionID: uuid.NewString(), BeneficiaryName: "Zoë Müller", BeneficiaryIBAN: ibanOf(t, c),
				BeneficiaryReference: "INV-1", Currency: cur, AmountInMinor: 100, ContextCode: ContextCodeWithdrawal}
			want := (cur == "GBP" && c == "GB") || (cur == "EUR" && c != "GB" && slices.Contains(SEPACountries, c))
			ps := ValidatePayout(req)
			switch {
			case want && len(ps) != 0:
				t.Errorf("%s payout to a %s IBAN refused: %v", cur, c, ps)
			case !want && (len(ps) != 1 || ps[0].Field != "beneficiary_iban"):
				t.Errorf("%s payout to a %s IBAN: %v, want one problem on beneficiary_iban", cur, c, ps)
			case !want:
				rail := map[string]string{"GBP": "Faster Payments", "EUR": "SEPA"}[cur]
				if !strings.Contains(ps[0].Message, rail) || !strings.Contains(ps[0].Message, "is a "+c+" IBAN") {
					t.Errorf("%s payout to a %s IBAN: %q does not name the rail and the country", cur, c, ps[0].Message)
				}
			}
		}
	}
	if r, ok := RailFor("GBP"); !ok || r.SchemeID != SchemeFasterPayments {
		t.Errorf("GBP rail %+v", r)
	}
	if r, ok := RailFor("EUR"); !ok || r.SchemeID != SchemeSEPACreditTransfer {
		t.Errorf("EUR rail %+v", r)
	}
}
