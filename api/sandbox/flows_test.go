package sandbox

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/paydash/paydash/api"
)

func (e *env) getFlow(path string, scopes ...string) (FlowView, rawResponse) {
	e.t.Helper()
	r := e.do("GET", path, http.Header{"Authorization": {"Bearer " + e.token(scopes...)}}, nil)
	var v FlowView
	if r.status == 200 {
		if err := json.Unmarshal(r.body, &v); err != nil {
			e.t.Fatal(err)
		}
	}
	return v, r
}

func TestPaymentLifecycle(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	ctx := context.Background()
	create := func(edit func(*api.PaymentRequest)) *api.PaymentResponse {
		t.Helper()
		req := validPayment()
		if edit != nil {
			edit(req)
		}
		resp, err := e.client.CreatePayment(ctx, req, "")
		if err != nil {
			t.Fatal(err)
		}
		if resp.Status != api.PaymentStatusAuthorizationRequired || resp.ResourceToken == "" || resp.User.ID == "" {
			t.Fatalf("created %+v: want authorization_required with a resource token and a user id", resp)
		}
		return resp
	}

	t.Run("authorise credits the merchant account", func(t *testing.T) {
		p := create(nil)
		before := e.balance("GBP")
		r := e.control("POST", "/sandbox/payments/"+p.ID+"/authorise", nil)
		var v FlowView
		_ = json.Unmarshal(r.body, &v)
		if r.status != 200 || v.Status != StatusAuthorized || v.AuthorizedAt == "" {
			t.Fatalf("authorise: %d %s", r.status, r.body)
		}
		after := e.balance("GBP")
		if after.CurrentBalanceInMinor != before.CurrentBalanceInMinor+1_250 || after.AvailableBalanceInMinor != before.AvailableBalanceInMinor+1_250 {
			t.Fatalf("balance %+v after a 12.50 payment in, was %+v", after, before)
		}
		if got, _ := e.getFlow("/v3/payments/"+p.ID, api.ScopePayments); got.Status != StatusAuthorized {
			t.Fatalf("GET: status %q", got.Status)
		}
		if r := e.control("POST", "/sandbox/payments/"+p.ID+"/authorise", nil); r.status != 409 || r.problem.Type != ProblemTypeBase+"invalid_state" {
			t.Fatalf("authorising twice: %d %s, want 409 invalid_state", r.status, r.body)
		}
		checkLedger(t, e.srv.ledger)
	})

	t.Run("external account payment leaves the balances alone", func(t *testing.T) {
		p := create(func(r *api.PaymentRequest) {
			r.PaymentMethod.Beneficiary = api.Beneficiary{Type: api.BeneficiaryExternalAccount, AccountHolderName: "Ada Lovelace",
				AccountIdentifier: &api.AccountIdentifier{Type: api.AccountIdentifierSortCode, SortCode: "040004", AccountNumber: "12345678"},
				Reference:         "GIFT"}
		})
		before := e.balance("GBP")
		if err := e.srv.AuthorisePayment(p.ID); err != nil {
			t.Fatal(err)
		}
		if e.balance("GBP") != before {
			t.Fatal("a payment to an external account changed the payout account")
		}
	})

	t.Run("fail with a reason", func(t *testing.T) {
		p := create(nil)
		r := e.control("POST", "/sandbox/payments/"+p.ID+"/fail", map[string]string{"reason": "provider_rejected"})
		var v FlowView
		_ = json.Unmarshal(r.body, &v)
		if r.status != 200 || v.Status != StatusFailed || v.FailureReason != "provider_rejected" {
			t.Fatalf("fail: %d %s", r.status, r.body)
		}
	})

	t.Run("resource token expires after 15 minutes", func(t *testing.T) {
		p := create(nil)
		e.clock.Advance(ResourceTokenTTL - time.Second)
		if got, _ := e.getFlow("/v3/payments/"+p.ID, api.ScopePayments); got.Status != api.PaymentStatusAuthorizationRequired {
			t.Fatalf("before expiry: status %q", got.Status)
		}
		e.clock.Advance(time.Second)
		got, _ := e.getFlow("/v3/payments/"+p.ID, api.ScopePayments)
		if got.Status != StatusFailed || got.FailureReason != FailureExpired {
			t.Fatalf("after 15 minutes: %+v, want failed/expired", got)
		}
		if err := e.srv.AuthorisePayment(p.ID); err == nil {
			t.Fatal("authorised an expired payment")
		}
	})

	t.Run("expire control", func(t *testing.T) {
		p := create(nil)
		if r := e.control("POST", "/sandbox/payments/"+p.ID+"/expire", nil); r.status != 200 {
			t.Fatalf("expire: %d %s", r.status, r.body)
		}
		if got, _ := e.getFlow("/v3/payments/"+p.ID, api.ScopePayments); got.FailureReason != FailureExpired {
			t.Fatalf("after expire: %+v", got)
		}
	})

	t.Run("unknown payment", func(t *testing.T) {
		if _, r := e.getFlow("/v3/payments/"+uuid.NewString(), api.ScopePayments); r.status != 404 {
			t.Fatalf("GET unknown: %d", r.status)
		}
		if r := e.control("POST", "/sandbox/payments/nope/authorise", nil); r.status != 404 {
			t.Fatalf("authorise unknown: %d", r.status)
		}
		if r := e.control("POST", "/sandbox/payments/nope/cancel", nil); r.status != 404 {
			t.Fatalf("unknown action: %d", r.status)
		}
	})

	t.Run("given user id is kept", func(t *testing.T) {
		id := uuid.NewString()
		p := create(func(r *api.PaymentRequest) { r.User.ID = id })
		if p.User.ID != id {
			t.Fatalf("user.id %q, want %q", p.User.ID, id)
		}
	})
}

