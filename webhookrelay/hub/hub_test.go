package hub_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/api/sandbox"
	"github.com/paydash/paydash/internal/payout"
	"github.com/paydash/paydash/internal/platform/clock"
	"github.com/paydash/paydash/webhookrelay/hub"
	"github.com/paydash/paydash/webhookrelay/hub/hubapi"
	"github.com/paydash/paydash/webhookrelay/hub/hubclient"
	"github.com/paydash/paydash/webhookrelay/hub/policy"
	"github.com/paydash/paydash/webhookrelay/hub/store"
	"github.com/paydash/paydash/webhookrelay/hub/users"
)

// These tests run the hub's API over loopback HTTP, sending through the
// real pipeline glue to the sandbox, and count payouts in the sandbox's
// own report.

const (
	payeeIBAN  = "GB33BUKB20201555555555"
	otherIBAN  = "GB94BARC10201530093459"
	sharedTok  = "the-relays-shared-token-0123"
	notifyWait = 5 * time.Second
)

// countingPipeline counts sends, so a test sees a payout sent once even
// where the service would quietly absorb a second send of one id.
type countingPipeline struct {
	hub.Pipeline
	sends   atomic.Int32
	lookups atomic.Int32
	// down makes Check fail as an unreachable service does.
	down atomic.Bool
}

func (c *countingPipeline) Check(ctx context.Context, req *api.PayoutRequest, reserved map[string]int64, allow bool) error {
	if c.down.Load() {
		return errors.New("checking the GBP balance: connection refused (nothing was sent)")
	}
	return c.Pipeline.Check(ctx, req, reserved, allow)
}

func (c *countingPipeline) Send(ctx context.Context, req *api.PayoutRequest, allow bool) (hub.Outcome, error) {
	c.sends.Add(1)
	return c.Pipeline.Send(ctx, req, allow)
}

func (c *countingPipeline) Lookup(ctx context.Context, id string) (string, bool, error) {
	c.lookups.Add(1)
	return c.Pipeline.Lookup(ctx, id)
}

type env struct {
	t        *testing.T
	sb       *sandbox.Server
	svc      *api.Client
	audit    *payout.Log
	pipe     *countingPipeline
	st       *store.Store
	storeDir string
	live     *users.Live
	clk      *clock.Fake
	hub      *hub.Hub
	srv      *httptest.Server
	tokens   map[string]string
	notes    chan string
	pol      policy.Policy
	// batchWithin is the hub's BatchAnswerWithin (0: its default).
	batchWithin time.Duration
	// feedQueue is the hub's FeedQueue (0: its default).
	feedQueue int
	// direct is the hub's Direct (nil: svc).
	direct hub.Direct
}

type opts struct {
	funds       int64
	approvers   int
	over        string
	batchWithin time.Duration
	feedQueue   int
}

func startEnv(t *testing.T, o opts) *env {
	t.Helper()
	if o.funds == 0 {
		o.funds = 1_000_000_00
	}
	if o.approvers == 0 {
		o.approvers = 1
	}
	if o.over == "" {
		o.over = "GBP=1000.00"
	}
	key, err := api.GenerateSigningKey()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	sb, err := sandbox.Listen(ctx, "127.0.0.1:0", sandbox.Options{MerchantKey: &key.PublicKey, MerchantKeyID: "k1",
		InitialFunds: map[string]int64{"GBP": o.funds, "EUR": o.funds}, History: 0})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	info := sb.Info()
	svc, err := api.NewClient(api.Config{AuthURL: info.AuthURL, BaseURL: info.BaseURL, PayoutsURL: info.PayoutsURL,
		ClientID: info.ClientID, ClientSecret: info.ClientSecret, SigningKeyID: "k1", SigningKey: key,
		Retry: api.RetryPolicy{MaxAttempts: 2, BaseDelay: time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	audit, err := payout.Open(filepath.Join(dir, "audit.jsonl"), "hub", nil)
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, sb: sb, svc: svc, audit: audit, storeDir: dir, tokens: map[string]string{}, notes: make(chan string, 32)}
	e.pipe = &countingPipeline{Pipeline: hub.NewPayoutPipeline(svc, audit)}
	usersFile := filepath.Join(dir, "users.toml")
	for _, u := range []struct {
		name  string
		roles []string
	}{
		{"ada", []string{users.RoleRequest}},
		{"bob", []string{users.RoleRequest, users.RoleApprove}},
		{"cy", []string{users.RoleApprove}},
		{"vic", []string{users.RoleView}},
	} {
		tok, err := users.Add(usersFile, u.name, u.roles)
		if err != nil {
			t.Fatal(err)
		}
		e.tokens[u.name] = tok
	}
	over, err := policy.ParseThresholds(o.over)
	if err != nil {
		t.Fatal(err)
	}
	e.pol = policy.Policy{Over: over, Approvers: o.approvers, TTL: time.Hour}
	e.live, err = users.Open(usersFile, hub.CheckUsers(e.pol))
	if err != nil {
		t.Fatal(err)
	}
	notify := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m hub.Message
		_ = json.NewDecoder(r.Body).Decode(&m)
		e.notes <- m.Text
	}))
	t.Cleanup(notify.Close)
	e.clk = clock.NewFake(time.Now())
	e.batchWithin = o.batchWithin
	e.feedQueue = o.feedQueue
	e.open(notify.URL)
	return e
}

