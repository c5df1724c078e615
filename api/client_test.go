package api

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/iotest"
	"time"

	"github.com/google/uuid"

	"github.com/paydash/paydash/internal/platform/clock"
)

const (
	testClientID = "client-1"
	testSecret   = "s3cr3t-VALUE-9f8e7d"
	testKeyID    = "kid-test"
)

var testStart = time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)

// recorded is one API request as the test server saw it.
type recorded struct {
	method, path string
	query        url.Values
	header       http.Header
	body         []byte
	sigErr       error // signature check of a POST; nil for GETs
}

// env is a fake service on 127.0.0.1 plus a client configured against it.
// The three URLs get distinct path prefixes so tests prove the prefix is
// kept and signed. The token endpoint issues tok-1, tok-2, ... and checks
// the form; every other path goes to api.
type env struct {
	t     *testing.T
	srv   *httptest.Server
	c     *Client
	fc    *clock.Fake
	fetch atomic.Int64 // token fetches

	mu       sync.Mutex
	reqs     []recorded
	scopes   []string
	tokenErr []string
}

type envOpts struct {
	expiresIn int64
	token     http.HandlerFunc // replaces the default token endpoint
	retry     RetryPolicy
	noKey     bool
	transport http.RoundTripper
}

func newEnv(t *testing.T, api http.HandlerFunc, o envOpts) *env {
	t.Helper()
	e := &env{t: t, fc: clock.NewFake(testStart)}
	if o.expiresIn == 0 {
		o.expiresIn = 3600
	}
	mux := http.NewServeMux()
	if o.token != nil {
		mux.HandleFunc("/auth/connect/token", func(w http.ResponseWriter, r *http.Request) {
			e.fetch.Add(1)
			o.token(w, r)
		})
	} else {
		mux.HandleFunc("/auth/connect/token", func(w http.ResponseWriter, r *http.Request) {
			n := e.fetch.Add(1)
			e.checkTokenRequest(r)
			w.Header().Set("Content-Type", ContentTypeJSON)
			fmt.Fprintf(w, `{"access_token":"tok-%d","token_type":"Bearer","expires_in":%d}`, n, o.expiresIn)
		})
	}
	key := fixedKey(t)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			t.Errorf("reading request body: %v", err)
		}
		rec := recorded{method: r.Method, path: r.URL.Path, query: r.URL.Query(), header: r.Header.Clone(), body: body}
		if r.Method == http.MethodPost {
			sig := r.Header.Get(HeaderSignature)
			if strings.HasPrefix(r.URL.Path, "/po/") {
				sig = r.Header.Get(HeaderPayoutSignature)
			}
			rec.sigErr = Verify(&key.PublicKey, sig, r.Method, r.URL.Path, r.Header, body, HeaderIdempotencyKey)
			if kid, err := SignatureKeyID(sig); err == nil && kid != testKeyID {
				rec.sigErr = fmt.Errorf("kid %q, want %q", kid, testKeyID)
			}
		}
		e.mu.Lock()
		e.reqs = append(e.reqs, rec)
		e.mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(body))
		api(w, r)
	})
	e.srv = httptest.NewServer(mux)
	t.Cleanup(e.srv.Close)
	hc := e.srv.Client()
	if o.transport != nil {
		hc = &http.Client{Transport: o.transport}
	}
	cfg := Config{
		AuthURL:      e.srv.URL + "/auth",
		BaseURL:      e.srv.URL + "/base/",
		PayoutsURL:   e.srv.URL + "/po",
		ClientID:     testClientID,
		ClientSecret: testSecret,
		SigningKeyID: testKeyID,
		SigningKey:   key,
		HTTPClient:   hc,
		Clock:        e.fc,
		Retry:        o.retry,
	}
	if o.noKey {
		cfg.SigningKey = nil
	}
	c, err := NewClient(cfg)
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	e.c = c
	return e
}

// checkTokenRequest asserts the client-credentials form of interface.md.
func (e *env) checkTokenRequest(r *http.Request) {
	var problems []string
	if r.Method != http.MethodPost {
		problems = append(problems, "method "+r.Method)
	}
	if ct := r.Header.Get("Content-Type"); ct != ContentTypeFormURLEncode {
		problems = append(problems, "content-type "+ct)
	}
	if err := r.ParseForm(); err != nil {
		problems = append(problems, err.Error())
	}
	want := map[string]string{"grant_type": "client_credentials", "client_id": testClientID, "client_secret": testSecret}
	for k, v := range want {
		if got := r.PostForm.Get(k); got != v {
			problems = append(problems, fmt.Sprintf("%s=%q", k, got))
		}
	}
	if r.Header.Get("Authorization") != "" {
		problems = append(problems, "token request carries Authorization")
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.scopes = append(e.scopes, r.PostForm.Get("scope"))
	e.tokenErr = append(e.tokenErr, problems...)
}

func (e *env) requests() []recorded {
	e.t.Helper()
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.tokenErr) > 0 {
		e.t.Errorf("bad token requests: %v", e.tokenErr)
	}
	return append([]recorded(nil), e.reqs...)
}

