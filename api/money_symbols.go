package api

import "strings"

// CurrencyOfSymbol is the currency whose symbol FormatAmount writes as
// sym ("£" is GBP): filters read amounts as the screen shows them.
func CurrencyOfSymbol(sym string) (string, bool) {
	for code, s := range currencySymbols {
		if s == sym {
			return code, true
		}
	}
	return "", false
}

// IsKnownCurrency reports whether code (any case) is a currency the
// interface knows.
func IsKnownCurrency(code string) bool {
	_, ok := CurrencyDigits(strings.ToUpper(code))
	return ok
}
