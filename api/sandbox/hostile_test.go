package sandbox

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/paydash/paydash/api"
)

// What a hostile web page in the user's browser could send to a sandbox
// on loopback, and what the sandbox must do with it: refuse, and change
// nothing.

func TestControlEndpointsRefuseBrowserRequests(t *testing.T) {
	e := newEnv(t, nil)
	before := e.balance("GBP")
	tests := []struct {
		name   string
		method string
		path   string
		header http.Header
		body   string
		status int
		slug   string
	}{
		{"foreign page disables an account", "POST", "/sandbox/accounts/GBP/status",
			http.Header{"Origin": {"https://evil.example"}, "Content-Type": {"application/json"}}, `{"status":"disabled"}`, 403, "forbidden_origin"},
		{"simple text/plain POST funds an account", "POST", "/sandbox/fund",
			http.Header{"Content-Type": {"text/plain"}}, `{"currency":"GBP","amount_in_minor":100,"payer_name":"x"}`, 415, "unsupported_media_type"},
		{"POST without a content type injects an event", "POST", "/sandbox/events",
			nil, `{"trigger":"payout_settled"}`, 415, "unsupported_media_type"},
		{"form post re-points the webhooks", "PUT", "/sandbox/webhook",
			http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}, `webhook_uri=http://evil.example/`, 415, "unsupported_media_type"},
		{"cross-site fetch without Origin", "POST", "/sandbox/fund",
			http.Header{"Sec-Fetch-Site": {"cross-site"}, "Content-Type": {"application/json"}}, `{"currency":"GBP","amount_in_minor":100,"payer_name":"x"}`, 403, "forbidden_origin"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := e.do(tc.method, tc.path, tc.header, []byte(tc.body))
			if r.status != tc.status || r.problem == nil || !strings.HasSuffix(r.problem.Type, "/"+tc.slug) {
				t.Fatalf("status %d, body %s; want %d %s", r.status, r.body, tc.status, tc.slug)
			}
		})
	}
	if after := e.balance("GBP"); after != before {
		t.Errorf("a refused request changed the account: %+v -> %+v", before, after)
	}
	if uri := e.srv.WebhookURI(); strings.Contains(uri, "evil") {
		t.Errorf("webhook URI changed to %s", uri)
	}
	if n := len(e.srv.Deliveries()); n != 0 {
		t.Errorf("%d deliveries after refused injections", n)
	}
	// The sandbox's own client, curl, and a same-origin page still work.
	ok := e.do("POST", "/sandbox/accounts/GBP/status", http.Header{"Content-Type": {"application/json"}, "Origin": {e.srv.URL}}, []byte(`{"status":"enabled"}`))
	if ok.status != 200 {
		t.Fatalf("same-origin request: %d %s", ok.status, ok.body)
	}
}

func TestSandboxRefusesRebindingHost(t *testing.T) {
	e := newEnv(t, func(o *Options) { o.AllowedHosts = []string{"DevBox.lan"} })
	for _, host := range []string{"rebind.attacker.example", "attacker.example:" + strings.Split(e.srv.URL, ":")[2]} {
		req, _ := http.NewRequest(http.MethodGet, e.srv.URL+"/sandbox/deliveries", nil)
		req.Host = host
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusMisdirectedRequest || strings.Contains(string(body), "results") {
			t.Errorf("Host %s: status %d, body %s", host, resp.StatusCode, body)
		}
	}
	for _, host := range []string{"localhost", strings.TrimPrefix(e.srv.URL, "http://"), "devbox.lan:8080"} {
		req, _ := http.NewRequest(http.MethodGet, e.srv.URL+"/sandbox/deliveries", nil)
		req.Host = host
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("Host %s: status %d", host, resp.StatusCode)
		}
	}
}

