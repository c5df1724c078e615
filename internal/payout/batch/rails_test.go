package batch

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// TestBatchRefusesRowsTheRailCannotReach: a batch with a GBP row to an
// account Faster Payments does not reach, or an EUR row to one SEPA does
// not reach, is refused whole before anything is sent, naming each line.
func TestBatchRefusesRowsTheRailCannotReach(t *testing.T) {
	csv := "name,iban,reference,amount,currency\n" +
		"Ada,GB82WEST12345698765432,r-1,1.00,GBP\n" + // 2 ok
		"Bea,DE89370400440532013000,r-2,1.00,GBP\n" + // 3 GBP to DE
		"Cy,GB82WEST12345698765432,r-3,1.00,EUR\n" + // 4 EUR to GB
		"Di,FR1420041010050500013M02606,r-4,1.00,EUR\n" + // 5 ok
		"Ed,SA0380000000608010167519,r-5,1.00,EUR\n" + // 6 EUR outside SEPA
		"Flo,CH9300762011623852957,r-6,1.00,GBP\n" // 7 GBP to CH
	_, err := Parse("rails.csv", []byte(csv))
	var bad *InvalidFileError
	if !errors.As(err, &bad) {
		t.Fatalf("Parse: %v, want an invalid file", err)
	}
	if got := bad.Lines(); !slices.Equal(got, []int{3, 4, 6, 7}) {
		t.Errorf("bad lines %v, want [3 4 6 7]\n%v", got, err)
	}
	for _, want := range []string{"line 3: iban", "Faster Payments", "line 4: iban", "SEPA", "line 6: iban", "line 7: iban"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("refusal lacks %q:\n%v", want, err)
		}
	}
}
