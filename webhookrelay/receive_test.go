package webhookrelay

import (
	"bytes"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/platform/clock"
	"github.com/paydash/paydash/webhookrelay/relayclient"
)

func TestReceiveAnswersEachInputAndStoresOnlyGoodOnes(t *testing.T) {
	key := testSigningKey(t)
	otherKey, err := api.GenerateSigningKey()
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 21, 10, 15, 30, 0, time.UTC)
	clk := clock.NewFake(now)
	tr := startRelay(t, Config{VerifyKey: &key.PublicKey, Clock: clk})

	good := payoutWebhook("ev-good", api.EventPayoutSettled, "tx-1", map[string]any{"settled_at": "2026-11-21T10:15:00.000Z"})
	signed := func(body []byte, h http.Header) http.Header { return sign(t, key, testKeyID, DefaultPath, h, body) }
	tampered := signed(good, stampHeader(now))
	cases := []struct {
		name       string
		body       []byte
		header     http.Header
		wantStatus int
		wantReason string // problem reason, for refusals
		wantDetail string // substring of the refusal's detail
		stored     bool
	}{
		{"body over 1 MiB", append(append([]byte(`{"event_id":"big","x":"`), bytes.Repeat([]byte("a"), MaxBodyBytes)...), `"}`...), stampHeader(now), 413, RejectTooLarge, "larger than", false},
		{"not JSON", []byte("event_id=1"), stampHeader(now), 400, RejectBadJSON, "not a JSON object", false},
		{"JSON array", []byte(`[{"event_id":"a"}]`), stampHeader(now), 400, RejectBadJSON, "not a JSON object", false},
		{"JSON null", []byte(`null`), stampHeader(now), 400, RejectBadJSON, "not a JSON object", false},
		{"no event id", []byte(`{"event_type":"payout_settled","event_body":{}}`), stampHeader(now), 400, RejectNoEventID, "event_id is missing", false},
		{"empty event id", []byte(`{"type":"payout_executed","event_id":" "}`), http.Header{}, 400, RejectNoEventID, "empty", false},
		{"numeric event id", []byte(`{"type":"payout_executed","event_id":7}`), http.Header{}, 400, RejectNoEventID, "must be a string", false},
		{"payout event without timestamp", good, http.Header{}, 400, RejectTimestamp, "missing X-Svc-Webhook-Timestamp", false},
		{"timestamp too old", good, stampHeader(now.Add(-6 * time.Minute)), 400, RejectTimestamp, "6m0s old, outside the 5m0s tolerance", false},
		{"timestamp in the future", good, stampHeader(now.Add(6 * time.Minute)), 400, RejectTimestamp, "in the future", false},
		{"timestamp not ISO 8601", good, http.Header{api.HeaderWebhookTimestamp: {"yesterday"}}, 400, RejectTimestamp, "not an ISO 8601", false},
		{"signature missing", good, stampHeader(now), 401, RejectSignature, "signature header missing", false},
		{"signature by another key", good, sign(t, otherKey, testKeyID, DefaultPath, stampHeader(now), good), 401, RejectSignature, "signature invalid", false},
		{"signature over another path", good, sign(t, key, testKeyID, "/elsewhere", stampHeader(now), good), 401, RejectSignature, "signature invalid", false},
		{"body changed after signing", bytes.Replace(good, []byte("tx-1"), []byte("tx-2"), 1), tampered, 401, RejectSignature, "signature invalid", false},
		{"timestamp changed after signing", good, func() http.Header {
			h := signed(good, stampHeader(now))
			h.Set(api.HeaderWebhookTimestamp, now.Add(time.Second).Format(api.WebhookTimeLayout))
			return h
		}(), 401, RejectSignature, "signature invalid", false},
		{"signed payout event", good, signed(good, stampHeader(now)), 200, "", "", true},
		{"signed payments event without timestamp", paymentsWebhook("ev-pay", api.EventPayoutExecuted, "po-1", nil), signed(paymentsWebhook("ev-pay", api.EventPayoutExecuted, "po-1", nil), http.Header{}), 200, "", "", true},
		{"unknown type is kept", paymentsWebhook("ev-new", "mandate_revoked", "", nil), signed(paymentsWebhook("ev-new", "mandate_revoked", "", nil), http.Header{}), 200, "", "", true},
	}
	var wantStored []string
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := tr.Metrics()
			resp := tr.post(t, tc.body, tc.header)
			if resp.status != tc.wantStatus {
				t.Fatalf("status %d, want %d: %s", resp.status, tc.wantStatus, resp.body)
			}
			after := tr.Metrics()
			if tc.wantReason != "" {
				p := resp.problem(t)
				if p.Reason != tc.wantReason || !strings.Contains(p.Detail, tc.wantDetail) {
					t.Errorf("refusal %+v, want reason %q with detail containing %q", p, tc.wantReason, tc.wantDetail)
				}
				if got := after.Rejected[tc.wantReason] - before.Rejected[tc.wantReason]; got != 1 {
					t.Errorf("rejected[%s] went up by %d, want 1", tc.wantReason, got)
				}
			}
			if got := after.Stored - before.Stored; got != map[bool]int64{true: 1}[tc.stored] {
				t.Errorf("stored went up by %d (stored=%v expected)", got, tc.stored)
			}
		})
		if tc.stored {
			var id struct {
				EventID string `json:"event_id"`
			}
			_ = json.Unmarshal(tc.body, &id)
			wantStored = append(wantStored, id.EventID)
		}
	}
	events := tr.history(t, "")
	checkExactlyOnce(t, events, wantStored)
	if len(events) == 3 && events[2].Family != FamilyUnknown {
		t.Errorf("unknown type stored as family %q, want %q", events[2].Family, FamilyUnknown)
	}
	if m := tr.Metrics(); m.Received != int64(len(cases)) {
		t.Errorf("received = %d, want %d", m.Received, len(cases))
	}
	// Every answered webhook, refused or stored, has left the count the
	// writer holds commits open for; a leak would delay every commit.
	if n := tr.writer.arriving.Load(); n != 0 {
		t.Errorf("writer still expects %d arriving webhooks after all were answered", n)
	}
}

