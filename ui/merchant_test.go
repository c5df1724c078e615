package ui

import (
	"strings"
	"testing"
)

const (
	testMerchantGBP = "6f2f3c2e-0b9d-4c47-9b1e-5a1f00000826"
	testMerchantEUR = "6f2f3c2e-0b9d-4c47-9b1e-5a1f00000978"
)

func testMerchantAccounts() []MerchantAccount {
	return []MerchantAccount{{ID: testMerchantGBP, Currency: "GBP"}, {ID: testMerchantEUR, Currency: "EUR"}}
}

// toMerchantBeneficiary opens the payment form for £1 and chooses a
// merchant-account beneficiary, leaving the focus on the holder's name.
func toMerchantBeneficiary(h *harness) {
	h.key("6")
	h.typeText("1")
	h.key("enter")
	h.key("enter") // GBP
	h.key("left")  // merchant_account
	h.key("enter")
}

// A merchant-account pay-in does not ask for the holder's name as if it
// were an external account.
func TestMerchantBeneficiaryHolderIsOptional(t *testing.T) {
	h := newHarness(t, Options{Backend: newFake(10)}, 120, 40)
	toMerchantBeneficiary(h)
	if h.m.payment.spec.(*paymentForm).ben.typ != "merchant_account" {
		t.Fatalf("beneficiary type %q, want merchant_account", h.m.payment.spec.(*paymentForm).ben.typ)
	}
	v := h.view()
	if strings.Contains(v, "required for external_account") || strings.Contains(v, "required:") {
		t.Fatalf("merchant-account page asks for the holder as required:\n%s", v)
	}
	mustContain(t, v, "merchant account's name is used")
}

// A GBP payment into the profile's EUR merchant account stops at the
// merchant account field, named by its title, before the confirmation.
func TestPaymentCurrencyMustMatchMerchantAccount(t *testing.T) {
	h := newHarness(t, Options{Backend: newFake(10), MerchantAccounts: testMerchantAccounts()}, 120, 40)
	toMerchantBeneficiary(h)
	h.key("enter") // holder (optional)
	h.key("enter") // reference
	enterMerchantAccount(h, testMerchantEUR)
	if f := h.m.payment.form.GetFocusedField(); f == nil || f.GetKey() != "ben_merchant" {
		t.Fatalf("an EUR merchant account for a GBP payment let the form move on:\n%s", h.view())
	}
	v := h.view()
	mustContain(t, v, "Merchant account: is a merchant account that holds EUR")
	if strings.Contains(v, "Send this payment?") {
		t.Fatalf("confirmation shown for a GBP payment into an EUR account:\n%s", v)
	}
}

// enterMerchantAccount fills the merchant account field and moves on.
func enterMerchantAccount(h *harness, id string) {
	h.typeText(id)
	h.key("enter")
}