// open (re)starts the hub on the store in e.storeDir.
func (e *env) open(notifyURL string) {
	t := e.t
	st, err := store.Open(filepath.Join(e.storeDir, "approvals.db"))
	if err != nil {
		t.Fatal(err)
	}
	e.st = st
	var direct hub.Direct = e.svc
	if e.direct != nil {
		direct = e.direct
	}
	h, err := hub.New(hub.Config{Users: e.live, Store: st, Policy: e.pol, Pipeline: e.pipe, SharedToken: sharedTok,
		NotifyURL: notifyURL, Clock: e.clk, BatchAnswerWithin: e.batchWithin, FeedQueue: e.feedQueue, Direct: direct})
	if err != nil {
		t.Fatal(err)
	}
	e.hub = h
	e.srv = httptest.NewServer(h.Handler())
	t.Cleanup(e.close)
}

func (e *env) close() {
	if e.srv == nil {
		return
	}
	e.srv.Close()
	e.hub.Close()
	e.st.Close()
	e.srv = nil
}

func (e *env) as(name string) *hubclient.Client {
	return &hubclient.Client{BaseURL: e.srv.URL, Token: e.tokens[name]}
}

func sub(ref, iban string, amount int64) hubapi.Submission {
	return hubapi.Submission{PayoutRequest: api.PayoutRequest{BeneficiaryName: "Payee Ltd", BeneficiaryIBAN: iban,
		BeneficiaryReference: ref, Currency: "GBP", AmountInMinor: amount, ContextCode: api.ContextCodeWithdrawal}}
}

func (e *env) reportCount(ref string) int {
	e.t.Helper()
	txs, err := e.svc.Transactions(context.Background(), api.TransactionQuery{Type: api.TransactionPayout})
	if err != nil {
		e.t.Fatal(err)
	}
	n := 0
	for _, tx := range txs {
		if tx.BeneficiaryReference == ref {
			n++
		}
	}
	return n
}

func wantReason(t *testing.T, err error, reason string) {
	t.Helper()
	var he *hubclient.Error
	if !errors.As(err, &he) || he.Reason != reason {
		t.Fatalf("got %v, want the hub's refusal %q", err, reason)
	}
}

func TestBelowThresholdIsSentAtOnce(t *testing.T) {
	e := startEnv(t, opts{})
	res, err := e.as("ada").Submit(context.Background(), sub("SMALL-1", payeeIBAN, 999_99))
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != store.StatusSent || res.Request.PayoutState != "accepted" || res.Request.NeedsApproval {
		t.Fatalf("below the threshold: %+v", res)
	}
	if n := e.reportCount("SMALL-1"); n != 1 {
		t.Fatalf("%d payouts in the report, want 1", n)
	}
}