func TestDuplicateDeliveryIsAcknowledgedButNotStoredOrStreamedAgain(t *testing.T) {
	tr := startRelay(t, Config{})
	sub := relayclient.NewSubscriber(relayclient.SubscriberConfig{URL: tr.wsURL(), MinBackoff: 10 * time.Millisecond})
	runSubscriber(t, sub)

	first := paymentsWebhook("ev-dup", api.EventPayoutExecuted, "po-1", nil)
	var seqs []uint64
	for i := 0; i < 3; i++ {
		resp := tr.post(t, first, http.Header{})
		if resp.status != http.StatusOK {
			t.Fatalf("delivery %d: %d %s", i, resp.status, resp.body)
		}
		var rc Receipt
		if err := json.Unmarshal(resp.body, &rc); err != nil {
			t.Fatal(err)
		}
		if rc.Duplicate != (i > 0) {
			t.Errorf("delivery %d: duplicate=%v", i, rc.Duplicate)
		}
		seqs = append(seqs, rc.Seq)
	}
	if seqs[1] != seqs[0] || seqs[2] != seqs[0] {
		t.Errorf("redeliveries answered seqs %v, want the stored seq each time", seqs)
	}
	if resp := tr.post(t, paymentsWebhook("ev-next", api.EventPayoutExecuted, "po-2", nil), http.Header{}); resp.status != http.StatusOK {
		t.Fatalf("next: %d", resp.status)
	}
	got := receive(t, sub, 2)
	checkExactlyOnce(t, got, []string{"ev-dup", "ev-next"})
	checkExactlyOnce(t, tr.history(t, ""), []string{"ev-dup", "ev-next"})
	if m := tr.Metrics(); m.Duplicates != 2 || m.Stored != 2 {
		t.Errorf("metrics duplicates=%d stored=%d, want 2 and 2", m.Duplicates, m.Stored)
	}
}

