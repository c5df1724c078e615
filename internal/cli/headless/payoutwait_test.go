package headless

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/cli/cmdutil"
	"github.com/paydash/paydash/internal/payout"
	"github.com/paydash/paydash/webhookrelay"
	"github.com/paydash/paydash/webhookrelay/relayclient"
	"github.com/paydash/paydash/webhookrelay/relaytest"
)

// withRelay runs a webhook relay on loopback, trusting the sandbox's
// JWKS, and points the sandbox's webhooks at it, as the demo does. It
// returns the relay's websocket URL.
func (e *createEnv) withRelay(t *testing.T) string {
	t.Helper()
	r := relaytest.Start(t, webhookrelay.Config{JKUAllow: []string{e.srv.Info().JWKSURL}})
	e.srv.SetWebhookURI(r.WebhookURL)
	return r.WSURL
}

// TestCreateWaitKeepsTheReasonAndSaysReturned: `payout create --wait
// --json` with the relay live, as the QA walkthrough ran it: a failed
// payout keeps the relay's reason (the report has none), and a returned
// one says the money went out and came back, not "nothing was paid". Run
// a few times: the report and the relay race.
func TestCreateWaitKeepsTheReasonAndSaysReturned(t *testing.T) {
	e := startCreateEnv(t, 1_000_000, nil)
	relayURL := e.withRelay(t)
	run := func(ref string) (PayoutResult, error) {
		o := newPayout(ref, "1.22")
		o.Yes, o.JSON, o.Wait, o.ContextCode = true, true, 30*time.Second, api.ContextCodeWithdrawal
		s, out, _ := testStreams("")
		err := CreatePayout(context.Background(), s, e.client, Target{Profile: "test", Audit: e.audit, RelayURL: relayURL}, &o)
		var res PayoutResult
		if jerr := json.Unmarshal(out.Bytes(), &res); jerr != nil {
			t.Fatalf("%s: json %q: %v (%v)", ref, out, jerr, err)
		}
		return res, err
	}
	for i := range 3 {
		res, err := run("FAIL:beneficiary_account_closed")
		if cmdutil.ExitCode(err) != cmdutil.ExitNotAccepted || res.Reason != "beneficiary_account_closed" || res.StateFrom != "relay" ||
			!strings.Contains(err.Error(), "failed: beneficiary_account_closed") || !strings.Contains(err.Error(), "nothing was paid") {
			t.Errorf("run %d, FAIL: exit %d, result %+v: %v", i, cmdutil.ExitCode(err), res, err)
		}
		res, err = run("RETURN")
		if cmdutil.ExitCode(err) != cmdutil.ExitNotAccepted || !res.Returned || res.Reason != "returned" ||
			!strings.Contains(err.Error(), "went out to the payee's bank and came back") || strings.Contains(err.Error(), "nothing was paid") {
			t.Errorf("run %d, RETURN: exit %d, result %+v: %v", i, cmdutil.ExitCode(err), res, err)
		}
		// The audit record keeps the outcome and its reason.
		entries, _ := e.audit.Entries()
		if a := payout.Attempts(entries); len(a) == 0 || a[len(a)-1].Outcome != api.StateFailed {
			t.Errorf("run %d: the audit record's last outcome is not failed: %+v", i, a)
		}
	}
}

// TestRejectedPayoutDoesNotBlockItsResend: the QA walkthrough's item 3. A
// payout is accepted (the record says "accepted") and then rejected; the
// relay stored the rejection, the report never lists it. Re-sending the
// same payout, as the README recommends for a rejection, is not blocked
// as a duplicate, and the rejection reaches the audit record.
func TestRejectedPayoutDoesNotBlockItsResend(t *testing.T) {
	e := startCreateEnv(t, 1_000_000, nil)
	relayURL := e.withRelay(t)
	target := Target{Profile: "test", Audit: e.audit, RelayURL: relayURL}
	o := PayoutOptions{Name: "AML Test", IBAN: "GB33BUKB20201555555555", Reference: "INV-8001", Amount: "9.99", Currency: "GBP",
		ContextCode: api.ContextCodeWithdrawal, Yes: true}
	s, out, _ := testStreams("")
	if err := CreatePayout(context.Background(), s, e.client, target, &o); err != nil {
		t.Fatal(err)
	}
	first := strings.TrimSpace(out.String())
	// The rejection reaches the relay a moment later (a person sees it in
	// the tracker or events tail).
	deadline := time.Now().Add(10 * time.Second)
	for {
		st, _, ok, _ := relayclient.History{URL: relayURL}.FinalState(context.Background(), first)
		if ok && st == api.StateRejected {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the relay never stored the rejection")
		}
		time.Sleep(50 * time.Millisecond)
	}
	s, out, errb := testStreams("")
	if err := CreatePayout(context.Background(), s, e.client, target, &o); err != nil {
		t.Fatalf("re-send of a rejected payout refused: exit %d: %v\n%s", cmdutil.ExitCode(err), err, errb)
	}
	if second := strings.TrimSpace(out.String()); second == "" || second == first {
		t.Fatalf("the re-send did not go out under a new id: %q", second)
	}
	entries, _ := e.audit.Entries()
	for _, a := range payout.Attempts(entries) {
		if a.TransactionID == first && a.Outcome != api.StateRejected {
			t.Errorf("the audit record still shows %s for the rejected payout", a.Outcome)
		}
	}
}

