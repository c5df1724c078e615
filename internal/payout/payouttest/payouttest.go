// Package payouttest is a payout service on loopback whose answers to
// POST /v1/payouts a test scripts (a 409 account_disabled, a 503, a 202),
// so the form, `payout create` and the batch can be shown to do the same
// with the same answer. It also answers the token, balances and
// transactions endpoints (the report lists the payouts it accepted), as
// net/http/httptest does for net/http: a real server, beside the code it
// serves. For everything else use api/sandbox.
package payouttest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/payout"
)

// Answer is one scripted answer: a status and, for an error, the slug of
// its problem type ("" sends no body).
type Answer struct {
	Status  int
	Problem string
}

// Common answers.
var (
	Accepted        = Answer{Status: http.StatusAccepted}
	AccountDisabled = Answer{Status: http.StatusConflict, Problem: "account_disabled"}
	InProgress      = Answer{Status: http.StatusConflict, Problem: "request_in_progress"}
	Unavailable     = Answer{Status: http.StatusServiceUnavailable, Problem: "internal"}
)

// Server is the scripted service.
type Server struct {
	URL string

	mu       sync.Mutex
	answers  []Answer
	received []api.PayoutRequest
	created  map[string]api.PayoutRequest
	order    []string
	balances []api.Balance
}

// Start serves on loopback until the test ends. Each POST /v1/payouts
// takes the next answer; when they run out every payout is accepted. A
// payout accepted under an id already created creates nothing new, as
// the service does.
func Start(t testing.TB, answers ...Answer) *Server {
	t.Helper()
	s := &Server{answers: answers, created: map[string]api.PayoutRequest{},
		balances: []api.Balance{{Currency: "GBP", IBAN: "GB33BUKB20201555555555", Status: api.AccountEnabled,
			CurrentBalanceInMinor: 100_000_00, AvailableBalanceInMinor: 100_000_00}}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /connect/token", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, api.TokenResponse{AccessToken: "test-token", TokenType: "Bearer", ExpiresIn: 3600, Scope: api.ScopePayouts})
	})
	mux.HandleFunc("GET /v1/balances", func(w http.ResponseWriter, _ *http.Request) {
		s.mu.Lock()
		defer s.mu.Unlock()
		writeJSON(w, http.StatusOK, api.BalancesResponse{Results: s.balances})
	})
	mux.HandleFunc("GET /v1/transactions", func(w http.ResponseWriter, _ *http.Request) {
		s.mu.Lock()
		defer s.mu.Unlock()
		var out struct {
			Results []api.Transaction `json:"results"`
		}
		out.Results = []api.Transaction{}
		for _, id := range s.order {
			r := s.created[id]
			out.Results = append(out.Results, api.Transaction{TransactionID: id, Type: api.TransactionPayout,
				AuthorisedAt: api.ReportTime{Time: time.Now().UTC()}, BeneficiaryName: r.BeneficiaryName, BeneficiaryIBAN: r.BeneficiaryIBAN,
				BeneficiaryReference: r.BeneficiaryReference, AmountInMinor: r.AmountInMinor, Currency: r.Currency,
				ContextCode: r.ContextCode, Status: api.StateAuthorised})
		}
		writeJSON(w, http.StatusOK, out)
	})
	mux.HandleFunc("POST /v1/payouts", func(w http.ResponseWriter, r *http.Request) {
		var req api.PayoutRequest
		body, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(body, &req)
		s.mu.Lock()
		defer s.mu.Unlock()
		s.received = append(s.received, req)
		a := Accepted
		if len(s.answers) > 0 {
			a, s.answers = s.answers[0], s.answers[1:]
		}
		if a.Status >= 200 && a.Status < 300 {
			if _, dup := s.created[req.TransactionID]; !dup {
				s.created[req.TransactionID] = req
				s.order = append(s.order, req.TransactionID)
			}
			w.WriteHeader(a.Status)
			return
		}
		if a.Problem == "" {
			w.WriteHeader(a.Status)
			return
		}
		w.Header().Set("Content-Type", api.ContentTypeProblemJSON)
		w.WriteHeader(a.Status)
		_ = json.NewEncoder(w).Encode(api.ProblemDetails{Type: "https://paydash.dev/problems/" + a.Problem, Title: a.Problem, Status: a.Status,
			Detail: "scripted answer"})
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	s.URL = srv.URL
	return s
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", api.ContentTypeJSON)
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// Client is a real api.Client of the server, retrying nothing (each
// scripted answer is one send).
func (s *Server) Client(t testing.TB) *api.Client {
	t.Helper()
	key, err := api.GenerateSigningKey()
	if err != nil {
		t.Fatal(err)
	}
	c, err := api.NewClient(api.Config{AuthURL: s.URL, BaseURL: s.URL, PayoutsURL: s.URL, ClientID: "test", ClientSecret: "secret",
		SigningKeyID: "k1", SigningKey: key, Retry: api.RetryPolicy{MaxAttempts: 1}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Received returns every payout request the server was sent.
func (s *Server) Received() []api.PayoutRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]api.PayoutRequest(nil), s.received...)
}

// Created returns the payouts the server created (accepted, new ids),
// in order.
func (s *Server) Created() []api.PayoutRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]api.PayoutRequest, 0, len(s.order))
	for _, id := range s.order {
		out = append(out, s.created[id])
	}
	return out
}

// Audit opens an empty audit record (profile "test") in the test's
// temporary directory, and returns it with a function that reads back
// the attempts it holds, failing the test when it cannot be read: what
// a test checks after the form, `payout create` or the batch sent.
func Audit(t testing.TB) (*payout.Log, func() []payout.Attempt) {
	t.Helper()
	log, err := payout.Open(filepath.Join(t.TempDir(), "audit.jsonl"), "test", nil)
	if err != nil {
		t.Fatal(err)
	}
	return log, func() []payout.Attempt {
		t.Helper()
		entries, err := log.Entries()
		if err != nil {
			t.Fatal(err)
		}
		return payout.Attempts(entries)
	}
}
