package relayclient

import (
	"encoding/json"
	"reflect"
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
		{Event{EventID: "ev1", Type: "payout_settled", Family: FamilyPayout, PayoutID: "3f2a9c1e-0000-4000-8000-000000000000", State: "settled", ReceivedAt: received},
			"payout 3f2a9c1e… settled", "2026-11-21T10:15:30Z  payout_settled             ev1  3f2a9c1e-0000-4000-8000-000000000000  settled"},
		{Event{EventID: "ev2", Type: "payout_rejected", PayoutID: "9c1e", State: "rejected", Reason: "insufficient_funds", ReceivedAt: received},
			"payout 9c1e rejected: insufficient_funds", "2026-11-21T10:15:30Z  payout_rejected            ev2  9c1e  rejected: insufficient_funds"},
		{Event{EventID: "ev3", Type: "external_payment_received", Family: FamilyPayments, ReceivedAt: received},
			"external payment received", "2026-11-21T10:15:30Z  external_payment_received  ev3  -  -"},
		{Event{EventID: "ev4", Type: "mandate_revoked", Family: FamilyUnknown, ReceivedAt: received},
			"mandate revoked (unknown event)", "2026-11-21T10:15:30Z  mandate_revoked            ev4  -  -"},
		{Event{EventID: "ev5\x1b[2J", Type: "x\x07", Family: FamilyUnknown, ReceivedAt: received.In(time.FixedZone("X", 3600))},
			"x? (unknown event)", "2026-11-21T10:15:30Z  x?                         ev5?[2J  -  -"},
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

// FuzzDecodeEvent checks the subscriber's fast decoder against
// json.Unmarshal: whenever the fast path accepts a message, json.Unmarshal
// must accept it too and produce the same Event.
func FuzzDecodeEvent(f *testing.F) {
	// Messages exactly as the relay writes them (encoding/json with the
	// raw body spliced in), then odd shapes that must take the slow path.
	f.Add([]byte(`{"seq":42,"event_id":"e1","family":"payout","type":"payout_rejected","payout_id":"tx","state":"rejected","occurred_at":"2026-11-21T10:15:30Z","reason":"aml","received_at":"2026-11-21T10:15:30.000000005Z","headers":{"Content-Type":"application/json","X-Svc-Webhook-Timestamp":"2026-11-21T10:15:30.000Z"},"body":{"event_type":"payout_rejected","event_id":"e1","event_body":{"transaction_id":"tx","rejected_at":"2026-11-21T10:15:30.000Z","reason":"aml"}},"forward":{"url":"http://x","attempts":1,"status_code":200,"at":"0001-01-01T00:00:00Z"}}`))
	f.Add([]byte("{\"seq\":42,\"event_id\":\"e\u00e9\",\"family\":\"payments\",\"type\":\"payout_executed\",\"state\":\"executed\",\"received_at\":\"2026-11-21T10:15:30.000000005Z\",\"body\":{ \"type\" : \"payout_executed\",\n \"event_id\":\"e\\u00e9\", \"x\":[1,{\"y\":\"}\"}] }}"))
	f.Add([]byte(`{"seq":1,"seq":2}`))
	f.Add([]byte(`{"seq":1,"body":{"a":[-0.5e+3,true,false,null,"\u00e9\n\/",{},[]]}}`))
	f.Add([]byte(`{"seq":1,"body":{"a":01}}`))
	f.Add([]byte(`{"seq":1,"body":{"a":1.}}`))
	f.Add([]byte("{\"seq\":1,\"body\":{\"a\":\"\xff\"},\"type\":\"\xff\"}"))
	f.Add([]byte(`{"Seq":1,"headers":{"A":"\u0041"},"body":[]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var fast Event
		if fastDecodeEvent(data, &fast) != nil {
			return
		}
		var slow Event
		if err := json.Unmarshal(data, &slow); err != nil {
			t.Fatalf("fast path accepted what json.Unmarshal refuses (%v): %q", err, data)
		}
		if !reflect.DeepEqual(fast, slow) {
			t.Fatalf("fast %+v\nslow %+v\nfor %q", fast, slow, data)
		}
	})
}
