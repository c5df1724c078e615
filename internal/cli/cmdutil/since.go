package cmdutil

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ParseSince reads the start of a look-back window the way people write
// it, the one reading of --since for every command:
//
//   - a period back from now: 7d, 24h, 2w, 90m, 1h30m, "7 days",
//     "3 hours ago", "1 week";
//   - today or yesterday (local midnight);
//   - a time: 2026-11-01 (local midnight), 2026-11-01 09:00,
//     2026-11-01T09:00:00Z (RFC 3339).
func ParseSince(s string, now time.Time) (time.Time, error) {
	in := strings.TrimSpace(s)
	v := strings.ToLower(in)
	switch v {
	case "today":
		y, m, d := now.Date()
		return time.Date(y, m, d, 0, 0, 0, 0, now.Location()), nil
	case "yesterday":
		y, m, d := now.AddDate(0, 0, -1).Date()
		return time.Date(y, m, d, 0, 0, 0, 0, now.Location()), nil
	}
	if t, ok := parseTime(in, now.Location()); ok {
		if t.After(now) {
			return time.Time{}, fmt.Errorf("--since %q is in the future; give a time before now, or a period such as 7d", s)
		}
		return t, nil
	}
	if d, ok := ParsePeriod(v); ok {
		if d <= 0 {
			return time.Time{}, fmt.Errorf("--since %q: want a period longer than zero, such as 7d or \"7 days\"", s)
		}
		return now.Add(-d), nil
	}
	return time.Time{}, fmt.Errorf("--since %q: want a period such as 7d, 24h, 2w or \"7 days\", today, or a time such as 2026-11-01 or 2026-11-01T09:00:00Z", s)
}

// sinceLayouts are the times --since takes, tried in order.
var sinceLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02 15:04:05", "2006-01-02 15:04", time.DateOnly}

func parseTime(s string, loc *time.Location) (time.Time, bool) {
	for _, layout := range sinceLayouts {
		if t, err := time.ParseInLocation(layout, s, loc); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// periodUnits are the units a period is written in, by every name.
var periodUnits = map[string]time.Duration{
	"s": time.Second, "sec": time.Second, "secs": time.Second, "second": time.Second, "seconds": time.Second,
	"m": time.Minute, "min": time.Minute, "mins": time.Minute, "minute": time.Minute, "minutes": time.Minute,
	"h": time.Hour, "hr": time.Hour, "hrs": time.Hour, "hour": time.Hour, "hours": time.Hour,
	"d": 24 * time.Hour, "day": 24 * time.Hour, "days": 24 * time.Hour,
	"w": 7 * 24 * time.Hour, "wk": 7 * 24 * time.Hour, "week": 7 * 24 * time.Hour, "weeks": 7 * 24 * time.Hour,
}

// ParsePeriod reads a length of time as people write it: "7d", "7 days",
// "2w", "36h", "1h30m", "3 hours ago", "1 day 12 hours". A negative or
// zero period is returned as such for the caller to refuse.
func ParsePeriod(s string) (time.Duration, bool) {
	s = strings.TrimSpace(strings.ToLower(s))
	s = strings.TrimSpace(strings.TrimSuffix(s, "ago"))
	if s == "" {
		return 0, false
	}
	if d, err := time.ParseDuration(s); err == nil {
		return d, true
	}
	// Split into number and unit tokens: "7d" -> 7 d, "1 day 12 hours".
	var total time.Duration
	rest := strings.ReplaceAll(s, ",", " ")
	rest = strings.ReplaceAll(rest, " and ", " ")
	seen := false
	for rest = strings.TrimSpace(rest); rest != ""; rest = strings.TrimSpace(rest) {
		i := 0
		for i < len(rest) && (rest[i] >= '0' && rest[i] <= '9' || (i == 0 && rest[i] == '-')) {
			i++
		}
		n, err := strconv.Atoi(rest[:i])
		if err != nil {
			return 0, false
		}
		rest = strings.TrimSpace(rest[i:])
		j := 0
		for j < len(rest) && rest[j] >= 'a' && rest[j] <= 'z' {
			j++
		}
		unit, ok := periodUnits[rest[:j]]
		if !ok {
			return 0, false
		}
		total += time.Duration(n) * unit
		rest = rest[j:]
		seen = true
	}
	return total, seen
}

// HumanDuration writes d as people say it: "7 days", "2 hours",
// "1 day 12 hours", "1 minute 30 seconds", never "168h0m0s".
func HumanDuration(d time.Duration) string {
	if d < 0 {
		return "-" + HumanDuration(-d)
	}
	if d < time.Second {
		return d.String()
	}
	parts := []struct {
		unit time.Duration
		name string
	}{{24 * time.Hour, "day"}, {time.Hour, "hour"}, {time.Minute, "minute"}, {time.Second, "second"}}
	var out []string
	for _, p := range parts {
		if n := d / p.unit; n > 0 {
			name := p.name
			if n != 1 {
				name += "s"
			}
			out = append(out, fmt.Sprintf("%d %s", n, name))
			d -= n * p.unit
		}
	}
	return strings.Join(out, " ")
}
