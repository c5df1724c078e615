package sandbox

import (
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/paydash/paydash/api"
)

func TestTokenEndpoint(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(o *Options) { o.ClientSecret = "s3cret"; o.TokenTTL = 30 * time.Minute })
	form := func(kv ...string) url.Values {
		v := url.Values{"grant_type": {"client_credentials"}, "client_id": {DefaultClientID}, "client_secret": {"s3cret"}, "scope": {"payouts"}}
		for i := 0; i < len(kv); i += 2 {
			if kv[i+1] == "" {
				v.Del(kv[i])
			} else {
				v.Set(kv[i], kv[i+1])
			}
		}
		return v
	}
	formHeader := http.Header{"Content-Type": {api.ContentTypeFormURLEncode}}
	tests := []struct {
		name      string
		header    http.Header
		body      string
		status    int
		oauthCode string
		scope     string
	}{
		{"valid", formHeader, form().Encode(), 200, "", "payouts"},
		{"several scopes sorted", formHeader, form("scope", "payouts payments").Encode(), 200, "", "payments payouts"},
		{"basic auth", http.Header{"Content-Type": {api.ContentTypeFormURLEncode}, "Authorization": {"Basic c2FuZGJveC1jbGllbnQ6czNjcmV0"}},
			url.Values{"grant_type": {"client_credentials"}, "scope": {"payments"}}.Encode(), 200, "", "payments"},
		{"wrong secret", formHeader, form("client_secret", "nope").Encode(), 401, "invalid_client", ""},
		{"wrong client id", formHeader, form("client_id", "other").Encode(), 401, "invalid_client", ""},
		{"missing grant type", formHeader, form("grant_type", "").Encode(), 400, "invalid_request", ""},
		{"other grant type", formHeader, form("grant_type", "password").Encode(), 400, "unsupported_grant_type", ""},
		{"missing scope", formHeader, form("scope", "").Encode(), 400, "invalid_scope", ""},
		{"unknown scope", formHeader, form("scope", "payouts admin").Encode(), 400, "invalid_scope", ""},
		{"json body", http.Header{"Content-Type": {"application/json"}}, `{"grant_type":"client_credentials"}`, 400, "invalid_request", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := e.do(http.MethodPost, "/connect/token", tc.header, []byte(tc.body))
			if r.status != tc.status {
				t.Fatalf("status %d, want %d: %s", r.status, tc.status, r.body)
			}
			if tc.status != 200 {
				var oauth struct{ Error, ErrorDescription string }
				_ = json.Unmarshal(r.body, &oauth)
				if oauth.Error != tc.oauthCode || r.problem == nil || r.problem.Status != tc.status {
					t.Fatalf("error %q problem %+v, want OAuth error %q in a problem document", oauth.Error, r.problem, tc.oauthCode)
				}
				if strings.Contains(string(r.body), "s3cret") {
					t.Fatal("the error echoes the client secret")
				}
				return
			}
			var tr api.TokenResponse
			if err := json.Unmarshal(r.body, &tr); err != nil {
				t.Fatal(err)
			}
			if tr.AccessToken == "" || tr.TokenType != "Bearer" || tr.ExpiresIn != 1800 || tr.Scope != tc.scope {
				t.Fatalf("token response %+v: want a Bearer token for 1800 s with scope %q", tr, tc.scope)
			}
			if r.header.Get("Cache-Control") != "no-store" {
				t.Error("token response may be cached")
			}
		})
	}
}

