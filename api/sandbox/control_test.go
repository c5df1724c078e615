package sandbox

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/api/sandbox/sandboxapi"
	"github.com/paydash/paydash/internal/platform/clock"
)

func TestFundControl(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	before := e.balance("EUR")
	r := e.control("POST", "/sandbox/fund", map[string]any{"currency": "EUR", "amount_in_minor": 250_00, "payer_name": "Acme GmbH",
		"payer_iban": "de89 3704 0044 0532 0130 00", "reference": "TOP UP 7"})
	var tx api.Transaction
	if err := json.Unmarshal(r.body, &tx); err != nil || r.status != 201 {
		t.Fatalf("fund: %d %s", r.status, r.body)
	}
	if tx.Type != api.TransactionFunding || tx.Status != api.StateSettled || tx.SettledAt.IsZero() || !tx.AuthorisedAt.IsZero() ||
		tx.BeneficiaryName != "Acme GmbH" || tx.BeneficiaryIBAN != "DE89370400440532013000" || tx.AmountInMinor != 250_00 {
		t.Fatalf("funding record %+v", tx)
	}
	after := e.balance("EUR")
	if after.CurrentBalanceInMinor != before.CurrentBalanceInMinor+250_00 || after.AvailableBalanceInMinor != before.AvailableBalanceInMinor+250_00 {
		t.Fatalf("balance %+v, was %+v", after, before)
	}
	if got := findTxn(t, e, tx.TransactionID); got == nil || *got != tx {
		t.Fatalf("report has %+v, want %+v", got, tx)
	}

	// The transfer arrived at the IBAN: external_payment_received.
	waitFor(t, "external_payment_received", func() bool { return len(finalDeliveries(e.srv.Sandbox, tx.TransactionID)) == 1 })
	var ev ExternalPaymentReceived
	if err := json.Unmarshal([]byte(finalDeliveries(e.srv.Sandbox, tx.TransactionID)[0].Body), &ev); err != nil {
		t.Fatal(err)
	}
	if ev.Type != api.EventExternalPaymentReceived || ev.EventVersion != 1 || ev.MerchantAccountID != MerchantAccountEUR ||
		ev.AmountInMinor != 250_00 || ev.Remitter.AccountHolderName != "Acme GmbH" || ev.Reference != "TOP UP 7" {
		t.Fatalf("event %+v", ev)
	}

	bad := []struct {
		body  map[string]any
		field string
	}{
		{map[string]any{"currency": "USD", "amount_in_minor": 1}, "currency"},
		{map[string]any{"currency": "GBP", "amount_in_minor": 0}, "amount_in_minor"},
		{map[string]any{"currency": "GBP", "amount_in_minor": 1, "payer_iban": "GB00BUKB20201555555555"}, "payer_iban"},
	}
	for _, tc := range bad {
		if r := e.control("POST", "/sandbox/fund", tc.body); r.status != 400 || len(r.problem.Errors[tc.field]) == 0 {
			t.Errorf("fund %v: %d %s, want 400 on %s", tc.body, r.status, r.body, tc.field)
		}
	}
	if _, err := e.srv.Fund("GBP", 1<<62, "x"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.srv.Fund("GBP", 1<<62, "x"); err == nil {
		t.Fatal("a funding that overflows the balance was accepted")
	}
}

func TestAccountStatusControl(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	r := e.control("POST", "/sandbox/accounts/gbp/status", map[string]string{"status": "disabled"})
	var b api.Balance
	if err := json.Unmarshal(r.body, &b); err != nil || r.status != 200 || b.Status != api.AccountDisabled || b.Currency != "GBP" {
		t.Fatalf("disable: %d %s", r.status, r.body)
	}
	bals, err := e.client.Balances(context.Background())
	if err != nil || bals[0].Status != api.AccountDisabled || bals[1].Status != api.AccountEnabled {
		t.Fatalf("balances %+v (%v): want GBP disabled, EUR enabled", bals, err)
	}
	if r := e.control("POST", "/sandbox/accounts/GBP/status", map[string]string{"status": "frozen"}); r.status != 400 || len(r.problem.Errors["status"]) == 0 {
		t.Fatalf("bad status: %d %s", r.status, r.body)
	}
	if r := e.control("POST", "/sandbox/accounts/USD/status", map[string]string{"status": "enabled"}); r.status != 404 {
		t.Fatalf("unknown account: %d %s", r.status, r.body)
	}
}

func TestWebhookControl(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(o *Options) { o.WebhookURI = "" })
	if r := e.control("PUT", "/sandbox/webhook", map[string]string{"webhook_uri": "ftp://example"}); r.status != 400 || len(r.problem.Errors["webhook_uri"]) == 0 {
		t.Fatalf("bad URI: %d %s", r.status, r.body)
	}
	uri := e.hook.srv.URL + "/in?token=secret"
	if r := e.control("PUT", "/sandbox/webhook", map[string]string{"webhook_uri": uri}); r.status != 200 {
		t.Fatalf("register: %d %s", r.status, r.body)
	}
	var got webhookBody
	if err := json.Unmarshal(e.control("GET", "/sandbox/webhook", nil).body, &got); err != nil || got.WebhookURI != uri {
		t.Fatalf("registered %q, want %q", got.WebhookURI, uri)
	}
	if err := e.client.CreatePayout(context.Background(), payout("GBP", 100)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "delivery", func() bool { return len(e.hook.requests()) == 1 })
	if g := e.hook.requests()[0]; g.path != "/in" {
		t.Fatalf("delivered to %s", g.path)
	}
	for _, d := range e.srv.Deliveries() {
		if strings.Contains(d.URL, "secret") {
			t.Fatalf("delivery log shows the URI's query: %s", d.URL)
		}
	}
}