func (e *env) hits() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.reqs)
}

// waitFor spins (yielding) until cond holds. The deadline only turns a
// hang into a failure; nothing here measures speed.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		runtime.Gosched()
	}
}

// drive runs fn while advancing the fake clock by step whenever the code
// under test waits on it, so retries proceed without real sleeping.
func drive(t *testing.T, fc *clock.Fake, step time.Duration, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); fn() }()
	deadline := time.Now().Add(20 * time.Second)
	for {
		select {
		case <-done:
			return
		default:
		}
		if fc.Pending() > 0 {
			fc.Advance(step)
		} else {
			runtime.Gosched()
		}
		if time.Now().After(deadline) {
			t.Fatal("timed out driving the fake clock")
		}
	}
}

func respond(status int, contentType, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if contentType != "" {
			w.Header().Set("Content-Type", contentType)
		}
		w.WriteHeader(status)
		io.WriteString(w, body)
	}
}

func sampleMandate() *MandateRequest {
	return &MandateRequest{
		Mandate: Mandate{
			Type:              MandateSweeping,
			ProviderSelection: ProviderSelection{Type: ProviderUserSelected, Filter: &ProviderFilter{Countries: []string{"GB"}}},
			Beneficiary: Beneficiary{Type: BeneficiaryExternalAccount, AccountHolderName: "Jane Doe",
				AccountIdentifier: &AccountIdentifier{Type: AccountIdentifierSortCode, SortCode: "040004", AccountNumber: "12345678"}},
		},
		Currency:    "GBP",
		User:        &User{Name: "Remi Payer", Email: "remi@example.com"},
		Constraints: Constraints{ValidFrom: "2025-03-01T00:00:00.000Z", ValidTo: "2026-03-01T00:00:00.000Z", MaximumIndividualAmount: 5000},
	}
}

func samplePayment() *PaymentRequest {
	return &PaymentRequest{
		AmountInMinor: 1234,
		Currency:      "GBP",
		PaymentMethod: PaymentMethod{Type: PaymentMethodBankTransfer,
			ProviderSelection: &ProviderSelection{Type: ProviderUserSelected},
			Beneficiary:       Beneficiary{Type: BeneficiaryMerchantAccount, MerchantAccountID: "ma-1", Reference: "INV-7"}},
		User: &User{Name: "Remi Payer", Phone: "+447700900000"},
	}
}

func samplePayout(txID string) *PayoutRequest {
	return &PayoutRequest{TransactionID: txID, BeneficiaryName: "Jane Doe", BeneficiaryIBAN: "GB33BUKB20201555555555",
		BeneficiaryReference: "April payout", Currency: "GBP", AmountInMinor: 250000, ContextCode: ContextCodeWithdrawal}
}

