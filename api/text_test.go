package api

import (
	"strings"
	"testing"
)

// textField is one name or reference of one request type, with a way to
// set it on a valid request and validate it.
type textField struct {
	path     string
	validate func(v string) Problems
}

func textFields() []textField {
	opt := validationOptions()
	payout := func(set func(*PayoutRequest, string)) func(string) Problems {
		return func(v string) Problems { r := validationPayout(); set(r, v); return ValidatePayout(r) }
	}
	payment := func(set func(*PaymentRequest, string)) func(string) Problems {
		return func(v string) Problems { r := validationPayment(); set(r, v); return ValidatePayment(r, opt) }
	}
	mandate := func(set func(*MandateRequest, string)) func(string) Problems {
		return func(v string) Problems { r := validationMandate(); set(r, v); return ValidateMandate(r, opt) }
	}
	return []textField{
		{"beneficiary_name", payout(func(r *PayoutRequest, v string) { r.BeneficiaryName = v })},
		{"beneficiary_reference", payout(func(r *PayoutRequest, v string) { r.BeneficiaryReference = v })},
		{"payment_method.beneficiary.account_holder_name", payment(func(r *PaymentRequest, v string) { r.PaymentMethod.Beneficiary.AccountHolderName = v })},
		{"payment_method.beneficiary.reference", payment(func(r *PaymentRequest, v string) { r.PaymentMethod.Beneficiary.Reference = v })},
		{"user.name", payment(func(r *PaymentRequest, v string) { r.User.Name = v })},
		{"mandate.beneficiary.account_holder_name", mandate(func(r *MandateRequest, v string) { r.Mandate.Beneficiary.AccountHolderName = v })},
		{"user.name", mandate(func(r *MandateRequest, v string) { r.User.Name = v })},
	}
}

// TestNamesAndReferencesTakeTextOfAnyScript: every name and reference of
// every request (payout, payment, mandate) takes letters of any script
// with accents, digits, spaces and punctuation.
func TestNamesAndReferencesTakeTextOfAnyScript(t *testing.T) {
	good := []string{"Müller GmbH", "O'Brien & Co.", "Zoë", "Zoe\u0308 (combining)", "Łódź Sp. z o.o.", "Ελένη Παπαδοπούλου",
		"山田太郎", "Дмитрий", "محمد", "שרה כהן", "INV-2025/001 #4", "€100 + VAT = 120", "50% @ 1:2", "Ñandú_\"quoted\""}
	for _, f := range textFields() {
		for _, v := range good {
			for _, p := range f.validate(v) {
				t.Errorf("%s %q refused: %v", f.path, v, p)
			}
		}
	}
}

// TestNamesAndReferencesRefuseWhatDrivesATerminal: every class of
// character that moves the cursor, rewrites the screen, reorders text or
// hides in it is refused in every name and reference, on the field, with
// the character named by its code (never printed raw).
func TestNamesAndReferencesRefuseWhatDrivesATerminal(t *testing.T) {
	bad := map[string]string{
		"NUL": "A\x00B", "BEL": "A\aB", "ESC sequence": "A\x1b[31mB", "OSC 52": "A\x1b]52;c;ZXZpbA==\aB",
		"tab": "A\tB", "newline": "A\nB", "carriage return": "Paid\rRefund", "DEL": "A\x7fB",
		"C1 NEL": "A\u0085B", "C1 CSI": "A\u009b2JB", "RLO": "GB29\u202e4321", "LRE": "A\u202aB", "PDF": "A\u202cB",
		"RLI": "A\u2067B", "PDI": "A\u2069B", "LRM": "A\u200eB", "RLM": "A\u200fB", "ALM": "A\u061cB",
		"zero width space": "A\u200bB", "ZWJ": "A\u200dB", "BOM": "\ufeffAB", "word joiner": "A\u2060B",
		"line separator": "A\u2028B", "paragraph separator": "A\u2029B", "private use": "A\ue000B",
		"unassigned": "A\u0378B", "invalid UTF-8": "A\xffB", "cut UTF-8": "Zo\xc3", "emoji": "Pay 💸",
	}
	for _, f := range textFields() {
		for name, v := range bad {
			ps := f.validate(v)
			if len(ps) != 1 || ps[0].Field != f.path {
				t.Errorf("%s with %s: %v, want one problem on %s", f.path, name, ps, f.path)
				continue
			}
			if strings.ContainsAny(ps[0].Message, "\x00\a\x1b\t\n\r\x7f\u0085\u009b\u202e\u202a\u202c\u2067\u2069\u200e\u200f\u061c\u200b\u200d\ufeff\u2060\u2028\u2029\ue000") ||
				!strings.Contains(ps[0].Message, "U+") && !strings.Contains(ps[0].Message, "UTF-8") {
				t.Errorf("%s with %s: message %q does not name the character by code", f.path, name, ps[0].Message)
			}
		}
	}
	// Every other string field refuses control and format characters too.
	r := validationPayout()
	r.ContextCode = "withdrawal\x1b[2J"
	if ps := ValidatePayout(r); len(ps) != 1 || ps[0].Field != "context_code" || !strings.Contains(ps[0].Message, "U+001B") {
		t.Errorf("context_code with ESC: %v", ps)
	}
	p := validationPayment()
	p.User.Email = "jane\u202e@example.com"
	if ps := ValidatePayment(p, validationOptions()); len(ps) != 1 || ps[0].Field != "user.email" {
		t.Errorf("email with RLO: %v", ps)
	}
}
