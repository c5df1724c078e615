package api

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
)

// Kinds of IBAN error, for errors.Is; ValidateIBAN's text says which part
// failed and what to check.
var (
	ErrIBANEmpty      = errors.New("IBAN is empty")
	ErrIBANCharacters = errors.New("IBAN has characters other than A-Z and 0-9")
	ErrIBANCountry    = errors.New("IBAN country is unknown")
	ErrIBANLength     = errors.New("IBAN has the wrong length for its country")
	ErrIBANChecksum   = errors.New("IBAN check digits are wrong")
)

// ibanLengths is the IBAN length of every country in the SWIFT IBAN
// registry (ISO 13616). It is a read-only table. Hand-written rather than
// a dependency because it is the whole of the data an IBAN check needs;
// update it from the registry when SWIFT adds a country.
var ibanLengths = map[string]int{
	"AD": 24, "AE": 23, "AL": 28, "AT": 20, "AZ": 28, "BA": 20, "BE": 16,
	"BG": 22, "BH": 22, "BI": 27, "BR": 29, "BY": 28, "CH": 21, "CR": 22,
	"CY": 28, "CZ": 24, "DE": 22, "DJ": 27, "DK": 18, "DO": 28, "EE": 20,
	"EG": 29, "ES": 24, "FI": 18, "FK": 18, "FO": 18, "FR": 27, "GB": 22,
	"GE": 22, "GI": 23, "GL": 18, "GR": 27, "GT": 28, "HN": 28, "HR": 21,
	"HU": 28, "IE": 22, "IL": 23, "IQ": 23, "IS": 26, "IT": 27, "JO": 30,
	"KW": 30, "KZ": 20, "LB": 28, "LC": 32, "LI": 21, "LT": 20, "LU": 20,
	"LV": 21, "LY": 25, "MC": 27, "MD": 24, "ME": 22, "MK": 19, "MN": 20,
	"MR": 27, "MT": 31, "MU": 30, "NI": 28, "NL": 18, "NO": 15, "OM": 23,
	"PK": 24, "PL": 28, "PS": 29, "PT": 25, "QA": 29, "RO": 24, "RS": 22,
	"RU": 33, "SA": 24, "SC": 31, "SD": 18, "SE": 24, "SI": 19, "SK": 24,
	"SM": 27, "SO": 23, "ST": 25, "SV": 28, "TL": 23, "TN": 24, "TR": 26,
	"UA": 29, "VA": 22, "VG": 24, "XK": 20, "YE": 30,
}

// IBANLength is the length of an IBAN of the given country (two upper-case
// letters); ok is false for a country outside the IBAN registry.
func IBANLength(country string) (length int, ok bool) {
	length, ok = ibanLengths[country]
	return length, ok
}

// NormalizeIBAN removes spaces and upper-cases, the form IBANs are sent in.
// Any Unicode space counts (people paste IBANs with non-breaking spaces).
func NormalizeIBAN(s string) string {
	return strings.ToUpper(strings.Map(dropSpace, s))
}

// NormalizeSortCode removes the dashes and spaces people write sort codes
// with ("12-34-56" becomes "123456"). The validators check the value as it
// is sent, so forms call this before building a request.
func NormalizeSortCode(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '-' || r == '\u2010' || r == '\u2013' {
			return -1
		}
		return dropSpace(r)
	}, s)
}

func dropSpace(r rune) rune {
	if unicode.IsSpace(r) {
		return -1
	}
	return r
}

// ibanError carries a phrase that continues "IBAN ..." (and a field path in
// a Problem) and a kind for errors.Is.
type ibanError struct {
	kind   error
	reason string
}

func (e *ibanError) Error() string { return "IBAN " + e.reason }
func (e *ibanError) Unwrap() error { return e.kind }

// ValidateIBAN checks country, length for the country and the ISO 13616
// mod-97 checksum; the error says which failed.
//
// It checks the IBAN as sent: capitals and digits only, no spaces. Forms
// call NormalizeIBAN first.
func ValidateIBAN(s string) error {
	if reason, kind := checkIBAN(s); kind != nil {
		return &ibanError{kind: kind, reason: reason}
	}
	return nil
}

// checkIBAN returns a phrase that follows the field's name and the kind
// of failure, or a nil kind when s is a valid IBAN.
func checkIBAN(s string) (reason string, kind error) {
	if s == "" {
		return "is empty; give an IBAN like GB82WEST12345698765432", ErrIBANEmpty
	}
	if bad := ibanCharProblem(s); bad != "" {
		return bad, ErrIBANCharacters
	}
	if len(s) < 4 || !isUpperAlpha2(s[:2]) {
		return "must start with a two-letter country code and two check digits, like GB82", ErrIBANCountry
	}
	want, ok := ibanLengths[s[:2]]
	if !ok {
		return fmt.Sprintf("starts with %s, which is not a country that uses IBANs; check the first two letters", s[:2]), ErrIBANCountry
	}
	if !allDigits(s[2:4]) {
		return fmt.Sprintf("has %s where the two check digits go (characters 3 and 4); check them", s[2:4]), ErrIBANChecksum
	}
	if len(s) != want {
		return fmt.Sprintf("has %d characters, but a %s IBAN has %d; check for a missing or extra character", len(s), s[:2], want), ErrIBANLength
	}
	if ibanMod97(s) != 1 {
		return "fails its check-digit test (ISO 13616 mod 97); check for a mistyped character", ErrIBANChecksum
	}
	return "", nil
}

// ibanCharProblem explains characters outside A-Z and 0-9, or returns "".
func ibanCharProblem(s string) string {
	for _, r := range s {
		switch {
		case r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		case unicode.IsSpace(r):
			return "contains spaces; send it without spaces, like GB82WEST12345698765432"
		case r >= 'a' && r <= 'z':
			return "contains lower-case letters; send it in capitals, like GB82WEST12345698765432"
		default:
			return fmt.Sprintf("contains %q; an IBAN has only the letters A-Z and digits", r)
		}
	}
	return ""
}

// ibanMod97 computes the ISO 7064 MOD 97-10 remainder of an IBAN: the
// first four characters move to the end.
func ibanMod97(s string) int { return Mod97(s[4:] + s[:4]) }

// Mod97 reads s as one number, each letter A-Z standing for the two digits
// 10..35 as ISO 13616 does, and returns its remainder mod 97. Characters
// other than 0-9 and A-Z are skipped. It is the arithmetic behind IBAN
// check digits and the national check keys built the same way (e.g. the
// French RIB key), for code that makes account numbers, like the sandbox.
func Mod97(s string) int {
	rem := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			rem = (rem*10 + int(c-'0')) % 97
		case c >= 'A' && c <= 'Z':
			rem = (rem*100 + int(c-'A'+10)) % 97
		}
	}
	return rem
}

func isUpperAlpha2(s string) bool {
	return len(s) == 2 && s[0] >= 'A' && s[0] <= 'Z' && s[1] >= 'A' && s[1] <= 'Z'
}
