package headless

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/api/sandbox"
	"github.com/paydash/paydash/internal/cli/cmdutil"
	"github.com/paydash/paydash/internal/payout"
	"github.com/paydash/paydash/internal/payout/payouttest"
	"github.com/paydash/paydash/internal/platform/freeport"
)

// sendsTo reads balances and the report from the service but sends
// payouts with another client.
type sendsTo struct {
	*api.Client
	sender *api.Client
}

func (c sendsTo) CreatePayout(ctx context.Context, req *api.PayoutRequest) error {
	return c.sender.CreatePayout(ctx, req)
}

// TestCreateNeverReachedAdviceIsSafe: a payout whose request never
// reached the service (nothing listens where it is sent) is reported
// as not sent with the advice to run the same command again; doing just
// that once the service can be reached pays it exactly once, and the
// first attempt, recorded as refused, is no duplicate of it.
func TestCreateNeverReachedAdviceIsSafe(t *testing.T) {
	closed := "http://" + freeport.Addr(t) // nothing listens there
	e := startCreateEnv(t, 1_000_000, nil)
	s, _, _ := testStreams("")
	o := newPayout("GONE-1", "10.00")
	o.ContextCode, o.Yes = api.ContextCodeWithdrawal, true
	err := CreatePayout(context.Background(), s, sendsTo{Client: e.client, sender: e.newClient(t, closed)}, Target{Profile: "test", Audit: e.audit}, &o)
	code := cmdutil.ExitCode(err)
	if code != cmdutil.ExitNotAccepted || err == nil {
		t.Fatalf("unreachable service: exit %d (%v)", code, err)
	}
	msg := strings.Join(strings.Fields(err.Error()), " ")
	if !strings.Contains(msg, payout.AdviceNotSent) || !strings.Contains(msg, "run the same command again") || strings.Contains(msg, "may or may not") {
		t.Fatalf("advice: %s", msg)
	}
	if n := e.reportCount(t, "GONE-1"); n != 0 {
		t.Fatalf("report holds %d before the re-run", n)
	}
	// Follow it: the same command, the service reachable again.
	if _, stderr, code, err := e.create(t, newPayout("GONE-1", "10.00")); code != 0 || strings.Contains(stderr, "DUPLICATE") {
		t.Fatalf("following the advice: exit %d (%v)\n%s", code, err, stderr)
	}
	if n := e.reportCount(t, "GONE-1"); n != 1 {
		t.Fatalf("report holds %d, want exactly 1", n)
	}
	entries, err := e.audit.Entries()
	if err != nil {
		t.Fatal(err)
	}
	if at := payout.Attempts(entries); len(at) != 2 || at[0].Outcome != payout.OutcomeRefused || at[1].Outcome != payout.OutcomeAccepted {
		t.Fatalf("audit record: %+v", at)
	}
}

// TestCreateWithoutTerminalYesAdviceIsSafe: without a terminal and
// without --yes nothing is sent (exit 2) and the message says to pass
// --yes; the same command with --yes pays it once, and the record holds
// that one attempt only.
func TestCreateWithoutTerminalYesAdviceIsSafe(t *testing.T) {
	e := startCreateEnv(t, 1_000_000, nil)
	s, _, _ := testStreams("")
	o := newPayout("YES-1", "10.00")
	o.ContextCode = api.ContextCodeWithdrawal
	err := CreatePayout(context.Background(), s, e.client, Target{Profile: "test", Audit: e.audit}, &o)
	if cmdutil.ExitCode(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), "Pass --yes") {
		t.Fatalf("no terminal, no --yes: exit %d (%v)", cmdutil.ExitCode(err), err)
	}
	if n := e.reportCount(t, "YES-1"); n != 0 {
		t.Fatalf("sent without confirmation: report holds %d", n)
	}
	// Follow it: the same command with --yes.
	if _, _, code, err := e.create(t, newPayout("YES-1", "10.00")); code != 0 {
		t.Fatalf("with --yes: exit %d (%v)", code, err)
	}
	if n := e.reportCount(t, "YES-1"); n != 1 {
		t.Fatalf("report holds %d, want exactly 1", n)
	}
	entries, err := e.audit.Entries()
	if err != nil {
		t.Fatal(err)
	}
	if at := payout.Attempts(entries); len(at) != 1 || at[0].Outcome != payout.OutcomeAccepted {
		t.Fatalf("audit record: %+v", at)
	}
}