// TestEventsControl: triggers synthesise realistic events; raw bodies go
// out byte for byte; the delivery log lists them.
func TestEventsControl(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	keys, _ := api.ParseJWKS(e.do("GET", "/.well-known/jwks", nil, nil).body)
	type check func(t *testing.T, body []byte)
	payments := func(want func(api.PaymentsPayoutEvent) bool) check {
		return func(t *testing.T, body []byte) {
			var ev api.PaymentsPayoutEvent
			if err := json.Unmarshal(body, &ev); err != nil || ev.EventVersion != 1 || ev.PayoutID != "p-1" || !want(ev) {
				t.Fatalf("event %s", body)
			}
		}
	}
	tests := []struct {
		name    string
		trigger map[string]any
		typ     string
		check   check
	}{
		{"payout_executed open loop", map[string]any{"trigger": "payout_executed", "payout_id": "p-1", "currency": "EUR"}, api.EventPayoutExecuted,
			payments(func(ev api.PaymentsPayoutEvent) bool {
				return ev.ExecutedAt != "" && ev.SchemeID == api.SchemeSEPACreditTransfer && ev.MerchantAccountID == MerchantAccountEUR && ev.Beneficiary == nil
			})},
		{"payout_executed payment source", map[string]any{"trigger": "payout_executed", "payout_id": "p-1", "beneficiary": "payment_source"}, api.EventPayoutExecuted,
			payments(func(ev api.PaymentsPayoutEvent) bool {
				return ev.Beneficiary != nil && ev.Beneficiary.Type == api.BeneficiaryPaymentSource && ev.Beneficiary.PaymentSourceID != "" && ev.Beneficiary.UserID != ""
			})},
		{"payout_failed returned", map[string]any{"trigger": "payout_failed", "payout_id": "p-1", "reason": "returned"}, api.EventPaymentsPayoutFailed,
			payments(func(ev api.PaymentsPayoutEvent) bool {
				return ev.FailureReason == api.FailureReturned && ev.FailureDetails != nil && ev.Beneficiary.Type == api.BeneficiaryExternalAccount
			})},
		{"payout_failed business account", map[string]any{"trigger": "payout_failed", "payout_id": "p-1", "beneficiary": "business_account"}, api.EventPaymentsPayoutFailed,
			payments(func(ev api.PaymentsPayoutEvent) bool { return ev.FailureReason == "" && ev.FailedAt != "" })},
		{"payout family failed", map[string]any{"trigger": "payout_failed", "family": "payout", "payout_id": "p-1"}, api.EventPayoutFailed,
			func(t *testing.T, body []byte) {
				var wh api.PayoutWebhook
				_ = json.Unmarshal(body, &wh)
				if b := eventBody(t, wh); b.TransactionID != "p-1" || b.Reason != api.FailureSchemeError || b.FailedAt == "" {
					t.Fatalf("body %s", body)
				}
			}},
		{"payout_rejected", map[string]any{"trigger": "payout_rejected", "payout_id": "p-1", "reason": "aml_check_failed"}, api.EventPayoutRejected,
			func(t *testing.T, body []byte) {
				var wh api.PayoutWebhook
				_ = json.Unmarshal(body, &wh)
				if b := eventBody(t, wh); b.Reason != RejectAMLCheckFailed || b.RejectedAt == "" {
					t.Fatalf("body %s", body)
				}
			}},
		{"external_payment_received", map[string]any{"trigger": "external_payment_received", "payout_id": "p-1", "amount_in_minor": 4200}, api.EventExternalPaymentReceived,
			func(t *testing.T, body []byte) {
				var ev ExternalPaymentReceived
				if err := json.Unmarshal(body, &ev); err != nil || ev.AmountInMinor != 4200 || ev.TransactionID != "p-1" || api.ValidateIBAN(ev.Remitter.IBAN) != nil {
					t.Fatalf("body %s", body)
				}
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := e.srv.Balances()
			r := e.control("POST", "/sandbox/events", tc.trigger)
			var inj sandboxapi.Injected
			if err := json.Unmarshal(r.body, &inj); err != nil || r.status != 202 || inj.EventType != tc.typ {
				t.Fatalf("trigger: %d %s", r.status, r.body)
			}
			waitFor(t, "delivery", func() bool {
				for _, d := range finalDeliveries(e.srv.Sandbox, "") {
					if d.EventID == inj.EventID {
						return true
					}
				}
				return false
			})
			reqs := e.hook.requests()
			last := reqs[len(reqs)-1]
			verifyWebhook(t, keys, last)
			tc.check(t, last.body)
			if fmtBalances(e.srv.Balances()) != fmtBalances(before) {
				t.Fatal("a trigger changed a balance")
			}
		})
	}

	t.Run("raw body byte for byte", func(t *testing.T) {
		raw := []byte("{\"event_type\":\"custom\",  \"event_id\":\"e-raw\",\n\"event_body\":{\"transaction_id\":\"p-9\"}}")
		r := e.do("POST", "/sandbox/events", http.Header{"Content-Type": {"application/json"}}, raw)
		if r.status != 202 {
			t.Fatalf("inject: %d %s", r.status, r.body)
		}
		waitFor(t, "delivery", func() bool { return len(finalDeliveries(e.srv.Sandbox, "p-9")) == 1 })
		reqs := e.hook.requests()
		if got := reqs[len(reqs)-1]; string(got.body) != string(raw) {
			t.Fatalf("delivered %q, want %q", got.body, raw)
		}
		var list deliveriesResponse
		if err := json.Unmarshal(e.control("GET", "/sandbox/deliveries?payout_id=p-9", nil).body, &list); err != nil ||
			len(list.Results) != 1 || list.Results[0].EventID != "e-raw" || list.Results[0].EventType != "custom" || !list.Results[0].Delivered {
			t.Fatalf("delivery log %+v", list)
		}
	})

	t.Run("inject with fixed headers", func(t *testing.T) {
		h := http.Header{api.HeaderPayoutSignature: {"forged"}, api.HeaderWebhookTimestamp: {"2000-01-01T00:00:00.000Z"}}
		if err := e.srv.InjectEvent(context.Background(), []byte(`{"event_id":"e-forged","payout_id":"p-10"}`), h); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "delivery", func() bool { return len(finalDeliveries(e.srv.Sandbox, "p-10")) == 1 })
		reqs := e.hook.requests()
		got := reqs[len(reqs)-1]
		if got.header.Get(api.HeaderPayoutSignature) != "forged" || got.header.Get(api.HeaderWebhookTimestamp) != "2000-01-01T00:00:00.000Z" {
			t.Fatalf("headers %v: want the given ones", got.header)
		}
	})

	bad := []struct {
		body  map[string]any
		field string
	}{
		{map[string]any{"trigger": "payout_exploded"}, "trigger"},
		{map[string]any{"trigger": "payout_failed", "family": "other"}, "family"},
		{map[string]any{"trigger": "payout_executed", "beneficiary": "friend"}, "beneficiary"},
		{map[string]any{"trigger": "payout_executed", "currency": "USD"}, "currency"},
	}
	for _, tc := range bad {
		if r := e.control("POST", "/sandbox/events", tc.body); r.status != 400 || len(r.problem.Errors[tc.field]) == 0 {
			t.Errorf("trigger %v: %d %s, want 400 on %s", tc.body, r.status, r.body, tc.field)
		}
	}
	if r := e.do("POST", "/sandbox/events", nil, nil); r.status != 400 {
		t.Errorf("empty inject: %d", r.status)
	}
}

