package api

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

func okJSON(body string) http.HandlerFunc { return respond(200, ContentTypeJSON, body) }

func TestTokenCachingAndEarlyRefresh(t *testing.T) {
	type step struct {
		advance     time.Duration // fake-clock time before this step's calls
		calls       int
		wantFetches int64
	}
	cases := []struct {
		name      string
		expiresIn int64
		steps     []step
	}{
		{"one fetch for many calls, refreshed 60s before expiry", 3600, []step{
			{0, 5, 1},
			{3539 * time.Second, 3, 1},
			{time.Second, 1, 2}, // t = 3540s = expiry - 60s
			{3539 * time.Second, 2, 2},
			{time.Second, 1, 3},
		}},
		{"short-lived token refreshed half-way", 40, []step{
			{0, 2, 1},
			{19 * time.Second, 1, 1},
			{time.Second, 1, 2},
		}},
		{"token without expires_in kept until rejected", -1, []step{
			{0, 2, 1},
			{1000 * time.Hour, 2, 1},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, okJSON(`{"results":[]}`), envOpts{expiresIn: tc.expiresIn})
			for i, s := range tc.steps {
				e.fc.Advance(s.advance)
				for range s.calls {
					if _, err := e.c.Balances(context.Background()); err != nil {
						t.Fatal(err)
					}
				}
				if got := e.fetch.Load(); got != s.wantFetches {
					t.Fatalf("step %d: %d token fetches, want %d", i, got, s.wantFetches)
				}
			}
			// Each API call carried the token current at its time.
			reqs := e.requests()
			if last := reqs[len(reqs)-1].header.Get("Authorization"); last != fmt.Sprintf("Bearer tok-%d", e.fetch.Load()) {
				t.Errorf("last call used %q, want the newest token", last)
			}
		})
	}
}

func TestTokenOnePerScopeSet(t *testing.T) {
	e := newEnv(t, okJSON(`{}`), envOpts{})
	ctx := context.Background()
	a, err := e.c.Token(ctx, "b", "a")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := e.c.Token(ctx, "a", "b", "a")
	c, _ := e.c.Token(ctx, "a b")
	p, _ := e.c.Token(ctx, ScopePayments)
	if a != b || a != c {
		t.Errorf("same scope set in another order got another token: %q %q %q", a, b, c)
	}
	if p == a {
		t.Errorf("different scope shares the token %q", p)
	}
	e.requests() // reports bad token forms
	if got := strings.Join(e.scopes, "|"); got != "a b|payments" {
		t.Errorf("scopes requested: %q, want \"a b|payments\"", got)
	}
}

func TestTokenConcurrentCallersShareOneFetch(t *testing.T) {
	const callers = 100
	release := make(chan struct{})
	e := newEnv(t, okJSON(`{}`), envOpts{token: func(w http.ResponseWriter, r *http.Request) {
		<-release
		io.WriteString(w, `{"access_token":"shared","token_type":"Bearer","expires_in":3600}`)
	}})
	var wg sync.WaitGroup
	tokens := make([]string, callers)
	errs := make([]error, callers)
	for i := range callers {
		wg.Go(func() { tokens[i], errs[i] = e.c.Token(context.Background(), ScopePayouts) })
	}
	waitFor(t, "all callers to wait on the fetch", func() bool { return e.c.tokens.waiting(ScopePayouts) == callers })
	close(release)
	wg.Wait()
	for i := range callers {
		if errs[i] != nil || tokens[i] != "shared" {
			t.Fatalf("caller %d: %q, %v", i, tokens[i], errs[i])
		}
	}
	if n := e.fetch.Load(); n != 1 {
		t.Errorf("%d callers caused %d token fetches, want 1", callers, n)
	}
}

func TestTokenAbandonedWaiterDoesNotFailOthers(t *testing.T) {
	release := make(chan struct{})
	e := newEnv(t, okJSON(`{}`), envOpts{token: func(w http.ResponseWriter, r *http.Request) {
		<-release
		io.WriteString(w, `{"access_token":"late","expires_in":3600}`)
	}})
	impatient, cancel := context.WithCancel(context.Background())
	firstErr := make(chan error, 1)
	go func() { _, err := e.c.Token(impatient, ScopePayouts); firstErr <- err }()
	waitFor(t, "first caller to wait", func() bool { return e.c.tokens.waiting(ScopePayouts) == 1 })
	second := make(chan string, 1)
	go func() { tok, _ := e.c.Token(context.Background(), ScopePayouts); second <- tok }()
	waitFor(t, "second caller to wait", func() bool { return e.c.tokens.waiting(ScopePayouts) == 2 })
	cancel()
	if err := <-firstErr; !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled caller got %v, want context.Canceled", err)
	}
	close(release)
	if tok := <-second; tok != "late" {
		t.Errorf("patient caller got %q, want the shared token", tok)
	}
	if n := e.fetch.Load(); n != 1 {
		t.Errorf("%d fetches, want 1", n)
	}
}

