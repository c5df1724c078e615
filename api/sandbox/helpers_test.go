package sandbox

import (
	"github.com/paydash/paydash/api/testkey"

	"bytes"
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/platform/clock"
)

// testStart is the fake clock's start.
var testStart = time.Date(2025, 3, 14, 9, 0, 0, 0, time.UTC)

const testKeyID = "test-key-1"

// testKey loads the repository's fixed P-521 test key.
func testKey(t testing.TB) *ecdsa.PrivateKey { return testkey.Load(t) }

// env is a sandbox on loopback with a fake clock, a client, and a webhook
// receiver.
type env struct {
	t      testing.TB
	srv    *Server
	clock  *clock.Fake
	key    *ecdsa.PrivateKey
	client *api.Client
	hook   *receiver
}

// newEnv starts a sandbox (fake clock, StepDelay 0, no seeded history,
// webhooks to a fresh receiver); mod adjusts the options.
func newEnv(t testing.TB, mod func(*Options)) *env {
	t.Helper()
	e := &env{t: t, clock: clock.NewFake(testStart), key: testKey(t)}
	e.hook = newReceiver(t)
	opts := Options{MerchantKey: &e.key.PublicKey, MerchantKeyID: testKeyID, Clock: e.clock,
		WebhookURI: e.hook.srv.URL + "/hooks/payouts", WebhookRetry: []time.Duration{time.Second, 2 * time.Second}}
	if mod != nil {
		mod(&opts)
	}
	srv, err := Listen(context.Background(), "127.0.0.1:0", opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := srv.Close(); err != nil {
			t.Error(err)
		}
	})
	e.srv = srv
	e.client = e.newClient()
	return e
}

func (e *env) newClient() *api.Client {
	info := e.srv.Info()
	c, err := api.NewClient(api.Config{AuthURL: info.AuthURL, BaseURL: info.BaseURL, PayoutsURL: info.PayoutsURL,
		ClientID: info.ClientID, ClientSecret: info.ClientSecret, SigningKeyID: testKeyID, SigningKey: e.key,
		Retry: api.RetryPolicy{MaxAttempts: 1}})
	if err != nil {
		e.t.Fatal(err)
	}
	return c
}

// token fetches an access token over raw HTTP.
func (e *env) token(scopes ...string) string {
	e.t.Helper()
	id, secret := e.srv.Credentials()
	resp, err := http.PostForm(e.srv.URL+"/connect/token", url.Values{"grant_type": {"client_credentials"},
		"client_id": {id}, "client_secret": {secret}, "scope": {strings.Join(scopes, " ")}})
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	var tr api.TokenResponse
	if err := json.NewDecoder(resp.Body).Decode(&tr); err != nil || resp.StatusCode != 200 {
		e.t.Fatalf("token: status %d, %v", resp.StatusCode, err)
	}
	return tr.AccessToken
}

// rawResponse is a response read whole.
type rawResponse struct {
	status  int
	header  http.Header
	body    []byte
	problem *api.ProblemDetails
}