// TestUnconfirmedAcceptedMatchIsRefusedWithAWayOut: the record says a
// payout was accepted 5 minutes ago, the report does not list it and no
// relay answers. paydash cannot tell a rejection from a lost report line,
// so it refuses, saying how to check and how to override; following the
// override sends exactly one payout.
func TestUnconfirmedAcceptedMatchIsRefusedWithAWayOut(t *testing.T) {
	e := startCreateEnv(t, 1_000_000, nil)
	earlier := time.Now().Add(-5 * time.Minute)
	audit, err := payout.Open(filepath.Join(t.TempDir(), "audit.jsonl"), "test", func() time.Time { return earlier })
	if err != nil {
		t.Fatal(err)
	}
	ghost := "0f6c3c1e-55aa-4f6b-9d51-3b2a6f0c9e11"
	if _, err := audit.Reserve(context.Background(), payout.Entry{Source: payout.SourceForm, TransactionID: ghost, Name: "Ada Lovelace",
		IBAN: "GB33BUKB20201555555555", Reference: "UNSURE-1", AmountInMinor: 500, Currency: "GBP"}, payout.DefaultWindow, false); err != nil {
		t.Fatal(err)
	}
	if err := audit.Outcome(ghost, payout.OutcomeAccepted, ""); err != nil {
		t.Fatal(err)
	}
	e.audit = audit
	target := Target{Profile: "test", Audit: audit, RelayURL: "ws://127.0.0.1:1/ws"}
	o := newPayout("UNSURE-1", "5.00")
	o.Yes, o.ContextCode = true, api.ContextCodeWithdrawal
	s, _, _ := testStreams("")
	err = CreatePayout(context.Background(), s, e.client, target, &o)
	if cmdutil.ExitCode(err) != cmdutil.ExitNotAccepted || !strings.Contains(err.Error(), "paydash events tail --since 0 --payout "+ghost) ||
		!strings.Contains(err.Error(), "--allow-duplicate") || !strings.Contains(err.Error(), "may have been rejected") {
		t.Fatalf("exit %d: %v", cmdutil.ExitCode(err), err)
	}
	if n := e.reportCount(t, "UNSURE-1"); n != 0 {
		t.Fatalf("refused, yet %d payout(s) sent", n)
	}
	o.AllowDuplicate = true
	s, _, _ = testStreams("")
	if err := CreatePayout(context.Background(), s, e.client, target, &o); err != nil {
		t.Fatalf("with --allow-duplicate: %v", err)
	}
	if n := e.reportCount(t, "UNSURE-1"); n != 1 {
		t.Errorf("following --allow-duplicate: %d payout(s) in the report, want 1", n)
	}
}

