package sandbox

import (
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paydash/paydash/api"
)

// TestPayoutPaths drives every payout path through the client and checks
// the webhooks (in order, signed), the report and the balances.
func TestPayoutPaths(t *testing.T) {
	t.Parallel()
	type step struct{ event, reason string }
	tests := []struct {
		name      string
		edit      func(p *api.PayoutRequest)
		events    []step
		status    string // in the report; "" = not in the report
		debit     bool   // the amount leaves the current balance
		holdsFund bool   // while in flight, the amount is reserved
	}{
		{"settles", nil,
			[]step{{api.EventPayoutAuthorised, ""}, {api.EventPayoutSubmitted, ""}, {api.EventPayoutSettled, ""}}, api.StateSettled, true, true},
		{"AML word in the name", func(p *api.PayoutRequest) { p.BeneficiaryName = "AML Test Ltd" },
			[]step{{api.EventPayoutRejected, RejectAMLCheckFailed}}, "", false, false},
		{"AML word in any case", func(p *api.PayoutRequest) { p.BeneficiaryName = "Jo aml" },
			[]step{{api.EventPayoutRejected, RejectAMLCheckFailed}}, "", false, false},
		{"name merely containing aml settles", func(p *api.PayoutRequest) { p.BeneficiaryName = "Jamal Khan" },
			[]step{{api.EventPayoutAuthorised, ""}, {api.EventPayoutSubmitted, ""}, {api.EventPayoutSettled, ""}}, api.StateSettled, true, true},
		{"deny-listed name", func(p *api.PayoutRequest) { p.BeneficiaryName = "  sanctioned   PERSON " },
			[]step{{api.EventPayoutRejected, RejectAMLCheckFailed}}, "", false, false},
		{"insufficient funds", func(p *api.PayoutRequest) { p.AmountInMinor = 100_000_001 },
			[]step{{api.EventPayoutRejected, RejectInsufficientFunds}}, "", false, false},
		{"FAIL", func(p *api.PayoutRequest) { p.BeneficiaryReference = "FAIL" },
			[]step{{api.EventPayoutAuthorised, ""}, {api.EventPayoutFailed, api.FailureSchemeError}}, api.StateFailed, false, true},
		{"FAIL with a reason", func(p *api.PayoutRequest) { p.BeneficiaryReference = "fail:Account closed" },
			[]step{{api.EventPayoutAuthorised, ""}, {api.EventPayoutFailed, "account_closed"}}, api.StateFailed, false, true},
		{"RETURN", func(p *api.PayoutRequest) { p.BeneficiaryReference = "RETURN" },
			[]step{{api.EventPayoutAuthorised, ""}, {api.EventPayoutSubmitted, ""}, {api.EventPayoutFailed, api.FailureReturned}}, api.StateFailed, false, true},
	}
	e := newEnv(t, func(o *Options) { o.InitialFunds = map[string]int64{"GBP": 100_000_000} })
	jwks := e.do("GET", "/.well-known/jwks", nil, nil)
	keys, err := api.ParseJWKS(jwks.body)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := payout("GBP", 12_345)
			if tc.edit != nil {
				tc.edit(p)
			}
			before := e.balance("GBP")
			if err := e.client.CreatePayout(ctx, p); err != nil {
				t.Fatal(err)
			}
			first := tc.events[0]
			waitFor(t, "the first event", func() bool { return len(finalDeliveries(e.srv.Sandbox, p.TransactionID)) == 1 })
			mid := e.balance("GBP")
			if tc.holdsFund && (mid.AvailableBalanceInMinor != before.AvailableBalanceInMinor-p.AmountInMinor || mid.CurrentBalanceInMinor != before.CurrentBalanceInMinor) {
				t.Fatalf("after %s: balance %+v, want %d reserved from %+v", first.event, mid, p.AmountInMinor, before)
			}
			if !tc.holdsFund && mid != before {
				t.Fatalf("after %s: balance %+v changed from %+v", first.event, mid, before)
			}
			e.clock.Advance(0) // StepDelay 0: the rest of the path runs on this tick
			waitFor(t, "every event", func() bool { return len(finalDeliveries(e.srv.Sandbox, p.TransactionID)) == len(tc.events) })

			got := e.hook.payoutEvents(t, p.TransactionID)
			var steps []step
			for _, wh := range got {
				steps = append(steps, step{wh.EventType, eventBody(t, wh).Reason})
			}
			if !slices.Equal(steps, tc.events) {
				t.Fatalf("events %v, want %v", steps, tc.events)
			}
			for _, g := range e.hook.requests() {
				verifyWebhook(t, keys, g)
			}

			after := e.balance("GBP")
			wantCur := before.CurrentBalanceInMinor
			if tc.debit {
				wantCur -= p.AmountInMinor
			}
			if after.CurrentBalanceInMinor != wantCur || after.AvailableBalanceInMinor != wantCur {
				t.Fatalf("final balance %+v, want current = available = %d", after, wantCur)
			}
			rec := findTxn(t, e, p.TransactionID)
			switch {
			case tc.status == "" && rec != nil:
				t.Fatalf("a rejected payout is in the report: %+v", rec)
			case tc.status != "" && (rec == nil || rec.Status != tc.status || rec.AmountInMinor != p.AmountInMinor || rec.Type != api.TransactionPayout):
				t.Fatalf("report record %+v, want status %s", rec, tc.status)
			case tc.status == api.StateSettled && (rec.AuthorisedAt.IsZero() || rec.SubmittedAt.IsZero() || rec.SettledAt.IsZero()):
				t.Fatalf("settled record lacks a timestamp: %+v", rec)
			case tc.status == api.StateFailed && !rec.SettledAt.IsZero():
				t.Fatalf("failed record has settled_at: %+v", rec)
			}
			checkLedger(t, e.srv.ledger)

			// A repeat is accepted and does nothing: no event, no record.
			n := len(e.hook.requests())
			if err := e.client.CreatePayout(ctx, p); err != nil {
				t.Fatalf("repeat: %v", err)
			}
			e.clock.Advance(0)
			if e.balance("GBP") != after || len(e.hook.requests()) != n || len(finalDeliveries(e.srv.Sandbox, p.TransactionID)) != len(tc.events) {
				t.Fatal("repeating the transaction_id changed something")
			}
		})
	}
}