func fmtBalances(bs []api.Balance) string {
	b, _ := json.Marshal(bs)
	return string(b)
}

func TestRouting(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	tests := []struct {
		method, path string
		status       int
		allow        string
	}{
		{"GET", "/v2/payouts", 404, ""},
		{"GET", "/v1/payouts", 405, "POST"},
		{"DELETE", "/sandbox/webhook", 405, "GET, PUT"},
		{"GET", "/sandbox/nothing", 404, ""},
		{"POST", "/sandbox/nothing", 404, ""},
		{"GET", "/sandbox/", 200, ""},
		{"GET", "/sandbox", 200, ""},
		{"GET", "/.well-known/jwks", 200, ""},
	}
	for _, tc := range tests {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			r := e.do(tc.method, tc.path, nil, nil)
			if r.status != tc.status || r.header.Get("Allow") != tc.allow || r.header.Get(api.HeaderTraceID) == "" {
				t.Fatalf("%d Allow=%q trace=%q: want %d Allow=%q and a trace id", r.status, r.header.Get("Allow"), r.header.Get(api.HeaderTraceID), tc.status, tc.allow)
			}
			if tc.status >= 400 && r.problem == nil {
				t.Fatalf("error without a problem document: %s", r.body)
			}
		})
	}
	var idx controlIndex
	if err := json.Unmarshal(e.do("GET", "/sandbox", nil, nil).body, &idx); err != nil || len(idx.MerchantAccounts) != 2 || len(idx.MagicRules) == 0 {
		t.Fatalf("index %+v", idx)
	}
}

