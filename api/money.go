package api

// PLACEHOLDER BODIES: the money helper replaces these with the real,
// tested implementations. Signatures are the contract.

// CurrencyDigits is the number of minor-unit digits of a currency (GBP 2,
// EUR 2, ...); ok is false for a currency paydash does not know.
func CurrencyDigits(currency string) (digits int, ok bool) { return 2, true }

// ParseAmount turns what a person types ("1,234.56", "1234.5", "0.01") into
// minor units of currency, rejecting more decimals than the currency has,
// negatives, zero unless allowZero, junk and overflow.
func ParseAmount(s, currency string, allowZero bool) (int64, error) { return 0, nil }

// FormatAmount renders minor units for display: "£1,234.56", "€0.01",
// "-£5.00"; unknown currencies as "1,234.56 XYZ".
func FormatAmount(minor int64, currency string) string { return "" }

// FormatAmountPlain renders minor units without symbol or grouping
// ("1234.56"), for CSV, forms and flags; ParseAmount reads it back.
func FormatAmountPlain(minor int64, currency string) string { return "" }
