package api

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paydash/paydash/internal/platform/clock"
	"github.com/paydash/paydash/internal/platform/freeport"
)

// sequence answers with the given statuses in turn (the last repeats),
// each with an optional Retry-After.
func sequence(statuses []int, retryAfter string) http.HandlerFunc {
	var mu sync.Mutex
	i := 0
	return func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		s := statuses[min(i, len(statuses)-1)]
		i++
		mu.Unlock()
		if s == http.StatusTooManyRequests || s == http.StatusServiceUnavailable {
			if retryAfter != "" {
				w.Header().Set("Retry-After", retryAfter)
			}
		}
		w.Header().Set("Content-Type", ContentTypeJSON)
		w.WriteHeader(s)
		if s < 300 {
			io.WriteString(w, `{"id":"x","results":[]}`)
		}
	}
}

func TestRetries(t *testing.T) {
	payment := func(ctx context.Context, c *Client) error {
		_, err := c.CreatePayment(ctx, samplePayment(), "")
		return err
	}
	mandate := func(ctx context.Context, c *Client) error {
		_, err := c.CreateMandate(ctx, sampleMandate(), "")
		return err
	}
	balances := func(ctx context.Context, c *Client) error { _, err := c.Balances(ctx); return err }
	transactions := func(ctx context.Context, c *Client) error {
		_, err := c.Transactions(ctx, TransactionQuery{Currency: "EUR"})
		return err
	}
	keyedPayout := func(ctx context.Context, c *Client) error {
		return c.CreatePayout(ctx, samplePayout("0b9f3b4e-1c1d-4d5e-9f00-123456789abc"))
	}
	keylessPayout := func(ctx context.Context, c *Client) error { return c.CreatePayout(ctx, samplePayout("")) }

	cases := []struct {
		name       string
		statuses   []int
		retryAfter string
		call       func(context.Context, *Client) error
		wantHits   int
		wantStatus int // 0 = success
	}{
		{"payment after two 503s", []int{503, 503, 201}, "", payment, 3, 0},
		{"payment after 429 with Retry-After", []int{429, 201}, "1", payment, 2, 0},
		{"mandate gives up after 4 attempts", []int{500}, "", mandate, 4, 500},
		{"balances after 502", []int{502, 200}, "", balances, 2, 0},
		{"transactions after 429", []int{429, 200}, "", transactions, 2, 0},
		{"payout with transaction_id after 503", []int{503, 202}, "", keyedPayout, 2, 0},
		{"payout without transaction_id is never retried", []int{503, 202}, "", keylessPayout, 1, 503},
		{"keyless payout not retried on 429 either", []int{429, 202}, "0", keylessPayout, 1, 429},
		{"400 is not retried", []int{400, 201}, "", payment, 1, 400},
		{"501 is not retried", []int{501, 201}, "", payment, 1, 501},
		{"409 is not retried", []int{409, 200}, "", balances, 1, 409},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, sequence(tc.statuses, tc.retryAfter), envOpts{})
			var err error
			drive(t, e.fc, time.Second, func() { err = tc.call(context.Background(), e.c) })
			if tc.wantStatus == 0 && err != nil {
				t.Fatalf("err = %v", err)
			}
			if tc.wantStatus != 0 && !IsStatus(err, tc.wantStatus) {
				t.Fatalf("err = %v, want status %d", err, tc.wantStatus)
			}
			reqs := e.requests()
			if len(reqs) != tc.wantHits {
				t.Fatalf("%d attempts, want %d", len(reqs), tc.wantHits)
			}
			for i, r := range reqs {
				if r.method == http.MethodPost && r.sigErr != nil {
					t.Errorf("attempt %d: signature: %v", i+1, r.sigErr)
				}
				// Same key, same signature, same body, same query on every attempt.
				for _, h := range []string{HeaderIdempotencyKey, HeaderSignature, HeaderPayoutSignature, "Content-Type", "Accept"} {
					if r.header.Get(h) != reqs[0].header.Get(h) {
						t.Errorf("attempt %d: %s %q differs from the first %q", i+1, h, r.header.Get(h), reqs[0].header.Get(h))
					}
				}
				if string(r.body) != string(reqs[0].body) || r.query.Encode() != reqs[0].query.Encode() {
					t.Errorf("attempt %d sent a different request", i+1)
				}
			}
			if k := reqs[0].header.Get(HeaderIdempotencyKey); reqs[0].path == "/base/v3/payments" && k == "" {
				t.Error("payment without Idempotency-Key")
			}
			if e.fc.Pending() != 0 {
				t.Errorf("%d timers left behind", e.fc.Pending())
			}
		})
	}
}

