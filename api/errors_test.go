package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"
)

func TestErrorFromResponse(t *testing.T) {
	big := strings.Repeat("x", 100<<10)
	cases := []struct {
		name        string
		contentType string
		traceHeader string
		status      int
		body        string
		wantMsg     string
		wantProblem *ProblemDetails
		wantTrace   string
		wantBodyLen int // -1 = len(body)
	}{
		{
			name: "problem with field errors", contentType: ContentTypeProblemJSON, status: 400,
			body: `{"type":"https://errors.example/validation","title":"Validation failed","status":400,"trace_id":"3f2a9c",
				"errors":{"beneficiary_iban":["checksum does not match"]}}`,
			wantMsg: "POST /po/v1/payouts: 400 Bad Request: Validation failed (trace 3f2a9c): beneficiary_iban: checksum does not match",
			wantProblem: &ProblemDetails{Type: "https://errors.example/validation", Title: "Validation failed", Status: 400,
				TraceID: "3f2a9c", Errors: map[string][]string{"beneficiary_iban": {"checksum does not match"}}},
			wantTrace: "3f2a9c", wantBodyLen: -1,
		},
		{
			name: "trace header wins; detail, sorted fields, string-valued errors", contentType: ContentTypeProblemJSON + "; charset=utf-8",
			traceHeader: "hdr-77", status: 422,
			body: `{"title":"Invalid payout","detail":"2 fields are invalid","trace_id":"body-1",
				"errors":{"currency":"must be GBP or EUR","amount_in_minor":["must be positive","must be an integer"]}}`,
			wantMsg: "POST /po/v1/payouts: 422 Unprocessable Entity: Invalid payout: 2 fields are invalid (trace hdr-77): " +
				"amount_in_minor: must be positive, must be an integer; currency: must be GBP or EUR",
			wantProblem: &ProblemDetails{Title: "Invalid payout", Detail: "2 fields are invalid", TraceID: "body-1",
				Errors: map[string][]string{"currency": {"must be GBP or EUR"}, "amount_in_minor": {"must be positive", "must be an integer"}}},
			wantTrace: "hdr-77", wantBodyLen: -1,
		},
		{
			name: "problem sent as application/json", contentType: ContentTypeJSON, status: 403,
			body:        `{"title":"Forbidden","detail":"scope missing"}`,
			wantMsg:     `POST /po/v1/payouts: 403 Forbidden: Forbidden: scope missing — the credentials may not be allowed the "payouts" scope`,
			wantProblem: &ProblemDetails{Title: "Forbidden", Detail: "scope missing"}, wantBodyLen: -1,
		},
		{
			name: "JSON that is not a problem", contentType: ContentTypeJSON, status: 409,
			body: `{"code":17}`, wantMsg: `POST /po/v1/payouts: 409 Conflict: {"code":17}`, wantBodyLen: -1,
		},
		{
			name: "malformed problem falls back to the raw body", contentType: ContentTypeProblemJSON, status: 400,
			body: `{"title":`, wantMsg: `POST /po/v1/payouts: 400 Bad Request: {"title":`, wantBodyLen: -1,
		},
		{
			name: "plain text with trace header", contentType: "text/plain", traceHeader: "t-1", status: 502,
			body:    "upstream\n  timed out\n",
			wantMsg: "POST /po/v1/payouts: 502 Bad Gateway: upstream timed out (trace t-1)", wantTrace: "t-1", wantBodyLen: -1,
		},
		{
			name: "HTML error page", contentType: "text/html", status: 504,
			body:    "<html><body>Gateway Timeout</body></html>",
			wantMsg: "POST /po/v1/payouts: 504 Gateway Timeout: (HTML page, 41 bytes)", wantBodyLen: -1,
		},
		{
			name: "empty body", status: 404,
			wantMsg: "POST /po/v1/payouts: 404 Not Found", wantBodyLen: 0,
		},
		{
			name: "huge body is capped", contentType: "text/plain", status: 500, body: big,
			wantMsg: "POST /po/v1/payouts: 500 Internal Server Error: " + strings.Repeat("x", maxSummary) + "…", wantBodyLen: maxErrorBody,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, func(w http.ResponseWriter, r *http.Request) {
				if tc.contentType != "" {
					w.Header().Set("Content-Type", tc.contentType)
				}
				if tc.traceHeader != "" {
					w.Header().Set(HeaderTraceID, tc.traceHeader)
				}
				w.WriteHeader(tc.status)
				fmt.Fprint(w, tc.body)
			}, envOpts{retry: RetryPolicy{MaxAttempts: 1}})
			err := e.c.CreatePayout(context.Background(), samplePayout("0b9f3b4e-1c1d-4d5e-9f00-123456789abc"))
			var apiErr *Error
			if !errors.As(err, &apiErr) {
				t.Fatalf("err = %v (%T), want *Error", err, err)
			}
			if got := err.Error(); got != tc.wantMsg {
				t.Errorf("message\n got %s\nwant %s", got, tc.wantMsg)
			}
			if apiErr.StatusCode != tc.status || apiErr.Method != "POST" || !strings.HasSuffix(apiErr.URL, "/po/v1/payouts") {
				t.Errorf("status/method/url = %d %s %s", apiErr.StatusCode, apiErr.Method, apiErr.URL)
			}
			if !reflect.DeepEqual(apiErr.Problem, tc.wantProblem) {
				t.Errorf("problem = %+v, want %+v", apiErr.Problem, tc.wantProblem)
			}
			if apiErr.TraceID != tc.wantTrace {
				t.Errorf("trace = %q, want %q", apiErr.TraceID, tc.wantTrace)
			}
			wantLen := tc.wantBodyLen
			if wantLen < 0 {
				wantLen = len(tc.body)
			}
			if len(apiErr.Body) != wantLen {
				t.Errorf("body kept %d bytes, want %d", len(apiErr.Body), wantLen)
			}
		})
	}
}