func TestSandboxCutsOffSlowBodies(t *testing.T) {
	e := newEnv(t, func(o *Options) {
		o.Timeouts = Timeouts{Read: 300 * time.Millisecond, ReadHeader: 200 * time.Millisecond}
	})
	conn, err := net.Dial("tcp", strings.TrimPrefix(e.srv.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// Promise a body and send one byte of it, then nothing.
	_, err = io.WriteString(conn, "POST /sandbox/fund HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{")
	if err != nil {
		t.Fatal(err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	start := time.Now()
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err == nil {
		_, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("the connection was still open after %s", time.Since(start).Round(time.Millisecond))
	}
	// Either an error answer or a closed connection; both end the request.
	if resp != nil && resp.StatusCode < 400 {
		t.Fatalf("a request whose body never came got %d", resp.StatusCode)
	}
}

func TestSandboxServerHasEveryTimeout(t *testing.T) {
	e := newEnv(t, nil)
	s := e.srv.srv
	if s.ReadHeaderTimeout <= 0 || s.ReadTimeout <= 0 || s.WriteTimeout <= 0 || s.IdleTimeout <= 0 || s.MaxHeaderBytes <= 0 {
		t.Fatalf("timeouts: header %s read %s write %s idle %s, max header %d",
			s.ReadHeaderTimeout, s.ReadTimeout, s.WriteTimeout, s.IdleTimeout, s.MaxHeaderBytes)
	}
}

func TestSandboxCapsStringLengths(t *testing.T) {
	e := newEnv(t, nil)
	tok := e.token(api.ScopePayouts)
	p := payout("GBP", 100)
	p.BeneficiaryName = strings.Repeat("A", 900<<10)
	body, _ := json.Marshal(p)
	r := e.signedPost("/v1/payouts", api.HeaderPayoutSignature, tok, "", body, e.key)
	if r.status != 400 || r.problem == nil || len(r.problem.Errors["beneficiary_name"]) == 0 {
		t.Fatalf("900 KiB beneficiary_name: status %d, %s", r.status, truncateForLog(r.body))
	}
	if len(r.body) > 2000 {
		t.Errorf("the answer echoes the name: %d bytes", len(r.body))
	}

	r = e.control("POST", "/sandbox/fund", map[string]any{"currency": "GBP", "amount_in_minor": 100, "payer_name": strings.Repeat("P", api.MaxNameLen+1)})
	if r.status != 400 || r.problem == nil || len(r.problem.Errors["payer_name"]) == 0 {
		t.Fatalf("long payer_name: status %d, %s", r.status, truncateForLog(r.body))
	}
	r = e.control("POST", "/sandbox/events", map[string]any{"trigger": "payout_failed", "reason": strings.Repeat("r", 300)})
	if r.status != 400 || r.problem == nil || len(r.problem.Errors["reason"]) == 0 {
		t.Fatalf("long trigger reason: status %d, %s", r.status, truncateForLog(r.body))
	}
	r = e.do("POST", "/sandbox/events", http.Header{"Content-Type": {"application/json"}}, []byte(`{"x":"`+strings.Repeat("b", maxBody)+`"}`))
	if r.status != http.StatusRequestEntityTooLarge {
		t.Fatalf("body over %d bytes: status %d", maxBody, r.status)
	}
}

func TestReportRefusesDatesOutsideItsRange(t *testing.T) {
	e := newEnv(t, nil)
	tok := e.token(api.ScopePayouts)
	for _, q := range []string{"from=1600-01-01", "to=2263-01-01", "from=1677-09-21T00:00:00Z", "to=9999-12-31T23:59:59Z"} {
		r := e.do("GET", "/v1/transactions?"+q, http.Header{"Authorization": {"Bearer " + tok}}, nil)
		field, _, _ := strings.Cut(q, "=")
		if r.status != 400 || r.problem == nil || len(r.problem.Errors[field]) == 0 || !strings.Contains(r.problem.Errors[field][0], "1678") {
			t.Errorf("%s: status %d, %s", q, r.status, r.body)
		}
	}
	for _, q := range []string{"from=1678-01-01", "to=2261-12-31"} {
		if r := e.do("GET", "/v1/transactions?"+q, http.Header{"Authorization": {"Bearer " + tok}}, nil); r.status != 200 {
			t.Errorf("%s: status %d, %s", q, r.status, r.body)
		}
	}
}

func truncateForLog(b []byte) string {
	if len(b) > 300 {
		return string(b[:300]) + "…"
	}
	return string(b)
}
