package api

import "strings"

// PLACEHOLDER BODIES: the validation helper replaces every function body in
// this file with the real rules. Signatures are the contract.

// Problem is one thing wrong with a request: the dotted JSON path of the
// field and a sentence a person understands.
type Problem struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

// String renders "field: message".
func (p Problem) String() string { return p.Field + ": " + p.Message }

// Problems is every problem found in a request, in field order.
type Problems []Problem

// Error joins the problems one per line.
func (ps Problems) Error() string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = p.String()
	}
	return strings.Join(s, "\n")
}

// Err returns nil when there are no problems, so callers can write
// `if err := api.ValidatePayout(r).Err(); err != nil`.
func (ps Problems) Err() error {
	if len(ps) == 0 {
		return nil
	}
	return ps
}

// Fields groups the messages by field path (the shape of the problem+json
// "errors" member).
func (ps Problems) Fields() map[string][]string {
	m := make(map[string][]string, len(ps))
	for _, p := range ps {
		m[p.Field] = append(m[p.Field], p.Message)
	}
	return m
}

// ValidateOptions carries what the rules need beyond the request.
type ValidateOptions struct {
	// Regulated callers need not give the user's personal details and may
	// set mandate.reference.
	Regulated bool
	// AccountCurrency, when set, tells the currency of a merchant account,
	// so a GBP payment into an EUR merchant account is caught.
	AccountCurrency func(merchantAccountID string) (currency string, ok bool)
}

// ValidateMandate checks a mandate creation request against every rule of
// the interface and returns all problems at once.
func ValidateMandate(req *MandateRequest, opt ValidateOptions) Problems { return nil }

// ValidatePayment checks a single payment creation request.
func ValidatePayment(req *PaymentRequest, opt ValidateOptions) Problems { return nil }

// ValidatePayout checks a payout creation request.
func ValidatePayout(req *PayoutRequest) Problems { return nil }

// NormalizeIBAN removes spaces and upper-cases, the form IBANs are sent in.
func NormalizeIBAN(s string) string { return strings.ToUpper(strings.ReplaceAll(s, " ", "")) }

// ValidateIBAN checks country, length for the country and the ISO 13616
// mod-97 checksum; the error says which failed.
func ValidateIBAN(s string) error { return nil }
