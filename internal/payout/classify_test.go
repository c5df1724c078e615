package payout

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/api/testkey"
)

// tokenServer answers the token endpoint, so a client's payout call gets
// as far as the payout URL under test.
func tokenServer(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(api.TokenResponse{AccessToken: "tok", TokenType: "Bearer", ExpiresIn: 3600, Scope: api.ScopePayouts})
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// testClient is a real api.Client whose payouts go to payoutsURL.
func testClient(t *testing.T, payoutsURL string, attempts int, hc *http.Client) *api.Client {
	t.Helper()
	auth := tokenServer(t)
	c, err := api.NewClient(api.Config{AuthURL: auth, BaseURL: auth, PayoutsURL: payoutsURL, ClientID: "id", ClientSecret: "secret",
		SigningKeyID: "k", SigningKey: testkey.Load(t), HTTPClient: hc,
		Retry: api.RetryPolicy{MaxAttempts: attempts, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// answering is a payout endpoint that answers status with a problem of
// the given slug ("" for no body).
func answering(t *testing.T, status int, slug string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		if slug == "" {
			w.WriteHeader(status)
			return
		}
		w.Header().Set("Content-Type", api.ContentTypeProblemJSON)
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(api.ProblemDetails{Type: "https://paydash.dev/problems/" + slug, Title: slug, Status: status})
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// rawListener accepts connections on loopback and hands each to fn.
func rawListener(t *testing.T, fn func(net.Conn)) (string, net.Listener) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go fn(c)
		}
	}()
	return "http://" + ln.Addr().String(), ln
}

// readRequest reads one whole HTTP request from c: it was written.
func readRequest(c net.Conn) {
	req, err := http.ReadRequest(bufio.NewReader(c))
	if err == nil {
		_, _ = io.Copy(io.Discard, req.Body)
	}
}

// reset closes c with a TCP RST (linger 0), as a crashed proxy does.
func reset(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	_ = c.Close()
}

func payoutReq() *api.PayoutRequest {
	return &api.PayoutRequest{TransactionID: "7f1d9d2e-3c4b-4a5d-8e6f-1a2b3c4d5e6f", BeneficiaryName: "Ada Lovelace",
		BeneficiaryIBAN: "GB33BUKB20201555555555", BeneficiaryReference: "INV-1", Currency: "GBP", AmountInMinor: 100,
		ContextCode: api.ContextCodeWithdrawal}
}

// TestClassifyEveryClassOfAnswer: the one classifier reads a real
// client's answer from a real loopback server into accepted, refused
// (nothing created: correct and send anew) or unknown (may exist:
// re-send under the same id only), by status and problem type, and by
// whether the request was ever written.
func TestClassifyEveryClassOfAnswer(t *testing.T) {
	type tc struct {
		name    string
		outcome string
		reached bool
		// send runs one CreatePayout the case's way.
		send func(t *testing.T) error
	}
	status := func(code int, slug string) func(t *testing.T) error {
		return func(t *testing.T) error {
			return testClient(t, answering(t, code, slug), 1, nil).CreatePayout(context.Background(), payoutReq())
		}
	}
	var cases []tc
	for _, code := range []int{200, 201, 202, 204} {
		cases = append(cases, tc{fmt.Sprintf("%d", code), OutcomeAccepted, true, status(code, "")})
	}
	for _, c := range []struct {
		code int
		slug string
	}{{400, "invalid_parameters"}, {401, "unauthorized"}, {403, "insufficient_scope"}, {404, "not_found"}, {405, "method_not_allowed"},
		{410, ""}, {413, "payload_too_large"}, {415, "unsupported_media_type"}, {422, "invalid_parameters"}, {422, ProblemIdempotencyKeyReused},
		{409, ProblemAccountDisabled}} {
		cases = append(cases, tc{fmt.Sprintf("%d %s", c.code, c.slug), OutcomeRefused, true, status(c.code, c.slug)})
	}
	for _, c := range []struct {
		code int
		slug string
	}{{409, ProblemInProgress}, {409, ""}, {408, ""}, {425, ""}, {429, ""}, {500, "internal"}, {501, ""}, {502, ""}, {503, ""}, {504, ""}} {
		cases = append(cases, tc{fmt.Sprintf("%d %s", c.code, c.slug), OutcomeUnknown, true, status(c.code, c.slug)})
	}
	cases = append(cases,
		tc{"connection refused", OutcomeRefused, false, func(t *testing.T) error {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			addr := ln.Addr().String()
			ln.Close()
			return testClient(t, "http://"+addr, 3, nil).CreatePayout(context.Background(), payoutReq())
		}},
		tc{"no signing key: nothing could be sent", OutcomeRefused, false, func(t *testing.T) error {
			auth := tokenServer(t)
			c, err := api.NewClient(api.Config{AuthURL: auth, BaseURL: auth, PayoutsURL: answering(t, 202, ""), ClientID: "id", ClientSecret: "s"})
			if err != nil {
				t.Fatal(err)
			}
			return c.CreatePayout(context.Background(), payoutReq())
		}},
		tc{"connection reset after the request was written", OutcomeUnknown, true, func(t *testing.T) error {
			u, _ := rawListener(t, func(c net.Conn) { readRequest(c); reset(c) })
			return testClient(t, u, 1, nil).CreatePayout(context.Background(), payoutReq())
		}},
		tc{"reset after writing, then connection refused on the retry", OutcomeUnknown, true, func(t *testing.T) error {
			var ln net.Listener
			u, ln := rawListener(t, func(c net.Conn) { readRequest(c); ln.Close(); reset(c) })
			return testClient(t, u, 3, nil).CreatePayout(context.Background(), payoutReq())
		}},
		tc{"timeout waiting for the answer", OutcomeUnknown, true, func(t *testing.T) error {
			u, _ := rawListener(t, func(c net.Conn) { readRequest(c); time.Sleep(2 * time.Second); c.Close() })
			tr := http.DefaultTransport.(*http.Transport).Clone()
			tr.ResponseHeaderTimeout = 100 * time.Millisecond
			return testClient(t, u, 1, &http.Client{Transport: tr}).CreatePayout(context.Background(), payoutReq())
		}},
		tc{"context deadline after writing", OutcomeUnknown, true, func(t *testing.T) error {
			u, _ := rawListener(t, func(c net.Conn) { readRequest(c); time.Sleep(2 * time.Second); c.Close() })
			ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
			defer cancel()
			return testClient(t, u, 1, nil).CreatePayout(ctx, payoutReq())
		}},
		tc{"context cancelled before writing", OutcomeRefused, false, func(t *testing.T) error {
			u, _ := rawListener(t, func(c net.Conn) { readRequest(c); c.Close() })
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return testClient(t, u, 1, nil).CreatePayout(ctx, payoutReq())
		}},
		tc{"context cancelled after writing", OutcomeUnknown, true, func(t *testing.T) error {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			u, _ := rawListener(t, func(c net.Conn) { readRequest(c); cancel(); time.Sleep(2 * time.Second); c.Close() })
			return testClient(t, u, 1, nil).CreatePayout(ctx, payoutReq())
		}},
	)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.send(t)
			a := Classify(err)
			if a.Outcome != c.outcome || a.Reached != c.reached {
				t.Fatalf("Classify(%v) = %s (reached %v), want %s (reached %v)", err, a.Outcome, a.Reached, c.outcome, c.reached)
			}
			var want string
			switch {
			case c.outcome == OutcomeAccepted:
				want = AdviceAccepted
			case c.outcome == OutcomeUnknown:
				want = AdviceUnknown
			case !c.reached:
				want = AdviceNotSent
			default:
				want = AdviceRefused
			}
			if a.Advice() != want {
				t.Errorf("advice %q, want %q", a.Advice(), want)
			}
			// A refusal never says the payout may exist.
			if a.Refused() && strings.Contains(a.Advice(), "may or may not") {
				t.Errorf("a refusal advises as if unknown: %q", a.Advice())
			}
		})
	}
}

// TestSendErrorClass: the pipeline's send error carries the answer's
// class for --json and is still the api error underneath.
func TestSendErrorClass(t *testing.T) {
	err := testClient(t, answering(t, 409, ProblemAccountDisabled), 1, nil).CreatePayout(context.Background(), payoutReq())
	se := &SendError{TransactionID: "x", Answer: Classify(err)}
	var ae *api.Error
	if ErrorClass(fmt.Errorf("wrapped: %w", se)) != ClassRefused || !errors.As(se, &ae) || ae.StatusCode != 409 || se.ErrorField() != "currency" {
		t.Fatalf("class %q, api error %v, field %q", ErrorClass(se), ae, se.ErrorField())
	}
	if strings.Contains(se.Error(), "may or may not") {
		t.Errorf("refusal reads as unknown: %s", se)
	}
}