// TestBearerRules covers 401 for missing, unknown and expired tokens and
// 403 for the wrong scope, on every kind of endpoint.
func TestBearerRules(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	payouts, payments := e.token(api.ScopePayouts), e.token(api.ScopePayments)
	tests := []struct {
		name, method, path, auth string
		status                   int
		slug                     string
	}{
		{"no header", "GET", "/v1/balances", "", 401, "unauthorized"},
		{"not bearer", "GET", "/v1/balances", "Basic abc", 401, "unauthorized"},
		{"unknown token", "GET", "/v1/transactions", "Bearer sbx_at_forged", 401, "unauthorized"},
		{"payouts scope reads balances", "GET", "/v1/balances", "Bearer " + payouts, 200, ""},
		{"payments scope cannot read balances", "GET", "/v1/balances", "Bearer " + payments, 403, "insufficient_scope"},
		{"payments scope cannot read the report", "GET", "/v1/transactions", "Bearer " + payments, 403, "insufficient_scope"},
		{"payouts scope cannot read a payment", "GET", "/v3/payments/x", "Bearer " + payouts, 403, "insufficient_scope"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header{}
			if tc.auth != "" {
				h.Set("Authorization", tc.auth)
			}
			r := e.do(tc.method, tc.path, h, nil)
			if r.status != tc.status {
				t.Fatalf("status %d, want %d: %s", r.status, tc.status, r.body)
			}
			if tc.slug != "" && r.problem.Type != ProblemTypeBase+tc.slug {
				t.Fatalf("problem type %q, want slug %s", r.problem.Type, tc.slug)
			}
			if tc.status == 401 && !strings.HasPrefix(r.header.Get("WWW-Authenticate"), "Bearer") {
				t.Errorf("401 without a Bearer challenge: %q", r.header.Get("WWW-Authenticate"))
			}
		})
	}

	t.Run("payout with payments scope", func(t *testing.T) {
		body, _ := json.Marshal(payout("GBP", 100))
		r := e.signedPost("/v1/payouts", api.HeaderPayoutSignature, payments, "", body, e.key)
		if r.status != 403 {
			t.Fatalf("status %d, want 403: %s", r.status, r.body)
		}
	})

	t.Run("expired token", func(t *testing.T) {
		tok := e.token(api.ScopePayouts)
		h := http.Header{"Authorization": {"Bearer " + tok}}
		if r := e.do("GET", "/v1/balances", h, nil); r.status != 200 {
			t.Fatalf("fresh token: status %d", r.status)
		}
		e.clock.Advance(DefaultTokenTTL)
		r := e.do("GET", "/v1/balances", h, nil)
		if r.status != 401 || !strings.Contains(r.problem.Detail, "expired") {
			t.Fatalf("after the TTL: status %d %+v, want 401 saying expired", r.status, r.problem)
		}
		// The client notices the 401, fetches a new token and succeeds.
		if _, err := e.client.Balances(context.Background()); err != nil {
			t.Fatalf("client after expiry: %v", err)
		}
	})
}

func mandateBody(t testing.TB, mandateType string) []byte {
	t.Helper()
	b, err := json.Marshal(validMandate(mandateType))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func validMandate(mandateType string) *api.MandateRequest {
	return &api.MandateRequest{
		Mandate: api.Mandate{Type: mandateType,
			ProviderSelection: api.ProviderSelection{Type: api.ProviderUserSelected, Filter: &api.ProviderFilter{Countries: []string{"GB"}}},
			Beneficiary:       api.Beneficiary{Type: api.BeneficiaryMerchantAccount, MerchantAccountID: MerchantAccountGBP}},
		Currency: "GBP",
		User:     &api.User{Name: "Ada Lovelace", Email: "ada@example.com"},
		Constraints: api.Constraints{ValidFrom: "2025-03-14T09:00:00.000Z", ValidTo: "2026-03-14T09:00:00.000Z",
			MaximumIndividualAmount: 5_000,
			PeriodicLimits:          &api.PeriodicLimits{Month: &api.PeriodicLimit{MaximumAmount: 20_000, PeriodAlignment: api.AlignmentCalendar}}},
	}
}

// TestMandateScope: the token needs exactly one recurring scope, matching
// mandate.type.
func TestMandateScope(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	tests := []struct {
		name   string
		scopes []string
		typ    string
		status int
	}{
		{"sweeping with sweeping", []string{api.ScopeSweeping}, api.MandateSweeping, 201},
		{"commercial with commercial", []string{api.ScopeCommercial}, api.MandateCommercial, 201},
		{"sweeping with commercial", []string{api.ScopeCommercial}, api.MandateSweeping, 403},
		{"commercial with sweeping", []string{api.ScopeSweeping}, api.MandateCommercial, 403},
		{"both recurring scopes", []string{api.ScopeSweeping, api.ScopeCommercial}, api.MandateSweeping, 403},
		{"payments scope", []string{api.ScopePayments}, api.MandateSweeping, 403},
		{"unknown type is a validation error", []string{api.ScopeSweeping}, "hybrid", 400},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := e.signedPost("/v3/mandates", api.HeaderSignature, e.token(tc.scopes...), uuid.NewString(), mandateBody(t, tc.typ), e.key)
			if r.status != tc.status {
				t.Fatalf("status %d, want %d: %s", r.status, tc.status, r.body)
			}
			if tc.status == 400 && len(r.problem.Errors["mandate.type"]) == 0 {
				t.Fatalf("errors %v: want mandate.type", r.problem.Errors)
			}
		})
	}
}