// TestNoFinalStateAdviceShowsTheRejection: --wait with the relay out of
// reach follows the report, where a rejected payout never appears, and
// gives up saying to follow it with `paydash events tail --since 0
// --payout ID`. Run as printed once the relay answers, that shows the
// payout's rejection, and only that payout's events.
func TestNoFinalStateAdviceShowsTheRejection(t *testing.T) {
	e := startCreateEnv(t, 1_000_000, nil)
	relayURL := e.withRelay(t)
	other := PayoutOptions{Name: "Grace Hopper", IBAN: "GB33BUKB20201555555555", Reference: "OTHER-1", Amount: "1.00", Currency: "GBP",
		ContextCode: api.ContextCodeWithdrawal, Yes: true}
	s, _, _ := testStreams("")
	if err := CreatePayout(context.Background(), s, e.client, Target{Profile: "test", Audit: e.audit, RelayURL: relayURL}, &other); err != nil {
		t.Fatal(err)
	}
	o := PayoutOptions{Name: "AML Test", IBAN: "GB33BUKB20201555555555", Reference: "NOFINAL-1", Amount: "9.99", Currency: "GBP",
		ContextCode: api.ContextCodeWithdrawal, Yes: true, Wait: time.Second}
	s, out, _ := testStreams("")
	err := CreatePayout(context.Background(), s, e.client, Target{Profile: "test", Audit: e.audit, RelayURL: "ws://127.0.0.1:1/ws"}, &o)
	id := strings.TrimSpace(out.String())
	advice := "paydash events tail --since 0 --payout " + id
	if cmdutil.ExitCode(err) != exitNoFinalState || id == "" || !strings.Contains(err.Error(), advice) {
		t.Fatalf("exit %d, id %q: %v", cmdutil.ExitCode(err), id, err)
	}

	// The advice, with the relay reachable again.
	var tailOut syncBuffer
	ts := &cmdutil.Streams{In: strings.NewReader(""), Out: &tailOut, Err: &syncBuffer{}}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- Tail(ctx, ts, relayURL, "", &TailOptions{Since: "0", PayoutID: id}) }()
	for !strings.Contains(tailOut.String(), api.EventPayoutRejected) {
		if ctx.Err() != nil {
			t.Fatalf("the tail never showed the rejection:\n%s", tailOut.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	<-done
	for _, l := range strings.Split(strings.TrimSpace(tailOut.String()), "\n") {
		if !strings.Contains(l, id) {
			t.Errorf("the tail printed another payout's event: %q", l)
		}
	}
}

// TestWaitSaysTheRelayRefusedTheToken: with a relay_token the relay
// refuses, --wait says so and follows the report, as it does for a relay
// that is down, instead of waiting silently on a stream it cannot read.
func TestWaitSaysTheRelayRefusedTheToken(t *testing.T) {
	e := startCreateEnv(t, 1_000_000, nil)
	r := relaytest.Start(t, webhookrelay.Config{JKUAllow: []string{e.srv.Info().JWKSURL}, Token: "right-relay-token-0123"})
	e.srv.SetWebhookURI(r.WebhookURL)
	o := newPayout("TOKEN-1", "1.11")
	o.Yes, o.Wait, o.ContextCode = true, 30*time.Second, api.ContextCodeWithdrawal
	s, _, errb := testStreams("")
	err := CreatePayout(context.Background(), s, e.client, Target{Profile: "test", Audit: e.audit, RelayURL: r.WSURL, RelayToken: "wrong-relay-token-0123"}, &o)
	if err != nil {
		t.Fatalf("payout with a refused relay token: %v", err)
	}
	if !strings.Contains(errb.String(), "note: relay history: relay refused the token (HTTP 401)") || !strings.Contains(errb.String(), "state from the service report") {
		t.Fatalf("stderr does not say the relay refused the token:\n%s", errb)
	}
}

// TestInterruptedWaitIsNotATimeout: ctrl+c during --wait stops the wait,
// not the payout: the message says it was sent and accepted, and how to
// follow it, not "no final state within 1m".
func TestInterruptedWaitIsNotATimeout(t *testing.T) {
	e := startCreateEnv(t, 1_000_000, nil)
	o := PayoutOptions{Name: "AML Test", IBAN: "GB33BUKB20201555555555", Reference: "WAIT-INT", Amount: "3.00", Currency: "GBP",
		ContextCode: api.ContextCodeWithdrawal, Yes: true, Wait: time.Minute}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	s, _, _ := testStreams("")
	err := CreatePayout(ctx, s, e.client, Target{Profile: "test", Audit: e.audit, RelayURL: "ws://127.0.0.1:1/ws"}, &o)
	if err == nil || strings.Contains(err.Error(), "within") || !strings.Contains(err.Error(), "was sent and accepted; stopped waiting") ||
		!strings.Contains(err.Error(), "paydash events tail --since 0 --payout ") {
		t.Fatalf("interrupted wait: %v", err)
	}
}