// do sends a raw request and decodes a problem body if there is one.
func (e *env) do(method, path string, header http.Header, body []byte) rawResponse {
	e.t.Helper()
	req, err := http.NewRequest(method, e.srv.URL+path, bytes.NewReader(body))
	if err != nil {
		e.t.Fatal(err)
	}
	if header != nil {
		req.Header = header
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	r := rawResponse{status: resp.StatusCode, header: resp.Header, body: b}
	if resp.Header.Get("Content-Type") == api.ContentTypeProblemJSON {
		r.problem = &api.ProblemDetails{}
		if err := json.Unmarshal(b, r.problem); err != nil {
			e.t.Fatalf("problem body %s: %v", b, err)
		}
		if r.problem.TraceID == "" || r.problem.TraceID != resp.Header.Get(api.HeaderTraceID) {
			e.t.Errorf("problem trace_id %q, X-Trace-Id %q: want equal and set", r.problem.TraceID, resp.Header.Get(api.HeaderTraceID))
		}
	}
	return r
}

// signedPost sends a POST signed the way the client signs it, into
// sigHeader; with an idempotency key it is a signed header.
func (e *env) signedPost(path, sigHeader, token, idemKey string, body []byte, key *ecdsa.PrivateKey) rawResponse {
	e.t.Helper()
	h := http.Header{}
	h.Set("Content-Type", api.ContentTypeJSON)
	if token != "" {
		h.Set("Authorization", "Bearer "+token)
	}
	var signed []api.SignedHeader
	if idemKey != "" {
		h.Set(api.HeaderIdempotencyKey, idemKey)
		signed = append(signed, api.SignedHeader{Name: api.HeaderIdempotencyKey, Value: idemKey})
	}
	if key != nil {
		sig, err := api.Sign(key, testKeyID, http.MethodPost, path, signed, body)
		if err != nil {
			e.t.Fatal(err)
		}
		h.Set(sigHeader, sig)
	}
	return e.do(http.MethodPost, path, h, body)
}

// control calls a /sandbox/ endpoint with a JSON body.
func (e *env) control(method, path string, v any) rawResponse {
	e.t.Helper()
	var body []byte
	if v != nil {
		var err error
		if body, err = json.Marshal(v); err != nil {
			e.t.Fatal(err)
		}
	}
	return e.do(method, path, http.Header{"Content-Type": {api.ContentTypeJSON}}, body)
}

// payout is a valid payout request of amount minor units.
func payout(currency string, amount int64) *api.PayoutRequest {
	iban := "GB33BUKB20201555555555"
	if currency == "EUR" {
		iban = "DE89370400440532013000"
	}
	return &api.PayoutRequest{TransactionID: uuid.NewString(), BeneficiaryName: "Ada Lovelace",
		BeneficiaryIBAN: iban, BeneficiaryReference: "INV-1", Currency: currency, AmountInMinor: amount,
		ContextCode: api.ContextCodeWithdrawal}
}

// apiStatus returns the HTTP status of a client error (0 for nil).
func apiStatus(t testing.TB, err error) (int, *api.ProblemDetails) {
	t.Helper()
	if err == nil {
		return 0, nil
	}
	var ae *api.Error
	if !errors.As(err, &ae) {
		t.Fatalf("error %v is not an *api.Error", err)
	}
	return ae.StatusCode, ae.Problem
}

func (e *env) balance(currency string) api.Balance {
	e.t.Helper()
	for _, b := range e.srv.Balances() {
		if b.Currency == currency {
			return b
		}
	}
	e.t.Fatalf("no %s balance", currency)
	return api.Balance{}
}

// waitFor polls cond until it holds; it fails the test after 20 s, which
// only a hung sandbox reaches.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// finalDeliveries counts the events whose delivery is over.
func finalDeliveries(s *Sandbox, payoutID string) []Delivery {
	var out []Delivery
	for _, d := range s.Deliveries() {
		if d.Final && (payoutID == "" || d.PayoutID == payoutID) {
			out = append(out, d)
		}
	}
	return out
}

// received is one webhook request the receiver got.
type received struct {
	path   string
	header http.Header
	body   []byte
	status int
}

// receiver is a webhook endpoint on loopback that records every request
// and answers with fail's status (200 when fail is nil or returns 0).
type receiver struct {
	srv  *httptest.Server
	mu   sync.Mutex
	got  []received
	fail func(n int, body []byte) int // n counts this event_id's attempts, from 1
	seen map[string]int
}

func newReceiver(t testing.TB) *receiver {
	r := &receiver{seen: map[string]int{}}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		var probe struct {
			EventID string `json:"event_id"`
		}
		_ = json.Unmarshal(body, &probe)
		r.mu.Lock()
		r.seen[probe.EventID]++
		status := 200
		if r.fail != nil {
			if s := r.fail(r.seen[probe.EventID], body); s != 0 {
				status = s
			}
		}
		r.got = append(r.got, received{path: req.URL.Path, header: req.Header.Clone(), body: body, status: status})
		r.mu.Unlock()
		w.WriteHeader(status)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) setFail(f func(n int, body []byte) int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.fail = f
}

func (r *receiver) requests() []received {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.got)
}

// payoutEvents returns the payout-interface events delivered (2xx) for
// one transaction, in arrival order.
func (r *receiver) payoutEvents(t testing.TB, id string) []api.PayoutWebhook {
	t.Helper()
	var out []api.PayoutWebhook
	for _, g := range r.requests() {
		if g.status != 200 {
			continue
		}
		var wh api.PayoutWebhook
		var body api.PayoutEventBody
		if json.Unmarshal(g.body, &wh) != nil || json.Unmarshal(wh.EventBody, &body) != nil || body.TransactionID != id {
			continue
		}
		out = append(out, wh)
	}
	return out
}

func eventBody(t testing.TB, wh api.PayoutWebhook) api.PayoutEventBody {
	t.Helper()
	var b api.PayoutEventBody
	if err := json.Unmarshal(wh.EventBody, &b); err != nil {
		t.Fatal(err)
	}
	return b
}

// checkLedger asserts the ledger invariant from the inside: available <=
// current, current = fundings - settled payouts, available = current -
// payouts in flight.
func checkLedger(t testing.TB, l *ledger) {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	cur := make([]int64, len(l.accounts))
	inFlight := make([]int64, len(l.accounts))
	var all []txn
	l.hist.each(minTime, maxTime, func(t *txn) bool { all = append(all, *t); return true })
	all = append(all, l.txns...)
	for i := range all {
		tx := &all[i]
		switch {
		case tx.kind == kindFundingTxn:
			cur[tx.acct] += tx.amount
		case tx.status == stSettled:
			cur[tx.acct] -= tx.amount
		case tx.status == stAuthorised || tx.status == stSubmitted:
			inFlight[tx.acct] += tx.amount
		}
	}
	for i, a := range l.accounts {
		if a.available > a.current || a.available < 0 {
			t.Fatalf("%s: available %d, current %d: want 0 <= available <= current", a.Currency, a.available, a.current)
		}
		if a.current != cur[i] || a.available != cur[i]-inFlight[i] {
			t.Fatalf("%s: current %d available %d; records say current %d available %d", a.Currency, a.current, a.available, cur[i], cur[i]-inFlight[i])
		}
	}
}

// generateHistory is the whole seeded history as records, for tests that
// look at it record by record; it sets accts' balances as the sandbox does.
func generateHistory(o Options, now time.Time, accts []*account) []txn {
	h := newHistory(o, now, accts)
	var out []txn
	h.each(minTime, maxTime, func(t *txn) bool {
		out = append(out, *t)
		return true
	})
	return out
}
