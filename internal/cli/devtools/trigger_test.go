package devtools

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/api/sandbox/sandboxapi"
	"github.com/paydash/paydash/api/testkey"
	"github.com/paydash/paydash/internal/cli/cmdutil"
	"github.com/paydash/paydash/webhookrelay/relayclient"
)

// TestTriggerEveryListedType: each type --list names reaches the relay
// signed as the service signs (the relay verifies it against the
// sandbox's JWKS) and is forwarded to the handler.
func TestTriggerEveryListedType(t *testing.T) {
	b := newBench(t, func(int) int { return http.StatusOK })
	for _, typ := range sandboxapi.TriggerEvents {
		res, err := Trigger(context.Background(), b.sb.URL, typ, &TriggerOptions{Reason: "account_closed", Amount: "12.34"})
		if err != nil {
			t.Fatalf("%s: %v", typ, err)
		}
		if res.EventType != typ || res.EventID == "" || res.Moved {
			t.Fatalf("%s: %+v", typ, res)
		}
		var ev relayclient.StoredEvent
		waitUntil(t, typ+" stored by the relay", func() bool {
			ev, err = b.history().Event(context.Background(), res.EventID)
			return err == nil
		})
		if ev.Type != typ || ev.Headers[api.HeaderPayoutSignature] == "" {
			t.Fatalf("%s stored as %+v", typ, ev.Event)
		}
		if typ == api.EventExternalPaymentReceived && !strings.Contains(string(ev.Raw), `"amount_in_minor":1234`) {
			t.Errorf("--amount 12.34 not in %s", ev.Raw)
		}
	}
	waitUntil(t, "every event forwarded", func() bool { return len(b.handler.deliveries()) == len(sandboxapi.TriggerEvents) })
	if _, err := Trigger(context.Background(), b.sb.URL, "payout_settld", &TriggerOptions{}); cmdutil.ExitCode(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), "trigger") {
		t.Fatalf("misspelt type: %v", err)
	}
}

// TestTriggerWithPayoutMovesItsState: a payout the sandbox holds settles
// when payout_settled is triggered for it (its funds are debited), and a
// second final event for it is refused.
func TestTriggerWithPayoutMovesItsState(t *testing.T) {
	b := newBench(t, func(int) int { return http.StatusOK })
	info := b.sb.Info()
	client, err := api.NewClient(api.Config{AuthURL: info.AuthURL, BaseURL: info.BaseURL, PayoutsURL: info.PayoutsURL,
		ClientID: info.ClientID, ClientSecret: info.ClientSecret, SigningKeyID: "k1", SigningKey: testkey.Load(t),
		Retry: api.RetryPolicy{MaxAttempts: 1}})
	if err != nil {
		t.Fatal(err)
	}
	before := b.sb.Balances()[0]
	id := uuid.NewString()
	if err := client.CreatePayout(context.Background(), &api.PayoutRequest{TransactionID: id, BeneficiaryName: "Ada Lovelace",
		BeneficiaryIBAN: "GB33BUKB20201555555555", BeneficiaryReference: "TRIGGER", Currency: before.Currency,
		AmountInMinor: 5_00, ContextCode: api.ContextCodeWithdrawal}); err != nil {
		t.Fatal(err)
	}
	res, err := Trigger(context.Background(), b.sb.URL, api.EventPayoutSettled, &TriggerOptions{PayoutID: id})
	if err != nil || !res.Moved || res.PayoutID != id {
		t.Fatalf("trigger: %+v %v", res, err)
	}
	if !strings.Contains(DescribeTrigger(res), "moved") {
		t.Errorf("line %q", DescribeTrigger(res))
	}
	after := b.sb.Balances()[0]
	if after.CurrentBalanceInMinor != before.CurrentBalanceInMinor-5_00 || after.AvailableBalanceInMinor != before.AvailableBalanceInMinor-5_00 {
		t.Fatalf("balance %+v -> %+v, want 5.00 debited", before, after)
	}
	_, err = Trigger(context.Background(), b.sb.URL, api.EventPayoutFailed, &TriggerOptions{PayoutID: id})
	if err == nil || !strings.Contains(err.Error(), "already settled") {
		t.Fatalf("second final event: %v", err)
	}
	// The relay got authorised then settled for it, in that order.
	waitUntil(t, "both events at the relay", func() bool {
		st, _, ok, err := b.history().FinalState(context.Background(), id)
		return err == nil && ok && st == api.StateSettled
	})
}
