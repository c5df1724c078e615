package config

import (
	"regexp"
	"testing"
)

// TestTemplateExplainsEveryKey keeps the template in step with the keys
// Load accepts: each appears, set or commented out, with a comment above.
func TestTemplateExplainsEveryKey(t *testing.T) {
	for _, key := range keyNames() {
		re := regexp.MustCompile(`(?m)^(# )?` + key + ` = |^\[profiles\.sandbox\.` + key + `\]`)
		if !re.MatchString(template) {
			t.Errorf("template does not show key %s", key)
		}
	}
}

func TestSuggestKey(t *testing.T) {
	tests := []struct{ in, want string }{
		{"bse_url", "base_url"},
		{"client_secrte", "client_secret"},
		{"relay_tokn", "relay_token"},
		{"colour", ""},
		{"base_url", "base_url"},
	}
	for _, tt := range tests {
		if got := suggestKey(tt.in, keyNames()); got != tt.want {
			t.Errorf("suggestKey(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
