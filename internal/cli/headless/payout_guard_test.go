package headless

import (
	"context"
	"crypto/ecdsa"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/api/sandbox"
	"github.com/paydash/paydash/internal/cli/cmdutil"
	"github.com/paydash/paydash/internal/payout"
)

// These tests send with `payout create` as an operator does, against the
// sandbox over HTTP, and count payouts in the service's report.

type createEnv struct {
	srv    *sandbox.Server
	client *api.Client
	audit  *payout.Log
	key    *ecdsa.PrivateKey
}

func (e *createEnv) newClient(t *testing.T, payouts string) *api.Client {
	t.Helper()
	info := e.srv.Info()
	c, err := api.NewClient(api.Config{AuthURL: info.AuthURL, BaseURL: info.BaseURL, PayoutsURL: payouts,
		ClientID: info.ClientID, ClientSecret: info.ClientSecret, SigningKeyID: "k1", SigningKey: e.key,
		Retry: api.RetryPolicy{MaxAttempts: 2, BaseDelay: time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func startCreateEnv(t *testing.T, funds int64, payoutsVia func(target string) string) *createEnv {
	t.Helper()
	srv, key := startSandbox(t, sandbox.Options{MerchantKeyID: "k1", InitialFunds: map[string]int64{"GBP": funds}, History: 0})
	e := &createEnv{srv: srv, key: key}
	payouts := srv.Info().PayoutsURL
	if payoutsVia != nil {
		payouts = payoutsVia(payouts)
	}
	e.client = e.newClient(t, payouts)
	audit, err := payout.Open(filepath.Join(t.TempDir(), "audit.jsonl"), "test", nil)
	if err != nil {
		t.Fatal(err)
	}
	e.audit = audit
	return e
}

func (e *createEnv) create(t *testing.T, o PayoutOptions) (stdout, stderr string, code int, err error) {
	t.Helper()
	if o.ContextCode == "" {
		o.ContextCode = api.ContextCodeWithdrawal
	}
	o.Yes = true
	s, out, errb := testStreams("")
	err = CreatePayout(context.Background(), s, e.client, Target{Profile: "test", Audit: e.audit}, &o)
	return out.String(), errb.String(), cmdutil.ExitCode(err), err
}

// reportCount counts the report's payouts with the reference.
func (e *createEnv) reportCount(t *testing.T, ref string) int {
	t.Helper()
	txs, err := e.client.Transactions(context.Background(), api.TransactionQuery{Type: api.TransactionPayout})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, tx := range txs {
		if tx.BeneficiaryReference == ref {
			n++
		}
	}
	return n
}

func newPayout(ref, amount string) PayoutOptions {
	return PayoutOptions{Name: "Ada Lovelace", IBAN: "GB33BUKB20201555555555", Reference: ref, Amount: amount, Currency: "GBP"}
}

func TestCreateRefusesWhatTheAccountCannotFund(t *testing.T) {
	e := startCreateEnv(t, 1000, nil) // £10.00 available
	_, _, code, err := e.create(t, newPayout("NOFUNDS-1", "20.00"))
	if code != cmdutil.ExitNotAccepted || !strings.Contains(err.Error(), "exceeds the available GBP balance") {
		t.Fatalf("a payout above the balance: exit %d (%v), want %d", code, err, cmdutil.ExitNotAccepted)
	}
	o := newPayout("NOFUNDS-2", "1.00")
	o.Currency = "USD"
	if _, _, code, err := e.create(t, o); code != cmdutil.ExitNotAccepted || !strings.Contains(err.Error(), "no USD payout account") {
		t.Fatalf("a payout from no account: exit %d (%v)", code, err)
	}
	if n := e.reportCount(t, "NOFUNDS-1") + e.reportCount(t, "NOFUNDS-2"); n != 0 {
		t.Fatalf("%d payout(s) sent", n)
	}
}

func TestCreateReusedIDWithOtherDetailsIsAnError(t *testing.T) {
	e := startCreateEnv(t, 1_000_000, nil)
	const id = "0d8f7a52-2d0c-4e5b-9d4e-9a6a4f0d1c11"
	o := newPayout("REUSE-1", "10.00")
	o.TransactionID = id
	if _, _, code, err := e.create(t, o); code != 0 {
		t.Fatalf("first create: exit %d (%v)", code, err)
	}
	other := newPayout("REUSE-2", "99.00")
	other.Name, other.TransactionID = "Someone Else", id
	_, _, code, err := e.create(t, other)
	if code != cmdutil.ExitUsage || !strings.Contains(err.Error(), "already used") || !strings.Contains(err.Error(), "leave out --transaction-id") {
		t.Fatalf("a reused id for another payout: exit %d (%v), want %d", code, err, cmdutil.ExitUsage)
	}
	// Following the advice: the same command without --transaction-id.
	other.TransactionID = ""
	if _, _, code, err := e.create(t, other); code != 0 {
		t.Fatalf("without --transaction-id: exit %d (%v)", code, err)
	}
	// The same payout under the same id again is a safe retry: exit 0,
	// nothing new created.
	_, stderr, code, err := e.create(t, o)
	if code != 0 || !strings.Contains(stderr, "already sent") {
		t.Fatalf("retry of the same payout: exit %d (%v)\n%s", code, err, stderr)
	}
	if a, b := e.reportCount(t, "REUSE-1"), e.reportCount(t, "REUSE-2"); a != 1 || b != 1 {
		t.Fatalf("report: REUSE-1 %d, REUSE-2 %d, want 1 each", a, b)
	}
}

func TestCreateDuplicateNeedsAllowDuplicate(t *testing.T) {
	e := startCreateEnv(t, 1_000_000, nil)
	first, _, code, err := e.create(t, newPayout("DUP-1", "10.00"))
	if code != 0 {
		t.Fatalf("first: exit %d (%v)", code, err)
	}
	firstID := strings.TrimSpace(first)
	_, _, code, err = e.create(t, newPayout("dup-1", "10.00"))
	if code != cmdutil.ExitNotAccepted || !strings.Contains(err.Error(), firstID) || !strings.Contains(err.Error(), "local audit record") ||
		!regexp.MustCompile(`\d{4}-\d\d-\d\d \d\d:\d\d UTC`).MatchString(err.Error()) || !strings.Contains(err.Error(), "--allow-duplicate") {
		t.Fatalf("a duplicate: exit %d, want %d with the earlier id, date and source:\n%v", code, cmdutil.ExitNotAccepted, err)
	}
	// Found in the report alone too (the record lost).
	e.audit, _ = payout.Open(filepath.Join(t.TempDir(), "fresh.jsonl"), "test", nil)
	if _, _, code, err := e.create(t, newPayout("DUP-1", "10.00")); code != cmdutil.ExitNotAccepted || !strings.Contains(err.Error(), "service report") {
		t.Fatalf("a duplicate only the report knows: exit %d (%v)", code, err)
	}
	if n := e.reportCount(t, "DUP-1") + e.reportCount(t, "dup-1"); n != 1 {
		t.Fatalf("report holds %d, want 1", n)
	}
	o := newPayout("DUP-1", "10.00")
	o.AllowDuplicate = true
	if _, _, code, err := e.create(t, o); code != 0 {
		t.Fatalf("with --allow-duplicate: exit %d (%v)", code, err)
	}
	if n := e.reportCount(t, "DUP-1"); n != 2 {
		t.Fatalf("report holds %d, want 2 (the operator allowed the second)", n)
	}
	entries, _ := e.audit.Entries()
	if len(entries) == 0 || !entries[len(entries)-2].AllowedDuplicate {
		t.Errorf("the audit record does not mark the allowed duplicate: %+v", entries)
	}
}

func TestCreateWaitFollowsTheReportWithoutARelay(t *testing.T) {
	e := startCreateEnv(t, 1_000_000, nil)
	o := newPayout("WAIT-OK", "1.00")
	o.Wait = 10 * time.Second
	_, stderr, code, err := e.create(t, o)
	if code != 0 || !strings.Contains(stderr, "settled") || !strings.Contains(stderr, "state from the service report") {
		t.Fatalf("--wait on a payout that settles: exit %d (%v)\n%s", code, err, stderr)
	}
	o = newPayout("FAIL:account closed", "1.00")
	o.Wait = 10 * time.Second
	_, _, code, err = e.create(t, o)
	if code != cmdutil.ExitNotAccepted || !strings.Contains(err.Error(), "failed") {
		t.Fatalf("--wait on a payout that fails: exit %d (%v), want %d", code, err, cmdutil.ExitNotAccepted)
	}
}

func TestCreateLostAnswerRetryAdviceIsSafe(t *testing.T) {
	// A proxy forwards the payout to the service but the answer is lost
	// (502): the payout exists, paydash cannot know.
	var proxied *httptest.Server
	e := startCreateEnv(t, 1_000_000, func(target string) string {
		u, _ := url.Parse(target)
		rp := httputil.NewSingleHostReverseProxy(u)
		rp.ModifyResponse = func(r *http.Response) error {
			if r.Request.Method == http.MethodPost {
				r.StatusCode = http.StatusBadGateway
			}
			return nil
		}
		proxied = httptest.NewServer(rp)
		t.Cleanup(proxied.Close)
		return proxied.URL
	})
	_, _, code, err := e.create(t, newPayout("LOST-1", "10.00"))
	if code != cmdutil.ExitNotAccepted {
		t.Fatalf("lost answer: exit %d (%v)", code, err)
	}
	m := regexp.MustCompile(`re-run the same command with --transaction-id (\S+)\)`).FindStringSubmatch(err.Error())
	if m == nil {
		t.Fatalf("no retry advice: %v", err)
	}
	// Follow it, once the service answers again.
	e.client = e.newClient(t, e.srv.Info().PayoutsURL)
	o := newPayout("LOST-1", "10.00")
	o.TransactionID = m[1]
	if _, _, code, err := e.create(t, o); code != 0 {
		t.Fatalf("following the advice: exit %d (%v)", code, err)
	}
	if n := e.reportCount(t, "LOST-1"); n != 1 {
		t.Fatalf("report holds %d, want exactly 1", n)
	}
}
