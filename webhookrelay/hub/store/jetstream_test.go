package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paydash/paydash/internal/platform/natstest"
)

// storeOnJetStream, set while TestStoreRulesOnJetStream runs, makes
// openStore open a JetStream store: the store-agnostic tests of
// store_test.go run unchanged against both stores.
var storeOnJetStream func(t *testing.T) *Store

var jsStores atomic.Int32

// openJetStream opens a store named name on the cluster at urls, on a
// connection of its own (a hub of its own).
func openJetStream(t *testing.T, urls []string, name string) *Store {
	t.Helper()
	return openJetStreamWith(t, urls, JetStreamConfig{Name: name})
}

// openJetStreamWith is openJetStream with more of the config given
// (replicas 3 and the test's retry are set here).
func openJetStreamWith(t *testing.T, urls []string, cfg JetStreamConfig) *Store {
	t.Helper()
	nc, js := natstest.Client(t, urls)
	t.Cleanup(nc.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cfg.Replicas, cfg.Wait = 3, retryFor
	s, err := OpenJetStream(ctx, js, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// retryFor retries a set-up step until ctx ends, as the relay's
// JetStreamConn.WaitFor does.
func retryFor(ctx context.Context, _ string, step func(context.Context) error) error {
	for {
		actx, cancel := context.WithTimeout(ctx, 3*time.Second)
		err := step(actx)
		cancel()
		if err == nil || ctx.Err() != nil {
			return err
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func TestStoreRulesOnJetStream(t *testing.T) {
	natstest.Each(t, func(t *testing.T, nodes natstest.Nodes) {
		storeOnJetStream = func(t *testing.T) *Store {
			return openJetStream(t, nodes.URLs(), fmt.Sprintf("T%d", jsStores.Add(1)))
		}
		defer func() { storeOnJetStream = nil }()
		for name, test := range map[string]func(*testing.T){
			"ConcurrentApprovalsCompleteARequestOnce": TestConcurrentApprovalsCompleteARequestOnce,
			"ApprovalRules":                         TestApprovalRules,
			"TransactionIDIsFixedAndUnique":         TestTransactionIDIsFixedAndUnique,
			"LapseAndOutflows":                      TestLapseAndOutflows,
			"APayoutStateIsNeverSetBack":            TestAPayoutStateIsNeverSetBack,
			"LiveAndRecentListsFollowStatusAndTime": TestLiveAndRecentListsFollowStatusAndTime,
		} {
			t.Run(name, test)
		}
	})
}

// Two hubs, each with its own connection, on one cluster: approvals and
// claims arriving at both at the same moment move the request once, and
// each sees what the other wrote.
func TestTwoHubsOnOneClusterChangeARequestOnce(t *testing.T) {
	natstest.Each(t, func(t *testing.T, nodes natstest.Nodes) {
		a := openJetStream(t, nodes.URLs(), "TWOHUBS")
		b := openJetStream(t, nodes.URLs(), "TWOHUBS")
		for _, need := range []int{1, 2} {
			r := pending(t, a, "ada", 500000)
			var done, claimed atomic.Int32
			var wg sync.WaitGroup
			for i, who := range []string{"bob", "cy", "dee", "bob", "cy", "dee"} {
				s := []*Store{a, b}[i%2]
				wg.Go(func() {
					_, d, err := s.Approve(r.ID, who, t0.Add(time.Minute), need)
					if err != nil && !errors.Is(err, ErrNotPending) {
						t.Error(err)
					}
					if d {
						done.Add(1)
					}
				})
			}
			wg.Wait()
			if done.Load() != 1 {
				t.Fatalf("need %d: %d approvals completed the request across two hubs, want exactly 1", need, done.Load())
			}
			for i := range 6 {
				s := []*Store{a, b}[i%2]
				wg.Go(func() {
					if _, err := s.Claim(r.ID, "hub", t0.Add(2*time.Minute)); err == nil {
						claimed.Add(1)
					} else if !errors.Is(err, ErrNotApproved) {
						t.Error(err)
					}
				})
			}
			wg.Wait()
			if claimed.Load() != 1 {
				t.Fatalf("need %d: %d claims to send across two hubs, want 1", need, claimed.Load())
			}
			got, err := b.Get(r.ID)
			if err != nil || got.Status != StatusSending || len(got.ApprovedBy) != need {
				t.Fatalf("hub B reads %+v %v", got, err)
			}
			log, err := a.Log(0, 0, r.ID)
			if err != nil || len(log) != 2+need { // requested, need approvals, sending
				t.Fatalf("record of the request at hub A: %d lines %v, want %d", len(log), err, 2+need)
			}
			byTx, err := b.ByTransactionID(r.TransactionID)
			if err != nil || byTx.ID != r.ID {
				t.Fatalf("hub B by transaction id: %+v %v", byTx, err)
			}
		}
		// Neither hub can take the other's transaction id.
		r := pending(t, a, "ada", 100)
		again := r
		again.ID = NewID()
		if err := b.Create(&again); !errors.Is(err, ErrDuplicateTxID) {
			t.Fatalf("hub B reused hub A's transaction id: %v", err)
		}
		if err := b.CreateBatch("bat-x", []*Request{&again}); !errors.Is(err, ErrDuplicateTxID) {
			t.Fatalf("a batch row reusing hub A's transaction id at hub B: %v", err)
		}
	})
}

// A node of the cluster (the stream's leader) killed while two hubs
// record requests and approvals, and started again: every request is
// approved exactly once and its record whole, counted afterwards.
func TestANodeKilledMidWayLosesNoChange(t *testing.T) {
	natstest.Each(t, func(t *testing.T, nodes natstest.Nodes) {
		a := openJetStream(t, nodes.URLs(), "NODEKILL")
		b := openJetStream(t, nodes.URLs(), "NODEKILL")
		const n = 30
		ids := make([]string, n)
		var completed atomic.Int32
		killed := -1
		for i := range n {
			switch i {
			case n / 3:
				killed = natstest.StreamLeaderNode(t, nodes, "NODEKILL_APPROVALS")
				nodes.Kill(t, killed)
				t.Logf("killed %s, the stream's leader, after %d requests", nodes.NodeName(killed), i)
			case 2 * n / 3:
				nodes.Restart(t, killed)
				t.Logf("restarted %s after %d requests", nodes.NodeName(killed), i)
			}
			s := []*Store{a, b}[i%2]
			ids[i] = pending(t, s, "ada", int64(100+i)).ID
			var wg sync.WaitGroup
			for j, who := range []string{"bob", "cy"} {
				other := []*Store{a, b}[(i+j)%2]
				wg.Go(func() {
					_, d, err := other.Approve(ids[i], who, t0, 1)
					if err != nil && !errors.Is(err, ErrNotPending) {
						t.Error(err)
					}
					if d {
						completed.Add(1)
					}
				})
			}
			wg.Wait()
		}
		if completed.Load() != n {
			t.Fatalf("%d requests completed, want each of %d exactly once", completed.Load(), n)
		}
		all, err := b.List(nil)
		if err != nil || len(all) != n {
			t.Fatalf("%d requests listed, want %d: %v", len(all), n, err)
		}
		for _, r := range all {
			if r.Status != StatusApproved || len(r.ApprovedBy) != 1 {
				t.Fatalf("%s: %s approved by %v", r.ID, r.Status, r.ApprovedBy)
			}
		}
		log, err := a.Log(0, 0, "")
		if err != nil || len(log) != 2*n {
			t.Fatalf("%d record lines, want %d (requested and approved per request): %v", len(log), 2*n, err)
		}
	})
}

// Every node of the cluster killed at once (SIGKILL for nats-server
// processes) and started again: the request, its status and every line of
// its record are still there for a hub that opens the store afresh.
func TestJetStreamRecordSurvivesTheWholeClusterKilled(t *testing.T) {
	natstest.Each(t, func(t *testing.T, nodes natstest.Nodes) {
		s := openJetStream(t, nodes.URLs(), "KILLALL")
		r := pending(t, s, "ada", 123456)
		if _, _, err := s.Approve(r.ID, "bob", t0, 1); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Claim(r.ID, "hub", t0); err != nil {
			t.Fatal(err)
		}
		if err := s.Note(Entry{At: t0, Action: "payment", By: "ada", Detail: "payment sent"}); err != nil {
			t.Fatal(err)
		}
		for i := range 3 {
			nodes.Kill(t, i)
		}
		for i := range 3 {
			nodes.Restart(t, i)
		}
		natstest.WaitForJetStream(t, nodes.URLs())
		again := openJetStream(t, nodes.URLs(), "KILLALL")
		got, err := again.Get(r.ID)
		if err != nil || got.Status != StatusSending || got.TransactionID != r.TransactionID {
			t.Fatalf("after the whole cluster was killed: %+v %v", got, err)
		}
		log, err := again.Log(0, 0, "")
		if err != nil {
			t.Fatal(err)
		}
		var acts []string
		for _, e := range log {
			acts = append(acts, e.Action+"/"+e.By)
		}
		if strings.Join(acts, " ") != "requested/ada approved/bob sending/hub payment/ada" {
			t.Fatalf("record after the restart: %v", acts)
		}
	})
}

// A hub killed between claiming a transaction id and writing its request
// leaves the claim alone: the requester's retry with that id makes the
// request, and the id stays one request's.
func TestJetStreamAClaimLeftWithoutItsRequestIsTakenOver(t *testing.T) {
	c := natstest.StartCluster(t, 3)
	s := openJetStream(t, c.URLs(), "ORPHAN")
	txid := "tx-orphan-1"
	_, rev, _, err := s.js.readAt(s.js.txSubject(txid))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.js.put(s.js.txSubject(txid), rev, jsMessage{Holder: "apr-diedmidway"}); err != nil {
		t.Fatal(err)
	}
	r := Request{ID: NewID(), Status: StatusPending, RequestedBy: "ada", RequestedAt: t0, AmountInMinor: 100, Currency: "GBP", TransactionID: txid}
	if err := s.Create(&r); err != nil {
		t.Fatalf("the retry after a hub died mid-way: %v", err)
	}
	got, err := s.ByTransactionID(txid)
	if err != nil || got.ID != r.ID {
		t.Fatalf("ByTransactionID = %+v %v, want %s", got, err, r.ID)
	}
	again := r
	again.ID = NewID()
	if err := s.Create(&again); !errors.Is(err, ErrDuplicateTxID) {
		t.Fatalf("a second request with the id once it is held: %v", err)
	}
}

// A hub that died after deciding a batch (its one write) and before
// writing the rows with the decision: every hub reads the rows decided,
// a row's next change writes the decision with it, and the batch neither
// lapses nor is decided again.
func TestJetStreamABatchDecidedButNotWrittenReadsDecided(t *testing.T) {
	c := natstest.StartCluster(t, 3)
	s := openJetStream(t, c.URLs(), "BATCHDIED")
	other := openJetStream(t, c.URLs(), "BATCHDIED")
	batch, rows := batchOf(t, s, "ada", 100, 200, 300)
	bm, rev, _, err := s.js.batchAt(batch)
	if err != nil {
		t.Fatal(err)
	}
	decided := *bm
	decided.Status, decided.ApprovedBy, decided.Approvals, decided.At = StatusApproved, []string{"bob"}, []Approval{{By: "bob", At: t0}}, t0
	if _, err := s.js.put(s.js.batchSubject(batch), rev, jsMessage{Batch: &decided}); err != nil {
		t.Fatal(err)
	}
	got, err := other.Batch(batch)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range got {
		if r.Status != StatusApproved || len(r.ApprovedBy) != 1 {
			t.Fatalf("row read at the other hub: %+v", r)
		}
	}
	if _, _, err := other.ApproveBatch(batch, "cy", t0, 1); !errors.Is(err, ErrNotPending) {
		t.Fatalf("approving the decided batch again: %v", err)
	}
	if lapsed, err := other.Lapse(t0.Add(48 * time.Hour)); err != nil || len(lapsed) != 0 {
		t.Fatalf("Lapse took %d rows of the decided batch: %v", len(lapsed), err)
	}
	r, err := other.Claim(rows[1].ID, "hub", t0)
	if err != nil || r.Status != StatusSending || len(r.ApprovedBy) != 1 {
		t.Fatalf("claiming a row: %+v %v", r, err)
	}
	raw, _, _, err := s.js.readAt(s.js.reqSubject(rows[1].ID))
	if err != nil || raw.Request.Status != StatusSending || len(raw.Request.ApprovedBy) != 1 {
		t.Fatalf("the row as written: %+v %v", raw.Request, err)
	}
}

// A hub starting on a stream with a snapshot starts from it and follows
// what came after: it lists what the first hub lists, and each sees what
// the other writes next. (The snapshot is taken every few messages here,
// every DefaultSnapshotEvery in a hub.)
func TestASecondHubStartsFromTheSnapshot(t *testing.T) {
	natstest.Each(t, func(t *testing.T, nodes natstest.Nodes) {
		a := openJetStreamWith(t, nodes.URLs(), JetStreamConfig{Name: "SNAP", SnapshotEvery: 5})
		var open []string
		for i := range 12 {
			r := pending(t, a, "ada", int64(100+i))
			if i%3 == 0 {
				if _, err := a.Reject(r.ID, "bob", "no", t0); err != nil {
					t.Fatal(err)
				}
				continue
			}
			open = append(open, r.ID)
		}
		deadline := time.Now().Add(10 * time.Second)
		for {
			a.js.view.mu.Lock()
			taken := a.js.view.snapSeq > 0 && !a.js.view.snapping
			a.js.view.mu.Unlock()
			if taken {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("no snapshot was taken")
			}
			time.Sleep(20 * time.Millisecond)
		}
		b := openJetStream(t, nodes.URLs(), "SNAP")
		if b.js.view.snapSeq == 0 {
			t.Fatal("the second hub did not start from the snapshot")
		}
		later := pending(t, a, "ada", 999)
		open = append(open, later.ID)
		slices.Sort(open)
		for _, s := range []*Store{a, b} {
			live, err := s.ListLive(nil)
			if err != nil {
				t.Fatal(err)
			}
			got := ids(live)
			slices.Sort(got)
			if !slices.Equal(got, open) {
				t.Fatalf("live: %v, want %v", got, open)
			}
			for _, r := range live {
				if r.WrittenAt.IsZero() {
					t.Fatalf("%s has no stream time: a claim's lease could not be judged on it", r.ID)
				}
			}
		}
		if _, err := b.Reject(later.ID, "bob", "no", t0); err != nil {
			t.Fatal(err)
		}
		if live, _ := a.ListLive(nil); slices.Contains(ids(live), later.ID) {
			t.Fatal("hub A still lists the request hub B rejected")
		}
	})
}