// decodeAs decodes body into a fresh value of want's type and compares.
func sameJSON(t *testing.T, body []byte, want any) {
	t.Helper()
	got := reflect.New(reflect.TypeOf(want).Elem()).Interface()
	if err := json.Unmarshal(body, got); err != nil {
		t.Fatalf("request body %s: %v", body, err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("request body decodes to %+v, want %+v", got, want)
	}
}

func TestRequestShapes(t *testing.T) {
	from := time.Date(2025, 2, 1, 0, 0, 0, 0, time.FixedZone("CET", 3600))
	to := time.Date(2025, 2, 28, 23, 59, 59, 500, time.UTC)
	cases := []struct {
		name       string
		reply      http.HandlerFunc
		call       func(ctx context.Context, c *Client) (any, error)
		method     string
		path       string
		scope      string
		header     map[string]string // exact values; "<uuid4>" = any UUIDv4
		absent     []string
		signedBy   string // header holding the signature, "" for GETs
		wantBody   any
		wantQuery  url.Values
		wantResult any
	}{
		{
			name:  "mandate with caller's key",
			reply: respond(200, ContentTypeJSON, `{"id":"m-1","user":{"id":"u-1"},"resource_token":"rt-1"}`),
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.CreateMandate(ctx, sampleMandate(), "5f0c7c2b-aaaa-4bbb-8ccc-000000000001")
			},
			method: "POST", path: "/base/v3/mandates", scope: ScopeSweeping,
			header:   map[string]string{"Content-Type": "application/json", HeaderIdempotencyKey: "5f0c7c2b-aaaa-4bbb-8ccc-000000000001"},
			absent:   []string{HeaderPayoutSignature},
			signedBy: HeaderSignature, wantBody: sampleMandate(),
			wantResult: &MandateResponse{ID: "m-1", User: IDRef{ID: "u-1"}, ResourceToken: "rt-1"},
		},
		{
			name:  "commercial mandate with generated key",
			reply: respond(200, ContentTypeJSON, `{"id":"m-2","user":{"id":"u-2"},"resource_token":"rt-2"}`),
			call: func(ctx context.Context, c *Client) (any, error) {
				m := sampleMandate()
				m.Mandate.Type = MandateCommercial
				return c.CreateMandate(ctx, m, "")
			},
			method: "POST", path: "/base/v3/mandates", scope: ScopeCommercial,
			header:   map[string]string{"Content-Type": "application/json", HeaderIdempotencyKey: "<uuid4>"},
			absent:   []string{HeaderPayoutSignature},
			signedBy: HeaderSignature,
			wantBody: func() any {
				m := sampleMandate()
				m.Mandate.Type = MandateCommercial
				return m
			}(),
			wantResult: &MandateResponse{ID: "m-2", User: IDRef{ID: "u-2"}, ResourceToken: "rt-2"},
		},
		{
			name:  "payment",
			reply: respond(201, ContentTypeJSONUTF8, `{"id":"p-1","user":{"id":"u-9"},"resource_token":"rt","status":"authorization_required"}`),
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.CreatePayment(ctx, samplePayment(), "")
			},
			method: "POST", path: "/base/v3/payments", scope: ScopePayments,
			header: map[string]string{"Content-Type": ContentTypeJSONUTF8, "Accept": ContentTypeJSONUTF8,
				HeaderIdempotencyKey: "<uuid4>"},
			absent:   []string{HeaderPayoutSignature},
			signedBy: HeaderSignature, wantBody: samplePayment(),
			wantResult: &PaymentResponse{ID: "p-1", User: IDRef{ID: "u-9"}, ResourceToken: "rt", Status: PaymentStatusAuthorizationRequired},
		},
		{
			name: "balances",
			reply: respond(200, ContentTypeJSON, `{"results":[
				{"currency":"GBP","iban":"GB33BUKB20201555555555","status":"enabled","current_balance_in_minor":120000,"available_balance_in_minor":100000},
				{"currency":"EUR","iban":"DE89370400440532013000","status":"disabled","current_balance_in_minor":0,"available_balance_in_minor":0}]}`),
			call:   func(ctx context.Context, c *Client) (any, error) { return c.Balances(ctx) },
			method: "GET", path: "/po/v1/balances", scope: ScopePayouts,
			header: map[string]string{"Accept": ContentTypeJSON},
			absent: []string{"Content-Type", HeaderIdempotencyKey, HeaderSignature, HeaderPayoutSignature},
			wantResult: []Balance{
				{Currency: "GBP", IBAN: "GB33BUKB20201555555555", Status: AccountEnabled, CurrentBalanceInMinor: 120000, AvailableBalanceInMinor: 100000},
				{Currency: "EUR", IBAN: "DE89370400440532013000", Status: AccountDisabled},
			},
		},
		{
			name:  "payout accepted",
			reply: respond(202, "", ""),
			call: func(ctx context.Context, c *Client) (any, error) {
				return nil, c.CreatePayout(ctx, samplePayout("0b9f3b4e-1c1d-4d5e-9f00-123456789abc"))
			},
			method: "POST", path: "/po/v1/payouts", scope: ScopePayouts,
			header:   map[string]string{"Content-Type": ContentTypeJSON},
			absent:   []string{HeaderIdempotencyKey, HeaderSignature},
			signedBy: HeaderPayoutSignature, wantBody: samplePayout("0b9f3b4e-1c1d-4d5e-9f00-123456789abc"),
		},
		{
			name:  "payout 200 with a body is accepted too",
			reply: respond(200, ContentTypeJSON, `{"whatever":true}`),
			call: func(ctx context.Context, c *Client) (any, error) {
				return nil, c.CreatePayout(ctx, samplePayout(""))
			},
			method: "POST", path: "/po/v1/payouts", scope: ScopePayouts,
			header:   map[string]string{"Content-Type": ContentTypeJSON},
			absent:   []string{HeaderIdempotencyKey, HeaderSignature},
			signedBy: HeaderPayoutSignature, wantBody: samplePayout(""),
		},
		{
			name: "transactions with every filter",
			reply: respond(200, ContentTypeJSON, `{"results":[{"transaction_id":"t-1","type":"payout",
				"authorised_at":"2025-02-03T04:05:06.1234567Z","beneficiary_name":"Jane","beneficiary_iban":"GB33BUKB20201555555555",
				"beneficiary_reference":"r","amount_in_minor":995,"currency":"EUR","context_code":"withdrawal","status":"authorised"}]}`),
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.Transactions(ctx, TransactionQuery{From: from, To: to, Type: "Payout", Currency: "EUR"})
			},
			method: "GET", path: "/po/v1/transactions", scope: ScopePayouts,
			header: map[string]string{"Accept": ContentTypeJSON},
			absent: []string{"Content-Type", HeaderIdempotencyKey, HeaderSignature, HeaderPayoutSignature},
			wantQuery: url.Values{"from": {"2025-01-31T23:00:00.0000000Z"}, "to": {"2025-02-28T23:59:59.0000005Z"},
				"type": {"Payout"}, "currency": {"EUR"}},
			wantResult: []Transaction{{TransactionID: "t-1", Type: TransactionPayout,
				AuthorisedAt:    ReportTime{time.Date(2025, 2, 3, 4, 5, 6, 123456700, time.UTC)},
				BeneficiaryName: "Jane", BeneficiaryIBAN: "GB33BUKB20201555555555", BeneficiaryReference: "r",
				AmountInMinor: 995, Currency: "EUR", ContextCode: ContextCodeWithdrawal, Status: StateAuthorised}},
		},
		{
			name:  "transactions without filters",
			reply: respond(200, ContentTypeJSON, `{"results":[]}`),
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.Transactions(ctx, TransactionQuery{})
			},
			method: "GET", path: "/po/v1/transactions", scope: ScopePayouts,
			header:     map[string]string{"Accept": ContentTypeJSON},
			absent:     []string{"Content-Type", HeaderIdempotencyKey, HeaderSignature, HeaderPayoutSignature},
			wantQuery:  url.Values{},
			wantResult: []Transaction(nil),
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, tc.reply, envOpts{})
			got, err := tc.call(context.Background(), e.c)
			if err != nil {
				t.Fatalf("call: %v", err)
			}
			if tc.wantResult != nil && !reflect.DeepEqual(got, tc.wantResult) {
				t.Errorf("result = %+v, want %+v", got, tc.wantResult)
			}
			reqs := e.requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests, want 1", len(reqs))
			}
			r := reqs[0]
			if r.method != tc.method || r.path != tc.path {
				t.Errorf("request %s %s, want %s %s", r.method, r.path, tc.method, tc.path)
			}
			if got := r.header.Get("User-Agent"); got != "paydash" {
				t.Errorf("User-Agent = %q, want paydash", got)
			}
			if got := r.header.Get("Authorization"); got != "Bearer tok-1" {
				t.Errorf("Authorization = %q, want Bearer tok-1", got)
			}
			if e.scopes[0] != tc.scope {
				t.Errorf("token scope = %q, want %q", e.scopes[0], tc.scope)
			}
			for name, want := range tc.header {
				got := r.header.Get(name)
				if want == "<uuid4>" {
					if u, err := uuid.Parse(got); err != nil || u.Version() != 4 {
						t.Errorf("%s = %q, want a UUIDv4", name, got)
					}
				} else if got != want {
					t.Errorf("%s = %q, want %q", name, got, want)
				}
			}
			for _, name := range tc.absent {
				if v, ok := r.header[http.CanonicalHeaderKey(name)]; ok {
					t.Errorf("unexpected header %s: %q", name, v)
				}
			}
			if tc.signedBy != "" {
				if r.header.Get(tc.signedBy) == "" {
					t.Errorf("no %s header", tc.signedBy)
				}
				if r.sigErr != nil {
					t.Errorf("signature does not verify: %v", r.sigErr)
				}
			}
			if tc.wantBody != nil {
				sameJSON(t, r.body, tc.wantBody)
			} else if len(r.body) != 0 {
				t.Errorf("GET carries a body: %q", r.body)
			}
			if tc.wantQuery != nil && !reflect.DeepEqual(r.query, tc.wantQuery) {
				t.Errorf("query = %v, want %v", r.query, tc.wantQuery)
			}
		})
	}
}

