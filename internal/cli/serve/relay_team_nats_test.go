package serve

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/api/sandbox"
	"github.com/paydash/paydash/internal/cli/cmdutil"
	"github.com/paydash/paydash/internal/payout"
	"github.com/paydash/paydash/internal/platform/natstest"
	"github.com/paydash/paydash/webhookrelay/hub/hubapi"
	"github.com/paydash/paydash/webhookrelay/hub/hubclient"
	"github.com/paydash/paydash/webhookrelay/hub/hubtest"
	"github.com/paydash/paydash/webhookrelay/hub/store"
	"github.com/paydash/paydash/webhookrelay/hub/users"
)

// TestTwoTeamRelaysOnOneClusterAreOneHub: two `paydash relay --users
// ... --nats ...` on one JetStream cluster are one hub. A request made
// at one is approved at the other and sent once (counted in the sandbox's
// report); an approve repeated at the first after a lost answer sends
// nothing more; the audit record `payouts log` reads is the same at both;
// and neither relay warns that approvals stay on one of them. A bbolt
// --approvals-store beside --nats is refused with the advice to leave it
// out, which the two relays follow.
func TestTwoTeamRelaysOnOneClusterAreOneHub(t *testing.T) {
	natstest.Each(t, func(t *testing.T, nodes natstest.Nodes) {
		key, err := api.GenerateSigningKey()
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		sb, err := sandbox.Listen(ctx, "127.0.0.1:0", sandbox.Options{MerchantKey: &key.PublicKey, MerchantKeyID: "k1",
			InitialFunds: map[string]int64{"GBP": 100_000_00}, History: 0})
		if err != nil {
			t.Fatal(err)
		}
		defer sb.Close()
		info := sb.Info()
		dir := t.TempDir()
		pem, err := api.EncodePrivateKeyPEM(key)
		if err != nil {
			t.Fatal(err)
		}
		keyFile := filepath.Join(dir, "hub-key.pem")
		if err := os.WriteFile(keyFile, pem, 0o600); err != nil {
			t.Fatal(err)
		}
		cfg := writeConfig(t, fmt.Sprintf("[profiles.hub]\nauth_url = %q\nbase_url = %q\npayouts_url = %q\nclient_id = %q\nclient_secret = %q\nsigning_key_id = \"k1\"\nsigning_key_file = %q\n",
			info.AuthURL, info.BaseURL, info.PayoutsURL, info.ClientID, info.ClientSecret, filepath.ToSlash(keyFile)))
		usersFile := filepath.Join(dir, "team.toml")
		tokens := map[string]string{}
		for name, roles := range map[string][]string{"ada": {"request"}, "bob": {"approve"}, "vic": {"view"}} {
			if tokens[name], err = users.Add(usersFile, name, roles); err != nil {
				t.Fatal(err)
			}
		}
		args := []string{"--listen", "127.0.0.1:0",
			"--token", "the-shared-relay-token-0123", "--users", usersFile, "--approve-over", "GBP=1000.00", "--send-profile", "hub",
			"--nats", strings.Join(nodes.URLs(), ","), "--nats-stream", "TEAM", "--nats-replicas", "3"}
		// A bbolt file beside --nats is refused, saying to leave it out;
		// the relays below follow that.
		if run, err := startRelay(t, &cmdutil.Global{ConfigPath: cfg, Profile: "hub"}, nil, append(args, "--approvals-store", filepath.Join(dir, "approvals.db"))...); err == nil {
			run.stop()
			t.Fatal("a clustered hub started with --approvals-store")
		} else if cmdutil.ExitCode(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), "leave --approvals-store out") {
			t.Fatalf("--approvals-store with --nats: %v", err)
		}
		var runs []*relayRun
		for range 2 {
			run, err := startRelay(t, &cmdutil.Global{ConfigPath: cfg, Profile: "hub"}, nil, args...)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(strings.Join(run.info.Warnings, " ")+run.log(), "replicated") || run.info.HubURL == "" {
				t.Fatalf("relay %s: warnings %v, hub %q", run.info.Listen, run.info.Warnings, run.info.HubURL)
			}
			runs = append(runs, run)
		}
		as := func(i int, who string) *hubclient.Client {
			return &hubclient.Client{BaseURL: "http://" + runs[i].info.Listen, Token: tokens[who]}
		}
		// vic follows relay 2's approvals feed, through the relay's own
		// listener: relay 1's changes reach it from the stream.
		changes := make(chan hubapi.Change, 64)
		up := make(chan struct{}, 8)
		wctx, wcancel := context.WithCancel(ctx)
		watched := make(chan struct{})
		go func() {
			defer close(watched)
			_ = as(1, "vic").Watch(wctx, func(c hubapi.Change) {
				select {
				case changes <- c:
				case <-wctx.Done():
				}
			}, func(s hubclient.FeedState) {
				if s.Up {
					up <- struct{}{}
				}
			})
		}()
		select {
		case <-up:
		case <-time.After(10 * time.Second):
			t.Fatal("relay 2's approvals feed did not come up")
		}
		res, err := as(0, "ada").Submit(ctx, hubapi.Submission{PayoutRequest: api.PayoutRequest{BeneficiaryName: "Payee Ltd",
			BeneficiaryIBAN: "GB33BUKB20201555555555", BeneficiaryReference: "TEAM-NATS-1", Currency: "GBP", AmountInMinor: 5000_00,
			ContextCode: api.ContextCodeWithdrawal}})
		if err != nil || res.Status != hubapi.StatusAwaitingApproval {
			t.Fatalf("submit at relay 1: %+v %v", res, err)
		}
		waitChange(t, changes, res.ApprovalID, store.StatusPending)
		pending, err := as(1, "vic").List(ctx, false)
		if err != nil || len(pending) != 1 || pending[0].ID != res.ApprovalID {
			t.Fatalf("relay 2 lists %+v %v, want relay 1's request", pending, err)
		}
		r, err := as(1, "bob").Approve(ctx, res.ApprovalID)
		if err != nil || r.Status != store.StatusSent {
			t.Fatalf("approve at relay 2: %+v %v", r, err)
		}
		if r, err := as(0, "bob").Approve(ctx, res.ApprovalID); err != nil || r.Status != store.StatusSent {
			t.Fatalf("approve repeated at relay 1: %+v %v", r, err)
		}
		waitChange(t, changes, res.ApprovalID, store.StatusSent)
		wcancel()
		<-watched
		svc, err := api.NewClient(api.Config{AuthURL: info.AuthURL, BaseURL: info.BaseURL, PayoutsURL: info.PayoutsURL,
			ClientID: info.ClientID, ClientSecret: info.ClientSecret})
		if err != nil {
			t.Fatal(err)
		}
		txs, err := svc.Transactions(ctx, api.TransactionQuery{Type: api.TransactionPayout})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, tx := range txs {
			if tx.BeneficiaryReference == "TEAM-NATS-1" {
				n++
			}
		}
		if n != 1 {
			t.Fatalf("%d payouts in the sandbox's report, want 1", n)
		}
		for i := range runs {
			au, err := as(i, "vic").Audit(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if a := payout.Attempts(hubtest.AuditLines(t, au.Results)); len(a) != 1 || a[0].TransactionID != r.TransactionID || au.Profile != "hub" {
				t.Fatalf("audit record at relay %d: %+v (profile %q)", i+1, a, au.Profile)
			}
		}
		for _, run := range runs {
			run.stop()
			if run.err != nil {
				t.Fatalf("relay stopped with %v", run.err)
			}
		}
	})
}

// waitChange waits for the change of request id to status on a feed.
func waitChange(t *testing.T, changes <-chan hubapi.Change, id, status string) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case c := <-changes:
			if c.ID == id && c.Status == status {
				return
			}
		case <-deadline:
			t.Fatalf("no change of %s to %s on the approvals feed", id, status)
		}
	}
}
