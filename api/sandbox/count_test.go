package sandbox_test

import (
	"context"
	"testing"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/api/sandbox"
)

// The sandbox counts what it created by metadata, once per idempotency
// key however often it is asked.
func TestCountPaymentsCountsWhatWasCreated(t *testing.T) {
	key, err := api.GenerateSigningKey()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv, err := sandbox.Listen(ctx, "127.0.0.1:0", sandbox.Options{MerchantKey: &key.PublicKey, MerchantKeyID: "k1", History: 0})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	i := srv.Info()
	c, err := api.NewClient(api.Config{AuthURL: i.AuthURL, BaseURL: i.BaseURL, PayoutsURL: i.PayoutsURL, ClientID: i.ClientID, ClientSecret: i.ClientSecret,
		SigningKeyID: "k1", SigningKey: key})
	if err != nil {
		t.Fatal(err)
	}
	var gbp string
	for _, a := range srv.MerchantAccounts() {
		if a.Currency == "GBP" {
			gbp = a.ID
		}
	}
	req := &api.PaymentRequest{AmountInMinor: 25_00, Currency: "GBP", Metadata: map[string]string{"case": "count-1"},
		PaymentMethod: api.PaymentMethod{Type: api.PaymentMethodBankTransfer, ProviderSelection: &api.ProviderSelection{Type: api.ProviderUserSelected}, Beneficiary: api.Beneficiary{Type: "merchant_account", MerchantAccountID: gbp, Reference: "ORDER-1"}},
		User:          &api.User{Name: "Ada Lovelace", Email: "ada@example.com"}}
	for range 2 {
		if _, err := c.CreatePayment(ctx, req, "5a1c7a0e-2f0b-4d4c-9f61-000000000001"); err != nil {
			t.Fatal(err)
		}
	}
	if n := srv.CountPayments("case", "count-1"); n != 1 {
		t.Fatalf("%d payments counted, want 1 (one key, asked twice)", n)
	}
	if n := srv.CountPayments("case", "other") + srv.CountMandates("case", "count-1"); n != 0 {
		t.Fatalf("%d counted for another value or kind", n)
	}
}
