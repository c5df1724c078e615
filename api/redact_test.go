package api

import (
	"strings"
	"testing"
)

func TestRedactBodyReplacesWholeValuesOnly(t *testing.T) {
	const long = "sbx_secret_Zq3kP9vW2xLr"
	tests := []struct {
		name    string
		body    string
		secrets []string
		want    string
	}{
		{"one-character secret leaves words alone", `sandbox unavailable: try again`, []string{"x"}, `sandbox unavailable: try again`},
		{"one-character secret as a word", `unknown secret x`, []string{"x"}, `unknown secret [redacted]`},
		{"one-character secret in JSON", `{"detail":"x"}`, []string{"x"}, `{"detail":"[redacted]"}`},
		{"short secret inside a word is not hunted", `the sandbox said abcde-ish`, []string{"abc"}, `the sandbox said abcde-ish`},
		{"token as a word", `you sent Authorization=Bearer tok-1 ok`, []string{"tok-1"}, `you sent Authorization=Bearer [redacted] ok`},
		{"long secret inside a word: the whole word goes", `echo: xx` + long + `yy and more`, []string{long}, `echo: [redacted] and more`},
		{"secret with separators in it", `got a=b;c here`, []string{"a=b;c"}, `got [redacted] here`},
		{"several occurrences", long + " " + long, []string{long}, `[redacted] [redacted]`},
		{"credential field whatever its value", `{"client_secret": "something else", "error":"invalid_client"}`, nil, `{"client_secret": "[redacted]", "error":"invalid_client"}`},
		{"access token field with escapes", `{"access_token":"a\"b"}`, nil, `{"access_token":"[redacted]"}`},
		{"form echo", `grant_type=client_credentials&client_secret=hunter2&scope=payouts`, nil, `grant_type=client_credentials&client_secret=[redacted]&scope=payouts`},
		{"nothing to redact", `plain error`, []string{"", "zzzzzzzzzz"}, `plain error`},
	}
	for _, tc := range tests {
		got := string(redactBody([]byte(tc.body), tc.secrets...))
		if got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
	}
}

func TestRedactBodyDoesNotRevealPosition(t *testing.T) {
	// With the old substring replacement a one-character secret turned
	// "sandbox" into "sandbo[redacted]": the secret's place and value.
	got := string(redactBody([]byte(`sandbox: bad request`), "x"))
	if strings.Contains(got, "[redacted]") {
		t.Fatalf("got %q", got)
	}
}