// TestRetryAfterIsHonoured pins the wait to the header's value: nothing is
// re-sent a moment before it, and the retry goes out when it elapses.
func TestRetryAfterIsHonoured(t *testing.T) {
	cases := []struct {
		name   string
		status int
		header string
		wait   time.Duration
	}{
		{"seconds", 429, "7", 7 * time.Second},
		{"HTTP date", 503, testStart.Add(12 * time.Second).Format(http.TimeFormat), 12 * time.Second},
		{"seconds beyond the backoff cap", 503, "20", 20 * time.Second},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, sequence([]int{tc.status, 200}, tc.header), envOpts{})
			if _, err := e.c.Token(context.Background(), ScopePayouts); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { _, err := e.c.Balances(context.Background()); done <- err }()
			waitFor(t, "the retry wait", func() bool { return e.fc.Pending() == 1 })
			e.fc.Advance(tc.wait - time.Millisecond)
			if n := e.hits(); n != 1 || e.fc.Pending() != 1 {
				t.Fatalf("before Retry-After elapsed: %d attempts, %d timers; want 1 and 1", n, e.fc.Pending())
			}
			e.fc.Advance(time.Millisecond)
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			if n := e.hits(); n != 2 {
				t.Errorf("%d attempts, want 2", n)
			}
		})
	}
}

func TestRetryAfterTooLongEndsRetries(t *testing.T) {
	e := newEnv(t, sequence([]int{429, 200}, "3600"), envOpts{})
	_, err := e.c.Balances(context.Background())
	if !IsStatus(err, 429) || !strings.Contains(err.Error(), "wait 1h0m0s") {
		t.Fatalf("err = %v, want the 429 and the requested wait", err)
	}
	if e.hits() != 1 || e.fc.Pending() != 0 {
		t.Errorf("%d attempts, %d timers; want 1 and 0", e.hits(), e.fc.Pending())
	}
}

// TestBackoffIsExponentialOnTheClock pins the jitter to its maximum and
// checks each wait: 200ms, 400ms, 800ms, on the injected clock.
func TestBackoffIsExponentialOnTheClock(t *testing.T) {
	e := newEnv(t, sequence([]int{503}, ""), envOpts{})
	e.c.randN = func(n int64) int64 { return n - 1 }
	if _, err := e.c.Token(context.Background(), ScopePayouts); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := e.c.Balances(context.Background()); done <- err }()
	for i, wait := range []time.Duration{200 * time.Millisecond, 400 * time.Millisecond, 800 * time.Millisecond} {
		waitFor(t, "a retry wait", func() bool { return e.fc.Pending() == 1 })
		e.fc.Advance(wait - time.Nanosecond)
		if n := e.hits(); n != i+1 {
			t.Fatalf("retry %d went out before %v: %d attempts", i+1, wait, n)
		}
		e.fc.Advance(time.Nanosecond)
	}
	err := <-done
	if !IsStatus(err, 503) || !strings.Contains(err.Error(), "gave up after 4 attempts") {
		t.Errorf("err = %v", err)
	}
	if n := e.hits(); n != 4 {
		t.Errorf("%d attempts, want 4", n)
	}
}

