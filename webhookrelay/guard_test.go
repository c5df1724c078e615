package webhookrelay

import (
	"net/http"
	"testing"
)

// TestRequestsOnlyABrowserWouldMakeAreRefused: a web page open in the
// user's browser can post to a relay on localhost; the relay must refuse
// what only such a page sends and store nothing from it.
func TestRequestsOnlyABrowserWouldMakeAreRefused(t *testing.T) {
	tr := startRelay(t, Config{AllowedOrigins: []string{"https://dash.example.com"}, AllowedHosts: []string{"relay.example.net"}})
	body := paymentsWebhook("page-1", "payout_executed", "po", nil)
	cases := []struct {
		name   string
		header http.Header
		host   string
		want   int
		reason string
	}{
		// A cross-origin text/plain POST needs no preflight: the browser
		// just sends it.
		{"cross-origin text/plain", http.Header{"Content-Type": {"text/plain"}, "Origin": {"https://evil.example"}}, "", 403, RejectOrigin},
		{"text/plain without Origin", http.Header{"Content-Type": {"text/plain;charset=UTF-8"}}, "", 415, RejectNotJSONType},
		{"form post", http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}, "", 415, RejectNotJSONType},
		{"foreign Origin with JSON", http.Header{"Content-Type": {"application/json"}, "Origin": {"https://evil.example"}}, "", 403, RejectOrigin},
		{"cross-site fetch metadata", http.Header{"Content-Type": {"application/json"}, "Sec-Fetch-Site": {"cross-site"}}, "", 403, RejectOrigin},
		{"DNS-rebinding Host", http.Header{"Content-Type": {"application/json"}}, "evil.example:8787", 421, RejectHost},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodPost, tr.base+DefaultPath, bytesReader(body))
			req.Header = tc.header
			if tc.host != "" {
				req.Host = tc.host
			}
			resp := doReq(t, req)
			if resp.status != tc.want || resp.problem(t).Reason != tc.reason {
				t.Fatalf("%d %s, want %d %s", resp.status, resp.body, tc.want, tc.reason)
			}
		})
	}
	if got := tr.history(t, ""); len(got) != 0 {
		t.Fatalf("refused requests stored %d events", len(got))
	}
	if m := tr.Metrics(); m.Rejected[RejectNotJSONType] != 2 || m.Rejected[RejectOrigin] != 3 || m.Rejected[RejectHost] != 1 {
		t.Errorf("rejections counted %v", m.Rejected)
	}
	// The reading endpoints refuse a rebinding Host and a foreign Origin too.
	for _, path := range []string{"/events", "/healthz", "/metrics"} {
		req, _ := http.NewRequest(http.MethodGet, tr.base+path, nil)
		req.Host = "evil.example"
		if resp := doReq(t, req); resp.status != http.StatusMisdirectedRequest {
			t.Errorf("GET %s with Host evil.example: %d", path, resp.status)
		}
		req, _ = http.NewRequest(http.MethodGet, tr.base+path, nil)
		req.Header.Set("Origin", "https://evil.example")
		if resp := doReq(t, req); resp.status != http.StatusForbidden {
			t.Errorf("GET %s with a foreign Origin: %d", path, resp.status)
		}
	}
	// Programs, allowed origins and allowed host names pass.
	ok := []struct {
		id     string
		header http.Header
		host   string
	}{
		{"prog-1", http.Header{"Content-Type": {"application/json"}}, ""},
		{"prog-2", http.Header{"Content-Type": {"application/json; charset=utf-8"}}, "localhost"},
		{"prog-3", http.Header{"Content-Type": {"application/json"}, "Origin": {"https://dash.example.com"}}, ""},
		{"prog-4", http.Header{"Content-Type": {"application/json"}}, "relay.example.net"},
	}
	for _, o := range ok {
		req, _ := http.NewRequest(http.MethodPost, tr.base+DefaultPath, bytesReader(paymentsWebhook(o.id, "payout_executed", "po", nil)))
		req.Header = o.header
		if o.host != "" {
			req.Host = o.host
		}
		if resp := doReq(t, req); resp.status != http.StatusOK {
			t.Errorf("%s: %d %s", o.id, resp.status, resp.body)
		}
	}
}

// TestEveryServerTimeoutIsSet: a client that sends its headers or body
// slowly, reads slowly or idles must not hold a connection for ever.
func TestEveryServerTimeoutIsSet(t *testing.T) {
	tr := startRelay(t, Config{})
	srv := tr.httpServer()
	for name, d := range map[string]any{
		"ReadHeaderTimeout": srv.ReadHeaderTimeout, "ReadTimeout": srv.ReadTimeout,
		"WriteTimeout": srv.WriteTimeout, "IdleTimeout": srv.IdleTimeout,
	} {
		if d.(interface{ Seconds() float64 }).Seconds() <= 0 {
			t.Errorf("%s is not set", name)
		}
	}
	if srv.MaxHeaderBytes <= 0 || srv.MaxHeaderBytes > 1<<20 {
		t.Errorf("MaxHeaderBytes %d", srv.MaxHeaderBytes)
	}
}
