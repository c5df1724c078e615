package bearer_test

import (
	"net/http/httptest"
	"testing"

	"github.com/paydash/paydash/internal/platform/bearer"
)

func TestFromHeader(t *testing.T) {
	for _, tc := range []struct {
		header string
		token  string
		ok     bool
	}{
		{"Bearer abc", "abc", true},
		{"bearer abc", "abc", true},
		{"BEARER  abc \t", "abc", true},
		{"Bearer    ", "", true}, // a bearer credential, empty
		{"Bearer ", "", false},   // nothing after the scheme
		{"Bearer", "", false},
		{"Basic YWxhZGRpbjpvcGVuc2VzYW1l", "", false},
		{"Bearerabc", "", false},
		{"", "", false},
	} {
		token, ok := bearer.FromHeader(tc.header)
		if token != tc.token || ok != tc.ok {
			t.Errorf("FromHeader(%q) = %q, %v; want %q, %v", tc.header, token, ok, tc.token, tc.ok)
		}
	}
	req := httptest.NewRequest("GET", "/ws?token=inurl", nil)
	if token, ok := bearer.FromRequest(req); token != "" || ok {
		t.Errorf("a request without the header: %q, %v; the URL's token is not a bearer header", token, ok)
	}
	req.Header.Set("Authorization", "Bearer s3cret")
	if token, ok := bearer.FromRequest(req); token != "s3cret" || !ok {
		t.Errorf("FromRequest = %q, %v", token, ok)
	}
}

func TestMatches(t *testing.T) {
	want := bearer.Sum("s3cret")
	for got, match := range map[string]bool{
		"s3cret":  true,
		"s3cret ": false,
		"s3cre":   false,
		"S3CRET":  false,
		"":        false,
	} {
		if bearer.Matches(got, want) != match {
			t.Errorf("Matches(%q) = %v, want %v", got, !match, match)
		}
	}
}