// TestStoreFailureAnswers503SoTheSenderRetries: a webhook the store
// cannot take is answered 503 "retry"; the sender's retry, once the relay
// is back on its store, stores it once beside what was stored before.
func TestStoreFailureAnswers503SoTheSenderRetries(t *testing.T) {
	path := filepath.Join(t.TempDir(), "relay.db")
	tr := startRelay(t, Config{StorePath: path})
	if resp := tr.post(t, paymentsWebhook("ev-0", api.EventPayoutExecuted, "po-0", nil), http.Header{}); resp.status != http.StatusOK {
		t.Fatalf("first webhook: %d %s", resp.status, resp.body)
	}
	// Pull the store out from under the writer.
	if err := tr.store.db.Close(); err != nil {
		t.Fatal(err)
	}
	ev := paymentsWebhook("ev-1", api.EventPayoutExecuted, "po-1", nil)
	resp := tr.post(t, ev, http.Header{})
	if resp.status != http.StatusServiceUnavailable || resp.problem(t).Reason != RejectStoreFailed || !strings.Contains(string(resp.body), "retry") {
		t.Fatalf("got %d %s, want 503 %s and retry", resp.status, resp.body, RejectStoreFailed)
	}
	// Follow it: the relay back on its store, the sender retries.
	tr.stop()
	again := startRelay(t, Config{StorePath: path})
	if resp := again.post(t, ev, http.Header{}); resp.status != http.StatusOK {
		t.Fatalf("the retry: %d %s", resp.status, resp.body)
	}
	checkExactlyOnce(t, again.history(t, ""), []string{"ev-0", "ev-1"})
}

func TestParseWebhookExtractsWhatTheUINeeds(t *testing.T) {
	received := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	at := "2026-11-21T09:59:58.123Z"
	atTime := time.Date(2026, 11, 21, 9, 59, 58, 123e6, time.UTC)
	cases := []struct {
		name string
		body []byte
		want Event
	}{
		{"payout authorised", payoutWebhook("e1", api.EventPayoutAuthorised, "tx", map[string]any{"authorised_at": at}),
			Event{Family: FamilyPayout, Type: "payout_authorised", PayoutID: "tx", State: api.StateAuthorised, OccurredAt: atTime}},
		{"payout submitted", payoutWebhook("e1", api.EventPayoutSubmitted, "tx", map[string]any{"submitted_at": at}),
			Event{Family: FamilyPayout, Type: "payout_submitted", PayoutID: "tx", State: api.StateSubmitted, OccurredAt: atTime}},
		{"payout settled", payoutWebhook("e1", api.EventPayoutSettled, "tx", map[string]any{"settled_at": at}),
			Event{Family: FamilyPayout, Type: "payout_settled", PayoutID: "tx", State: api.StateSettled, OccurredAt: atTime}},
		{"payout rejected", payoutWebhook("e1", api.EventPayoutRejected, "tx", map[string]any{"rejected_at": at, "reason": "insufficient_funds"}),
			Event{Family: FamilyPayout, Type: "payout_rejected", PayoutID: "tx", State: api.StateRejected, OccurredAt: atTime, Reason: "insufficient_funds"}},
		{"payout failed", payoutWebhook("e1", api.EventPayoutFailed, "tx", map[string]any{"failed_at": at, "reason": "scheme_error"}),
			Event{Family: FamilyPayout, Type: "payout_failed", PayoutID: "tx", State: api.StateFailed, OccurredAt: atTime, Reason: "scheme_error"}},
		{"payments executed", paymentsWebhook("e1", api.EventPayoutExecuted, "po", map[string]any{"executed_at": at, "scheme_id": "faster_payments_service"}),
			Event{Family: FamilyPayments, Type: "payout_executed", PayoutID: "po", State: api.StateExecuted, OccurredAt: atTime}},
		{"payments failed returned", paymentsWebhook("e1", api.EventPaymentsPayoutFailed, "po", map[string]any{"failed_at": at, "failure_reason": "returned", "failure_details": map[string]any{"message": "closed", "is_transient": false}}),
			Event{Family: FamilyPayments, Type: "payout_failed", PayoutID: "po", State: api.StateFailed, OccurredAt: atTime, Reason: "returned"}},
		{"payments failed business account has no reason", paymentsWebhook("e1", api.EventPaymentsPayoutFailed, "po", map[string]any{"failed_at": at, "beneficiary": map[string]any{"type": "business_account"}}),
			Event{Family: FamilyPayments, Type: "payout_failed", PayoutID: "po", State: api.StateFailed, OccurredAt: atTime}},
		{"external payment received", []byte(`{"type":"external_payment_received","event_id":"e1"}`),
			Event{Family: FamilyPayments, Type: "external_payment_received"}},
		{"unknown flat type", []byte(`{"type":"mandate_authorized","event_id":"e1"}`),
			Event{Family: FamilyUnknown, Type: "mandate_authorized"}},
		{"unknown envelope type keeps its transaction id", payoutWebhook("e1", "payout_returned", "tx", nil),
			Event{Family: FamilyUnknown, Type: "payout_returned", PayoutID: "tx"}},
		{"no type at all", []byte(`{"event_id":"e1"}`), Event{Family: FamilyUnknown}},
		{"members of unexpected types are ignored, not fatal", []byte(`{"type":"payout_executed","event_id":"e1","payout_id":42,"executed_at":"soon"}`),
			Event{Family: FamilyPayments, Type: "payout_executed", State: api.StateExecuted}},
		{"event_body not an object", []byte(`{"event_type":"payout_settled","event_id":"e1","event_body":"x"}`),
			Event{Family: FamilyPayout, Type: "payout_settled", State: api.StateSettled}},
	}
	header := http.Header{
		"Content-Type":             {"application/json"},
		"Authorization":            {"Bearer secret"},
		"Cookie":                   {"s=1"},
		api.HeaderWebhookTimestamp: {at},
		api.HeaderPayoutSignature:  {"sig"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseWebhook(tc.body, header, received)
			if err != nil {
				t.Fatal(err)
			}
			want := tc.want
			want.EventID, want.ReceivedAt, want.Body = "e1", received, tc.body
			if got.EventID != want.EventID || got.Family != want.Family || got.Type != want.Type ||
				got.PayoutID != want.PayoutID || got.State != want.State || got.Reason != want.Reason ||
				!got.OccurredAt.Equal(want.OccurredAt) || !got.ReceivedAt.Equal(want.ReceivedAt) || !bytes.Equal(got.Body, want.Body) {
				t.Errorf("got  %+v\nwant %+v", got, want)
			}
			if _, leaked := got.Headers["Authorization"]; leaked || got.Headers["Cookie"] != "" {
				t.Errorf("credentials kept in headers: %v", got.Headers)
			}
			if got.Headers[api.HeaderWebhookTimestamp] != at || got.Headers[api.HeaderPayoutSignature] != "sig" || got.Headers["Content-Type"] == "" {
				t.Errorf("headers that matter not kept: %v", got.Headers)
			}
		})
	}
}