func TestMandateLifecycle(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	ctx := context.Background()
	m, err := e.client.CreateMandate(ctx, validMandate(api.MandateCommercial), "")
	if err != nil {
		t.Fatal(err)
	}
	if m.ID == "" || m.ResourceToken == "" || m.User.ID == "" || m.Status != "" {
		t.Fatalf("created %+v: want id, user.id and resource_token only", m)
	}
	got, _ := e.getFlow("/v3/mandates/"+m.ID, api.ScopeCommercial)
	if got.Status != api.PaymentStatusAuthorizationRequired || got.Type != api.MandateCommercial {
		t.Fatalf("GET: %+v", got)
	}
	if _, r := e.getFlow("/v3/mandates/"+m.ID, api.ScopeSweeping); r.status != 403 {
		t.Fatalf("GET with the other recurring scope: %d, want 403", r.status)
	}
	if err := e.srv.AuthoriseMandate(m.ID); err != nil {
		t.Fatal(err)
	}
	if got, _ := e.getFlow("/v3/mandates/"+m.ID, api.ScopeCommercial); got.Status != StatusAuthorized {
		t.Fatalf("after authorise: %q", got.Status)
	}
	if err := e.srv.FailMandate(m.ID, ""); err == nil {
		t.Fatal("failed an authorised mandate")
	}

	m2, err := e.client.CreateMandate(ctx, validMandate(api.MandateSweeping), "")
	if err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(ResourceTokenTTL)
	if got, _ := e.getFlow("/v3/mandates/"+m2.ID, api.ScopeSweeping); got.Status != StatusFailed || got.FailureReason != FailureExpired {
		t.Fatalf("after 15 minutes: %+v", got)
	}

	m3, err := e.client.CreateMandate(ctx, validMandate(api.MandateSweeping), "")
	if err != nil {
		t.Fatal(err)
	}
	if r := e.control("POST", "/sandbox/mandates/"+m3.ID+"/fail", map[string]string{"reason": "rejected_by_user"}); r.status != 200 {
		t.Fatalf("fail: %d %s", r.status, r.body)
	}
	if got, _ := e.getFlow("/v3/mandates/"+m3.ID, api.ScopeSweeping); got.FailureReason != "rejected_by_user" {
		t.Fatalf("after fail: %+v", got)
	}
}

