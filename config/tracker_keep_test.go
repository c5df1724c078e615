package config_test

import (
	"strings"
	"testing"

	"github.com/paydash/paydash/config"
)

// tracker_keep_final sets how many finished payouts of others the
// dashboard's tracker keeps: a default, a file value, an environment
// value over it, and a refusal of anything but a positive whole number.
func TestTrackerKeepFinal(t *testing.T) {
	cases := []struct {
		name string
		file string
		env  map[string]string
		want int
	}{
		{name: "default", want: config.DefaultTrackerKeepFinal},
		{name: "file", file: "tracker_keep_final = 250\n", want: 250},
		{name: "environment over file", file: "tracker_keep_final = 250\n", env: map[string]string{"PAYDASH_TRACKER_KEEP_FINAL": "40"}, want: 40},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := loadSetting(t, c.file, c.env)
			if err != nil {
				t.Fatal(err)
			}
			if p.TrackerKeepFinal != c.want {
				t.Errorf("TrackerKeepFinal = %d, want %d", p.TrackerKeepFinal, c.want)
			}
		})
	}
	for _, bad := range []struct{ file, want string }{
		{"tracker_keep_final = 0\n", "not a positive whole number"},
		{"tracker_keep_final = \"many\"\n", "must be a whole number"},
	} {
		if _, err := loadSetting(t, bad.file, nil); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q: error %v, want one saying %q", bad.file, err, bad.want)
		}
	}
}
