package ui

import "github.com/paydash/paydash/api"

// Every signed amount on screen goes through these, so numbers look the
// same in every view (issue 22): one minus sign, the ASCII "-" the CLI
// prints and people type into the filters (U+2212 took two cells on
// terminals that draw East Asian ambiguous characters wide, so columns
// no longer lined up), and no sign on zero (a "−€0.00" read as a debt).

// signedAmount is the amount as the account sees it: + for money in,
// - for money out.
func signedAmount(minor int64, cur, typ string) string {
	if api.Credit(typ) {
		return signed(minor, cur)
	}
	return signed(-minor, cur)
}

// signed is minor with its sign: +£1.00, -£1.00, £0.00.
func signed(minor int64, cur string) string {
	return api.FormatSignedAmount(minor, cur) // the CLI's too
}
