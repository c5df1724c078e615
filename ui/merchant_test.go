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
// (The profile lists no GBP account, so the id is typed.)
func TestPaymentCurrencyMustMatchMerchantAccount(t *testing.T) {
	h := newHarness(t, Options{Backend: newFake(10), MerchantAccounts: []MerchantAccount{{ID: testMerchantEUR, Currency: "EUR"}}}, 120, 40)
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

// With the profile's merchant accounts, the form offers those holding the
// payment's currency as a list (currency · id), and the one chosen is sent.
func TestMerchantAccountPicker(t *testing.T) {
	for _, tc := range []struct {
		currency    string
		want, other string
	}{{"GBP", testMerchantGBP, testMerchantEUR}, {"EUR", testMerchantEUR, testMerchantGBP}} {
		h := newHarness(t, Options{Backend: newFake(10), MerchantAccounts: testMerchantAccounts()}, 120, 40)
		h.key("6")
		h.typeText("1")
		h.key("enter")
		if tc.currency == "EUR" {
			h.key("right")
		}
		h.key("enter")
		h.key("left") // merchant_account
		h.key("enter")
		h.key("enter") // holder
		h.key("enter") // reference
		f := h.m.payment.form.GetFocusedField()
		if f == nil || f.GetKey() != "ben_merchant" || !h.m.payment.choiceFocused() {
			t.Fatalf("%s: the merchant account is not a list:\n%s", tc.currency, h.view())
		}
		v := h.view()
		mustContain(t, v, tc.currency+" · "+tc.want)
		if strings.Contains(v, tc.other) {
			t.Fatalf("%s: the list offers the other currency's account %s:\n%s", tc.currency, tc.other, v)
		}
		h.key("enter")
		if got := h.m.payment.spec.(*paymentForm).ben.merchantAccountID; got != tc.want {
			t.Fatalf("%s: merchant account %q chosen, want %s", tc.currency, got, tc.want)
		}
		if f := h.m.payment.form.GetFocusedField(); f == nil || f.GetKey() == "ben_merchant" {
			t.Fatalf("%s: the chosen account did not let the form move on:\n%s", tc.currency, h.view())
		}
	}
}

// Without merchant accounts in the profile the id is typed, as before.
func TestMerchantAccountIsTextWithoutProfileAccounts(t *testing.T) {
	h := newHarness(t, Options{Backend: newFake(10)}, 120, 40)
	toMerchantBeneficiary(h)
	h.key("enter")
	h.key("enter")
	if f := h.m.payment.form.GetFocusedField(); f == nil || f.GetKey() != "ben_merchant" || h.m.payment.choiceFocused() {
		t.Fatalf("without profile accounts the merchant account is not a text field:\n%s", h.view())
	}
	enterMerchantAccount(h, testMerchantGBP)
	if got := h.m.payment.spec.(*paymentForm).ben.merchantAccountID; got != testMerchantGBP {
		t.Fatalf("typed merchant account %q, want %s", got, testMerchantGBP)
	}
}

// The mandate form offers the same list, filtered to its currency.
func TestMandateMerchantAccountPicker(t *testing.T) {
	h := newHarness(t, Options{Backend: newFake(10), MerchantAccounts: testMerchantAccounts()}, 120, 40)
	h.key("7")
	h.key("enter") // mandate type
	h.key("right") // EUR
	h.key("enter")
	h.key("left") // merchant_account
	h.key("enter")
	h.key("enter") // holder
	f := h.m.mandate.form.GetFocusedField()
	if f == nil || f.GetKey() != "ben_merchant" || !h.m.mandate.choiceFocused() {
		t.Fatalf("the mandate's merchant account is not a list:\n%s", h.view())
	}
	v := h.view()
	mustContain(t, v, "EUR · "+testMerchantEUR)
	if strings.Contains(v, testMerchantGBP) {
		t.Fatalf("the EUR mandate offers the GBP account:\n%s", v)
	}
}
