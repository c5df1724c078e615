package api

import (
	"fmt"
	"slices"
)

// A payout account exists per currency and payment rail (the interface:
// "euro on SEPA, sterling on Faster Payments"), and a rail reaches only
// some beneficiary accounts. paydash states which, and refuses a payout
// to any other before it is sent (ValidatePayout, used by the form,
// `payout create`, the batch and the sandbox alike):
//
//   - GBP goes over Faster Payments, a UK scheme: it reaches UK accounts,
//     whose IBANs are GB IBANs (the Crown Dependencies' banks use GB
//     IBANs too).
//   - EUR goes over SEPA: it reaches IBANs of the SEPA scheme's countries
//     (SEPACountries), except GB: a GB IBAN is a sterling account, and the
//     interface forbids sending euro to a sterling account (or the reverse).
//
// A currency paydash knows no rail for is left to the account check: the
// service holds no payout account for it.

// Rail is the payment rail a payout currency goes over.
type Rail struct {
	Currency string
	// Name is how people call it ("Faster Payments").
	Name string
	// SchemeID is its scheme_id in payout_executed events.
	SchemeID string
	// Reaches says, for people, which accounts it reaches.
	Reaches string
	// countries are the IBAN country codes it reaches.
	countries []string
}

// SEPACountries are the IBAN country codes of the SEPA scheme's
// countries and territories with their own IBAN prefix (EPC list, 2025):
// the EU, the EEA, Switzerland, the United Kingdom, Gibraltar, Monaco,
// San Marino, Vatican City, Andorra, Albania, Moldova, Montenegro and North
// Macedonia.
var SEPACountries = []string{
	"AD", "AL", "AT", "BE", "BG", "CH", "CY", "CZ", "DE", "DK", "EE", "ES",
	"FI", "FR", "GB", "GI", "GR", "HR", "HU", "IE", "IS", "IT", "LI", "LT",
	"LU", "LV", "MC", "MD", "ME", "MK", "MT", "NL", "NO", "PL", "PT", "RO",
	"SE", "SI", "SK", "SM", "VA",
}

var rails = []Rail{
	{Currency: "GBP", Name: "Faster Payments", SchemeID: SchemeFasterPayments,
		Reaches: "UK accounts (GB IBANs)", countries: []string{"GB"}},
	{Currency: "EUR", Name: "SEPA", SchemeID: SchemeSEPACreditTransfer,
		Reaches: "IBANs of SEPA countries other than GB", countries: slices.DeleteFunc(slices.Clone(SEPACountries), func(c string) bool { return c == "GB" })},
}

// RailFor returns the rail payouts in currency go over; ok is false for a
// currency paydash knows no rail for.
func RailFor(currency string) (Rail, bool) {
	for _, r := range rails {
		if r.Currency == currency {
			return r, true
		}
	}
	return Rail{}, false
}

// ReachesCountry reports whether the rail reaches an IBAN of the country
// (two upper-case letters).
func (r Rail) ReachesCountry(country string) bool { return slices.Contains(r.countries, country) }

// RailRefusal says why a payout in currency cannot reach iban (a valid
// IBAN, in any spelling), or returns nil when its rail reaches it or
// paydash knows no rail for the currency. ValidatePayout reports the same
// on beneficiary_iban; the form shows it as the IBAN is typed.
func RailRefusal(currency, iban string) error {
	r, ok := RailFor(currency)
	iban = NormalizeIBAN(iban)
	if !ok || len(iban) < 2 {
		return nil
	}
	country := iban[:2]
	if r.ReachesCountry(country) {
		return nil
	}
	other := ""
	for _, o := range rails {
		if o.Currency != currency && o.ReachesCountry(country) {
			other = ", or pay in " + o.Currency + " over " + o.Name
		}
	}
	return fmt.Errorf("is a %s IBAN, which %s payouts cannot reach: %s goes over %s, which reaches %s; use such an IBAN%s",
		country, currency, currency, r.Name, r.Reaches, other)
}

// checkRail refuses a payout to an IBAN (already valid) that the
// currency's rail does not reach, saying which rail and what it reaches.
func checkRail(p *problems, path, currency, iban string) {
	if err := RailRefusal(currency, iban); err != nil {
		p.addf(path, "%s", err.Error())
	}
}