func TestSignatureRules(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	other, err := api.GenerateSigningKey()
	if err != nil {
		t.Fatal(err)
	}
	payBody, _ := json.Marshal(validPayment())
	poBody, _ := json.Marshal(payout("GBP", 100))
	payTok, poTok := e.token(api.ScopePayments), e.token(api.ScopePayouts)

	send := func(path, header, tok string, body []byte, mutate func(h http.Header, body []byte) []byte) rawResponse {
		h := http.Header{"Content-Type": {api.ContentTypeJSON}, "Authorization": {"Bearer " + tok}}
		key := ""
		if header == api.HeaderSignature {
			key = uuid.NewString()
			h.Set(api.HeaderIdempotencyKey, key)
		}
		var signed []api.SignedHeader
		if key != "" {
			signed = []api.SignedHeader{{Name: api.HeaderIdempotencyKey, Value: key}}
		}
		sig, err := api.Sign(e.key, testKeyID, "POST", path, signed, body)
		if err != nil {
			t.Fatal(err)
		}
		h.Set(header, sig)
		body = mutate(h, body)
		return e.do("POST", path, h, body)
	}
	// resign replaces the signature with one by key under kid over path,
	// covering the Idempotency-Key when coverKey.
	resign := func(key *ecdsa.PrivateKey, kid, path string, coverKey bool) func(h http.Header, b []byte) []byte {
		return func(h http.Header, b []byte) []byte {
			var signed []api.SignedHeader
			if coverKey {
				signed = []api.SignedHeader{{Name: api.HeaderIdempotencyKey, Value: h.Get(api.HeaderIdempotencyKey)}}
			}
			name := api.HeaderSignature
			if strings.HasPrefix(path, "/v1/") {
				name = api.HeaderPayoutSignature
			}
			sig, err := api.Sign(key, kid, "POST", path, signed, b)
			if err != nil {
				t.Fatal(err)
			}
			h.Set(name, sig)
			return b
		}
	}
	tests := []struct {
		name, path, header, tok string
		body                    []byte
		mutate                  func(h http.Header, body []byte) []byte
		status                  int
		detail                  string
	}{
		{"payment signed", "/v3/payments", api.HeaderSignature, payTok, payBody, func(h http.Header, b []byte) []byte { return b }, 201, ""},
		{"payment unsigned", "/v3/payments", api.HeaderSignature, payTok, payBody,
			func(h http.Header, b []byte) []byte { h.Del(api.HeaderSignature); return b }, 401, "Svc-Signature header is missing"},
		{"payment signed by another key", "/v3/payments", api.HeaderSignature, payTok, payBody,
			resign(other, testKeyID, "/v3/payments", true), 401, "Svc-Signature header is invalid"},
		{"payment body changed after signing", "/v3/payments", api.HeaderSignature, payTok, payBody,
			func(h http.Header, b []byte) []byte { return append([]byte(" "), b...) }, 401, "Svc-Signature header is invalid"},
		{"idempotency key swapped under the signature", "/v3/payments", api.HeaderSignature, payTok, payBody,
			func(h http.Header, b []byte) []byte { h.Set(api.HeaderIdempotencyKey, uuid.NewString()); return b }, 401, "Svc-Signature header is invalid"},
		{"idempotency key not signed", "/v3/payments", api.HeaderSignature, payTok, payBody,
			resign(e.key, testKeyID, "/v3/payments", false), 401, "not covered"},
		{"wrong key id", "/v3/payments", api.HeaderSignature, payTok, payBody,
			resign(e.key, "old-key", "/v3/payments", true), 401, `key id "old-key"`},
		{"payment signature in the payout header", "/v3/payments", api.HeaderSignature, payTok, payBody,
			func(h http.Header, b []byte) []byte {
				h.Set(api.HeaderPayoutSignature, h.Get(api.HeaderSignature))
				h.Del(api.HeaderSignature)
				return b
			}, 401, "Svc-Signature header is missing"},
		{"payout signed", "/v1/payouts", api.HeaderPayoutSignature, poTok, poBody, func(h http.Header, b []byte) []byte { return b }, 202, ""},
		{"payout unsigned", "/v1/payouts", api.HeaderPayoutSignature, poTok, poBody,
			func(h http.Header, b []byte) []byte { h.Del(api.HeaderPayoutSignature); return b }, 401, "X-Svc-Signature header is missing"},
		{"payout signed for another path", "/v1/payouts", api.HeaderPayoutSignature, poTok, poBody,
			resign(e.key, testKeyID, "/v1/payout", false), 401, "X-Svc-Signature header is invalid"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := send(tc.path, tc.header, tc.tok, tc.body, tc.mutate)
			if r.status != tc.status {
				t.Fatalf("status %d, want %d: %s", r.status, tc.status, r.body)
			}
			if tc.detail != "" && (r.problem == nil || r.problem.Type != ProblemTypeBase+"invalid_signature" || !strings.Contains(r.problem.Detail, tc.detail)) {
				t.Fatalf("problem %+v: want invalid_signature saying %q", r.problem, tc.detail)
			}
		})
	}
}