// TestCreationValidation: field problems come back as 400 with the errors
// map keyed by field path, including what only the sandbox knows (its
// merchant accounts and their currencies).
func TestCreationValidation(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	ctx := context.Background()
	payments := []struct {
		name  string
		edit  func(*api.PaymentRequest)
		field string
	}{
		{"GBP into the EUR account", func(r *api.PaymentRequest) { r.PaymentMethod.Beneficiary.MerchantAccountID = MerchantAccountEUR },
			"payment_method.beneficiary.merchant_account_id"},
		{"EUR into the GBP account", func(r *api.PaymentRequest) { r.Currency = "EUR" }, "payment_method.beneficiary.merchant_account_id"},
		{"unknown merchant account", func(r *api.PaymentRequest) { r.PaymentMethod.Beneficiary.MerchantAccountID = uuid.NewString() },
			"payment_method.beneficiary.merchant_account_id"},
		{"EUR to a GB IBAN", func(r *api.PaymentRequest) {
			r.Currency = "EUR"
			r.PaymentMethod.Beneficiary = api.Beneficiary{Type: api.BeneficiaryExternalAccount, AccountHolderName: "Ada",
				AccountIdentifier: &api.AccountIdentifier{Type: api.AccountIdentifierIBAN, IBAN: "GB33BUKB20201555555555"}}
		}, "payment_method.beneficiary.account_identifier.iban"},
		{"no user contact", func(r *api.PaymentRequest) { r.User.Email = "" }, "user"},
		{"USD", func(r *api.PaymentRequest) { r.Currency = "USD" }, "currency"},
	}
	for _, tc := range payments {
		t.Run("payment "+tc.name, func(t *testing.T) {
			req := validPayment()
			tc.edit(req)
			_, err := e.client.CreatePayment(ctx, req, "")
			if st, p := apiStatus(t, err); st != 400 || len(p.Errors[tc.field]) == 0 {
				t.Fatalf("status %d %+v, want 400 with errors[%s]", st, p, tc.field)
			}
		})
	}
	mandates := []struct {
		name  string
		edit  func(*api.MandateRequest)
		field string
	}{
		{"EUR mandate into the GBP account", func(r *api.MandateRequest) { r.Currency = "EUR" }, "mandate.beneficiary.merchant_account_id"},
		{"unknown merchant account", func(r *api.MandateRequest) { r.Mandate.Beneficiary.MerchantAccountID = "acct-1" }, "mandate.beneficiary.merchant_account_id"},
		{"limit below the individual maximum", func(r *api.MandateRequest) { r.Constraints.PeriodicLimits.Month.MaximumAmount = 10 },
			"constraints.periodic_limits.month.maximum_amount"},
	}
	for _, tc := range mandates {
		t.Run("mandate "+tc.name, func(t *testing.T) {
			req := validMandate(api.MandateSweeping)
			tc.edit(req)
			_, err := e.client.CreateMandate(ctx, req, "")
			if st, p := apiStatus(t, err); st != 400 || len(p.Errors[tc.field]) == 0 {
				t.Fatalf("status %d %+v, want 400 with errors[%s]", st, p, tc.field)
			}
		})
	}
	t.Run("malformed JSON", func(t *testing.T) {
		r := e.signedPost("/v3/payments", api.HeaderSignature, e.token(api.ScopePayments), uuid.NewString(), []byte(`{"amount_in_minor":`), e.key)
		if r.status != 400 || r.problem.Type != ProblemTypeBase+"invalid_request" {
			t.Fatalf("status %d %s", r.status, r.body)
		}
	})
	t.Run("wrong JSON type names the field", func(t *testing.T) {
		r := e.signedPost("/v3/payments", api.HeaderSignature, e.token(api.ScopePayments), uuid.NewString(), []byte(`{"amount_in_minor":"12.50"}`), e.key)
		if r.status != 400 || len(r.problem.Errors["amount_in_minor"]) == 0 {
			t.Fatalf("status %d %s", r.status, r.body)
		}
	})
}
