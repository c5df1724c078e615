package hub_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paydash/paydash/internal/payout"
	"github.com/paydash/paydash/internal/platform/natstest"
	"github.com/paydash/paydash/webhookrelay/hub"
	"github.com/paydash/paydash/webhookrelay/hub/auditlog"
	"github.com/paydash/paydash/webhookrelay/hub/hubapi"
	"github.com/paydash/paydash/webhookrelay/hub/hubclient"
	"github.com/paydash/paydash/webhookrelay/hub/hubtest"
	"github.com/paydash/paydash/webhookrelay/hub/store"
)

// These tests run two hubs on one JetStream cluster (--nats mode), each
// with its own connection, store and pipeline, sending to one sandbox:
// what one hub holds, the other must see, and every payout is counted in
// the sandbox's own report. They run against the in-process cluster and
// against nats-server processes (natstest.Each).

// clusterHub is one hub of the cluster.
type clusterHub struct {
	hub   *hub.Hub
	st    *store.Store
	audit *auditlog.Log
	pipe  *countingPipeline
	srv   *httptest.Server
	e     *env
}

var clusterNames atomic.Int32

// openClusterHub starts a hub on the cluster at urls whose store and
// audit record are named name: hubs given one name share them.
func (e *env) openClusterHub(urls []string, name string, tune ...func(*hub.Config)) *clusterHub {
	t := e.t
	t.Helper()
	nc, js := natstest.Client(t, urls)
	t.Cleanup(nc.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	wait := func(ctx context.Context, what string, step func(context.Context) error) error {
		for {
			actx, acancel := context.WithTimeout(ctx, 3*time.Second)
			err := step(actx)
			acancel()
			if err == nil {
				return nil
			}
			if ctx.Err() != nil {
				return fmt.Errorf("waiting for %s: %w", what, err)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	st, err := store.OpenJetStream(ctx, js, store.JetStreamConfig{Name: name, Replicas: 3, Wait: wait})
	if err != nil {
		t.Fatal(err)
	}
	audit, err := auditlog.Open(ctx, js, auditlog.Config{Name: name, Profile: "hub", Replicas: 3, Wait: wait})
	if err != nil {
		t.Fatal(err)
	}
	c := &clusterHub{st: st, audit: audit, e: e, pipe: &countingPipeline{Pipeline: hub.NewSharedPayoutPipeline(e.svc, audit)}}
	cfg := hub.Config{Users: e.live, Store: st, Policy: e.pol, Pipeline: c.pipe, SharedToken: sharedTok, Clock: e.clk}
	for _, f := range tune {
		f(&cfg)
	}
	c.hub, err = hub.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c.srv = httptest.NewServer(c.hub.Handler())
	t.Cleanup(c.close)
	return c
}

// close stops the hub as a kill would leave it: nothing more is sent.
func (c *clusterHub) close() {
	if c.srv == nil {
		return
	}
	c.srv.Close()
	c.hub.Close()
	c.srv = nil
}

func (c *clusterHub) as(name string) *hubclient.Client {
	return &hubclient.Client{BaseURL: c.srv.URL, Token: c.e.tokens[name]}
}

// twoHubs starts an environment and two hubs sharing one store.
// testLease is the send lease of the hubs that take over what a dead
// one left: judged on the stream's clock, it passes in real time.
const testLease = 2 * time.Second

func twoHubs(t *testing.T, nodes natstest.Nodes) (*env, *clusterHub, *clusterHub) {
	e := startEnv(t, opts{})
	name := fmt.Sprintf("HUB%d", clusterNames.Add(1))
	return e, e.openClusterHub(nodes.URLs(), name), e.openClusterHub(nodes.URLs(), name)
}

func sends(hs ...*clusterHub) int32 {
	n := int32(0)
	for _, h := range hs {
		n += h.pipe.sends.Load()
	}
	return n
}

// Approvals of one request arriving at the same moment at both hubs send
// it once; an approve repeated at either hub after a lost answer sends
// nothing more; and each hub's record shows the other's send.
func TestTwoHubsApprovalsAtOnceSendOnce(t *testing.T) {
	natstest.Each(t, func(t *testing.T, nodes natstest.Nodes) {
		e, a, b := twoHubs(t, nodes)
		ctx := context.Background()
		for round := range 3 {
			ref := fmt.Sprintf("RACE2-%d", round)
			res, err := a.as("ada").Submit(ctx, sub(ref, payeeIBAN, 5000_00))
			if err != nil || res.Status != hubapi.StatusAwaitingApproval {
				t.Fatalf("submit: %+v %v", res, err)
			}
			var wg sync.WaitGroup
			for i := range 8 {
				h := []*clusterHub{a, b}[i%2]
				who := []string{"bob", "cy"}[(i/2)%2]
				wg.Go(func() {
					if _, err := h.as(who).Approve(ctx, res.ApprovalID); err != nil && !hubclient.IsReason(err, "not_pending") {
						t.Error(err)
					}
				})
			}
			wg.Wait()
			// The answer was lost: cy approves again, at each hub.
			for _, h := range []*clusterHub{b, a} {
				if r, err := h.as("cy").Approve(ctx, res.ApprovalID); err != nil && !hubclient.IsReason(err, "not_pending") || err == nil && r.Status != store.StatusSent {
					t.Fatalf("approve repeated: %+v %v", r, err)
				}
			}
			if n := e.reportCount(ref); n != 1 {
				t.Fatalf("%s: %d payouts in the sandbox's report after approvals at two hubs at once, want 1", ref, n)
			}
			if got := sends(a, b); got != int32(round+1) {
				t.Fatalf("%d sends by the two hubs after %d requests, want one each", got, round+1)
			}
			r, err := b.as("vic").Get(ctx, res.ApprovalID)
			if err != nil || r.Status != store.StatusSent || len(r.ApprovedBy) != 1 {
				t.Fatalf("hub B reads %+v %v", r, err)
			}
		}
		// `payouts log` of a payouts_via_relay profile reads the hub's
		// record: both hubs answer with every attempt, whichever sent it.
		for _, h := range []*clusterHub{a, b} {
			au, err := h.as("vic").Audit(ctx)
			if err != nil {
				t.Fatal(err)
			}
			attempts := payout.Attempts(hubtest.AuditLines(t, au.Results))
			if len(attempts) != 3 || au.Profile != "hub" {
				t.Fatalf("audit record read at a hub: %d attempts (profile %q), want 3", len(attempts), au.Profile)
			}
			for _, at := range attempts {
				if at.Outcome != payout.OutcomeAccepted {
					t.Fatalf("attempt %s: outcome %q", at.TransactionID, at.Outcome)
				}
			}
		}
	})
}

// Hub A dies after claiming requests for sending: one had reached the
// service, one had not, one was approved but not claimed. Hub B, on the
// same cluster, looks each request left sending up by its transaction
// id in the service's report before sending anything, and sends only
// what the service does not hold: every payout once.
func TestTwoHubsARequestLeftSendingByADeadHubIsSentOnce(t *testing.T) {
	natstest.Each(t, func(t *testing.T, nodes natstest.Nodes) {
		e, a, _ := twoHubs(t, nodes)
		b := e.openClusterHub(nodes.URLs(), clusterName(a), func(c *hub.Config) { c.SendLease = testLease })
		ctx := context.Background()
		reached, _ := a.as("ada").Submit(ctx, sub("DEAD-REACHED", payeeIBAN, 5000_00))
		unsent, _ := a.as("ada").Submit(ctx, sub("DEAD-UNSENT", payeeIBAN, 4000_00))
		approved, _ := a.as("ada").Submit(ctx, sub("DEAD-APPROVED", otherIBAN, 3000_00))
		now := e.clk.Now()
		for _, id := range []string{reached.ApprovalID, unsent.ApprovalID, approved.ApprovalID} {
			if _, _, err := a.st.Approve(id, "cy", now, 1); err != nil {
				t.Fatal(err)
			}
		}
		for _, id := range []string{reached.ApprovalID, unsent.ApprovalID} {
			if _, err := a.st.Claim(id, "hub", now); err != nil {
				t.Fatal(err)
			}
		}
		p := reached.Request.Payout()
		if err := e.svc.CreatePayout(ctx, &p); err != nil {
			t.Fatal(err)
		}
		a.close()

		// Hub B cannot tell a dead hub from one still sending: within the
		// lease it leaves the requests claimed alone, and sends only the
		// approved one nobody claimed.
		b.hub.Recover(ctx)
		if l, s := b.pipe.lookups.Load(), b.pipe.sends.Load(); l != 0 || s != 1 {
			t.Fatalf("within hub A's lease hub B made %d lookups and %d sends, want 0 and 1 (the approved one)", l, s)
		}
		// The lease is judged on the stream's clock: hub B's own clock
		// running ahead (or A's behind) takes nothing over early.
		e.clk.Advance(hub.SendLease)
		b.hub.Recover(ctx)
		if l := b.pipe.lookups.Load(); l != 0 {
			t.Fatalf("with its own clock past the lease, but not the stream's, hub B made %d lookups, want 0", l)
		}
		time.Sleep(testLease)
		b.hub.Recover(ctx)
		if got := b.pipe.lookups.Load(); got != 2 {
			t.Fatalf("hub B made %d lookups, want one per request hub A left sending (2)", got)
		}
		if got := b.pipe.sends.Load(); got != 2 {
			t.Fatalf("hub B sent %d, want 2 (the one never sent, the approved one), none for the one the service holds", got)
		}
		for ref, id := range map[string]string{"DEAD-REACHED": reached.ApprovalID, "DEAD-UNSENT": unsent.ApprovalID, "DEAD-APPROVED": approved.ApprovalID} {
			r, err := b.as("vic").Get(ctx, id)
			if err != nil || r.Status != store.StatusSent {
				t.Fatalf("%s at hub B: %+v %v", ref, r, err)
			}
			if n := e.reportCount(ref); n != 1 {
				t.Fatalf("%s: %d payouts in the report, want 1", ref, n)
			}
		}
		// Hub A restarted on the cluster finds nothing left to send.
		a2 := e.openClusterHub(nodes.URLs(), clusterName(b))
		a2.hub.Recover(ctx)
		if got := a2.pipe.sends.Load() + a2.pipe.lookups.Load(); got != 0 {
			t.Fatalf("hub A restarted made %d sends or lookups, want none: hub B settled them", got)
		}
	})
}

// AuditEntries is the wrapped pipeline's, so the hub serves its record.
func (c *countingPipeline) AuditEntries() (string, []payout.Entry, error) {
	return c.Pipeline.(interface {
		AuditEntries() (string, []payout.Entry, error)
	}).AuditEntries()
}

// A hub running on the cluster settles what a dead hub left sending once
// its lease has passed, without waiting to be restarted: looked up by its
// transaction id first, sent once.
func TestTwoHubsARunningHubSettlesWhatADeadOneLeft(t *testing.T) {
	natstest.Each(t, func(t *testing.T, nodes natstest.Nodes) {
		e, a, _ := twoHubs(t, nodes)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		b := e.openClusterHub(nodes.URLs(), clusterName(a), func(c *hub.Config) { c.LapseEvery, c.SendLease = 50*time.Millisecond, testLease })
		go func() { _ = b.hub.Run(ctx) }()
		res, _ := a.as("ada").Submit(ctx, sub("LEFT-RUNNING", payeeIBAN, 5000_00))
		now := e.clk.Now()
		if _, _, err := a.st.Approve(res.ApprovalID, "cy", now, 1); err != nil {
			t.Fatal(err)
		}
		if _, err := a.st.Claim(res.ApprovalID, "hub", now); err != nil {
			t.Fatal(err)
		}
		a.close()
		time.Sleep(300 * time.Millisecond) // rounds of hub B within the lease
		if l, s := b.pipe.lookups.Load(), b.pipe.sends.Load(); l != 0 || s != 0 {
			t.Fatalf("within the lease hub B made %d lookups and %d sends, want none", l, s)
		}
		deadline := time.Now().Add(20 * time.Second) // past the lease on the stream's clock
		for {
			r, err := b.st.Get(res.ApprovalID)
			if err == nil && r.Status == store.StatusSent {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("hub B never settled the request: %+v %v", r, err)
			}
			time.Sleep(50 * time.Millisecond)
		}
		if l, s := b.pipe.lookups.Load(), b.pipe.sends.Load(); l != 1 || s != 1 {
			t.Fatalf("hub B made %d lookups and %d sends, want 1 and 1", l, s)
		}
		if n := e.reportCount("LEFT-RUNNING"); n != 1 {
			t.Fatalf("%d payouts in the report, want 1", n)
		}
	})
}

// Payouts below the threshold from one requester to one payee, made at
// two hubs at the same moment, add up as they do at one hub: the
// submission lock makes each hub's 24-hour sum see the other's. With
// 400.00 each under a 1000.00 threshold, two go at once and the rest
// wait for approval, however they are spread over the hubs.
func TestTwoHubsAddUpRequestsMadeAtOnce(t *testing.T) {
	natstest.Each(t, func(t *testing.T, nodes natstest.Nodes) {
		e, a, b := twoHubs(t, nodes)
		ctx := context.Background()
		var sent, waiting atomic.Int32
		var wg sync.WaitGroup
		for i := range 6 {
			h := []*clusterHub{a, b}[i%2]
			wg.Go(func() {
				res, err := h.as("ada").Submit(ctx, sub(fmt.Sprintf("SUM-%d", i), payeeIBAN, 400_00))
				switch {
				case err != nil:
					t.Error(err)
				case res.Status == store.StatusSent:
					sent.Add(1)
				case res.Status == hubapi.StatusAwaitingApproval:
					waiting.Add(1)
				default:
					t.Errorf("SUM-%d: %+v", i, res)
				}
			})
		}
		wg.Wait()
		if sent.Load() != 2 || waiting.Load() != 4 {
			t.Fatalf("%d sent at once and %d awaiting approval of six 400.00 payouts at two hubs at once; want 2 and 4", sent.Load(), waiting.Load())
		}
		n := 0
		for i := range 6 {
			n += e.reportCount(fmt.Sprintf("SUM-%d", i))
		}
		if n != 2 {
			t.Fatalf("%d payouts in the report, want 2", n)
		}
	})
}

// A batch submitted at one hub, approved at both at the same moment, is
// decided once and each row is sent once, whichever hub sends it.
func TestTwoHubsABatchIsDecidedOnceAndSentOnce(t *testing.T) {
	natstest.Each(t, func(t *testing.T, nodes natstest.Nodes) {
		e, a, b := twoHubs(t, nodes)
		ctx := context.Background()
		res, err := a.as("ada").SubmitBatch(ctx, batchSub("rows.csv", row(2, "BATCH2-A", payeeIBAN, 600_00),
			row(3, "BATCH2-B", otherIBAN, 700_00), row(4, "BATCH2-C", payeeIBAN, 800_00)))
		if err != nil || res.Status != hubapi.StatusAwaitingApproval {
			t.Fatalf("batch at hub A: %+v %v", res, err)
		}
		if got, err := b.as("vic").GetBatch(ctx, res.BatchID); err != nil || len(got.Rows) != 3 {
			t.Fatalf("hub B reads the batch: %+v %v", got, err)
		}
		var wg sync.WaitGroup
		for i := range 6 {
			h := []*clusterHub{a, b}[i%2]
			who := []string{"bob", "cy"}[(i/2)%2]
			wg.Go(func() {
				if _, err := h.as(who).ApproveBatch(ctx, res.BatchID); err != nil && !hubclient.IsReason(err, "not_pending") {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		deadline := time.Now().Add(20 * time.Second)
		for {
			got, err := b.as("vic").GetBatch(ctx, res.BatchID)
			if err == nil && got.Status == store.StatusSent {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("batch never sent: %+v %v", got, err)
			}
			time.Sleep(50 * time.Millisecond)
		}
		for _, ref := range []string{"BATCH2-A", "BATCH2-B", "BATCH2-C"} {
			if n := e.reportCount(ref); n != 1 {
				t.Fatalf("%s: %d payouts in the report, want 1", ref, n)
			}
		}
		if got := sends(a, b); got != 3 {
			t.Fatalf("%d sends by the two hubs, want one per row (3)", got)
		}
		got, _ := a.as("vic").GetBatch(ctx, res.BatchID)
		for _, r := range got.Rows {
			if len(r.ApprovedBy) != 1 {
				t.Fatalf("row approved by %v, want one approver", r.ApprovedBy)
			}
			log, err := b.as("vic").Log(ctx, 0, r.ID)
			if err != nil || len(log) != 4 || log[1].Action != store.ActApproved || log[1].By != r.ApprovedBy[0] {
				t.Fatalf("record of row %s: %+v %v (want requested, approved, sending, outcome)", r.ID, log, err)
			}
		}
		if log, err := b.as("vic").Log(ctx, 0, res.BatchID); err != nil || len(log) != 1 || log[0].Action != store.ActApproved {
			t.Fatalf("the batch's own record line: %+v %v", log, err)
		}
	})
}

// clusterName is the name the hub's store was opened under.
func clusterName(c *clusterHub) string { return c.st.Name() }

// A payout reserved in the record by hub A (about to be sent) is a
// duplicate to hub B's check: the record is one, shared by the cluster.
func TestTwoHubsShareTheDuplicateCheck(t *testing.T) {
	natstest.Each(t, func(t *testing.T, nodes natstest.Nodes) {
		e, a, b := twoHubs(t, nodes)
		ctx := context.Background()
		s := sub("DUP-2HUBS", payeeIBAN, 250_00)
		reserved := s.PayoutRequest
		reserved.TransactionID = "tx-reserved-at-hub-a"
		_, err := a.audit.ReserveIf(ctx, payout.Entry{Source: payout.SourceHub, TransactionID: reserved.TransactionID, Name: reserved.BeneficiaryName,
			IBAN: reserved.BeneficiaryIBAN, Reference: reserved.BeneficiaryReference, AmountInMinor: reserved.AmountInMinor, Currency: reserved.Currency},
			time.Hour, func([]payout.Payment) bool { return false })
		if err != nil {
			t.Fatal(err)
		}
		_, err = b.as("ada").Submit(ctx, s)
		wantReason(t, err, hub.ClassDuplicate)
		if n := e.reportCount("DUP-2HUBS"); n != 0 || sends(a, b) != 0 {
			t.Fatalf("%d payouts, %d sends after a duplicate of hub A's reservation reached hub B; want none", n, sends(a, b))
		}
		// Two hubs reserving the same payout at the same moment: one does.
		var wins atomic.Int32
		var wg sync.WaitGroup
		for i := range 6 {
			h := []*clusterHub{a, b}[i%2]
			wg.Go(func() {
				m, err := h.audit.ReserveIf(ctx, payout.Entry{TransactionID: fmt.Sprintf("tx-race-%d", i), IBAN: otherIBAN, Reference: "RACE-RES",
					AmountInMinor: 100, Currency: "GBP"}, time.Hour, func([]payout.Payment) bool { return false })
				if err != nil {
					t.Error(err)
				}
				if len(m) == 0 {
					wins.Add(1)
				}
			})
		}
		wg.Wait()
		if wins.Load() != 1 {
			t.Fatalf("%d of 6 reservations of one payout at two hubs at once went through, want 1", wins.Load())
		}
	})
}

// The stream's leader node is killed while two hubs take requests and
// approvals, and started again later: every request is sent exactly once,
// counted in the sandbox's report.
func TestTwoHubsANodeKilledAndRestartedSendsEachOnce(t *testing.T) {
	natstest.Each(t, func(t *testing.T, nodes natstest.Nodes) {
		e, a, b := twoHubs(t, nodes)
		ctx := context.Background()
		const n = 9
		killed := -1
		for i := range n {
			switch i {
			case n / 3:
				killed = natstest.StreamLeaderNode(t, nodes, clusterName(a)+"_APPROVALS")
				nodes.Kill(t, killed)
				t.Logf("killed %s, the approvals stream's leader, after %d requests", nodes.NodeName(killed), i)
			case 2 * n / 3:
				nodes.Restart(t, killed)
				t.Logf("restarted %s after %d requests", nodes.NodeName(killed), i)
			}
			ref := fmt.Sprintf("NODE-%d", i)
			res, err := []*clusterHub{a, b}[i%2].as("ada").Submit(ctx, sub(ref, payeeIBAN, int64(2000_00+i)))
			if err != nil {
				t.Fatalf("%s: %v", ref, err)
			}
			var wg sync.WaitGroup
			for j, who := range []string{"bob", "cy"} {
				h := []*clusterHub{a, b}[(i+j)%2]
				wg.Go(func() {
					if _, err := h.as(who).Approve(ctx, res.ApprovalID); err != nil && !hubclient.IsReason(err, "not_pending") {
						t.Error(err)
					}
				})
			}
			wg.Wait()
		}
		for i := range n {
			if got := e.reportCount(fmt.Sprintf("NODE-%d", i)); got != 1 {
				t.Fatalf("NODE-%d: %d payouts in the report, want 1", i, got)
			}
		}
		if got := sends(a, b); got != n {
			t.Fatalf("%d sends by the two hubs, want %d", got, n)
		}
	})
}

// A change made at hub A reaches a subscriber of hub B's approvals feed,
// once: each hub broadcasts what it reads from the stream, its own
// changes included, and nothing else.
func TestTwoHubsAChangeAtOneReachesTheOthersFeedOnce(t *testing.T) {
	natstest.Each(t, func(t *testing.T, nodes natstest.Nodes) {
		_, a, b := twoHubs(t, nodes)
		ctx := context.Background()
		atB := watch(t, b.as("vic"))
		atA := watch(t, a.as("vic"))
		res, err := a.as("ada").Submit(ctx, sub("FEED-NATS", payeeIBAN, 5000_00))
		if err != nil || res.Status != hubapi.StatusAwaitingApproval {
			t.Fatalf("submit at A: %+v %v", res, err)
		}
		if _, err := a.as("cy").Reject(ctx, res.ApprovalID, "not this month"); err != nil {
			t.Fatal(err)
		}
		// Once: no second copy of either change, at either hub.
		atB.exactly(t, res.ApprovalID, store.StatusPending, store.StatusRejected)
		atA.exactly(t, res.ApprovalID, store.StatusPending, store.StatusRejected)
	})
}
