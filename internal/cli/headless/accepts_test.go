package headless

import (
	"context"
	"strings"
	"testing"

	"github.com/paydash/paydash/api"
)

// TestProblemsSayWhatTheFlagAccepts: --sort-code takes dashes (they are
// dropped before the check), so its problem must not read "without
// dashes" alone: it says what the flag accepts; --countries likewise for
// case.
func TestProblemsSayWhatTheFlagAccepts(t *testing.T) {
	s, _, _ := testStreams("")
	err := CreatePayment(context.Background(), s, &countingCreator{}, api.ValidateOptions{}, &PaymentOptions{Amount: "1", Currency: "GBP", Reference: "R",
		requestFlags: requestFlags{ben: beneficiaryFlags{AccountHolderName: "Ada", SortCode: "12-34-5", AccountNumber: "12345678"},
			prov: providerFlags{Countries: []string{"gbr"}}, user: userFlags{Name: "Ada", Email: "ada@example.com"}}})
	if err == nil {
		t.Fatal("accepted")
	}
	for _, want := range []string{"(--sort-code; written with or without dashes: 12-34-56 or 123456)", "(--countries; in any case: gb,de or GB,DE)"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message lacks %q:\n%v", want, err)
		}
	}
}
