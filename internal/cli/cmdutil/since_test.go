package cmdutil

import (
	"strings"
	"testing"
	"time"
)

// TestParseSinceTakesWhatPeopleWrite: every command's --since reads the
// same forms, periods as people write them included.
func TestParseSinceTakesWhatPeopleWrite(t *testing.T) {
	now := time.Date(2026, 11, 25, 15, 30, 0, 0, time.UTC)
	for in, want := range map[string]time.Time{
		"7d":                   now.AddDate(0, 0, -7),
		"7 days":               now.AddDate(0, 0, -7),
		"7 days ago":           now.AddDate(0, 0, -7),
		"1 week":               now.AddDate(0, 0, -7),
		"2w":                   now.AddDate(0, 0, -14),
		"24h":                  now.Add(-24 * time.Hour),
		"36 hours":             now.Add(-36 * time.Hour),
		"1h30m":                now.Add(-90 * time.Minute),
		"1 day 12 hours":       now.Add(-36 * time.Hour),
		"today":                time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC),
		"yesterday":            time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC),
		"2026-11-01":           time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC),
		"2026-11-01 09:00":     time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC),
		"2026-11-01T09:00:00Z": time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC),
	} {
		got, err := ParseSince(in, now)
		if err != nil || !got.Equal(want) {
			t.Errorf("ParseSince(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"soon", "0d", "-3d", "7 fortnights", "2027-01-01", ""} {
		_, err := ParseSince(in, now)
		if err == nil {
			t.Errorf("ParseSince(%q): no error", in)
			continue
		}
		// The message says what is accepted.
		if !strings.Contains(err.Error(), "7d") {
			t.Errorf("ParseSince(%q): %v does not say what is accepted", in, err)
		}
	}
}

func TestHumanDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		168 * time.Hour:                "7 days",
		24 * time.Hour:                 "1 day",
		36 * time.Hour:                 "1 day 12 hours",
		10 * 24 * time.Hour:            "10 days",
		2 * time.Hour:                  "2 hours",
		90 * time.Second:               "1 minute 30 seconds",
		30 * time.Second:               "30 seconds",
		14 * 24 * time.Hour:            "14 days",
		time.Hour + 30*time.Minute + 0: "1 hour 30 minutes",
	} {
		if got := HumanDuration(d); got != want {
			t.Errorf("HumanDuration(%v) = %q, want %q", d, got, want)
		}
	}
}