func TestAboveThresholdWaitsForAnotherPerson(t *testing.T) {
	e := startEnv(t, opts{})
	ctx := context.Background()
	res, err := e.as("bob").Submit(ctx, sub("BIG-1", payeeIBAN, 1000_01))
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != hubapi.StatusAwaitingApproval || res.ApprovalID == "" || strings.Join(res.Approvers, ",") != "cy" {
		t.Fatalf("above the threshold: %+v (approvers: everyone with approve but the requester)", res)
	}
	select {
	case text := <-e.notes:
		if !strings.Contains(text, "bob asks for approval") || !strings.Contains(text, res.ApprovalID) {
			t.Fatalf("notify text %q", text)
		}
	case <-time.After(notifyWait):
		t.Fatal("no notification of the new request")
	}
	id := res.ApprovalID
	// The requester holds approve but never approves their own request.
	_, err = e.as("bob").Approve(ctx, id)
	wantReason(t, err, "own_request")
	// View-only and request-only tokens cannot approve; view cannot request.
	_, err = e.as("vic").Approve(ctx, id)
	wantReason(t, err, "role_missing")
	_, err = e.as("ada").Approve(ctx, id)
	wantReason(t, err, "role_missing")
	_, err = e.as("vic").Submit(ctx, sub("VIEW-1", payeeIBAN, 1))
	wantReason(t, err, "role_missing")
	// The relay's shared token reads, never requests or approves.
	shared := &hubclient.Client{BaseURL: e.srv.URL, Token: sharedTok}
	if _, err := shared.List(ctx, false); err != nil {
		t.Fatalf("shared token cannot read: %v", err)
	}
	_, err = shared.Approve(ctx, id)
	wantReason(t, err, "shared_token")
	_, err = shared.Submit(ctx, sub("SHARED-1", payeeIBAN, 1))
	wantReason(t, err, "shared_token")
	// No token at all (the loopback no-token mode of the relay) is refused.
	_, err = (&hubclient.Client{BaseURL: e.srv.URL}).Approve(ctx, id)
	wantReason(t, err, "unauthorized")
	// A token in the URL is refused even when it is right.
	resp, err := http.Post(e.srv.URL+hubapi.PathApprovals+"/"+id+"/approve?token="+e.tokens["cy"], "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "token_in_url") {
		t.Fatalf("token in the URL: %d %s", resp.StatusCode, body)
	}
	if n := e.reportCount("BIG-1"); n != 0 {
		t.Fatalf("%d payouts sent before approval", n)
	}

	r, err := e.as("cy").Approve(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != store.StatusSent || strings.Join(r.ApprovedBy, ",") != "cy" {
		t.Fatalf("after cy's approval: %+v", r)
	}
	// Approving again (an answer lost on the way back) sends nothing more.
	if r, err := e.as("cy").Approve(ctx, id); err != nil || r.Status != store.StatusSent {
		t.Fatalf("repeated approval: %+v, %v", r, err)
	}
	if n := e.reportCount("BIG-1"); n != 1 || e.pipe.sends.Load() != 1 {
		t.Fatalf("%d payouts in the report, %d sends; want 1 and 1", n, e.pipe.sends.Load())
	}
	log, err := e.as("vic").Log(ctx, 0, id)
	if err != nil {
		t.Fatal(err)
	}
	var acts []string
	for _, l := range log {
		acts = append(acts, l.Action+"/"+l.By)
	}
	if strings.Join(acts, " ") != "requested/bob approved/cy sending/hub outcome/" {
		t.Fatalf("record: %v", acts)
	}
}

func TestSplittingRoundTheThresholdNeedsApproval(t *testing.T) {
	e := startEnv(t, opts{})
	ctx := context.Background()
	ada := e.as("ada")
	if r, err := ada.Submit(ctx, sub("SPLIT-1", payeeIBAN, 600_00)); err != nil || r.Status != store.StatusSent {
		t.Fatalf("first half: %+v %v", r, err)
	}
	r, err := ada.Submit(ctx, sub("SPLIT-2", payeeIBAN, 600_00))
	if err != nil || r.Status != hubapi.StatusAwaitingApproval || !strings.Contains(r.Reason, "24 h") {
		t.Fatalf("second half to the same payee: %+v %v", r, err)
	}
	// Another payee starts at 0; another requester to the same payee
	// counts what everyone sent it (issue 29: both limits hold).
	if r, err := ada.Submit(ctx, sub("SPLIT-3", otherIBAN, 600_00)); err != nil || r.Status != store.StatusSent {
		t.Fatalf("another payee: %+v %v", r, err)
	}
	if r, err := e.as("bob").Submit(ctx, sub("SPLIT-4", payeeIBAN, 600_00)); err != nil || r.Status != hubapi.StatusAwaitingApproval || !strings.Contains(r.Reason, "by everyone") {
		t.Fatalf("another requester to the same payee: %+v %v", r, err)
	}
	// A day later the sum starts again.
	e.clk.Advance(policy.SumWindow)
	if r, err := ada.Submit(ctx, sub("SPLIT-5", payeeIBAN, 600_00)); err != nil || r.Status != store.StatusSent {
		t.Fatalf("a day later: %+v %v", r, err)
	}
	if n := e.reportCount("SPLIT-2"); n != 0 {
		t.Fatalf("the split half was sent without approval")
	}
}

// Three requesters each sending 400.00 to one payee under a 1,000.00
// rule: the third needs approval, and the sandbox's report holds two.
func TestThreeRequestersCannotSplitRoundTheThreshold(t *testing.T) {
	e := startEnv(t, opts{})
	ctx := context.Background()
	for i, who := range []string{"ada", "bob"} {
		ref := fmt.Sprintf("TRIO-%d", i+1)
		if r, err := e.as(who).Submit(ctx, sub(ref, payeeIBAN, 400_00)); err != nil || r.Status != store.StatusSent {
			t.Fatalf("%s's 400.00: %+v %v", who, r, err)
		}
	}
	// A third person with the request role (added to the users file).
	tok, err := users.Add(e.live.Path(), "dee", []string{users.RoleRequest})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.live.Reload(); err != nil {
		t.Fatal(err)
	}
	dee := &hubclient.Client{BaseURL: e.srv.URL, Token: tok}
	r, err := dee.Submit(ctx, sub("TRIO-3", payeeIBAN, 400_00))
	if err != nil || r.Status != hubapi.StatusAwaitingApproval || !strings.Contains(r.Reason, "by everyone") {
		t.Fatalf("the third 400.00 to one payee: %+v %v", r, err)
	}
	if n := e.reportCount("TRIO-3"); n != 0 {
		t.Fatalf("the third payout was sent without approval")
	}
}

func TestUnlistedCurrencyAndZeroThresholdNeedApproval(t *testing.T) {
	e := startEnv(t, opts{over: "GBP=0"})
	ctx := context.Background()
	r, err := e.as("ada").Submit(ctx, sub("ZERO-1", payeeIBAN, 1))
	if err != nil || r.Status != hubapi.StatusAwaitingApproval {
		t.Fatalf("GBP=0, 0.01: %+v %v", r, err)
	}
	s := sub("EUR-1", "DE89370400440532013000", 1)
	s.Currency = "EUR"
	r, err = e.as("ada").Submit(ctx, s)
	if err != nil || r.Status != hubapi.StatusAwaitingApproval || !strings.Contains(r.Reason, "no threshold set for EUR") {
		t.Fatalf("unlisted EUR: %+v %v", r, err)
	}
}

func TestConcurrentApprovalsSendOnce(t *testing.T) {
	e := startEnv(t, opts{})
	ctx := context.Background()
	res, err := e.as("ada").Submit(ctx, sub("RACE-1", payeeIBAN, 5000_00))
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var ok atomic.Int32
	for i := range 8 {
		who := []string{"bob", "cy"}[i%2]
		wg.Go(func() {
			if _, err := e.as(who).Approve(ctx, res.ApprovalID); err == nil {
				ok.Add(1)
			} else if !hubclient.IsReason(err, "not_pending") {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if n := e.reportCount("RACE-1"); n != 1 || e.pipe.sends.Load() != 1 {
		t.Fatalf("%d payouts in the report and %d sends after 8 concurrent approvals; want 1 and 1", n, e.pipe.sends.Load())
	}
	r, _ := e.as("vic").Get(ctx, res.ApprovalID)
	if r.Status != store.StatusSent || len(r.ApprovedBy) != 1 {
		t.Fatalf("after the race: %+v", r)
	}
}

func TestTwoApproversAreTwoPeople(t *testing.T) {
	e := startEnv(t, opts{approvers: 2})
	ctx := context.Background()
	res, err := e.as("ada").Submit(ctx, sub("TWO-1", payeeIBAN, 5000_00))
	if err != nil || res.ApprovalsNeeded != 2 {
		t.Fatalf("%+v %v", res, err)
	}
	if r, err := e.as("bob").Approve(ctx, res.ApprovalID); err != nil || r.Status != store.StatusPending {
		t.Fatalf("first approval: %+v %v", r, err)
	}
	if r, err := e.as("bob").Approve(ctx, res.ApprovalID); err != nil || r.Status != store.StatusPending {
		t.Fatalf("bob again: %+v %v (one person is one approval)", r, err)
	}
	if r, err := e.as("cy").Approve(ctx, res.ApprovalID); err != nil || r.Status != store.StatusSent {
		t.Fatalf("second person: %+v %v", r, err)
	}
	if n := e.reportCount("TWO-1"); n != 1 {
		t.Fatalf("%d payouts", n)
	}
}

func TestHubRefusesToStartWithFewerApprovers(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "users.toml")
	if _, err := users.Add(path, "ada", []string{users.RoleApprove}); err != nil {
		t.Fatal(err)
	}
	pol := policy.Policy{Approvers: 2, TTL: time.Hour}
	if _, err := users.Open(path, hub.CheckUsers(pol)); err == nil || !strings.Contains(err.Error(), "--approvers 2") {
		t.Fatalf("users file with 1 approver for --approvers 2: %v", err)
	}
	live, _ := users.Open(path, nil)
	st, err := store.Open(filepath.Join(dir, "a.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := hub.New(hub.Config{Users: live, Store: st, Policy: pol, Pipeline: &hub.PayoutPipeline{}}); err == nil {
		t.Fatal("hub started with fewer approvers than --approvers")
	}
	// As the error says: add an approver; the hub then starts.
	if _, err := users.Add(path, "bob", []string{users.RoleApprove}); err != nil {
		t.Fatal(err)
	}
	live, err = users.Open(path, hub.CheckUsers(pol))
	if err != nil {
		t.Fatalf("after adding an approver: %v", err)
	}
	h, err := hub.New(hub.Config{Users: live, Store: st, Policy: pol, Pipeline: &hub.PayoutPipeline{}})
	if err != nil {
		t.Fatalf("after adding an approver: %v", err)
	}
	h.Close()
}

func TestRejectedAndLapsedRequestsAreNeverApproved(t *testing.T) {
	e := startEnv(t, opts{})
	ctx := context.Background()
	a, _ := e.as("ada").Submit(ctx, sub("REJ-1", payeeIBAN, 5000_00))
	<-e.notes
	_, err := e.as("cy").Reject(ctx, a.ApprovalID, " ")
	wantReason(t, err, "reason_required")
	if r, err := e.as("cy").Reject(ctx, a.ApprovalID, "wrong IBAN"); err != nil || r.Status != store.StatusRejected || r.RejectedBy != "cy" || r.Reason != "wrong IBAN" {
		t.Fatalf("reject: %+v %v", r, err)
	}
	_, err = e.as("bob").Approve(ctx, a.ApprovalID)
	wantReason(t, err, "not_pending")

	b, _ := e.as("ada").Submit(ctx, sub("LAPSE-1", payeeIBAN, 5000_00))
	<-e.notes
	e.clk.Advance(time.Hour)
	_, err = e.as("bob").Approve(ctx, b.ApprovalID)
	wantReason(t, err, "lapsed")
	select {
	case text := <-e.notes:
		if !strings.Contains(text, "lapsed") || !strings.Contains(text, b.ApprovalID) {
			t.Fatalf("lapse notice %q", text)
		}
	case <-time.After(notifyWait):
		t.Fatal("no notification of the lapse")
	}
	if n := e.reportCount("REJ-1") + e.reportCount("LAPSE-1"); n != 0 {
		t.Fatalf("%d payouts sent", n)
	}
}

func TestPendingRequestsHoldFunds(t *testing.T) {
	e := startEnv(t, opts{funds: 2000_00})
	ctx := context.Background()
	if r, err := e.as("ada").Submit(ctx, sub("HOLD-1", payeeIBAN, 1500_00)); err != nil || r.Status != hubapi.StatusAwaitingApproval {
		t.Fatalf("%+v %v", r, err)
	}
	out, err := e.as("vic").Outflows(ctx)
	if err != nil || out["GBP"] != 1500_00 {
		t.Fatalf("outflows %v %v", out, err)
	}
	_, err = e.as("ada").Submit(ctx, sub("HOLD-2", otherIBAN, 600_00))
	wantReason(t, err, hub.ClassFunds)
	if r, err := e.as("ada").Submit(ctx, sub("HOLD-3", otherIBAN, 500_00)); err != nil || r.Status != store.StatusSent {
		t.Fatalf("within what is not held: %+v %v", r, err)
	}
}

func TestApprovalRechecksFundsWithoutCountingItself(t *testing.T) {
	e := startEnv(t, opts{funds: 2000_00, over: "GBP=0"})
	ctx := context.Background()
	a, err := e.as("ada").Submit(ctx, sub("RECHECK-1", payeeIBAN, 1500_00))
	if err != nil {
		t.Fatal(err)
	}
	// Its own reservation does not stop it at approval.
	if r, err := e.as("cy").Approve(ctx, a.ApprovalID); err != nil || r.Status != store.StatusSent {
		t.Fatalf("approval: %+v %v", r, err)
	}
	waitBalanceBelow(t, e.svc, 500_01)
	// 500 left: a request of 450 passes when it is made; a payout made
	// elsewhere then takes 100; at approval 450 no longer fits and
	// nothing is sent.
	c, err := e.as("ada").Submit(ctx, sub("RECHECK-2", payeeIBAN, 450_00))
	if err != nil || c.Status != hubapi.StatusAwaitingApproval {
		t.Fatalf("%+v %v", c, err)
	}
	p := api.PayoutRequest{TransactionID: "7d1f8f5e-4a43-4c1e-9a51-1f0a3b7c2d10", BeneficiaryName: "X", BeneficiaryIBAN: otherIBAN, BeneficiaryReference: "OUT-1",
		Currency: "GBP", AmountInMinor: 100_00, ContextCode: api.ContextCodeWithdrawal}
	if err := e.svc.CreatePayout(ctx, &p); err != nil {
		t.Fatal(err)
	}
	waitBalanceBelow(t, e.svc, 400_01)
	r, err := e.as("cy").Approve(ctx, c.ApprovalID)
	if err != nil || r.Status != store.StatusRefused || !strings.Contains(r.Detail, "exceeds the available") {
		t.Fatalf("approval after funds moved: %+v %v", r, err)
	}
	if n := e.reportCount("RECHECK-2"); n != 0 || e.pipe.sends.Load() != 1 {
		t.Fatalf("%d payouts sent without funds (%d sends)", n, e.pipe.sends.Load())
	}
}

func waitBalanceBelow(t *testing.T, c *api.Client, v int64) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		bals, err := c.Balances(context.Background())
		if err == nil {
			for _, b := range bals {
				if b.Currency == "GBP" && b.AvailableBalanceInMinor < v {
					return
				}
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("GBP balance never went below %d", v)
}

func TestRestartLooksUpARequestLeftSendingBeforeSending(t *testing.T) {
	e := startEnv(t, opts{})
	ctx := context.Background()
	sentBefore, _ := e.as("ada").Submit(ctx, sub("CRASH-SENT", payeeIBAN, 5000_00))
	neverSent, _ := e.as("ada").Submit(ctx, sub("CRASH-UNSENT", payeeIBAN, 4000_00))
	approvedOnly, _ := e.as("ada").Submit(ctx, sub("CRASH-APPROVED", otherIBAN, 3000_00))
	noAnswer, _ := e.as("ada").Submit(ctx, sub("CRASH-NOANSWER", otherIBAN, 2000_00))
	e.close()

	// A hub killed mid-send: both requests approved and claimed; the first
	// had reached the service, the second had not. A third was approved
	// and killed before its claim.
	st, err := store.Open(filepath.Join(e.storeDir, "approvals.db"))
	if err != nil {
		t.Fatal(err)
	}
	now := e.clk.Now()
	for _, id := range []string{sentBefore.ApprovalID, neverSent.ApprovalID, approvedOnly.ApprovalID, noAnswer.ApprovalID} {
		if _, _, err := st.Approve(id, "cy", now, 1); err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range []string{sentBefore.ApprovalID, neverSent.ApprovalID, noAnswer.ApprovalID} {
		if _, err := st.Claim(id, "hub", now); err != nil {
			t.Fatal(err)
		}
	}
	// The fourth was sent and its answer lost (a timeout): unknown, and
	// it never reached the service.
	if _, err := st.Finish(noAnswer.ApprovalID, store.StatusUnknown, "", "timeout awaiting response headers", now); err != nil {
		t.Fatal(err)
	}
	st.Close()
	p := sentBefore.Request.Payout()
	if err := e.svc.CreatePayout(ctx, &p); err != nil {
		t.Fatal(err)
	}

	sendsBefore := e.pipe.sends.Load()
	e.open("")
	e.hub.Recover(ctx)
	if got := e.pipe.lookups.Load(); got != 3 {
		t.Fatalf("%d lookups at restart, want one per request left sending or unknown (3)", got)
	}
	if got := e.pipe.sends.Load() - sendsBefore; got != 3 {
		t.Fatalf("%d sends at restart, want 3 (the one never sent, the unknown one, the approved one), none for the one the service holds", got)
	}
	for ref, id := range map[string]string{"CRASH-SENT": sentBefore.ApprovalID, "CRASH-UNSENT": neverSent.ApprovalID,
		"CRASH-APPROVED": approvedOnly.ApprovalID, "CRASH-NOANSWER": noAnswer.ApprovalID} {
		r, err := e.as("vic").Get(ctx, id)
		if err != nil || r.Status != store.StatusSent {
			t.Fatalf("%s after restart: %+v %v", ref, r, err)
		}
		if n := e.reportCount(ref); n != 1 {
			t.Fatalf("%s: %d payouts in the report, want 1", ref, n)
		}
	}
}

func TestResubmitAfterALostAnswerIsTheSameRequest(t *testing.T) {
	e := startEnv(t, opts{})
	ctx := context.Background()
	s := sub("LOST-1", payeeIBAN, 5000_00)
	s.TransactionID = "0b5d1c1e-2f6a-4d8e-8c3b-5a7e9f1d2c44"
	a, err := e.as("ada").Submit(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	b, err := e.as("ada").Submit(ctx, s)
	if err != nil || b.ApprovalID != a.ApprovalID {
		t.Fatalf("resubmission: %+v %v, want request %s again", b, err, a.ApprovalID)
	}
	other := s
	other.AmountInMinor++
	other.BeneficiaryReference = "LOST-2"
	_, err = e.as("ada").Submit(ctx, other)
	wantReason(t, err, hub.ClassDuplicate)
	if err == nil || !strings.Contains(err.Error(), "leave --transaction-id out for a new one") {
		t.Fatalf("advice: %v", err)
	}
	// Told apart from a duplicate payee by a field, not by its words.
	var he *hubclient.Error
	if !errors.As(err, &he) || he.TransactionIDUsedBy != a.ApprovalID {
		t.Fatalf("the refusal does not name the request holding the id: %#v", err)
	}
	all, _ := e.as("vic").List(ctx, true)
	if len(all) != 1 {
		t.Fatalf("%d requests, want 1", len(all))
	}
	// As the refusal says: without the id, a new request with its own.
	other.TransactionID = ""
	c, err := e.as("ada").Submit(ctx, other)
	if err != nil || c.ApprovalID == a.ApprovalID || c.Request.TransactionID == s.TransactionID {
		t.Fatalf("without --transaction-id: %+v %v", c, err)
	}
	if _, err := e.as("cy").Approve(ctx, c.ApprovalID); err != nil {
		t.Fatal(err)
	}
	if n := e.reportCount("LOST-2"); n != 1 {
		t.Fatalf("%d payouts of the corrected request", n)
	}
}

func TestSIGHUPReloadsTheUsersFile(t *testing.T) {
	e := startEnv(t, opts{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ready := make(chan struct{})
	done := make(chan struct{})
	go func() { hub.ReloadOnSIGHUP(ctx, e.live, nil, ready); close(done) }()
	<-ready
	tok, err := users.Add(e.live.Path(), "dee", []string{users.RoleView})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := users.Rotate(e.live.Path(), "ada"); err != nil {
		t.Fatal(err)
	}
	dee := &hubclient.Client{BaseURL: e.srv.URL, Token: tok}
	if _, err := dee.Me(ctx); err == nil {
		t.Fatal("a user added to the file works before the hub reads it again")
	}
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		m, err := dee.Me(ctx)
		if err == nil {
			if m.Name != "dee" {
				t.Fatalf("me = %+v", m)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("new user still refused after SIGHUP: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	_, err = e.as("ada").Me(ctx)
	wantReason(t, err, "unauthorized")
	cancel()
	<-done
}

func TestErrorsNeverCarryTheToken(t *testing.T) {
	e := startEnv(t, opts{})
	wrong := "not-a-user-token-but-long-enough"
	_, err := (&hubclient.Client{BaseURL: e.srv.URL, Token: wrong}).Me(context.Background())
	if err == nil || strings.Contains(err.Error(), wrong) {
		t.Fatalf("error %v", err)
	}
}

func TestApprovalWhileTheServiceIsDownIsSentOnceItAnswers(t *testing.T) {
	e := startEnv(t, opts{})
	ctx := context.Background()
	res, err := e.as("ada").Submit(ctx, sub("DOWN-1", payeeIBAN, 5000_00))
	if err != nil {
		t.Fatal(err)
	}
	e.pipe.down.Store(true)
	r, err := e.as("cy").Approve(ctx, res.ApprovalID)
	if err != nil || r.Status != store.StatusApproved {
		t.Fatalf("approval while the service is down: %+v %v; want approved, not sent", r, err)
	}
	if n := e.reportCount("DOWN-1"); n != 0 {
		t.Fatalf("%d payouts", n)
	}
	e.pipe.down.Store(false)
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- e.hub.Run(runCtx) }()
	deadline := time.Now().Add(5 * time.Second)
	for {
		r, _ := e.as("vic").Get(ctx, res.ApprovalID)
		if r.Status == store.StatusSent {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("still %s after the service came back", r.Status)
		}
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	<-done
	if n := e.reportCount("DOWN-1"); n != 1 || e.pipe.sends.Load() != 1 {
		t.Fatalf("%d payouts, %d sends; want 1 and 1", n, e.pipe.sends.Load())
	}
}

func batchSub(file string, rows ...hubapi.BatchRow) hubapi.BatchSubmission {
	return hubapi.BatchSubmission{File: file, SHA256: "sha-" + file, Rows: rows}
}

func row(line int, ref, iban string, amount int64) hubapi.BatchRow {
	return hubapi.BatchRow{Line: line, PayoutRequest: sub(ref, iban, amount).PayoutRequest}
}

// A batch in two currencies reads the same every time: its notification
// lists the totals in currency order, and of two totals over their
// thresholds the reason names the first currency.
func TestABatchsTotalsReadInCurrencyOrder(t *testing.T) {
	e := startEnv(t, opts{over: "GBP=1000.00,EUR=1000.00"})
	eur := func(line int, ref, iban string) hubapi.BatchRow {
		r := row(line, ref, iban, 600_00)
		r.Currency = "EUR"
		return r
	}
	res, err := e.as("ada").SubmitBatch(context.Background(), batchSub("two.csv",
		row(2, "T-1", payeeIBAN, 700_00), eur(3, "T-2", "DE89370400440532013000"), row(4, "T-3", otherIBAN, 700_00), eur(5, "T-4", "NL91ABNA0417164300")))
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != hubapi.StatusAwaitingApproval || !strings.HasPrefix(res.Reason, "the batch's EUR total") {
		t.Fatalf("batch: %+v", res)
	}
	select {
	case text := <-e.notes:
		if !strings.Contains(text, "(4 payouts, €1,200.00, £1,400.00)") {
			t.Fatalf("notify text %q: want the totals in currency order", text)
		}
	case <-time.After(notifyWait):
		t.Fatal("no notification of the new batch")
	}
}

func TestABatchIsOneRequestDecidedWhole(t *testing.T) {
	e := startEnv(t, opts{})
	ctx := context.Background()
	// Each row below the threshold, but the GBP total above it.
	res, err := e.as("ada").SubmitBatch(ctx, batchSub("pay.csv", row(2, "B-1", payeeIBAN, 600_00), row(3, "B-2", otherIBAN, 600_00)))
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != hubapi.StatusAwaitingApproval || res.Totals["GBP"] != 1200_00 || !strings.Contains(res.Reason, "total") || len(res.Rows) != 2 {
		t.Fatalf("batch: %+v", res)
	}
	// The same file again (an answer lost) is the same batch.
	again, err := e.as("ada").SubmitBatch(ctx, batchSub("pay.csv", row(2, "B-1", payeeIBAN, 600_00), row(3, "B-2", otherIBAN, 600_00)))
	if err != nil || again.BatchID != res.BatchID {
		t.Fatalf("resubmitted: %+v %v", again, err)
	}
	// A row alone cannot be approved; the requester cannot approve it.
	_, err = e.as("cy").Approve(ctx, res.Rows[0].ID)
	wantReason(t, err, "not_pending")
	_, err = e.as("ada").ApproveBatch(ctx, res.BatchID)
	wantReason(t, err, "role_missing")
	out, err := e.as("cy").ApproveBatch(ctx, res.BatchID)
	if err != nil || out.Status != store.StatusSent {
		t.Fatalf("approved: %+v %v", out, err)
	}
	if n := e.reportCount("B-1") + e.reportCount("B-2"); n != 2 {
		t.Fatalf("%d payouts, want 2", n)
	}
	if _, err := e.as("bob").ApproveBatch(ctx, res.BatchID); !hubclient.IsReason(err, "not_pending") {
		t.Fatalf("approving a sent batch: %v", err)
	}

	// Rejected whole, nothing sent.
	rej, err := e.as("ada").SubmitBatch(ctx, batchSub("big.csv", row(2, "R-1", payeeIBAN, 10_00), row(3, "R-2", otherIBAN, 5000_00)))
	if err != nil || rej.Status != hubapi.StatusAwaitingApproval {
		t.Fatalf("%+v %v", rej, err)
	}
	if r, err := e.as("bob").RejectBatch(ctx, rej.BatchID, "not this month"); err != nil || r.Status != store.StatusRejected {
		t.Fatalf("reject: %+v %v", r, err)
	}
	if n := e.reportCount("R-1") + e.reportCount("R-2"); n != 0 {
		t.Fatalf("%d payouts of a rejected batch", n)
	}

	// Within every threshold: sent at once, each row once.
	small, err := e.as("ada").SubmitBatch(ctx, batchSub("small.csv", row(2, "S-1", "GB29NWBK60161331926819", 100_00), row(3, "S-2", "GB82WEST12345698765432", 200_00)))
	if err != nil || small.Status != store.StatusSent {
		t.Fatalf("small batch: %+v %v", small, err)
	}
	if n := e.reportCount("S-1") + e.reportCount("S-2"); n != 2 {
		t.Fatalf("%d payouts, want 2", n)
	}
}

func TestABatchTheAccountCannotFundIsRefusedWhole(t *testing.T) {
	e := startEnv(t, opts{funds: 1000_00, over: "GBP=0"})
	ctx := context.Background()
	_, err := e.as("ada").SubmitBatch(ctx, batchSub("f.csv", row(2, "F-1", payeeIBAN, 600_00), row(3, "F-2", otherIBAN, 600_00)))
	wantReason(t, err, hub.ClassFunds)
	if err == nil || !strings.Contains(err.Error(), "line 3") {
		t.Fatalf("refusal names the row: %v", err)
	}
	all, _ := e.as("vic").List(ctx, true)
	if len(all) != 0 {
		t.Fatalf("%d requests stored from a refused batch", len(all))
	}
}

func TestARequestRepeatingAnOpenOneIsADuplicate(t *testing.T) {
	e := startEnv(t, opts{})
	ctx := context.Background()
	first, err := e.as("ada").Submit(ctx, sub("DUP-1", payeeIBAN, 5000_00))
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.as("bob").Submit(ctx, sub("DUP-1", payeeIBAN, 5000_00))
	wantReason(t, err, hub.ClassDuplicate)
	if !strings.Contains(err.Error(), first.ApprovalID) || !strings.Contains(err.Error(), "--allow-duplicate") {
		t.Fatalf("refusal: %v", err)
	}
	// As it says: --allow-duplicate requests a second payout, and both,
	// approved, are paid (the operator said so twice).
	s := sub("DUP-1", payeeIBAN, 5000_00)
	s.AllowDuplicate = true
	second, err := e.as("bob").Submit(ctx, s)
	if err != nil || second.Status != hubapi.StatusAwaitingApproval {
		t.Fatalf("with --allow-duplicate: %+v %v", second, err)
	}
	if _, err := e.as("cy").Approve(ctx, first.ApprovalID); err != nil {
		t.Fatal(err)
	}
	if r, err := e.as("cy").Approve(ctx, second.ApprovalID); err != nil || r.Status != store.StatusSent {
		t.Fatalf("second: %+v %v", r, err)
	}
	if n := e.reportCount("DUP-1"); n != 2 {
		t.Fatalf("%d payouts, want 2", n)
	}
}

func TestALongBatchIsAnsweredWhileItGoesOnBeingSent(t *testing.T) {
	e := startEnv(t, opts{batchWithin: time.Nanosecond})
	ctx := context.Background()
	res, err := e.as("ada").SubmitBatch(ctx, batchSub("long.csv", row(2, "L-1", payeeIBAN, 10_00), row(3, "L-2", otherIBAN, 20_00), row(4, "L-3", "GB29NWBK60161331926819", 30_00)))
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != store.StatusSending && res.Status != store.StatusSent {
		t.Fatalf("answered: %s", res.Status)
	}
	deadline := time.Now().Add(10 * time.Second)
	for res.Status != store.StatusSent {
		if time.Now().After(deadline) {
			t.Fatalf("still %s", res.Status)
		}
		time.Sleep(20 * time.Millisecond)
		if res, err = e.as("vic").GetBatch(ctx, res.BatchID); err != nil {
			t.Fatal(err)
		}
	}
	if n := e.reportCount("L-1") + e.reportCount("L-2") + e.reportCount("L-3"); n != 3 || e.pipe.sends.Load() != 3 {
		t.Fatalf("%d payouts, %d sends; want 3 and 3", n, e.pipe.sends.Load())
	}
}