// verifyWebhook checks a delivery as a receiver would: the signature by
// the JWKS key over POST, the path, the timestamp header and the body.
func verifyWebhook(t testing.TB, keys map[string]*ecdsa.PublicKey, g received) {
	t.Helper()
	sig := g.header.Get(api.HeaderPayoutSignature)
	kid, err := api.SignatureKeyID(sig)
	if err != nil || keys[kid] == nil {
		t.Fatalf("webhook signature kid %q (%v) is not in the JWKS", kid, err)
	}
	if err := api.Verify(keys[kid], sig, "POST", g.path, g.header, g.body, api.HeaderWebhookTimestamp); err != nil {
		t.Fatalf("webhook signature: %v", err)
	}
	// Like the service's, the signature names the sandbox's JWKS in jku.
	if _, jku, err := api.SignatureSource(sig); err != nil || !strings.HasPrefix(jku, "http://127.0.0.1:") || !strings.HasSuffix(jku, "/.well-known/jwks") {
		t.Fatalf("webhook signature jku %q (%v), want the sandbox's /.well-known/jwks", jku, err)
	}
	if _, err := time.Parse(time.RFC3339, g.header.Get(api.HeaderWebhookTimestamp)); err != nil {
		t.Fatalf("X-Svc-Webhook-Timestamp %q: %v", g.header.Get(api.HeaderWebhookTimestamp), err)
	}
}