func validPayment() *api.PaymentRequest {
	return &api.PaymentRequest{AmountInMinor: 1_250, Currency: "GBP",
		PaymentMethod: api.PaymentMethod{Type: api.PaymentMethodBankTransfer,
			ProviderSelection: &api.ProviderSelection{Type: api.ProviderUserSelected},
			Beneficiary: api.Beneficiary{Type: api.BeneficiaryMerchantAccount, MerchantAccountID: MerchantAccountGBP,
				Reference: "ORDER 42"}},
		User: &api.User{Name: "Grace Hopper", Email: "grace@example.com"}}
}

func TestIdempotency(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	ctx := context.Background()
	key := uuid.NewString()

	first, err := e.client.CreatePayment(ctx, validPayment(), key)
	if err != nil {
		t.Fatal(err)
	}
	again, err := e.client.CreatePayment(ctx, validPayment(), key)
	if err != nil {
		t.Fatal(err)
	}
	if *again != *first {
		t.Fatalf("replay %+v differs from the original %+v", again, first)
	}
	other, err := e.client.CreatePayment(ctx, validPayment(), "")
	if err != nil {
		t.Fatal(err)
	}
	if other.ID == first.ID {
		t.Fatal("a new key created no new payment")
	}

	changed := validPayment()
	changed.AmountInMinor++
	_, err = e.client.CreatePayment(ctx, changed, key)
	if st, p := apiStatus(t, err); st != 422 || p.Type != ProblemTypeBase+"idempotency_key_reused" {
		t.Fatalf("same key, other body: status %d %+v, want 422 idempotency_key_reused", st, p)
	}

	// The replay is marked, byte for byte the same.
	body, _ := json.Marshal(validPayment())
	tok := e.token(api.ScopePayments)
	k2 := uuid.NewString()
	r1 := e.signedPost("/v3/payments", api.HeaderSignature, tok, k2, body, e.key)
	r2 := e.signedPost("/v3/payments", api.HeaderSignature, tok, k2, body, e.key)
	if r1.status != 201 || r2.status != 201 || string(r1.body) != string(r2.body) ||
		r1.header.Get(HeaderIdempotentReplayed) != "false" || r2.header.Get(HeaderIdempotentReplayed) != "true" {
		t.Fatalf("first %d %s (replayed=%s), second %d %s (replayed=%s)", r1.status, r1.body, r1.header.Get(HeaderIdempotentReplayed),
			r2.status, r2.body, r2.header.Get(HeaderIdempotentReplayed))
	}
	// The same key on another endpoint is another request.
	if r := e.signedPost("/v3/mandates", api.HeaderSignature, e.token(api.ScopeSweeping), k2, mandateBody(t, api.MandateSweeping), e.key); r.status != 422 {
		t.Fatalf("key reused on /v3/mandates: status %d, want 422", r.status)
	}

	// A key is required.
	if r := e.signedPost("/v3/payments", api.HeaderSignature, tok, "", body, e.key); r.status != 400 || len(r.problem.Errors[api.HeaderIdempotencyKey]) == 0 {
		t.Fatalf("no key: status %d %s, want 400 with errors[Idempotency-Key]", r.status, r.body)
	}

	// A request refused by validation is not stored: fixed, it succeeds under its key.
	k3 := uuid.NewString()
	bad := validPayment()
	bad.AmountInMinor = 0
	_, err = e.client.CreatePayment(ctx, bad, k3)
	if st, p := apiStatus(t, err); st != 400 || len(p.Errors["amount_in_minor"]) == 0 {
		t.Fatalf("invalid payment: status %d %+v, want 400 on amount_in_minor", st, p)
	}
	if _, err := e.client.CreatePayment(ctx, validPayment(), k3); err != nil {
		t.Fatalf("corrected request under the same key: %v", err)
	}
}

// TestMandateWhoseValidityEndedIsRefused: the sandbox applies the same rule
// as the CLI and the form, on its own clock (testStart, 2025-03-14T09:00Z):
// a valid_to at or before now is a 400 naming constraints.valid_to.
func TestMandateWhoseValidityEndedIsRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	for _, tc := range []struct {
		validTo string
		status  int
	}{
		{"2025-03-14T08:59:59.999Z", 400},
		{"2025-03-14T09:00:00.000Z", 400},
		{"2025-03-14T09:00:00.001Z", 201},
	} {
		m := validMandate(api.MandateSweeping)
		m.Constraints.ValidFrom, m.Constraints.ValidTo = "2025-01-01T00:00:00.000Z", tc.validTo
		body, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		r := e.signedPost("/v3/mandates", api.HeaderSignature, e.token(api.ScopeSweeping), uuid.NewString(), body, e.key)
		if r.status != tc.status {
			t.Fatalf("valid_to %s: status %d, want %d: %s", tc.validTo, r.status, tc.status, r.body)
		}
		if tc.status == 400 && len(r.problem.Errors["constraints.valid_to"]) == 0 {
			t.Fatalf("valid_to %s: errors %v, want constraints.valid_to", tc.validTo, r.problem.Errors)
		}
	}
}