// TestErrorNeverLeaksCredentials has the service echo everything it got,
// headers included, into its error body.
func TestErrorNeverLeaksCredentials(t *testing.T) {
	e := newEnv(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, "you sent Authorization=%s signature=%s", r.Header.Get("Authorization"), r.Header.Get(HeaderPayoutSignature))
	}, envOpts{})
	err := e.c.CreatePayout(context.Background(), samplePayout(""))
	var apiErr *Error
	if !errors.As(err, &apiErr) {
		t.Fatalf("err = %v", err)
	}
	for _, s := range []string{"tok-1", testSecret} {
		if strings.Contains(err.Error(), s) || strings.Contains(string(apiErr.Body), s) {
			t.Errorf("error exposes %q: %s", s, err)
		}
	}
	if !strings.Contains(err.Error(), "Authorization=Bearer [redacted]") {
		t.Errorf("message %q: want the token replaced by [redacted]", err)
	}
}

func TestIsStatus(t *testing.T) {
	e404 := &Error{StatusCode: 404, Method: "GET", URL: "http://x/v1/balances"}
	cases := []struct {
		name string
		err  error
		code int
		want bool
	}{
		{"direct", e404, 404, true},
		{"wrapped", fmt.Errorf("loading: %w", e404), 404, true},
		{"joined", errors.Join(errors.New("a"), e404), 404, true},
		{"other status", e404, 500, false},
		{"not an *Error", errors.New("404"), 404, false},
		{"nil", nil, 404, false},
	}
	for _, tc := range cases {
		if got := IsStatus(tc.err, tc.code); got != tc.want {
			t.Errorf("%s: IsStatus = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestSummarizeBody(t *testing.T) {
	cases := []struct{ in, want string }{
		{"", ""},
		{"  \n", ""},
		{`{"error":"invalid_scope"}`, "invalid_scope"},
		{`{"error":"invalid_client","error_description":"bad secret"}`, "invalid_client: bad secret"},
		{"\xff\xfe\x00", "(3 bytes of non-text body)"},
		{"<!doctype html><p>hi", "(HTML page, 20 bytes)"},
		{"a\tb\n\nc", "a b c"},
		{strings.Repeat("é", maxSummary+1), strings.Repeat("é", maxSummary) + "…"},
	}
	for _, tc := range cases {
		if got := summarizeBody([]byte(tc.in)); got != tc.want {
			t.Errorf("summarizeBody(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestIsIdempotencyKeyReusedOnlyForThat422: only the key-reused answer is
// recognised; another 422 may well be retried with the same key.
func TestIsIdempotencyKeyReusedOnlyForThat422(t *testing.T) {
	reused := &Error{StatusCode: 422, Problem: &ProblemDetails{Type: "https://paydash.dev/problems/idempotency_key_reused", Title: "Idempotency-Key reused"}}
	other422 := &Error{StatusCode: 422, Problem: &ProblemDetails{Title: "Unprocessable"}}
	for _, c := range []struct {
		err  error
		want bool
	}{{reused, true}, {other422, false}, {&Error{StatusCode: 409}, false}, {nil, false}} {
		if got := IsIdempotencyKeyReused(c.err); got != c.want {
			t.Errorf("IsIdempotencyKeyReused(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}
