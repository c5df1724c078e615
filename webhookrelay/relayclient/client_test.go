package relayclient

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestSummaryAndTailLine(t *testing.T) {
	received := time.Date(2026, 11, 21, 10, 15, 30, 999e6, time.UTC)
	cases := []struct {
		e           Event
		wantSummary string
		wantTail    string
	}{
		{Event{Seq: 41, EventID: "ev1", Type: "payout_settled", Family: FamilyPayout, PayoutID: "3f2a9c1e-0000-4000-8000-000000000000", State: "settled", ReceivedAt: received},
			"payout 3f2a9c1e… settled", "41  2026-11-21T10:15:30Z  payout_settled             ev1  3f2a9c1e-0000-4000-8000-000000000000  settled"},
		{Event{Seq: 42, EventID: "ev2", Type: "payout_rejected", PayoutID: "9c1e", State: "rejected", Reason: "insufficient_funds", ReceivedAt: received},
			"payout 9c1e rejected: insufficient_funds", "42  2026-11-21T10:15:30Z  payout_rejected            ev2  9c1e  rejected: insufficient_funds"},
		{Event{Seq: 43, EventID: "ev3", Type: "external_payment_received", Family: FamilyPayments, ReceivedAt: received},
			"external payment received", "43  2026-11-21T10:15:30Z  external_payment_received  ev3  -  -"},
		{Event{Seq: 44, EventID: "ev4", Type: "mandate_revoked", Family: FamilyUnknown, ReceivedAt: received},
			"mandate revoked (unknown event)", "44  2026-11-21T10:15:30Z  mandate_revoked            ev4  -  -"},
		{Event{Seq: 45, EventID: "ev5\x1b[2J", Type: "x\x07", Family: FamilyUnknown, ReceivedAt: received.In(time.FixedZone("X", 3600))},
			`x\x07 (unknown event)`, `45  2026-11-21T10:15:30Z  x\x07                      ev5\x1b[2J  -  -`},
		// A bidi override in a reason would reorder the rest of the line.
		{Event{Seq: 46, EventID: "ev6", Type: "payout_failed", PayoutID: "p6", State: "failed", Reason: "scheme\u202eerror", ReceivedAt: received},
			`payout p6 failed: scheme\u202eerror`, `46  2026-11-21T10:15:30Z  payout_failed              ev6  p6  failed: scheme\u202eerror`},
	}
	for _, tc := range cases {
		if got := tc.e.Summary(); got != tc.wantSummary {
			t.Errorf("Summary = %q, want %q", got, tc.wantSummary)
		}
		if got := TailLine(tc.e); got != tc.wantTail {
			t.Errorf("TailLine = %q, want %q", got, tc.wantTail)
		}
	}
}

func TestBackoffGrowsWithJitterUpToTheCap(t *testing.T) {
	s := NewSubscriber(SubscriberConfig{URL: "ws://127.0.0.1:1/ws", MinBackoff: 100 * time.Millisecond, MaxBackoff: time.Second})
	for n, ceiling := range []time.Duration{100, 200, 400, 800, 1000, 1000, 1000} {
		ceiling *= time.Millisecond
		for i := 0; i < 50; i++ {
			if d := s.backoff(n); d < ceiling/2 || d > ceiling {
				t.Fatalf("attempt %d: %v outside [%v, %v]", n, d, ceiling/2, ceiling)
			}
		}
	}
}

// The history of resends names its format in a new file, reads one of
// the previous format (no header) as it is, and refuses a newer one.
func TestResendLogFormats(t *testing.T) {
	dir := t.TempDir()
	v1 := filepath.Join(dir, "v1.jsonl")
	if err := os.WriteFile(v1, []byte(`{"event_id":"ev-1","url":"http://127.0.0.1:3000/webhooks","status":200}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, err := (ResendLog{Path: v1}).List(); err != nil || len(got) != 1 || got[0].EventID != "ev-1" {
		t.Fatalf("format 1: %v %v", got, err)
	}
	v2 := ResendLog{Path: filepath.Join(dir, "v2.jsonl")}
	if err := v2.Append(Attempt{EventID: "ev-2"}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(v2.Path)
	if !strings.HasPrefix(string(b), `{"paydash_resends_format":2}`+"\n") {
		t.Fatalf("a new history does not name its format:\n%s", b)
	}
	if got, err := v2.List(); err != nil || len(got) != 1 || got[0].EventID != "ev-2" {
		t.Fatalf("format 2: %v %v", got, err)
	}
	v9 := filepath.Join(dir, "v9.jsonl")
	if err := os.WriteFile(v9, []byte(`{"paydash_resends_format":9}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := (ResendLog{Path: v9}).List(); err == nil || !strings.Contains(err.Error(), "format 9") || !strings.Contains(err.Error(), "move the file aside") {
		t.Fatalf("format 9 read: %v", err)
	}
	// The advice followed: the file moved aside is kept as it was, and a
	// new history starts where it was.
	if err := os.Rename(v9, v9+".aside"); err != nil {
		t.Fatal(err)
	}
	fresh := ResendLog{Path: v9}
	if err := fresh.Append(Attempt{EventID: "ev-9"}); err != nil {
		t.Fatal(err)
	}
	if got, err := fresh.List(); err != nil || len(got) != 1 || got[0].EventID != "ev-9" {
		t.Fatalf("after moving it aside: %v %v", got, err)
	}
	if b, _ := os.ReadFile(v9 + ".aside"); string(b) != `{"paydash_resends_format":9}`+"\n" {
		t.Fatalf("the file moved aside changed: %q", b)
	}
}
