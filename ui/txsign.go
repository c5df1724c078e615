package ui

import "github.com/paydash/paydash/api"

// credit reports whether a transaction type brings money in.
func credit(typ string) bool { return typ == api.TransactionFunding }

// signedAmount is the amount as the account sees it: + for money in,
// − for money out.
func signedAmount(minor int64, cur, typ string) string {
	if credit(typ) {
		return "+" + api.FormatAmount(minor, cur)
	}
	return "−" + api.FormatAmount(minor, cur)
}