func TestMerchantAccounts(t *testing.T) {
	t.Parallel()
	accts := accountDefs()
	for _, a := range accts {
		if err := api.ValidateIBAN(a.IBAN); err != nil {
			t.Errorf("%s account IBAN %s: %v", a.Currency, a.IBAN, err)
		}
	}
	if gb := accts[0].IBAN; gb[8:14] != accts[0].SortCode || gb[14:] != accts[0].AccountNumber {
		t.Errorf("GBP IBAN %s does not hold sort code %s and account %s", gb, accts[0].SortCode, accts[0].AccountNumber)
	}
}

func TestIBANGeneration(t *testing.T) {
	t.Parallel()
	// Published valid IBANs check the national algorithms.
	if n := "0417164300"; !elevenProof(n) {
		t.Errorf("NL91ABNA0417164300: %s fails the eleven test", n)
	}
	if c := beCheck("5390075470"); c != 34 {
		t.Errorf("BE68539007547034: check %d, want 34", c)
	}
	if c := esCheck("2100", "0418", "0200051332"); c != "45" {
		t.Errorf("ES9121000418450200051332: control digits %s, want 45", c)
	}
	if k := ribKey("30006", "00001", "12345678901"); k != 89 {
		t.Errorf("FR7630006000011234567890189: RIB key %d, want 89", k)
	}
	if got := makeIBAN("GB", "WEST12345698765432"); got != "GB82WEST12345698765432" {
		t.Errorf("makeIBAN = %s, want GB82WEST12345698765432", got)
	}
	r := globalRand{}
	for _, c := range append([]string{"GB"}, eurCountries...) {
		for range 200 {
			if iban := genIBAN(r, c); iban[:2] != c || api.ValidateIBAN(iban) != nil {
				t.Fatalf("%s: generated %s: %v", c, iban, api.ValidateIBAN(iban))
			}
		}
	}
}

func TestListen(t *testing.T) {
	t.Parallel()
	key := testKey(t)
	ctx, cancel := context.WithCancel(context.Background())
	srv, err := Listen(ctx, "127.0.0.1:0", Options{MerchantKey: &key.PublicKey, Clock: clock.NewFake(testStart)})
	if err != nil {
		t.Fatal(err)
	}
	info := srv.Info()
	if !strings.HasPrefix(srv.URL, "http://127.0.0.1:") || info.AuthURL != srv.URL || info.BaseURL != srv.URL || info.PayoutsURL != srv.URL ||
		info.JWKSURL != srv.URL+"/.well-known/jwks" || info.ControlURL != srv.URL+"/sandbox" ||
		info.ClientID != DefaultClientID || len(info.ClientSecret) < 20 {
		t.Fatalf("info %+v", info)
	}
	resp, err := http.Get(info.JWKSURL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	cancel() // the server stops with its context
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := http.Get(info.JWKSURL); err != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("still serving after the context ended")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := srv.Close(); err != nil {
		t.Fatalf("second close: %v", err)
	}

	if _, err := New(Options{}); err == nil || !strings.Contains(err.Error(), "MerchantKey") {
		t.Fatalf("New without a key: %v", err)
	}
	if _, err := New(Options{MerchantKey: &key.PublicKey, InitialFunds: map[string]int64{"USD": 1}}); err == nil {
		t.Fatal("New accepted initial funds in a currency without an account")
	}
	if _, err := New(Options{MerchantKey: &key.PublicKey, WebhookURI: "not a url"}); err == nil {
		t.Fatal("New accepted an invalid webhook URI")
	}
}
