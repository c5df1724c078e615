package httpguard

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func mustGuard(t *testing.T, o Options) *Guard {
	t.Helper()
	g, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestCheckHostRefusesRebindingNames(t *testing.T) {
	loop := mustGuard(t, Options{Listen: "127.0.0.1:8080"})
	all := mustGuard(t, Options{Listen: "0.0.0.0:8787", AllowedHosts: []string{"relay.example.net:443"}})
	named := mustGuard(t, Options{Listen: "devbox.lan:8787"})
	tests := []struct {
		g    *Guard
		host string
		ok   bool
	}{
		{loop, "127.0.0.1:8080", true},
		{loop, "localhost:8080", true},
		{loop, "LOCALHOST.:8080", true},
		{loop, "app.localhost:8080", true},
		{loop, "[::1]:8080", true},
		{loop, "127.0.0.2", true},
		{loop, "", true},
		{loop, "attacker.example:8080", false},
		{loop, "localhost.attacker.example", false},
		{loop, "192.168.1.5:8080", false}, // not loopback, not the listen address
		{all, "192.168.1.5:8787", true},   // listening everywhere: any IP literal
		{all, "relay.example.net", true},
		{all, "evil.example.net", false},
		{named, "DevBox.lan:8787", true},
		{named, "other.lan:8787", false},
	}
	for _, tc := range tests {
		r := httptest.NewRequest(http.MethodGet, "/sandbox/deliveries", nil)
		r.Host = tc.host
		err := tc.g.CheckHost(r)
		if (err == nil) != tc.ok {
			t.Errorf("Host %q (listen %q): err=%v, want ok=%v", tc.host, tc.g.listenHost, err, tc.ok)
		}
		var rf *Refusal
		if err != nil && (!errors.As(err, &rf) || rf.Status != http.StatusMisdirectedRequest) {
			t.Errorf("Host %q: want a 421 Refusal, got %#v", tc.host, err)
		}
	}
}

func TestCheckOrigin(t *testing.T) {
	g := mustGuard(t, Options{Listen: "127.0.0.1:8787", AllowedOrigins: []string{"HTTPS://Dash.Example.com/"}})
	tests := []struct {
		name    string
		host    string
		headers map[string]string
		ok      bool
	}{
		{"program, no Origin", "127.0.0.1:8787", nil, true},
		{"same origin", "127.0.0.1:8787", map[string]string{"Origin": "http://127.0.0.1:8787"}, true},
		{"allowed origin", "127.0.0.1:8787", map[string]string{"Origin": "https://dash.example.com"}, true},
		{"foreign page", "127.0.0.1:8787", map[string]string{"Origin": "https://evil.example"}, false},
		{"other local port", "127.0.0.1:8787", map[string]string{"Origin": "http://127.0.0.1:3000"}, false},
		{"sandboxed iframe", "127.0.0.1:8787", map[string]string{"Origin": "null"}, false},
		{"cross-site without Origin", "127.0.0.1:8787", map[string]string{"Sec-Fetch-Site": "cross-site"}, false},
		{"user typed the URL", "127.0.0.1:8787", map[string]string{"Sec-Fetch-Site": "none"}, true},
	}
	for _, tc := range tests {
		r := httptest.NewRequest(http.MethodPost, "/webhooks", strings.NewReader("{}"))
		r.Host = tc.host
		for k, v := range tc.headers {
			r.Header.Set(k, v)
		}
		err := g.CheckOrigin(r)
		if (err == nil) != tc.ok {
			t.Errorf("%s: err=%v, want ok=%v", tc.name, err, tc.ok)
		}
		if err != nil && !strings.Contains(err.Error(), "https://dash.example.com") {
			t.Errorf("%s: the refusal should list the allowed origins: %v", tc.name, err)
		}
	}
}

func TestNewRejectsBadOrigins(t *testing.T) {
	for _, o := range []string{"dash.example.com", "https://dash.example.com/path", "ftp://x", "https://u:p@x"} {
		if _, err := New(Options{AllowedOrigins: []string{o}}); err == nil {
			t.Errorf("origin %q accepted", o)
		}
	}
	if _, err := New(Options{Listen: "no-port"}); err == nil {
		t.Error("a listen address without a port was accepted")
	}
}

func TestRequireJSON(t *testing.T) {
	tests := []struct {
		ct   string
		body string
		ok   bool
	}{
		{"application/json", `{}`, true},
		{"application/json; charset=UTF-8", `{}`, true},
		{"application/merge-patch+json", `{}`, true},
		{"text/plain", `{}`, false},
		{"application/x-www-form-urlencoded", `a=b`, false},
		{"multipart/form-data; boundary=x", `--x--`, false},
		{"", `{}`, false}, // a body without a type
		{"", ``, true},    // no body at all
		{"text/plain", ``, false},
		{"application/json-ish", `{}`, false},
	}
	for _, tc := range tests {
		r := httptest.NewRequest(http.MethodPost, "/sandbox/fund", strings.NewReader(tc.body))
		if tc.ct != "" {
			r.Header.Set("Content-Type", tc.ct)
		}
		err := RequireJSON(r)
		if (err == nil) != tc.ok {
			t.Errorf("Content-Type %q body %q: err=%v, want ok=%v", tc.ct, tc.body, err, tc.ok)
		}
		var rf *Refusal
		if err != nil && (!errors.As(err, &rf) || rf.Status != http.StatusUnsupportedMediaType) {
			t.Errorf("Content-Type %q: want 415, got %v", tc.ct, err)
		}
	}
}

func TestHandlerAnswersProblemJSON(t *testing.T) {
	g := mustGuard(t, Options{Listen: "127.0.0.1:0"})
	reached := 0
	srv := httptest.NewServer(g.Handler(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { reached++ }), nil))
	defer srv.Close()

	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/sandbox/accounts/GBP/status", strings.NewReader(`{"status":"disabled"}`))
	req.Header.Set("Origin", "https://evil.example")
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var p struct {
		Type   string `json:"type"`
		Status int    `json:"status"`
		Detail string `json:"detail"`
	}
	if resp.StatusCode != http.StatusForbidden || resp.Header.Get("Content-Type") != "application/problem+json" ||
		json.Unmarshal(body, &p) != nil || p.Status != 403 || !strings.HasSuffix(p.Type, "/forbidden_origin") {
		t.Fatalf("status %d %s: %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	if reached != 0 {
		t.Fatal("the refused request reached the handler")
	}

	req, _ = http.NewRequest(http.MethodGet, srv.URL+"/sandbox/deliveries", nil)
	req.Host = "rebound.attacker.example"
	resp, err = srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMisdirectedRequest || reached != 0 {
		t.Fatalf("rebinding Host: status %d, reached %d", resp.StatusCode, reached)
	}

	resp, err = srv.Client().Get(srv.URL + "/sandbox/deliveries")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || reached != 1 {
		t.Fatalf("a program's request: status %d, reached %d", resp.StatusCode, reached)
	}
}

func TestRefusalTruncatesHostileHeaders(t *testing.T) {
	g := mustGuard(t, Options{Listen: "127.0.0.1:1"})
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	r.Host = strings.Repeat("é", 5000) + ".example"
	err := g.CheckHost(r)
	if err == nil || len(err.Error()) > 400 {
		t.Fatalf("refusal of a 10 kB Host is %d bytes", len(err.Error()))
	}
}
