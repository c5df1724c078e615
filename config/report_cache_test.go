package config_test

import (
	"strings"
	"testing"
)

// report_cache keeps the report on disk unless a profile says false: a
// default, a file value, an environment value over it, and a refusal of
// anything but a boolean.
func TestReportCache(t *testing.T) {
	cases := []struct {
		name string
		file string
		env  map[string]string
		want bool
	}{
		{name: "default", want: true},
		{name: "file", file: "report_cache = false\n", want: false},
		{name: "environment over file", file: "report_cache = false\n", env: map[string]string{"PAYDASH_REPORT_CACHE": "true"}, want: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := loadSetting(t, c.file, c.env)
			if err != nil {
				t.Fatal(err)
			}
			if p.ReportCache != c.want {
				t.Errorf("ReportCache = %t, want %t", p.ReportCache, c.want)
			}
		})
	}
	for _, bad := range []struct{ file, want string }{
		{"report_cache = \"no\"\n", "must be true or false"},
		{"report_cache = 0\n", "must be true or false"},
	} {
		if _, err := loadSetting(t, bad.file, nil); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q: error %v, want one saying %q", bad.file, err, bad.want)
		}
	}
}
