package headless

import (
	"context"
	"encoding/json"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/cli/cmdutil"
	"github.com/paydash/paydash/internal/payguard"
	"github.com/paydash/paydash/webhookrelay"
)

// withRelay runs a webhook relay on loopback, trusting the sandbox's
// JWKS, and points the sandbox's webhooks at it, as the demo does. It
// returns the relay's websocket URL.
func (e *createEnv) withRelay(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r, err := webhookrelay.Open(webhookrelay.Config{Listen: ln.Addr().String(), StorePath: filepath.Join(t.TempDir(), "events.db"),
		JKUAllow: []string{e.srv.Info().JWKSURL}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = r.Serve(ctx, ln) }()
	t.Cleanup(func() { cancel(); <-done; r.Close() })
	e.srv.SetWebhookURI("http://" + ln.Addr().String() + webhookrelay.DefaultPath)
	return "ws://" + ln.Addr().String() + "/ws"
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
		o := payout(ref, "1.22")
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
		if a := payguard.Attempts(entries); len(a) == 0 || a[len(a)-1].Outcome != api.StateFailed {
			t.Errorf("run %d: the audit record's last outcome is not failed: %+v", i, a)
		}
	}
}