func TestGeneratedIdempotencyKeysDiffer(t *testing.T) {
	e := newEnv(t, respond(201, ContentTypeJSON, `{"id":"p"}`), envOpts{})
	for range 3 {
		if _, err := e.c.CreatePayment(context.Background(), samplePayment(), ""); err != nil {
			t.Fatal(err)
		}
	}
	seen := map[string]bool{}
	for _, r := range e.requests() {
		seen[r.header.Get(HeaderIdempotencyKey)] = true
	}
	if len(seen) != 3 {
		t.Errorf("3 payments used %d distinct Idempotency-Keys, want 3", len(seen))
	}
}

func TestNewClientRejectsBadConfig(t *testing.T) {
	p256, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	good := func() Config {
		return Config{AuthURL: "https://auth.example", BaseURL: "https://api.example/", PayoutsURL: "http://127.0.0.1:9/po",
			ClientID: "id", ClientSecret: testSecret, SigningKeyID: "k", SigningKey: fixedKey(t)}
	}
	cases := []struct {
		name   string
		mutate func(*Config)
		want   []string // substrings of the error; nil = valid
	}{
		{"valid", func(*Config) {}, nil},
		{"valid without signing key", func(c *Config) { c.SigningKey = nil }, nil},
		{"empty auth url", func(c *Config) { c.AuthURL = "" }, []string{"auth_url", "is empty"}},
		{"relative base url", func(c *Config) { c.BaseURL = "api.example/v3" }, []string{"base_url", "http:// or https://"}},
		{"host:port without scheme", func(c *Config) { c.PayoutsURL = "localhost:8080" }, []string{"payouts_url", "http:// or https://"}},
		{"ftp scheme", func(c *Config) { c.AuthURL = "ftp://auth.example" }, []string{"auth_url", "http:// or https://"}},
		{"no host", func(c *Config) { c.BaseURL = "https://" }, []string{"base_url", "no host"}},
		{"credentials in url", func(c *Config) { c.AuthURL = "https://me:" + testSecret + "@auth.example" }, []string{"auth_url", "credentials"}},
		{"query in url", func(c *Config) { c.PayoutsURL = "https://po.example?x=1" }, []string{"payouts_url", "query"}},
		{"no client id", func(c *Config) { c.ClientID = "  " }, []string{"client_id", "empty"}},
		{"wrong curve", func(c *Config) { c.SigningKey = p256 }, []string{"signing key", "P-256", "P-521"}},
		{"several problems at once", func(c *Config) { c.AuthURL = ""; c.ClientID = "" }, []string{"auth_url", "client_id"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := good()
			tc.mutate(&cfg)
			c, err := NewClient(cfg)
			if tc.want == nil {
				if err != nil || c == nil {
					t.Fatalf("NewClient: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("NewClient accepted a bad config")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
			if strings.Contains(err.Error(), testSecret) {
				t.Errorf("error leaks the secret: %q", err)
			}
		})
	}
}

func TestSigningCallsNeedAKey(t *testing.T) {
	e := newEnv(t, respond(202, "", ""), envOpts{noKey: true})
	calls := map[string]func(context.Context) error{
		"mandate": func(ctx context.Context) error { _, err := e.c.CreateMandate(ctx, sampleMandate(), ""); return err },
		"payment": func(ctx context.Context) error { _, err := e.c.CreatePayment(ctx, samplePayment(), ""); return err },
		"payout":  func(ctx context.Context) error { return e.c.CreatePayout(ctx, samplePayout("")) },
	}
	for name, call := range calls {
		if err := call(context.Background()); err == nil || !strings.Contains(err.Error(), "no signing key configured") {
			t.Errorf("%s without a key: err = %v, want \"no signing key configured\"", name, err)
		}
	}
	if n := e.hits(); n != 0 {
		t.Errorf("%d unsigned requests reached the service", n)
	}
	// Reading needs no key.
	e2 := newEnv(t, respond(200, ContentTypeJSON, `{"results":[]}`), envOpts{noKey: true})
	if _, err := e2.c.Balances(context.Background()); err != nil {
		t.Errorf("Balances without a signing key: %v", err)
	}
}

func TestNilRequestsAndMissingMandateType(t *testing.T) {
	e := newEnv(t, respond(200, ContentTypeJSON, `{}`), envOpts{})
	ctx := context.Background()
	m := sampleMandate()
	m.Mandate.Type = ""
	errs := map[string]error{
		"nil mandate":     func() error { _, err := e.c.CreateMandate(ctx, nil, ""); return err }(),
		"nil payment":     func() error { _, err := e.c.CreatePayment(ctx, nil, ""); return err }(),
		"nil payout":      e.c.CreatePayout(ctx, nil),
		"no mandate.type": func() error { _, err := e.c.CreateMandate(ctx, m, ""); return err }(),
	}
	for name, err := range errs {
		if err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if !strings.Contains(fmt.Sprint(errs["no mandate.type"]), "mandate.type") {
		t.Errorf("missing type error does not name mandate.type: %v", errs["no mandate.type"])
	}
	if n := e.hits(); n != 0 {
		t.Errorf("%d requests sent for invalid calls", n)
	}
}

func TestConfigAndClientNeverPrintSecrets(t *testing.T) {
	key := fixedKey(t)
	cfg := Config{AuthURL: "https://auth.example", BaseURL: "https://api.example", PayoutsURL: "https://po.example",
		ClientID: "id", ClientSecret: testSecret, SigningKeyID: "k", SigningKey: key}
	c, err := NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	d := fmt.Sprintf("%x", mustBytes(t, key))
	for _, format := range []string{"%v", "%+v", "%#v", "%s"} {
		for name, v := range map[string]any{"Config": cfg, "*Config": &cfg, "*Client": c} {
			out := fmt.Sprintf(format, v)
			if strings.Contains(out, testSecret) || strings.Contains(out, d) {
				t.Errorf("%s of %s leaks a secret: %s", format, name, out)
			}
		}
	}
}

// writeReport streams a report of n generated records without building it
// in memory, as a real service would. It appends into one reused buffer so
// the benchmark's allocation count is the client's, not the server's.
func writeReport(w io.Writer, n int) {
	buf := make([]byte, 0, 40<<10)
	buf = append(buf, `{"count":`...)
	buf = strconv.AppendInt(buf, int64(n), 10)
	buf = append(buf, `,"results":[`...)
	for i := range n {
		if i > 0 {
			buf = append(buf, ',')
		}
		id := strconv.AppendInt(make([]byte, 0, 12), int64(i), 10)
		buf = append(buf, `{"transaction_id":"00000000-0000-4000-8000-`...)
		buf = append(buf, "000000000000"[len(id):]...)
		buf = append(buf, id...)
		buf = append(buf, `","type":"payout","authorised_at":"2025-01-01T00:00:00.1234567Z","settled_at":"2025-01-01T00:01:00.0000001Z","beneficiary_name":"Beneficiary `...)
		buf = append(buf, id...)
		buf = append(buf, `","beneficiary_iban":"GB33BUKB20201555555555","beneficiary_reference":"ref","amount_in_minor":`...)
		buf = strconv.AppendInt(buf, int64(i%1000+1), 10)
		buf = append(buf, `,"currency":"GBP","context_code":"withdrawal","status":"settled"}`...)
		if len(buf) > 32<<10 {
			w.Write(buf)
			buf = buf[:0]
		}
	}
	buf = append(buf, `],"next":null}`...)
	w.Write(buf)
}

func TestStreamTransactionsLargeReport(t *testing.T) {
	const n = 100_000
	e := newEnv(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", ContentTypeJSON)
		writeReport(w, n)
	}, envOpts{})
	var count int
	var sum int64
	var last Transaction
	var peak uint64
	var ms runtime.MemStats
	err := e.c.StreamTransactions(context.Background(), TransactionQuery{Currency: "GBP"}, func(tx Transaction) error {
		count++
		sum += tx.AmountInMinor
		last = tx
		if count%(n/8) == 0 {
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapAlloc)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// The report is ~60 MB of JSON; holding it (or its records) at once
	// would show here. Streaming keeps the heap at a few MB.
	t.Logf("peak heap %d KB", peak>>10)
	const limit = 24 << 20
	if peak > limit {
		t.Errorf("heap reached %d MB while streaming, want under %d MB", peak>>20, limit>>20)
	}
	var wantSum int64
	for i := range n {
		wantSum += int64(i%1000 + 1)
	}
	if count != n || sum != wantSum {
		t.Errorf("streamed %d records summing %d, want %d summing %d", count, sum, n, wantSum)
	}
	wantLast := fmt.Sprintf("00000000-0000-4000-8000-%012d", n-1)
	if last.TransactionID != wantLast || last.SettledAt.Nanosecond() != 100 || last.Status != StateSettled {
		t.Errorf("last record %+v, want id %s settled at .0000001", last, wantLast)
	}
}

func TestStreamTransactionsShapes(t *testing.T) {
	rec := `{"transaction_id":"t","type":"payout","amount_in_minor":5,"currency":"GBP","status":"settled"}`
	stop := errors.New("enough")
	cases := []struct {
		name      string
		body      string
		stopAfter int // fn returns stop after this many records; 0 = never
		wantN     int
		wantErr   string // substring; "" = no error
		wantStop  bool
	}{
		{"empty", `{"results":[]}`, 0, 0, "", false},
		{"null results", `{"results":null}`, 0, 0, "", false},
		{"other members skipped", `{"page":{"a":[1,2]},"results":[` + rec + `,` + rec + `],"next":"x"}`, 0, 2, "", false},
		{"no results member", `{"items":[]}`, 0, 0, `no "results"`, false},
		{"results not an array", `{"results":{}}`, 0, 0, "want an array", false},
		{"not an object", `[` + rec + `]`, 0, 0, "reading the report", false},
		{"truncated mid-array", `{"results":[` + rec + `,` + rec, 0, 2, "reading the report", false},
		{"bad record", `{"results":[` + rec + `,{"amount_in_minor":"x"}]}`, 0, 1, "reading the report", false},
		{"bad timestamp", `{"results":[{"settled_at":"2025-01-01T00:00:00Z"}]}`, 0, 0, "seven fractional digits", false},
		{"caller stops", `{"results":[` + rec + `,` + rec + `,` + rec + `]}`, 2, 2, "enough", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, respond(200, ContentTypeJSON, tc.body), envOpts{})
			n := 0
			err := e.c.StreamTransactions(context.Background(), TransactionQuery{}, func(Transaction) error {
				n++
				if tc.stopAfter > 0 && n == tc.stopAfter {
					return stop
				}
				return nil
			})
			if n != tc.wantN {
				t.Errorf("fn saw %d records, want %d", n, tc.wantN)
			}
			switch {
			case tc.wantErr == "" && err != nil:
				t.Errorf("unexpected error: %v", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Errorf("error = %v, want one containing %q", err, tc.wantErr)
			}
			if tc.wantStop && err != stop { //nolint:errorlint // the very value, not wrapped, is the point
				t.Errorf("fn's error came back as %v, want it unchanged", err)
			}
		})
	}
}

// BenchmarkStreamTransactions streams b.N records in one response, so
// -benchmem's B/op and allocs/op are per record (including the HTTP and
// server overhead, amortised).
func BenchmarkStreamTransactions(b *testing.B) {
	key := fixedKey(b)
	n := b.N
	mux := http.NewServeMux()
	mux.HandleFunc("/auth/connect/token", respond(200, ContentTypeJSON, `{"access_token":"t","token_type":"Bearer","expires_in":3600}`))
	mux.HandleFunc("/po/v1/transactions", func(w http.ResponseWriter, r *http.Request) { writeReport(w, n) })
	srv := httptest.NewServer(mux)
	defer srv.Close()
	c, err := NewClient(Config{AuthURL: srv.URL + "/auth", BaseURL: srv.URL, PayoutsURL: srv.URL + "/po",
		ClientID: "id", ClientSecret: "s", SigningKey: key, HTTPClient: srv.Client()})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := c.Token(context.Background(), ScopePayouts); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	count := 0
	if err := c.StreamTransactions(context.Background(), TransactionQuery{}, func(Transaction) error { count++; return nil }); err != nil {
		b.Fatal(err)
	}
	if count != n {
		b.Fatalf("streamed %d, want %d", count, n)
	}
}

// decodeResultsJSON is the report decoder as first written, on
// json.Decoder alone: the reference the fast decoder must agree with.
func decodeResultsJSON(r io.Reader, fn func(Transaction) error) error {
	dec := json.NewDecoder(r)
	delim := func(want json.Delim) error {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		if d, ok := tok.(json.Delim); !ok || d != want {
			return fmt.Errorf("unexpected %v, want %q", tok, want)
		}
		return nil
	}
	if err := delim('{'); err != nil {
		return err
	}
	found := false
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		if name, _ := tok.(string); name != "results" {
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return err
			}
			continue
		}
		found = true
		if tok, err = dec.Token(); err != nil {
			return err
		}
		if tok == nil {
			continue
		}
		if d, ok := tok.(json.Delim); !ok || d != '[' {
			return fmt.Errorf("results is %v", tok)
		}
		for dec.More() {
			var t Transaction
			if err := dec.Decode(&t); err != nil {
				return err
			}
			if err := fn(t); err != nil {
				return err
			}
		}
		if err := delim(']'); err != nil {
			return err
		}
	}
	if err := delim('}'); err != nil {
		return err
	}
	if !found {
		return errors.New("no results")
	}
	return nil
}

// collect runs a decoder over body read through wrap and returns the
// records it handed over.
func collect(decode func(io.Reader, func(Transaction) error) error, body []byte, wrap func(io.Reader) io.Reader) ([]Transaction, error) {
	var got []Transaction
	err := decode(wrap(bytes.NewReader(body)), func(t Transaction) error {
		got = append(got, t)
		return nil
	})
	return got, err
}

// readers are the ways the body may arrive: whole, a byte at a time
// (every record split across reads), and in halves.
var readers = []struct {
	name string
	wrap func(io.Reader) io.Reader
}{
	{"whole", func(r io.Reader) io.Reader { return r }},
	{"one byte", iotest.OneByteReader},
	{"halves", iotest.HalfReader},
}

// checkSameAsJSON fails unless the fast decoder, through every reader,
// agrees with encoding/json on body: the same records (compared by
// value, times included), and an error exactly when encoding/json
// errs.
func checkSameAsJSON(t *testing.T, body []byte) {
	t.Helper()
	want, wantErr := collect(decodeResultsJSON, body, readers[0].wrap)
	for _, r := range readers {
		got, err := collect(decodeResults, body, r.wrap)
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("%s: error %v, encoding/json: %v\nbody %q", r.name, err, wantErr, body)
		}
		if err == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: records\n%+v\nencoding/json:\n%+v\nbody %q", r.name, got, want, body)
		}
	}
}

