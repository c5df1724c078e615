package api

import (
	"errors"
	"strings"
	"testing"
)

// Example IBANs published by the registry and national banks.
var exampleIBANs = []string{
	"GB82WEST12345698765432",
	"DE89370400440532013000",
	"FR1420041010050500013M02606",
	"NL91ABNA0417164300",
	"BE68539007547034",
	"NO9386011117947",
	"CH9300762011623852957",
	"IE29AIBK93115212345678",
	"ES9121000418450200051332",
	"IT60X0542811101000000123456",
	"PL61109010140000071219812874",
	"MT84MALT011000012345MTLCAST001S",
}

func TestValidateIBANAcceptsRealExamples(t *testing.T) {
	for _, iban := range exampleIBANs {
		if err := ValidateIBAN(iban); err != nil {
			t.Errorf("ValidateIBAN(%s) = %v, want nil", iban, err)
		}
	}
}

func TestValidateIBANRejects(t *testing.T) {
	cases := []struct {
		name string
		iban string
		kind error
		hint string
	}{
		{"empty", "", ErrIBANEmpty, "give an IBAN like"},
		{"checksum", "GB82WEST12345698765431", ErrIBANChecksum, "mistyped character"},
		{"swapped digits", "DE89370400440532013030", ErrIBANChecksum, "mistyped character"},
		{"letters as check digits", "GBXXWEST12345698765432", ErrIBANChecksum, "check digits"},
		{"too short for GB", "GB82WEST1234569876543", ErrIBANLength, "21 characters, but a GB IBAN has 22"},
		{"too long for NL", "NL91ABNA04171643000", ErrIBANLength, "19 characters, but a NL IBAN has 18"},
		{"unknown country", "XX82WEST12345698765432", ErrIBANCountry, "XX, which is not a country that uses IBANs"},
		{"country not using IBAN", "US82WEST12345698765432", ErrIBANCountry, "US"},
		{"digits for country", "1282WEST12345698765432", ErrIBANCountry, "two-letter country code"},
		{"too short to read", "GB8", ErrIBANCountry, "two-letter country code"},
		{"lower case", "gb82west12345698765432", ErrIBANCharacters, "capitals"},
		{"spaces", "GB82 WEST 1234 5698 7654 32", ErrIBANCharacters, "without spaces"},
		{"dash", "GB82-WEST-12345698765432", ErrIBANCharacters, `'-'`},
		{"accented letter", "DE89370400440532013É00", ErrIBANCharacters, "letters A-Z and digits"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := ValidateIBAN(c.iban)
			if !errors.Is(err, c.kind) {
				t.Fatalf("ValidateIBAN(%q) = %v, want %v", c.iban, err, c.kind)
			}
			if !strings.Contains(err.Error(), c.hint) || !strings.HasPrefix(err.Error(), "IBAN ") {
				t.Errorf("message %q should start with IBAN and say %q", err, c.hint)
			}
		})
	}
}

// Mod 97 catches every single mistyped character: change each position of
// a valid IBAN after the country code and it must fail.
func TestValidateIBANCatchesEverySingleTypo(t *testing.T) {
	for _, iban := range exampleIBANs {
		for i := 2; i < len(iban); i++ {
			b := []byte(iban)
			if b[i] >= '0' && b[i] <= '9' {
				b[i] = '0' + (b[i]-'0'+1)%10
			} else {
				b[i] = 'A' + (b[i]-'A'+1)%26
			}
			if err := ValidateIBAN(string(b)); err == nil {
				t.Errorf("ValidateIBAN(%s), a typo of %s at %d, passed", b, iban, i)
			}
		}
	}
}

func TestNormalizeIBAN(t *testing.T) {
	cases := map[string]string{
		"gb82 west 1234 5698 7654 32":      "GB82WEST12345698765432",
		"DE89\u00a03704\t0044 0532 013000": "DE89370400440532013000",
		"NL91ABNA0417164300":               "NL91ABNA0417164300",
	}
	for in, want := range cases {
		got := NormalizeIBAN(in)
		if got != want {
			t.Errorf("NormalizeIBAN(%q) = %q, want %q", in, got, want)
		}
		if err := ValidateIBAN(got); err != nil {
			t.Errorf("normalised %q does not validate: %v", got, err)
		}
	}
}

func TestNormalizeSortCode(t *testing.T) {
	cases := map[string]string{
		"12-34-56":   "123456",
		"12 34 56":   "123456",
		" 12–34–56 ": "123456",
		"123456":     "123456",
	}
	for in, want := range cases {
		if got := NormalizeSortCode(in); got != want {
			t.Errorf("NormalizeSortCode(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestIBANLength(t *testing.T) {
	cases := []struct {
		country string
		length  int
		ok      bool
	}{
		{"GB", 22, true}, {"DE", 22, true}, {"FR", 27, true}, {"NL", 18, true},
		{"NO", 15, true}, {"MT", 31, true}, {"RU", 33, true}, {"US", 0, false}, {"gb", 0, false},
	}
	for _, c := range cases {
		n, ok := IBANLength(c.country)
		if n != c.length || ok != c.ok {
			t.Errorf("IBANLength(%q) = %d, %v; want %d, %v", c.country, n, ok, c.length, c.ok)
		}
	}
}

func BenchmarkValidateIBAN(b *testing.B) {
	for b.Loop() {
		if err := ValidateIBAN("FR1420041010050500013M02606"); err != nil {
			b.Fatal(err)
		}
	}
}

func TestMod97(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int
	}{
		{"", 0}, {"96", 96}, {"97", 0}, {"98", 1},
		{"A", 10}, {"Z", 35}, // letters count as 10..35
		{"3214282912345698765432161182", 1}, // GB82WEST12345698765432 rearranged and expanded
		{"WEST12345698765432GB82", 1},       // the same with letters left in
		{"12 34", Mod97("1234")},            // other characters skipped
	} {
		if got := Mod97(c.in); got != c.want {
			t.Errorf("Mod97(%q) = %d, want %d", c.in, got, c.want)
		}
	}
}
