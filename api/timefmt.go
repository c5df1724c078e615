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

// AppendReportTime appends t in ReportTimeLayout
// ("2006-01-02T15:04:05.0000000Z") with hand-placed digits: three
// timestamps a row make time.Format most of the time of writing a report
// (the sandbox serving one, an export writing one).
func AppendReportTime(b []byte, t ReportTime) []byte {
	// Years 1700 to 2200: well inside UnixNano's range.
	if sec := t.Unix(); sec < -8_520_336_000 || sec > 7_258_118_400 {
		return t.UTC().AppendFormat(b, ReportTimeLayout)
	}
	ns := t.UnixNano()
	secs := ns / 1e9
	frac := ns % 1e9
	if frac < 0 {
		secs--
		frac += 1e9
	}
	days := secs / 86400
	rem := secs % 86400
	if rem < 0 {
		days--
		rem += 86400
	}
	y, m, d := civil(days)
	b = append2(append2(b, y/100), y%100)
	b = append2(append(b, '-'), m)
	b = append2(append(b, '-'), d)
	b = append2(append(b, 'T'), int(rem/3600))
	b = append2(append(b, ':'), int(rem/60%60))
	b = append2(append(b, ':'), int(rem%60))
	f := int(frac / 100)
	b = append(b, '.', byte('0'+f/1_000_000))
	b = append2(b, f/10_000%100)
	b = append2(b, f/100%100)
	b = append2(b, f%100)
	return append(b, 'Z')
}

// civil converts days since 1970-01-01 to a date (Howard Hinnant's
// days_from_civil, inverted).
func civil(days int64) (year, month, day int) {
	z := days + 719468
	era := z / 146097
	if z < 0 && z%146097 != 0 {
		era = (z - 146096) / 146097
	}
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	y := yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d := doy - (153*mp+2)/5 + 1
	m := mp + 3
	if m > 12 {
		m -= 12
	}
	if m <= 2 {
		y++
	}
	return int(y), int(m), int(d)
}

const pairs = "00010203040506070809101112131415161718192021222324252627282930313233343536373839" +
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879" +
	"8081828384858687888990919293949596979899"

func append2(b []byte, v int) []byte { return append(b, pairs[2*v], pairs[2*v+1]) }