func TestCancelStopsRetryAtOnce(t *testing.T) {
	e := newEnv(t, sequence([]int{503}, "10"), envOpts{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { _, err := e.c.CreatePayment(ctx, samplePayment(), "k"); done <- err }()
	waitFor(t, "the retry wait", func() bool { return e.fc.Pending() == 1 })
	cancel()
	err := <-done
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "503") {
		t.Errorf("err = %v, want context.Canceled mentioning the last 503", err)
	}
	if e.hits() != 1 || e.fc.Pending() != 0 {
		t.Errorf("%d attempts and %d timers after cancel, want 1 and 0", e.hits(), e.fc.Pending())
	}
}

// TestNetworkErrorsRetried drops the connection of the first attempt. Keep-
// alives are off so net/http's own replay of idempotent requests on reused
// connections cannot hide or add attempts.
func TestNetworkErrorsRetried(t *testing.T) {
	cases := []struct {
		name     string
		call     func(context.Context, *Client) error
		wantHits int
		wantErr  bool
	}{
		{"GET", func(ctx context.Context, c *Client) error { _, err := c.Balances(ctx); return err }, 2, false},
		{"keyed POST", func(ctx context.Context, c *Client) error {
			_, err := c.CreatePayment(ctx, samplePayment(), "")
			return err
		}, 2, false},
		{"keyless POST", func(ctx context.Context, c *Client) error { return c.CreatePayout(ctx, samplePayout("")) }, 1, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			first := true
			e := newEnv(t, func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				drop := first
				first = false
				mu.Unlock()
				if drop {
					conn, _, err := http.NewResponseController(w).Hijack()
					if err == nil {
						conn.Close()
					}
					return
				}
				w.WriteHeader(200)
				io.WriteString(w, `{"results":[]}`)
			}, envOpts{transport: &http.Transport{DisableKeepAlives: true}})
			var err error
			drive(t, e.fc, time.Second, func() { err = tc.call(context.Background(), e.c) })
			if tc.wantErr != (err != nil) {
				t.Fatalf("err = %v, want error %v", err, tc.wantErr)
			}
			if err != nil && !strings.Contains(err.Error(), "cannot reach the service") {
				t.Errorf("message %q does not say the service was unreachable", err)
			}
			if n := e.hits(); n != tc.wantHits {
				t.Errorf("%d attempts, want %d", n, tc.wantHits)
			}
		})
	}
}

func TestUnreachableServiceGivesUp(t *testing.T) {
	addr := freeport.Addr(t) // nothing listens there
	fc := clock.NewFake(testStart)
	c, err := NewClient(Config{AuthURL: "http://" + addr, BaseURL: "http://" + addr, PayoutsURL: "http://" + addr,
		ClientID: "id", ClientSecret: testSecret, Clock: fc})
	if err != nil {
		t.Fatal(err)
	}
	var callErr error
	drive(t, fc, time.Second, func() { _, callErr = c.Balances(context.Background()) })
	// The token request fails first; it is retried like any network error.
	if callErr == nil || !strings.Contains(callErr.Error(), "cannot reach the service") ||
		!strings.Contains(callErr.Error(), "gave up after 4 attempts") || strings.Contains(callErr.Error(), testSecret) {
		t.Errorf("err = %v", callErr)
	}
}

func TestBackoff(t *testing.T) {
	p := RetryPolicy{}.withDefaults()
	maxRand := func(n int64) int64 { return n - 1 }
	zeroRand := func(int64) int64 { return 0 }
	cases := []struct {
		retry   int
		wantMax time.Duration
	}{
		{1, 200 * time.Millisecond},
		{2, 400 * time.Millisecond},
		{3, 800 * time.Millisecond},
		{5, 3200 * time.Millisecond},
		{6, 5 * time.Second},
		{40, 5 * time.Second},
		{1000, 5 * time.Second},
	}
	for _, tc := range cases {
		if got := p.backoff(tc.retry, maxRand); got != tc.wantMax {
			t.Errorf("retry %d: longest wait %v, want %v", tc.retry, got, tc.wantMax)
		}
		if got := p.backoff(tc.retry, zeroRand); got != 0 {
			t.Errorf("retry %d: shortest wait %v, want 0 (full jitter)", tc.retry, got)
		}
	}
	custom := RetryPolicy{MaxAttempts: 1, BaseDelay: time.Second, MaxDelay: 3 * time.Second}.withDefaults()
	if custom.MaxAttempts != 1 || custom.backoff(3, maxRand) != 3*time.Second || custom.MaxRetryAfter != DefaultMaxRetryAfter {
		t.Errorf("custom policy not kept: %+v", custom)
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := testStart
	cases := []struct {
		in     string
		want   time.Duration
		wantOK bool
	}{
		{"", 0, false},
		{"0", 0, true},
		{"7", 7 * time.Second, true},
		{" 120 ", 2 * time.Minute, true},
		{"-3", 0, false},
		{"soon", 0, false},
		{"1.5", 0, false},
		{now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second, true},
		{now.Add(-time.Hour).Format(http.TimeFormat), 0, true},
		{"99999999999999999", 1 << 30 * time.Second, true},
	}
	for _, tc := range cases {
		got, ok := parseRetryAfter(tc.in, now)
		if got != tc.want || ok != tc.wantOK {
			t.Errorf("parseRetryAfter(%q) = %v, %v; want %v, %v", tc.in, got, ok, tc.want, tc.wantOK)
		}
	}
}