func FuzzParseWebhook(f *testing.F) {
	f.Add(payoutWebhook("e1", api.EventPayoutAuthorised, "tx", map[string]any{"authorised_at": "2026-01-01T00:00:00.000Z"}))
	f.Add(paymentsWebhook("e2", api.EventPaymentsPayoutFailed, "po", map[string]any{"failure_reason": "returned"}))
	f.Add([]byte(`{"event_id":"x","event_type":null,"event_body":[1,2]}`))
	f.Add([]byte(`{"event_id":"\u0000","type":{"a":1}}`))
	f.Add([]byte(` {"event_id":"a"} `))
	f.Add([]byte(`null`))
	received := time.Unix(1700000000, 0).UTC()
	f.Fuzz(func(t *testing.T, body []byte) {
		e, err := ParseWebhook(body, http.Header{}, received)
		if err != nil {
			return
		}
		if e.EventID == "" || len(e.EventID) > maxEventIDLen {
			t.Fatalf("accepted event id %q", e.EventID)
		}
		switch e.Family {
		case FamilyPayout:
			if e.State == "" {
				t.Fatalf("payout family without state: %+v", e)
			}
		case FamilyPayments, FamilyUnknown:
		default:
			t.Fatalf("family %q", e.Family)
		}
		if !bytes.Equal(e.Body, body) {
			t.Fatal("body not kept byte for byte")
		}
		// What is accepted must survive the store and the stream.
		rec, err := encodeRecord(&e)
		if err != nil {
			t.Fatalf("encode: %v", err)
		}
		back, err := decodeRecord(rec)
		if err != nil || back.EventID != e.EventID || !bytes.Equal(back.Body, body) {
			t.Fatalf("record round trip: %v %+v", err, back)
		}
		frame, err := appendEventFrame(nil, 7, rec)
		if err != nil {
			t.Fatalf("frame: %v", err)
		}
		var streamed Event
		if err := json.Unmarshal(framePayload(frame), &streamed); err != nil {
			t.Fatalf("stream message does not decode: %v", err)
		}
		if streamed.Seq != 7 || streamed.EventID != e.EventID || streamed.Type != e.Type ||
			!bytes.Equal(streamed.Body, bytes.TrimSpace(body)) {
			t.Fatalf("streamed %+v, want %+v", streamed, e)
		}
	})
}

// framePayload strips an unmasked websocket frame's header.
func framePayload(frame []byte) []byte {
	switch frame[1] {
	case 126:
		return frame[4:]
	case 127:
		return frame[10:]
	}
	return frame[2:]
}