func findTxn(t testing.TB, e *env, id string) *api.Transaction {
	t.Helper()
	var found *api.Transaction
	err := e.client.StreamTransactions(context.Background(), api.TransactionQuery{}, func(tx api.Transaction) error {
		if tx.TransactionID == id {
			found = &tx
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}

func TestPayoutRefusals(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	ctx := context.Background()
	tests := []struct {
		name   string
		edit   func(p *api.PayoutRequest)
		status int
		field  string
	}{
		{"missing name", func(p *api.PayoutRequest) { p.BeneficiaryName = "" }, 400, "beneficiary_name"},
		{"bad IBAN checksum", func(p *api.PayoutRequest) { p.BeneficiaryIBAN = "GB34BUKB20201555555555" }, 400, "beneficiary_iban"},
		{"no transaction id", func(p *api.PayoutRequest) { p.TransactionID = "" }, 400, "transaction_id"},
		{"zero amount", func(p *api.PayoutRequest) { p.AmountInMinor = 0 }, 400, "amount_in_minor"},
		{"currency without an account", func(p *api.PayoutRequest) { p.Currency = "USD" }, 400, "currency"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := payout("GBP", 100)
			tc.edit(p)
			st, prob := apiStatus(t, e.client.CreatePayout(ctx, p))
			if st != tc.status || prob.Type != ProblemTypeBase+"invalid_parameters" || len(prob.Errors[tc.field]) == 0 {
				t.Fatalf("status %d %+v, want %d with errors[%s]", st, prob, tc.status, tc.field)
			}
		})
	}

	t.Run("disabled account", func(t *testing.T) {
		if err := e.srv.SetAccountStatus("EUR", api.AccountDisabled); err != nil {
			t.Fatal(err)
		}
		st, prob := apiStatus(t, e.client.CreatePayout(ctx, payout("EUR", 100)))
		if st != 409 || prob.Type != ProblemTypeBase+"account_disabled" {
			t.Fatalf("status %d %+v, want 409 account_disabled", st, prob)
		}
		if err := e.client.CreatePayout(ctx, payout("GBP", 100)); err != nil {
			t.Fatalf("GBP is still enabled: %v", err)
		}
		if err := e.srv.SetAccountStatus("EUR", api.AccountEnabled); err != nil {
			t.Fatal(err)
		}
		if err := e.client.CreatePayout(ctx, payout("EUR", 100)); err != nil {
			t.Fatalf("re-enabled: %v", err)
		}
	})
}

// TestWebhookRetry: a receiver failing the first attempts gets the event
// again on the retry schedule, with a fresh signed timestamp, and the
// payout's next event waits for it.
func TestWebhookRetry(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(o *Options) { o.StepDelay = time.Hour })
	e.hook.setFail(func(n int, _ []byte) int {
		if n <= 2 {
			return http.StatusServiceUnavailable
		}
		return 0
	})
	p := payout("GBP", 500)
	if err := e.client.CreatePayout(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	attempts := func() []Delivery {
		var out []Delivery
		for _, d := range e.srv.Deliveries() {
			if d.PayoutID == p.TransactionID {
				out = append(out, d)
			}
		}
		return out
	}
	for i, wait := range []time.Duration{time.Second, 2 * time.Second} {
		waitFor(t, fmt.Sprintf("attempt %d", i+1), func() bool { return len(attempts()) == i+1 })
		d := attempts()[i]
		if d.Delivered || d.Final || d.StatusCode != 503 || d.Attempt != i+1 || !d.NextAttemptAt.Equal(e.clock.Now().Add(wait)) {
			t.Fatalf("attempt %d: %+v, want a failed non-final 503 with the retry due in %s", i+1, d, wait)
		}
		e.clock.Advance(wait - time.Millisecond)
		if len(attempts()) != i+1 {
			t.Fatal("retried before the backoff elapsed")
		}
		e.clock.Advance(time.Millisecond)
	}
	waitFor(t, "attempt 3", func() bool { return len(attempts()) == 3 })
	if d := attempts()[2]; !d.Delivered || !d.Final || d.StatusCode != 200 {
		t.Fatalf("attempt 3: %+v, want delivered", d)
	}
	reqs := e.hook.requests()
	if len(reqs) != 3 || string(reqs[0].body) != string(reqs[2].body) ||
		reqs[0].header.Get(api.HeaderWebhookTimestamp) == reqs[2].header.Get(api.HeaderWebhookTimestamp) {
		t.Fatalf("%d requests: want the same body three times with a fresh timestamp each", len(reqs))
	}
	keys, _ := api.ParseJWKS(e.do("GET", "/.well-known/jwks", nil, nil).body)
	for _, g := range reqs {
		verifyWebhook(t, keys, g)
	}

	// Give up after the schedule; the next event of the payout still goes.
	e.hook.setFail(func(n int, body []byte) int {
		if strings.Contains(string(body), api.EventPayoutSubmitted) {
			return http.StatusInternalServerError
		}
		return 0
	})
	e.clock.Advance(time.Hour) // submitted
	waitFor(t, "submitted attempt 1", func() bool { return len(attempts()) == 4 })
	e.clock.Advance(time.Second)
	waitFor(t, "submitted attempt 2", func() bool { return len(attempts()) == 5 })
	e.clock.Advance(2 * time.Second)
	waitFor(t, "submitted attempt 3", func() bool { return len(attempts()) == 6 })
	if d := attempts()[5]; d.Delivered || !d.Final || d.Attempt != 3 {
		t.Fatalf("last attempt %+v: want final and undelivered after the schedule", d)
	}
	e.clock.Advance(time.Hour) // settled
	waitFor(t, "settled", func() bool { return len(attempts()) == 7 })
	got := e.hook.payoutEvents(t, p.TransactionID)
	if len(got) != 2 || got[0].EventType != api.EventPayoutAuthorised || got[1].EventType != api.EventPayoutSettled {
		t.Fatalf("delivered %v, want authorised then settled", got)
	}
}

// TestWebhookOrderPerPayout: with many payouts in flight and a receiver
// that fails at random, each payout's events still arrive in state order.
func TestWebhookOrderPerPayout(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(o *Options) { o.WebhookRetry = []time.Duration{time.Second, time.Second, time.Second, time.Second} })
	var calls atomic.Int64
	e.hook.setFail(func(n int, _ []byte) int {
		if calls.Add(1)%3 == 0 && n < 3 {
			return 500
		}
		return 0
	})
	ctx := context.Background()
	ids := make([]string, 20)
	for i := range ids {
		p := payout("GBP", int64(100+i))
		ids[i] = p.TransactionID
		if err := e.client.CreatePayout(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	e.clock.Advance(0)
	waitFor(t, "all events delivered", func() bool {
		e.clock.Advance(time.Second) // due retries
		return len(finalDeliveries(e.srv.Sandbox, "")) == 3*len(ids)
	})
	want := []string{api.EventPayoutAuthorised, api.EventPayoutSubmitted, api.EventPayoutSettled}
	for _, id := range ids {
		var types []string
		for _, wh := range e.hook.payoutEvents(t, id) {
			types = append(types, wh.EventType)
		}
		if !slices.Equal(types, want) {
			t.Fatalf("payout %s: events %v, want %v", id, types, want)
		}
	}
}

func TestNoWebhookURI(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(o *Options) { o.WebhookURI = "" })
	p := payout("GBP", 100)
	if err := e.client.CreatePayout(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	d := finalDeliveries(e.srv.Sandbox, p.TransactionID)
	if len(d) != 1 || d[0].Attempt != 0 || d[0].Delivered || !strings.Contains(d[0].Error, "no webhook_uri") {
		t.Fatalf("deliveries %+v: want one dropped event saying no webhook_uri", d)
	}
	if err := e.srv.InjectEvent(context.Background(), []byte(`{}`), nil); err == nil {
		t.Fatal("injecting with no webhook URI succeeded")
	}
}

// TestConcurrentPayouts: 1,000 payouts at once against funds for exactly
// 500 authorise 500 and reject 500, without overdraft. No webhook URI is
// registered (signing 1,000 webhooks would double the test's time under
// -race); the events are read from the delivery log, which records each
// dropped event with its body.
func TestConcurrentPayouts(t *testing.T) {
	if testing.Short() {
		t.Skip("1,000 payouts signed and sent at once, a race loop of several CPU-seconds: left to the full run")
	}
	t.Parallel()
	const n, amount = 1000, 700
	e := newEnv(t, func(o *Options) {
		o.InitialFunds = map[string]int64{"GBP": n / 2 * amount}
		o.WebhookURI = ""
		// Client and server share this process: 1,000 goroutines signing
		// at once (slow under -race) take the scheduler round-robin for
		// many seconds, so the server's 10 s header deadline could pass
		// before its goroutine runs. This test is about the funds, not
		// about slow clients (TestSandboxCutsOffSlowBodies is).
		o.Timeouts = Timeouts{ReadHeader: 5 * time.Minute, Read: 5 * time.Minute, Write: 5 * time.Minute}
	})
	// Like any real client, this one pools connections (64 at once) rather
	// than dialling 1,000; the 1,000 calls still race for the funds.
	hc := api.DefaultHTTPClient()
	tr := hc.Transport.(*http.Transport)
	tr.MaxConnsPerHost, tr.MaxIdleConnsPerHost = 64, 64
	info := e.srv.Info()
	client, err := api.NewClient(api.Config{AuthURL: info.AuthURL, BaseURL: info.BaseURL, PayoutsURL: info.PayoutsURL,
		ClientID: info.ClientID, ClientSecret: info.ClientSecret, SigningKeyID: testKeyID, SigningKey: e.key,
		Retry: api.RetryPolicy{MaxAttempts: 1}, HTTPClient: hc})
	if err != nil {
		t.Fatal(err)
	}
	e.client = client
	ctx := context.Background()
	if _, err := e.client.Token(ctx, api.ScopePayouts); err != nil {
		t.Fatal(err)
	}
	// Open the pool's 64 connections first, as a running client would
	// have them: dialling them while 1,000 goroutines sign at once (slow
	// under -race on two cores) lets a dial time out and says nothing
	// about the funds.
	var warm sync.WaitGroup
	for range 64 {
		warm.Add(1)
		go func() {
			defer warm.Done()
			if _, err := e.client.Balances(ctx); err != nil {
				t.Error(err)
			}
		}()
	}
	warm.Wait()
	start := make(chan struct{})
	errs := make(chan error, n)
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			errs <- e.client.CreatePayout(ctx, payout("GBP", amount))
		}()
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	count := map[string]int{}
	for _, d := range e.srv.Deliveries() {
		var wh api.PayoutWebhook
		if err := json.Unmarshal([]byte(d.Body), &wh); err != nil {
			t.Fatal(err)
		}
		key := wh.EventType
		if r := eventBody(t, wh).Reason; r != "" {
			key += ":" + r
		}
		count[key]++
	}
	if count[api.EventPayoutAuthorised] != n/2 || count[api.EventPayoutRejected+":"+RejectInsufficientFunds] != n/2 || len(count) != 2 {
		t.Fatalf("events %v: want %d authorised and %d rejected for insufficient funds", count, n/2, n/2)
	}
	b := e.balance("GBP")
	if b.AvailableBalanceInMinor != 0 || b.CurrentBalanceInMinor != n/2*amount {
		t.Fatalf("balance %+v: want all %d reserved, nothing settled yet", b, n/2*amount)
	}
	e.clock.Advance(0)
	if b := e.balance("GBP"); b.CurrentBalanceInMinor != 0 || b.AvailableBalanceInMinor != 0 {
		t.Fatalf("after settlement: balance %+v, want zero", b)
	}
	settled := 0
	err = e.client.StreamTransactions(ctx, api.TransactionQuery{Type: "Payout"}, func(tx api.Transaction) error {
		if tx.Status == api.StateSettled {
			settled++
		}
		return nil
	})
	if err != nil || settled != n/2 {
		t.Fatalf("report: %d settled payouts (%v), want %d", settled, err, n/2)
	}
	checkLedger(t, e.srv.ledger)
}