// reportShapes are bodies covering the fast path and everything it hands
// to encoding/json.
var reportShapes = func() []string {
	rec := `{"transaction_id":"2b1f0c4e-9d7a-4e55-8f43-0c6d2a9e1b77","type":"payout","authorised_at":"2025-03-14T09:00:00.1234567Z",` +
		`"submitted_at":"2025-03-14T09:00:05.0000001Z","settled_at":"2025-03-14T09:01:00.9999999Z","beneficiary_name":"Ada Lovelace",` +
		`"beneficiary_iban":"GB33BUKB20201555555555","beneficiary_reference":"INV-1","amount_in_minor":123456,"currency":"GBP",` +
		`"context_code":"withdrawal","status":"settled"}`
	records := []string{
		rec,
		`{}`, `null`, ` { "type" : "funding" , "amount_in_minor" : -0 } `,
		`{"beneficiary_name":"Zoë Ó Briain 名前"}`,                        // UTF-8 copied as is
		"{\"beneficiary_name\":\"bad \xff utf8\"}",                      // replaced by U+FFFD
		`{"beneficiary_name":"Say \"hi\" \u00e9\n"}`,                    // escapes
		`{"type":"\u0041"}`, `{"status":"a\"b"}`, "{\"type\":\"a\tb\"}", // short strings (checked byte by byte)
		`{"Currency":"EUR","STATUS":"failed"}`,               // names matched in any case
		`{"unknown":{"a":[1,"]"]},"currency":"EUR"}`,         // unknown members skipped
		`{"currency":"GBP","currency":"EUR"}`,                // the last one wins
		`{"settled_at":null,"transaction_id":null}`,          // nulls leave zero values
		`{"amount_in_minor":999999999999999999}`,             // 18 digits
		`{"amount_in_minor":9223372036854775807}`,            // the largest int64
		`{"amount_in_minor":9223372036854775808}`,            // overflows
		`{"amount_in_minor":1.5}`, `{"amount_in_minor":1e3}`, // not integers
		`{"amount_in_minor":012}`, `{"amount_in_minor":-}`, // not numbers
		`{"amount_in_minor":"5"}`, `{"type":5}`, // wrong types
		`{"settled_at":"2024-02-29T23:59:59.0000000Z"}`, // a leap day
		`{"settled_at":"2025-02-29T00:00:00.0000000Z"}`, // not one
		`{"settled_at":"2025-04-31T00:00:00.0000000Z"}`, // no such day
		`{"settled_at":"2025-13-01T00:00:00.0000000Z"}`, // no such month
		`{"settled_at":"2025-01-01T24:00:00.0000000Z"}`, // no such hour
		`{"settled_at":"2025-01-01T00:60:00.0000000Z"}`, // no such minute
		`{"settled_at":"2025-01-01T00:00:60.0000000Z"}`, // no such second
		`{"settled_at":"0000-01-01T00:00:00.0000000Z"}`, // year zero
		`{"settled_at":"2025-01-01T00:00:00Z"}`,         // too few digits
		`{"settled_at":"2025-01-01 00:00:00.0000000Z"}`, // not the layout
		`{"settled_at":"2025-01-01T00:00:00.000000aZ"}`, // not digits
		`{"type":"payout"`, `{"type":"payout",}`, `{"type" "x"}`, // broken
		`{"beneficiary_name":"` + strings.Repeat("x", 100<<10) + `"}`, // past the fast path's size
		`5`, `"x"`, `[]`,
	}
	bodies := []string{
		`{"results":[]}`, `{"results":null}`, `{"results":{}}`, `{"results":5}`, `{}`, `[]`, ``, `{`,
		`{"page":{"a":[1,2]},"results":[` + rec + `,` + rec + `],"next":"x"}`,
		`{"results":[` + rec + `],"results":[` + rec + `]}`,
		`{"res\u0075lts":[` + rec + `]}`,
		`{"results":[` + rec + `,]}`, `{"results":[` + rec + ` ` + rec + `]}`, `{"results":[` + rec + `]`,
		`{"results":[]} trailing`, `{"x":[1,},"results":[]}`,
		" \t\r\n{ \"results\" : [ " + rec + " , " + rec + " ] } ",
	}
	for _, r := range records {
		bodies = append(bodies, `{"results":[`+r+`]}`)
	}
	return bodies
}()

func TestDecodeResultsAgreesWithEncodingJSON(t *testing.T) {
	for i, body := range reportShapes {
		t.Run(strconv.Itoa(i), func(t *testing.T) { checkSameAsJSON(t, []byte(body)) })
	}
	t.Run("generated report", func(t *testing.T) {
		var buf bytes.Buffer
		writeReport(&buf, 3000)
		checkSameAsJSON(t, buf.Bytes())
	})
}

// FuzzDecodeResults looks for a body on which the fast decoder and
// encoding/json disagree.
func FuzzDecodeResults(f *testing.F) {
	for _, body := range reportShapes {
		if len(body) < 4<<10 {
			f.Add([]byte(body))
		}
	}
	f.Fuzz(checkSameAsJSON)
}

// mustBytes is the private scalar, what a leak would show.
func mustBytes(t *testing.T, key *ecdsa.PrivateKey) []byte {
	t.Helper()
	b, err := key.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	return b
}
