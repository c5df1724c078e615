package store

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

var t0 = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

func openStore(t *testing.T) *Store {
	t.Helper()
	if storeOnJetStream != nil {
		return storeOnJetStream(t)
	}
	s, err := Open(filepath.Join(t.TempDir(), "approvals.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func pending(t *testing.T, s *Store, by string, amount int64) Request {
	t.Helper()
	r := Request{ID: NewID(), Status: StatusPending, RequestedBy: by, RequestedAt: t0, NeedsApproval: true,
		ExpiresAt: t0.Add(24 * time.Hour), AmountInMinor: amount, Currency: "GBP", BeneficiaryName: "Payee Ltd",
		BeneficiaryIBAN: "GB33BUKB20201555555555", BeneficiaryReference: "INV-1", TransactionID: "tx-" + NewID()}
	if err := s.Create(&r); err != nil {
		t.Fatal(err)
	}
	return r
}

func TestConcurrentApprovalsCompleteARequestOnce(t *testing.T) {
	for _, need := range []int{1, 2} {
		t.Run(fmt.Sprintf("need %d", need), func(t *testing.T) {
			s := openStore(t)
			r := pending(t, s, "ada", 500000)
			var done atomic.Int32
			var wg sync.WaitGroup
			for _, who := range []string{"bob", "cy", "dee", "bob", "cy", "dee"} {
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
				t.Fatalf("%d approvals completed the request, want exactly 1", done.Load())
			}
			got, _ := s.Get(r.ID)
			if got.Status != StatusApproved || len(got.ApprovedBy) != need {
				t.Fatalf("after the race: status %s approved by %v", got.Status, got.ApprovedBy)
			}
			// Of the approvals that completed, only one claim sends.
			var claimed atomic.Int32
			for range 4 {
				wg.Go(func() {
					if _, err := s.Claim(r.ID, "hub", t0.Add(2*time.Minute)); err == nil {
						claimed.Add(1)
					}
				})
			}
			wg.Wait()
			if claimed.Load() != 1 {
				t.Fatalf("%d claims to send, want 1", claimed.Load())
			}
		})
	}
}

func TestApprovalRules(t *testing.T) {
	s := openStore(t)
	r := pending(t, s, "ada", 100)
	if _, _, err := s.Approve(r.ID, "ada", t0, 1); !errors.Is(err, ErrOwnRequest) {
		t.Fatalf("own approval: %v", err)
	}
	// Two approvers needed: the same person twice is one approval.
	if _, done, err := s.Approve(r.ID, "bob", t0, 2); err != nil || done {
		t.Fatalf("first approval: done=%v err=%v", done, err)
	}
	got, done, err := s.Approve(r.ID, "bob", t0, 2)
	if err != nil || done || len(got.ApprovedBy) != 1 || got.Status != StatusPending {
		t.Fatalf("repeated approval: %+v done=%v err=%v", got, done, err)
	}

	rej := pending(t, s, "ada", 100)
	if _, err := s.Reject(rej.ID, "ada", "mine", t0); err == nil {
		t.Fatal("the requester rejected their own request")
	}
	if _, err := s.Reject(rej.ID, "bob", "wrong IBAN", t0); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Approve(rej.ID, "cy", t0, 1); !errors.Is(err, ErrNotPending) {
		t.Fatalf("approving a rejected request: %v", err)
	}

	late := pending(t, s, "ada", 100)
	if _, _, err := s.Approve(late.ID, "bob", t0.Add(24*time.Hour), 1); !errors.Is(err, ErrLapsed) {
		t.Fatalf("approval after the TTL: %v", err)
	}
	if got, _ := s.Get(late.ID); got.Status != StatusLapsed {
		t.Fatalf("an approval after the TTL left the request %s, want lapsed recorded", got.Status)
	}
	if _, _, err := s.Approve(late.ID, "cy", t0, 1); !errors.Is(err, ErrLapsed) {
		t.Fatalf("approving a lapsed request: %v", err)
	}

	sent := pending(t, s, "ada", 100)
	if _, _, err := s.Approve(sent.ID, "bob", t0, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Claim(sent.ID, "hub", t0); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Finish(sent.ID, StatusSent, "accepted", "202", t0); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Approve(sent.ID, "cy", t0, 1); !errors.Is(err, ErrNotPending) {
		t.Fatalf("approving a sent request: %v", err)
	}
	if _, err := s.Claim(sent.ID, "hub", t0); !errors.Is(err, ErrNotApproved) {
		t.Fatalf("claiming a sent request again: %v", err)
	}
}

func TestTransactionIDIsFixedAndUnique(t *testing.T) {
	s := openStore(t)
	r := pending(t, s, "ada", 100)
	again := r
	again.ID = NewID()
	if err := s.Create(&again); !errors.Is(err, ErrDuplicateTxID) {
		t.Fatalf("second request with the same transaction id: %v", err)
	}
	got, err := s.ByTransactionID(r.TransactionID)
	if err != nil || got.ID != r.ID {
		t.Fatalf("ByTransactionID = %+v, %v", got, err)
	}
}

func TestLapseAndOutflows(t *testing.T) {
	s := openStore(t)
	a := pending(t, s, "ada", 100)
	b := pending(t, s, "ada", 200)
	c := pending(t, s, "ada", 400)
	if _, err := s.Reject(c.ID, "bob", "no", t0); err != nil {
		t.Fatal(err)
	}
	out, err := s.Outflows("")
	if err != nil || out["GBP"] != 300 {
		t.Fatalf("Outflows = %v, %v; want GBP 300 (pending only)", out, err)
	}
	if out, _ := s.Outflows(a.ID); out["GBP"] != 200 {
		t.Fatalf("Outflows except a = %v, want 200", out)
	}
	if _, _, err := s.Approve(b.ID, "bob", t0, 1); err != nil {
		t.Fatal(err)
	}
	lapsed, err := s.Lapse(t0.Add(24 * time.Hour))
	if err != nil || len(lapsed) != 1 || lapsed[0].ID != a.ID {
		t.Fatalf("Lapse = %v, %v; want only %s (b is approved)", lapsed, err, a.ID)
	}
	if out, _ := s.Outflows(""); out["GBP"] != 200 {
		t.Fatalf("Outflows after the lapse = %v, want the approved-unsent 200", out)
	}
	log, err := s.Log(0, 0, a.ID)
	if err != nil || len(log) != 2 || log[0].Action != ActRequested || log[0].By != "ada" || log[1].Action != ActLapsed {
		t.Fatalf("record of a = %+v, %v", log, err)
	}
	all, _ := s.Log(0, 0, "")
	if len(all) != 6 { // 3 requested, 1 rejected, 1 approved, 1 lapsed
		t.Fatalf("%d record lines, want 6: %+v", len(all), all)
	}
	tail, _ := s.Log(all[3].Seq, 0, "")
	if len(tail) != 2 {
		t.Fatalf("Log after seq %d gave %d lines, want 2", all[3].Seq, len(tail))
	}
}

// The helper process of TestRecordSurvivesKill9: it records a request
// and an approval, says so, and waits to be killed.
func TestMain(m *testing.M) {
	if os.Getenv("HUB_SCALE_CHILD") != "" && BenchChild != nil {
		BenchChild()
		return
	}
	if path := os.Getenv("HUB_STORE_CRASH_HELPER"); path != "" {
		s, err := Open(path)
		if err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		r := Request{ID: "apr-crash", Status: StatusPending, RequestedBy: "ada", RequestedAt: t0, ExpiresAt: t0.Add(time.Hour),
			AmountInMinor: 123456, Currency: "GBP", TransactionID: "tx-crash"}
		if err := s.Create(&r); err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		if _, _, err := s.Approve(r.ID, "bob", t0, 1); err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		if _, err := s.Claim(r.ID, "hub", t0); err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		fmt.Println("ready")
		time.Sleep(time.Minute)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestRecordSurvivesKill9(t *testing.T) {
	path := filepath.Join(t.TempDir(), "approvals.db")
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "HUB_STORE_CRASH_HELPER="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || strings.TrimSpace(line) != "ready" {
		_ = cmd.Process.Kill()
		t.Fatalf("helper said %q, %v", line, err)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	r, err := s.Get("apr-crash")
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != StatusSending || r.TransactionID != "tx-crash" || len(r.ApprovedBy) != 1 || r.ApprovedBy[0] != "bob" {
		t.Fatalf("after kill -9: %+v", r)
	}
	log, _ := s.Log(0, 0, "")
	var acts []string
	for _, e := range log {
		acts = append(acts, e.Action+"/"+e.By)
	}
	if strings.Join(acts, " ") != "requested/ada approved/bob sending/hub" {
		t.Fatalf("record after kill -9: %v", acts)
	}
}

func TestASecondHubOnTheStoreIsToldToUseAnother(t *testing.T) {
	dir := t.TempDir()
	s := openStoreAt(t, filepath.Join(dir, "approvals.db"))
	_ = s
	_, err := Open(filepath.Join(dir, "approvals.db"))
	if err == nil || !strings.Contains(err.Error(), "give this one another --approvals-store") {
		t.Fatalf("second open: %v", err)
	}
	other := openStoreAt(t, filepath.Join(dir, "other.db"))
	if _, err := other.List(nil); err != nil {
		t.Fatalf("another store, as advised: %v", err)
	}
}

func openStoreAt(t *testing.T, path string) *Store {
	t.Helper()
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestAPayoutStateIsNeverSetBack(t *testing.T) {
	s := openStore(t)
	r := pending(t, s, "ada", 100)
	if _, _, err := s.Approve(r.ID, "bob", t0, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Claim(r.ID, "hub", t0); err != nil {
		t.Fatal(err)
	}
	// The follower heard the settlement before the sender recorded the
	// service's 202.
	if _, err := s.SetPayoutState(r.ID, "settled", "", t0); err != nil {
		t.Fatal(err)
	}
	got, err := s.Finish(r.ID, StatusSent, "accepted", "202", t0)
	if err != nil || got.PayoutState != "settled" || got.Status != StatusSent {
		t.Fatalf("after the late 202: %+v %v", got, err)
	}
	if got, _ := s.SetPayoutState(r.ID, "submitted", "", t0); got.PayoutState != "settled" {
		t.Fatalf("a late submitted set the state back to %s", got.PayoutState)
	}
}

func batchOf(t *testing.T, s *Store, by string, amounts ...int64) (string, []Request) {
	t.Helper()
	batch := "bat-" + NewID()[4:]
	var rs []*Request
	for i, a := range amounts {
		rs = append(rs, &Request{ID: NewID(), Status: StatusPending, RequestedBy: by, RequestedAt: t0, NeedsApproval: true,
			ExpiresAt: t0.Add(time.Hour), AmountInMinor: a, Currency: "GBP", TransactionID: "tx-" + NewID(), Line: i + 2})
	}
	if err := s.CreateBatch(batch, rs); err != nil {
		t.Fatal(err)
	}
	got, err := s.Batch(batch)
	if err != nil || len(got) != len(amounts) {
		t.Fatalf("Batch = %d rows, %v", len(got), err)
	}
	return batch, got
}

func TestABatchIsDecidedWhole(t *testing.T) {
	s := openStore(t)
	batch, rows := batchOf(t, s, "ada", 100, 200, 300)
	if _, _, err := s.Approve(rows[1].ID, "bob", t0, 1); !errors.Is(err, ErrInBatch) {
		t.Fatalf("approving one row: %v", err)
	}
	if _, _, err := s.ApproveBatch(batch, "ada", t0, 1); !errors.Is(err, ErrOwnRequest) {
		t.Fatalf("own batch: %v", err)
	}
	var done atomic.Int32
	var wg sync.WaitGroup
	for _, who := range []string{"bob", "cy", "bob", "cy"} {
		wg.Go(func() {
			if _, d, _ := s.ApproveBatch(batch, who, t0, 1); d {
				done.Add(1)
			}
		})
	}
	wg.Wait()
	if done.Load() != 1 {
		t.Fatalf("%d approvals completed the batch, want 1", done.Load())
	}
	got, _ := s.Batch(batch)
	for _, r := range got {
		if r.Status != StatusApproved || len(r.ApprovedBy) != 1 {
			t.Fatalf("row after approval: %+v", r)
		}
	}
	other, _ := batchOf(t, s, "ada", 100, 200)
	rs, err := s.RejectBatch(other, "bob", "wrong month", t0)
	if err != nil || len(rs) != 2 || rs[0].Status != StatusRejected || rs[1].Status != StatusRejected {
		t.Fatalf("reject: %+v %v", rs, err)
	}
	late, _ := batchOf(t, s, "ada", 100, 200)
	if _, _, err := s.ApproveBatch(late, "bob", t0.Add(time.Hour), 1); !errors.Is(err, ErrLapsed) {
		t.Fatalf("late approval: %v", err)
	}
	if rs, _ := s.Batch(late); rs[0].Status != StatusLapsed || rs[1].Status != StatusLapsed {
		t.Fatalf("a late approval left the batch %s/%s", rs[0].Status, rs[1].Status)
	}
}
