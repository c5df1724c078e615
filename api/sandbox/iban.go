package sandbox

import (
	"math/rand/v2"
	"strconv"

	"github.com/paydash/paydash/api"
)

// intN is the part of *rand.Rand the generators need, so they run on a
// seeded source (history) or the auto-seeded global one (made-up payers).
type intN interface{ IntN(n int) int }

type globalRand struct{}

// Made-up sandbox data, not secrets: a fast, non-cryptographic source is right.
func (globalRand) IntN(n int) int { return rand.IntN(n) } //nolint:gosec // not a secret (see above)

// makeIBAN prefixes bban with its country and the ISO 13616 check digits
// (98 minus the mod-97 remainder of BBAN + country + "00").
func makeIBAN(country, bban string) string {
	r := api.Mod97(bban + country + "00")
	check := 98 - r
	return country + twoDigits(check) + bban
}

func digits(r intN, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = decimalDigits[r.IntN(10)]
	}
	return string(b)
}

func pick[T any](r intN, xs []T) T { return xs[r.IntN(len(xs))] }

// Bank codes that appear in the made-up IBANs (real institutions' codes,
// so the accounts look familiar; the account numbers are random).
var (
	gbBanks = []string{"NWBK", "BARC", "LOYD", "HBUK", "MIDL", "NAIA", "MONZ", "SRLG", "REVO", "TSBS"}
	ieBanks = []string{"AIBK", "BOFI", "IPBS", "ULSB"}
	nlBanks = []string{"ABNA", "INGB", "RABO", "TRIO", "SNSB", "BUNQ"}
	deBanks = []string{"10010010", "37040044", "50010517", "70020270", "20041133", "10011001"}
	frBanks = []string{"30004", "30003", "30002", "20041", "10278"}
	esBanks = []string{"2100", "0049", "0182", "0081", "2085"}
)

// eurCountries are the countries EUR beneficiaries bank in.
var eurCountries = []string{"DE", "FR", "NL", "ES", "IE", "BE", "AT", "LT"}

// genIBAN makes a valid IBAN of the country, national check digits
// included where the country has them (BE, NL, FR, ES).
func genIBAN(r intN, country string) string {
	switch country {
	case "GB":
		return makeIBAN("GB", pick(r, gbBanks)+digits(r, 6)+digits(r, 8))
	case "IE":
		return makeIBAN("IE", pick(r, ieBanks)+digits(r, 6)+digits(r, 8))
	case "DE":
		return makeIBAN("DE", pick(r, deBanks)+digits(r, 10))
	case "AT":
		return makeIBAN("AT", digits(r, 5)+digits(r, 11))
	case "LT":
		return makeIBAN("LT", digits(r, 5)+digits(r, 11))
	case "BE":
		n := digits(r, 10)
		return makeIBAN("BE", n+twoDigits(beCheck(n)))
	case "NL":
		for {
			if n := digits(r, 10); elevenProof(n) {
				return makeIBAN("NL", pick(r, nlBanks)+n)
			}
		}
	case "FR":
		bank, branch, acct := pick(r, frBanks), digits(r, 5), digits(r, 11)
		return makeIBAN("FR", bank+branch+acct+twoDigits(ribKey(bank, branch, acct)))
	case "ES":
		bank, branch, acct := pick(r, esBanks), digits(r, 4), digits(r, 10)
		return makeIBAN("ES", bank+branch+esCheck(bank, branch, acct)+acct)
	}
	return makeIBAN("GB", pick(r, gbBanks)+digits(r, 14))
}

// randomIBAN makes up a payer IBAN for a currency: GB for GBP, a euro
// country otherwise.
func randomIBAN(currency string) string {
	r := globalRand{}
	if currency == "GBP" {
		return genIBAN(r, "GB")
	}
	return genIBAN(r, pick[string](r, eurCountries))
}

func twoDigits(n int) string {
	return string([]byte{decimalDigits[n/10%10], decimalDigits[n%10]})
}

// beCheck: the last two digits of a Belgian account are the first ten mod
// 97, with 97 for zero.
func beCheck(n string) int {
	v, _ := strconv.ParseInt(n, 10, 64)
	if c := int(v % 97); c != 0 {
		return c
	}
	return 97
}

// elevenProof is the Dutch account check: digits weighted 10..1 sum to a
// multiple of 11.
func elevenProof(n string) bool {
	sum := 0
	for i := 0; i < len(n); i++ {
		sum += int(n[i]-'0') * (len(n) - i)
	}
	return sum%11 == 0
}

// ribKey is the French RIB key: 97 - (89*bank + 15*branch + 3*account) mod 97.
func ribKey(bank, branch, acct string) int {
	return 97 - (89*api.Mod97(bank)+15*api.Mod97(branch)+3*api.Mod97(acct))%97
}

// esCheck is the Spanish pair of control digits: one over bank and branch
// (padded with two zeros), one over the account, weights 1,2,4,8,5,10,9,7,3,6.
func esCheck(bank, branch, acct string) string {
	weights := [10]int{1, 2, 4, 8, 5, 10, 9, 7, 3, 6}
	digit := func(s string) byte {
		sum := 0
		for i := 0; i < 10; i++ {
			sum += int(s[i]-'0') * weights[i]
		}
		d := 11 - sum%11
		switch d {
		case 11:
			d = 0
		case 10:
			d = 1
		}
		return byte('0' + d)
	}
	return string([]byte{digit("00" + bank + branch), digit(acct)})
}

const decimalDigits = "0123456789"