// TestCreateDuplicateWindowZeroAdviceIsSafe: --duplicate-window 0 would
// switch the duplicate check off; it is refused (exit 2, nothing sent)
// with the advice to pass --allow-duplicate instead. The same command
// with --allow-duplicate in its place sends the one second payout the
// operator meant, and no more.
func TestCreateDuplicateWindowZeroAdviceIsSafe(t *testing.T) {
	srv, key := startSandbox(t, sandbox.Options{MerchantKeyID: "k1", InitialFunds: map[string]int64{"GBP": 1_000_000}, History: 0})
	env := profileEnv(t, srv, key, srv.Info().ClientSecret)
	env["XDG_STATE_HOME"] = t.TempDir()
	send := []string{"create", "--name", "Ada Lovelace", "--iban", "GB33BUKB20201555555555", "--reference", "DW-1", "--amount", "10.00", "--currency", "GBP", "--yes"}
	e := &createEnv{srv: srv, key: key}
	e.client = e.newClient(t, srv.Info().PayoutsURL)
	count := func() int { return e.reportCount(t, "DW-1") }
	if _, stderr, code := runCommandEnv(t, env, PayoutCommand, send...); code != 0 {
		t.Fatalf("first payout: exit %d\n%s", code, stderr)
	}
	_, stderr, code := runCommandEnv(t, env, PayoutCommand, append(slices.Clone(send), "--duplicate-window", "0")...)
	if code != cmdutil.ExitUsage || !strings.Contains(stderr, "pass --allow-duplicate instead") {
		t.Fatalf("--duplicate-window 0: exit %d\n%s", code, stderr)
	}
	if n := count(); n != 1 {
		t.Fatalf("after the refusal the report holds %d, want 1", n)
	}
	// Follow it: --allow-duplicate instead of --duplicate-window 0.
	if _, stderr, code := runCommandEnv(t, env, PayoutCommand, append(slices.Clone(send), "--allow-duplicate")...); code != 0 {
		t.Fatalf("with --allow-duplicate: exit %d\n%s", code, stderr)
	}
	if n := count(); n != 2 {
		t.Fatalf("the report holds %d, want 2 (the second one the operator allowed)", n)
	}
}

// TestCreateRefusedWithAnIDAdviceIsSafe: a payout sent with
// --transaction-id and refused (409 account disabled) says to correct it
// and run again, leaving out --transaction-id; the same command without
// it sends the payout once under a new id, with no duplicate warning.
func TestCreateRefusedWithAnIDAdviceIsSafe(t *testing.T) {
	srv := payouttest.Start(t, payouttest.AccountDisabled)
	log, attempts := payouttest.Audit(t)
	const id = "5b0f3a52-7d1e-4c7a-9a57-0d6c2b1e0001"
	o := PayoutOptions{Name: "Ada Lovelace", IBAN: "GB33BUKB20201555555555", Reference: "TID-1", Amount: "12.34", Currency: "GBP",
		ContextCode: api.ContextCodeWithdrawal, TransactionID: id, Yes: true}
	s, _, _ := testStreams("")
	err := CreatePayout(context.Background(), s, srv.Client(t), Target{Profile: "test", Audit: log}, &o)
	if cmdutil.ExitCode(err) != cmdutil.ExitNotAccepted || !strings.Contains(flatText(err.Error()), "leave out --transaction-id") {
		t.Fatalf("refused with an id: exit %d (%v)", cmdutil.ExitCode(err), err)
	}
	// Follow it: the same command without --transaction-id.
	o.TransactionID = ""
	s, _, errb := testStreams("")
	if err := CreatePayout(context.Background(), s, srv.Client(t), Target{Profile: "test", Audit: log}, &o); err != nil || strings.Contains(errb.String(), "DUPLICATE") {
		t.Fatalf("without --transaction-id: %v\n%s", err, errb)
	}
	c := srv.Created()
	if len(c) != 1 || c[0].TransactionID == id || c[0].BeneficiaryReference != "TID-1" {
		t.Fatalf("created %+v, want one payout under a new id", c)
	}
	if at := attempts(); len(at) != 2 || at[0].Outcome != payout.OutcomeRefused || at[1].Outcome != payout.OutcomeAccepted {
		t.Fatalf("audit record: %+v", at)
	}
}
