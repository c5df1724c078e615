package api

import (
	"fmt"
	"strings"
	"time"
)

// ReportTimeLayout is the transaction report's timestamp: UTC, seven
// fractional digits, trailing Z (e.g. 2024-03-01T10:15:30.1234567Z).
const ReportTimeLayout = "2006-01-02T15:04:05.0000000Z"

// ReportTime is a transaction-report timestamp. It marshals with exactly
// seven fractional digits and parses them exactly (100 ns resolution);
// its zero value means "not reached" and is omitted with omitzero.
type ReportTime struct{ time.Time }

// NewReportTime truncates t to the report's 100 ns resolution in UTC.
func NewReportTime(t time.Time) ReportTime {
	return ReportTime{t.UTC().Truncate(100 * time.Nanosecond)}
}

// String formats the time in the report layout.
func (t ReportTime) String() string { return t.UTC().Format(ReportTimeLayout) }

// ParseReportTime parses a report timestamp, insisting on the exact layout.
func ParseReportTime(s string) (ReportTime, error) {
	if len(s) != len(ReportTimeLayout) || !strings.HasSuffix(s, "Z") {
		return ReportTime{}, fmt.Errorf("timestamp %q: want YYYY-MM-DDTHH:MM:SS.fffffffZ (seven fractional digits, UTC)", s)
	}
	t, err := time.Parse(ReportTimeLayout, s)
	if err != nil {
		return ReportTime{}, fmt.Errorf("timestamp %q: want YYYY-MM-DDTHH:MM:SS.fffffffZ: %w", s, err)
	}
	return ReportTime{t}, nil
}

// MarshalJSON writes the report layout.
func (t ReportTime) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, len(ReportTimeLayout)+2)
	b = append(b, '"')
	b = t.UTC().AppendFormat(b, ReportTimeLayout)
	return append(b, '"'), nil
}

// UnmarshalJSON reads the report layout exactly.
func (t *ReportTime) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*t = ReportTime{}
		return nil
	}
	if len(b) < 2 || b[0] != '"' || b[len(b)-1] != '"' {
		return fmt.Errorf("timestamp %s: not a string", b)
	}
	p, err := ParseReportTime(string(b[1 : len(b)-1]))
	if err != nil {
		return err
	}
	*t = p
	return nil
}

// MandateTimeLayout is how paydash writes constraints.valid_from/valid_to:
// the sample's form, UTC with a dot before three millisecond digits.
const MandateTimeLayout = "2006-01-02T15:04:05.000Z"

// FormatMandateTime writes t in MandateTimeLayout.
func FormatMandateTime(t time.Time) string { return t.UTC().Format(MandateTimeLayout) }

// ParseMandateTime reads a mandate validity time. It accepts the sample's
// dot form and the stated pattern's colon form (HH:mm:ss:sssZ), since the
// document gives both, and any RFC 3339 time.
func ParseMandateTime(s string) (time.Time, error) {
	if t, err := time.Parse(MandateTimeLayout, s); err == nil {
		return t, nil
	}
	// The colon form: Go reads fractional seconds only after '.' or ',',
	// so turn "HH:mm:ss:sssZ" into "HH:mm:ss.sssZ" before parsing.
	if len(s) == len(MandateTimeLayout) && s[19] == ':' {
		if t, err := time.Parse(MandateTimeLayout, s[:19]+"."+s[20:]); err == nil {
			return t, nil
		}
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t.UTC(), nil
	}
	return time.Time{}, fmt.Errorf("%q is not a UTC date-time like 2025-01-31T09:30:00.000Z", s)
}

// WebhookTimeLayout is how the sandbox writes X-Svc-Webhook-Timestamp and
// event timestamps: RFC 3339 UTC with milliseconds.
const WebhookTimeLayout = "2006-01-02T15:04:05.000Z07:00"
