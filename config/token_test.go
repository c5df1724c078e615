package config

import (
	"errors"
	"strings"
	"testing"
)

func TestCheckToken(t *testing.T) {
	tests := []struct {
		token string
		ok    bool
		why   string
	}{
		{"Zq3kP9vW2xLr8TnY", true, ""},
		{"tok_" + strings.Repeat("a", 40), true, ""},
		{"", false, "fewer than 16"},
		{"x", false, "fewer than 16"},
		{"short-token", false, "fewer than 16"},
		{"                    ", false, "whitespace"},
		{"Zq3kP9vW2xLr8TnY with space", false, "whitespace"},
		{"Zq3kP9vW2xLr8TnY\n", false, "whitespace"},
		{"Zq3kP9vW2xLr8TnY\x00", false, "control"},
		{"Zq3kP9vW2xLr8Tn\xff", false, "UTF-8"},
	}
	for _, tc := range tests {
		err := CheckToken(tc.token)
		if (err == nil) != tc.ok {
			t.Errorf("CheckToken(%q) = %v, want ok=%v", tc.token, err, tc.ok)
			continue
		}
		if err == nil {
			continue
		}
		if !errors.Is(err, ErrWeakToken) || !strings.Contains(err.Error(), tc.why) {
			t.Errorf("CheckToken(%q) = %v, want ErrWeakToken saying %q", tc.token, err, tc.why)
		}
		if strings.TrimSpace(tc.token) != "" && strings.Contains(err.Error(), strings.TrimSpace(tc.token)) {
			t.Errorf("the error shows the token: %v", err)
		}
	}
}
