package suggest

import "testing"

func TestNearest(t *testing.T) {
	names := []string{"base_url", "payouts_url", "auth_url", "relay_url"}
	for _, tc := range []struct {
		in, want string
	}{
		{"base_ur", "base_url"},  // one edit
		{"bsae_url", "base_url"}, // two edits
		{"payout_url", "payouts_url"},
		{"colour", ""},             // nothing near
		{"relay_url", "relay_url"}, // itself
	} {
		if got := Nearest(tc.in, names, 2); got != tc.want {
			t.Errorf("Nearest(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if d := Distance("kitten", "sitting"); d != 3 {
		t.Errorf("Distance(kitten, sitting) = %d, want 3", d)
	}
}
