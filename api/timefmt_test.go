package api_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/paydash/paydash/api"
)

func TestReportTimeRoundTripExact(t *testing.T) {
	tests := []struct {
		in   string
		nsec int
	}{
		{"2024-03-01T10:15:30.1234567Z", 123456700},
		{"2024-03-01T10:15:30.0000000Z", 0},
		{"2024-03-01T10:15:30.0000001Z", 100},
		{"1999-12-31T23:59:59.9999999Z", 999999900},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			rt, err := api.ParseReportTime(tt.in)
			if err != nil {
				t.Fatalf("ParseReportTime: %v", err)
			}
			if rt.Nanosecond() != tt.nsec {
				t.Errorf("nanoseconds = %d, want %d", rt.Nanosecond(), tt.nsec)
			}
			if got := rt.String(); got != tt.in {
				t.Errorf("String() = %q, want %q", got, tt.in)
			}
			quoted := `"` + tt.in + `"`
			var viaJSON api.ReportTime
			if err := json.Unmarshal([]byte(quoted), &viaJSON); err != nil {
				t.Fatalf("UnmarshalJSON: %v", err)
			}
			out, err := json.Marshal(viaJSON)
			if err != nil {
				t.Fatalf("MarshalJSON: %v", err)
			}
			if string(out) != quoted {
				t.Errorf("JSON round trip = %s, want %s (byte-identical)", out, quoted)
			}
		})
	}
}

func TestReportTimeRejectsOtherLayouts(t *testing.T) {
	tests := []struct{ name, in string }{
		{"six fractional digits", "2024-03-01T10:15:30.123456Z"},
		{"eight fractional digits", "2024-03-01T10:15:30.12345678Z"},
		{"no fraction", "2024-03-01T10:15:30Z"},
		{"missing Z", "2024-03-01T10:15:30.1234567"},
		{"offset instead of Z", "2024-03-01T10:15:30.1234567+00:00"},
		{"lower-case z", "2024-03-01T10:15:30.1234567z"},
		{"space separator", "2024-03-01 10:15:30.1234567Z"},
		{"month 13", "2024-13-01T10:15:30.1234567Z"},
		{"empty", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if rt, err := api.ParseReportTime(tt.in); err == nil {
				t.Errorf("ParseReportTime(%q) = %v, want an error", tt.in, rt)
			}
			var rt api.ReportTime
			if err := json.Unmarshal([]byte(`"`+tt.in+`"`), &rt); err == nil {
				t.Errorf("UnmarshalJSON(%q) = %v, want an error", tt.in, rt)
			}
		})
	}
	var rt api.ReportTime
	if err := json.Unmarshal([]byte(`1709288130`), &rt); err == nil {
		t.Errorf("UnmarshalJSON of a number = %v, want an error", rt)
	}
}

func TestNewReportTimeTruncatesToUTC100ns(t *testing.T) {
	zone := time.FixedZone("CEST", 2*60*60)
	in := time.Date(2024, 3, 1, 12, 15, 30, 123456789, zone)
	got := api.NewReportTime(in).String()
	if want := "2024-03-01T10:15:30.1234567Z"; got != want {
		t.Errorf("NewReportTime(%v) = %s, want %s", in, got, want)
	}
}

func TestReportTimeZeroOmittedInTransaction(t *testing.T) {
	authorised, err := api.ParseReportTime("2024-03-01T10:15:30.1234567Z")
	if err != nil {
		t.Fatal(err)
	}
	tx := api.Transaction{TransactionID: "d9c1e5a4-8b2f-4c3d-9e7a-6f5b4a3c2d1e", Type: api.TransactionPayout, AuthorisedAt: authorised, Status: api.StateAuthorised}
	b, err := json.Marshal(tx)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if got := m["authorised_at"]; got != "2024-03-01T10:15:30.1234567Z" {
		t.Errorf("authorised_at = %v, want the seven-digit timestamp", got)
	}
	for _, k := range []string{"submitted_at", "settled_at"} {
		if v, ok := m[k]; ok {
			t.Errorf("%s = %v, want omitted while not reached", k, v)
		}
	}

	var back api.Transaction
	if err := json.Unmarshal([]byte(`{"settled_at":null}`), &back); err != nil {
		t.Fatalf("null timestamp: %v", err)
	}
	if !back.SettledAt.IsZero() {
		t.Errorf("null settled_at decoded as %v, want zero", back.SettledAt)
	}
}

func TestParseMandateTime(t *testing.T) {
	want := time.Date(2025, 1, 31, 9, 30, 0, 123_000_000, time.UTC)
	tests := []struct {
		name string
		in   string
	}{
		{"dot form of the sample", "2025-01-31T09:30:00.123Z"},
		{"colon form of the stated pattern", "2025-01-31T09:30:00:123Z"},
		{"RFC 3339 with an offset", "2025-01-31T10:30:00.123+01:00"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := api.ParseMandateTime(tt.in)
			if err != nil {
				t.Fatalf("ParseMandateTime(%q): %v", tt.in, err)
			}
			if !got.Equal(want) || got.Location() != time.UTC {
				t.Errorf("ParseMandateTime(%q) = %v, want %v in UTC", tt.in, got, want)
			}
		})
	}
	if got := api.FormatMandateTime(want); got != "2025-01-31T09:30:00.123Z" {
		t.Errorf("FormatMandateTime = %q, want the dot form", got)
	}
	for _, bad := range []string{"", "31/01/2025", "2025-01-31", "2025-01-31T09:30:00;123Z"} {
		if _, err := api.ParseMandateTime(bad); err == nil {
			t.Errorf("ParseMandateTime(%q): want an error", bad)
		} else if !strings.Contains(err.Error(), "2025-01-31T09:30:00.000Z") {
			t.Errorf("ParseMandateTime(%q) error %q should show an example of the expected form", bad, err)
		}
	}
}

// TestAppendReportTime: the hand-placed digits equal time.Format across
// leap years, centuries, month ends and the whole of a day.
func TestAppendReportTime(t *testing.T) {
	start := time.Date(1899, 12, 31, 23, 59, 59, 999_999_900, time.UTC)
	for i := range 200_000 {
		at := start.Add(time.Duration(i)*7*time.Hour + time.Duration(i%1000)*123_456_700)
		rt := api.NewReportTime(at)
		if got, want := string(api.AppendReportTime(nil, rt)), rt.String(); got != want {
			t.Fatalf("%v: %s, want %s", at, got, want)
		}
	}
}