func TestUnauthorizedRefreshesTokenOnce(t *testing.T) {
	cases := []struct {
		name        string
		accept      string // the only token the API accepts; "" = none
		call        func(context.Context, *Client) error
		wantErr     bool
		wantFetches int64
		wantHits    int
	}{
		{"GET recovers with a new token", "Bearer tok-2",
			func(ctx context.Context, c *Client) error { _, err := c.Balances(ctx); return err }, false, 2, 2},
		{"signed payout recovers with a new token", "Bearer tok-2",
			func(ctx context.Context, c *Client) error { return c.CreatePayout(ctx, samplePayout("")) }, false, 2, 2},
		{"keyed payment recovers with a new token", "Bearer tok-2",
			func(ctx context.Context, c *Client) error {
				_, err := c.CreatePayment(ctx, samplePayment(), "k-1")
				return err
			}, false, 2, 2},
		{"a second 401 is returned, not looped on", "",
			func(ctx context.Context, c *Client) error { _, err := c.Balances(ctx); return err }, true, 2, 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, func(w http.ResponseWriter, r *http.Request) {
				if r.Header.Get("Authorization") != tc.accept {
					w.WriteHeader(http.StatusUnauthorized)
					return
				}
				w.WriteHeader(http.StatusAccepted)
				io.WriteString(w, `{"results":[]}`)
			}, envOpts{})
			err := tc.call(context.Background(), e.c)
			if tc.wantErr != (err != nil) {
				t.Fatalf("err = %v, want error: %v", err, tc.wantErr)
			}
			if tc.wantErr && !IsStatus(err, http.StatusUnauthorized) {
				t.Errorf("err = %v, want a 401 *Error", err)
			}
			if n := e.fetch.Load(); n != tc.wantFetches {
				t.Errorf("%d token fetches, want %d", n, tc.wantFetches)
			}
			reqs := e.requests()
			if len(reqs) != tc.wantHits {
				t.Fatalf("%d API requests, want %d", len(reqs), tc.wantHits)
			}
			// The retry is the same request: same body, key and signature.
			for _, h := range []string{HeaderIdempotencyKey, HeaderSignature, HeaderPayoutSignature} {
				if reqs[0].header.Get(h) != reqs[1].header.Get(h) {
					t.Errorf("%s changed between attempts", h)
				}
			}
			if string(reqs[0].body) != string(reqs[1].body) {
				t.Errorf("body changed between attempts")
			}
		})
	}
}

func TestTokenEndpointFailures(t *testing.T) {
	cases := []struct {
		name     string
		reply    http.HandlerFunc
		wantHits int64
		status   int      // 0 = not an *Error
		want     []string // substrings of the message
	}{
		{"rejected credentials, body echoing the form", func(w http.ResponseWriter, r *http.Request) {
			r.ParseForm()
			w.Header().Set("Content-Type", ContentTypeJSON)
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprintf(w, `{"error":"invalid_client","error_description":"unknown secret %s"}`, r.PostForm.Get("client_secret"))
		}, 1, 401, []string{"POST /auth/connect/token: 401 Unauthorized: invalid_client: unknown secret [redacted]", "check the client id and client secret", `scope "payouts"`}},
		{"429 is not retried", respond(429, "", "slow down"), 1, 429, []string{"429 Too Many Requests: slow down"}},
		{"5xx retried until attempts run out", respond(503, "text/plain", "maintenance"), 4, 503, []string{"503 Service Unavailable: maintenance", "gave up after 4 attempts"}},
		{"no access_token", okJSON(`{"token_type":"Bearer"}`), 1, 0, []string{"no access_token"}},
		{"not JSON", okJSON(`<html>`), 1, 0, []string{"reading the token response"}},
		{"wrong token type", okJSON(`{"access_token":"x","token_type":"mac"}`), 1, 0, []string{`token_type is "mac"`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, okJSON(`{"results":[]}`), envOpts{token: tc.reply})
			var err error
			drive(t, e.fc, time.Second, func() { _, err = e.c.Balances(context.Background()) })
			if err == nil {
				t.Fatal("no error")
			}
			if got := e.fetch.Load(); got != tc.wantHits {
				t.Errorf("%d token requests, want %d", got, tc.wantHits)
			}
			var apiErr *Error
			if tc.status != 0 && (!errors.As(err, &apiErr) || apiErr.StatusCode != tc.status) {
				t.Errorf("err = %v, want an *Error with status %d", err, tc.status)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("message %q lacks %q", err, w)
				}
			}
			if strings.Contains(err.Error(), testSecret) || (apiErr != nil && strings.Contains(string(apiErr.Body), testSecret)) {
				t.Errorf("the client secret leaked: %q", err)
			}
			if e.hits() != 0 {
				t.Errorf("the API was called without a token")
			}
		})
	}
}

func TestScopeKeyAndRefreshTime(t *testing.T) {
	keys := []struct {
		in   []string
		want string
	}{
		{nil, ""},
		{[]string{"payouts"}, "payouts"},
		{[]string{"b", "a", "b"}, "a b"},
		{[]string{" b  a ", "c"}, "a b c"},
	}
	for _, k := range keys {
		if got := scopeKey(k.in); got != k.want {
			t.Errorf("scopeKey(%q) = %q, want %q", k.in, got, k.want)
		}
	}
	refresh := []struct {
		expiresIn int64
		want      time.Duration // after issue; -1 = never
	}{
		{3600, 3540 * time.Second},
		{61, time.Second},
		{60, 30 * time.Second},
		{1, 500 * time.Millisecond},
		{0, -1},
		{-5, -1},
	}
	for _, r := range refresh {
		got := refreshTime(testStart, r.expiresIn)
		if r.want < 0 {
			if !got.IsZero() {
				t.Errorf("expires_in %d: refresh at %v, want never", r.expiresIn, got)
			}
		} else if got.Sub(testStart) != r.want {
			t.Errorf("expires_in %d: refresh after %v, want %v", r.expiresIn, got.Sub(testStart), r.want)
		}
	}
}
