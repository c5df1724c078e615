package httptrace

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

const (
	secret    = "s3cr3t-client-secret"
	token     = "eyJ-access-token-value"
	signature = "eyJhbGciOiJFUzUxMiJ9..sig"
	resource  = "resource-token-value"
)

// What --debug prints names every exchange and never a secret.
func TestTraceShowsEachExchangeAndNoSecret(t *testing.T) {
	big := strings.Repeat("x", 3*BodyLimit)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/connect/token":
			if err := r.ParseForm(); err != nil || r.PostForm.Get("client_secret") != secret {
				http.Error(w, "bad secret", http.StatusUnauthorized)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"access_token":"`+token+`","expires_in":3600,"nested":{"resource_token":"`+resource+`"}}`)
		case "/v1/payouts":
			if r.Header.Get("X-Svc-Signature") != signature || r.Header.Get("Authorization") != "Bearer "+token {
				http.Error(w, "unsigned", http.StatusUnauthorized)
				return
			}
			w.WriteHeader(http.StatusAccepted)
		case "/v1/transactions":
			_, _ = io.WriteString(w, big)
		}
	}))
	defer srv.Close()
	var trace bytes.Buffer
	c := Wrap(srv.Client(), &trace)

	form := url.Values{"grant_type": {"client_credentials"}, "client_id": {"merchant"}, "client_secret": {secret}}
	resp, err := c.PostForm(srv.URL+"/connect/token", form)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), token) {
		t.Fatalf("the caller must still read the token: %s", body)
	}
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/v1/payouts?access_token="+token, strings.NewReader(`{"amount_in_minor":12550}`))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("X-Svc-Signature", signature)
	req.Header.Set("Content-Type", "application/json")
	resp, err = c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("payout: %d (the request must reach the server unchanged)", resp.StatusCode)
	}
	resp, err = c.Get(srv.URL + "/v1/transactions")
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if len(got) != len(big) {
		t.Fatalf("read %d bytes of the report, want %d", len(got), len(big))
	}

	out := trace.String()
	for _, s := range []string{secret, token, signature, resource} {
		if strings.Contains(out, s) {
			t.Errorf("the trace shows a secret %q:\n%s", s, out)
		}
	}
	for _, want := range []string{
		"> POST " + srv.URL + "/connect/token",
		"client_id=merchant", "client_secret=%5Bredacted%5D",
		`"access_token":"[redacted]"`, `"resource_token":"[redacted]"`, `"expires_in":3600`,
		"> Authorization: [redacted]", "> X-Svc-Signature: [redacted]",
		`{"amount_in_minor":12550}`,
		"< 202 Accepted", "< 200 OK",
		"…\n< (6144 bytes read)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the trace lacks %q:\n%s", want, out)
		}
	}
}

func TestRedactBodyCutInsideASecret(t *testing.T) {
	body := []byte(`{"id":"p1","access_token":"` + strings.Repeat("a", 100) + `"}`)
	got := RedactBody("application/json", body, 40)
	if strings.Contains(got, "aaaa") || !strings.HasSuffix(got, Redacted+"…") {
		t.Fatalf("RedactBody = %q", got)
	}
}

// An answer cannot drive the terminal it is traced to: its control
// characters are shown escaped.
func TestTraceEscapesWhatTheWireSends(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, "{\"detail\":\"\x1b[2J cleared \x1b]52;c;aGk=\x07\"}")
	}))
	defer srv.Close()
	var trace bytes.Buffer
	resp, err := Wrap(srv.Client(), &trace).Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if strings.ContainsRune(trace.String(), 0x1b) || strings.ContainsRune(trace.String(), 0x07) {
		t.Fatalf("the trace passes control characters through: %q", trace.String())
	}
	if !strings.Contains(trace.String(), "cleared") {
		t.Fatalf("the body is not traced: %q", trace.String())
	}
}
