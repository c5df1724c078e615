package batch

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/platform/clock"
	"github.com/paydash/paydash/webhookrelay/relayclient"
)

// fakeService behaves like the payout endpoint where it matters here:
// a repeated transaction_id is the same payout (202, nothing created).
type fakeService struct {
	mu      sync.Mutex
	created map[string]api.PayoutRequest
	calls   []string
	// hook, when set, decides the answer for a call after it is counted;
	// n is the 1-based call number.
	hook func(n int, req *api.PayoutRequest) error
}

func newFakeService() *fakeService { return &fakeService{created: map[string]api.PayoutRequest{}} }

func (s *fakeService) CreatePayout(ctx context.Context, req *api.PayoutRequest) error {
	s.mu.Lock()
	s.calls = append(s.calls, req.TransactionID)
	n := len(s.calls)
	hook := s.hook
	s.mu.Unlock()
	if hook != nil {
		if err := hook(n, req); err != nil {
			if errors.Is(err, errCreatedButLost) {
				s.create(req)
			}
			return err
		}
	}
	s.create(req)
	return nil
}

func (s *fakeService) create(req *api.PayoutRequest) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.created[req.TransactionID]; !ok {
		s.created[req.TransactionID] = *req
	}
}

// errCreatedButLost simulates a payout the service created whose answer
// never arrived (the connection dropped, or the process died).
var errCreatedButLost = errors.New("connection reset after the request was sent")

func writeBatch(t *testing.T, rows int) (*File, string) {
	t.Helper()
	var b strings.Builder
	b.WriteString("name,iban,reference,amount,currency\n")
	for i := range rows {
		fmt.Fprintf(&b, "Person %d,%s,inv-%d,%d.%02d,GBP\n", i, ibanGB, i, i+1, i)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "payouts.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return f, path
}

func TestRunResumesAfterInterruptionAndPaysEachRowOnce(t *testing.T) {
	tests := []struct {
		name string
		// stopAt is the call at which the first run is interrupted.
		stopAt int
		// stop makes the interruption happen at call n.
		stop func(cancel context.CancelFunc) func(n int, req *api.PayoutRequest) error
	}{
		{
			name: "answer lost after the service created the payout", stopAt: 4,
			stop: func(context.CancelFunc) func(int, *api.PayoutRequest) error {
				return func(n int, _ *api.PayoutRequest) error {
					if n == 4 {
						return errCreatedButLost
					}
					return nil
				}
			},
		},
		{
			name: "service unreachable before creating", stopAt: 6,
			stop: func(context.CancelFunc) func(int, *api.PayoutRequest) error {
				return func(n int, _ *api.PayoutRequest) error {
					if n == 6 {
						return errors.New("dial tcp 127.0.0.1:1: connection refused")
					}
					return nil
				}
			},
		},
		{
			name: "operator pressed ctrl+c", stopAt: 3,
			stop: func(cancel context.CancelFunc) func(int, *api.PayoutRequest) error {
				return func(n int, _ *api.PayoutRequest) error {
					if n == 3 {
						cancel()
					}
					return nil
				}
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, _ := writeBatch(t, 8)
			svc := newFakeService()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			svc.hook = tc.stop(cancel)
			sum, err := Run(ctx, f, svc, Options{})
			if !errors.Is(err, ErrInterrupted) {
				t.Fatalf("first run: err = %v, want ErrInterrupted", err)
			}
			if sum.OK() || sum.Counts.NotSent == 0 {
				t.Errorf("an interrupted run must report unsent rows: %+v", sum.Counts)
			}
			firstCalls := len(svc.calls)

			// Re-run "after the crash": a new Run reading the same journal.
			svc.hook = nil
			sum, err = Run(context.Background(), f, svc, Options{})
			if err != nil {
				t.Fatalf("re-run: %v", err)
			}
			if len(svc.created) != len(f.Rows) {
				t.Fatalf("service holds %d payouts, want exactly %d (one per row)", len(svc.created), len(f.Rows))
			}
			// Every row's payout carries that row's own amount and name.
			for _, r := range sum.Rows {
				got, ok := svc.created[r.TransactionID]
				if !ok || got.AmountInMinor != r.AmountInMinor || got.BeneficiaryName != r.Name {
					t.Errorf("line %d: service has %+v for %s", r.Line, got, r.TransactionID)
				}
			}
			// Rows accepted in the first run were not sent again.
			resent := len(svc.calls) - firstCalls
			if want := len(f.Rows) - sum.Counts.PreviousRun; resent != want {
				t.Errorf("re-run sent %d, want %d (rows not accepted before)", resent, want)
			}
			if sum.Counts.Accepted != len(f.Rows) || !sum.OK() {
				t.Errorf("counts after re-run = %+v", sum.Counts)
			}
			// A third run sends nothing at all.
			before := len(svc.calls)
			if _, err := Run(context.Background(), f, svc, Options{}); err != nil {
				t.Fatal(err)
			}
			if len(svc.calls) != before {
				t.Errorf("a finished batch re-run sent %d more payouts", len(svc.calls)-before)
			}
		})
	}
}

func TestRunRefusedRowDoesNotStopTheBatch(t *testing.T) {
	f, _ := writeBatch(t, 4)
	svc := newFakeService()
	svc.hook = func(n int, _ *api.PayoutRequest) error {
		if n == 2 {
			return &api.Error{StatusCode: 403, Method: "POST", URL: "http://127.0.0.1/v1/payouts", Problem: &api.ProblemDetails{Title: "Account disabled"}}
		}
		return nil
	}
	sum, err := Run(context.Background(), f, svc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := sum.Counts
	if c.Accepted != 3 || c.Rejected != 1 || c.NotSent != 0 || sum.OK() {
		t.Errorf("counts = %+v", c)
	}
	if r := sum.Rows[1]; r.Result != ResultRejected || r.HTTPStatus != 403 || !strings.Contains(r.Detail, "Account disabled") {
		t.Errorf("refused row = %+v", r)
	}
	// A re-run sends the refused row again (same id) and nothing else.
	svc.hook = nil
	before := len(svc.calls)
	sum, err = Run(context.Background(), f, svc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := svc.calls[before:]; len(got) != 1 || got[0] != sum.Rows[1].TransactionID {
		t.Errorf("re-run sent %v, want only line 3's id %s", got, sum.Rows[1].TransactionID)
	}
}

func TestRunFollowsWebhooks(t *testing.T) {
	f, _ := writeBatch(t, 3)
	svc := newFakeService()
	events := make(chan relayclient.Event, 16)
	svc.hook = func(n int, req *api.PayoutRequest) error {
		// The service's webhooks arrive while the batch is still sending,
		// some out of order, plus one for a payout not in this batch.
		switch n {
		case 1:
			events <- relayclient.Event{PayoutID: req.TransactionID, State: api.StateSettled}
			events <- relayclient.Event{PayoutID: req.TransactionID, State: api.StateSubmitted}
		case 2:
			events <- relayclient.Event{PayoutID: req.TransactionID, State: api.StateRejected, Reason: "insufficient_funds"}
		case 3:
			events <- relayclient.Event{PayoutID: "someone-else", State: api.StateFailed}
			events <- relayclient.Event{PayoutID: req.TransactionID, State: api.StateAuthorised}
			events <- relayclient.Event{PayoutID: req.TransactionID, State: api.StateFailed, Reason: "scheme_error"}
		}
		return nil
	}
	sum, err := Run(context.Background(), f, svc, Options{Events: events, Wait: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ result, reason string }{{ResultSettled, ""}, {ResultRejected, "insufficient_funds"}, {ResultFailed, "scheme_error"}}
	for i, w := range want {
		if r := sum.Rows[i]; r.Result != w.result || r.Reason != w.reason {
			t.Errorf("line %d = %s (%s), want %s (%s)", r.Line, r.Result, r.Reason, w.result, w.reason)
		}
	}
	if c := sum.Counts; c.Accepted != 3 || c.Settled != 1 || c.Rejected != 1 || c.Failed != 1 || c.Pending != 0 || sum.OK() {
		t.Errorf("counts = %+v", c)
	}
	// States were journaled: a re-run without a relay still knows them.
	sum, err = Run(context.Background(), f, svc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Rows[0].Result != ResultSettled || sum.Rows[2].Reason != "scheme_error" {
		t.Errorf("states not kept across runs: %+v", sum.Rows)
	}
}

func TestRunWaitEndsAtDeadline(t *testing.T) {
	f, _ := writeBatch(t, 2)
	clk := clock.NewFake(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	events := make(chan relayclient.Event)
	done := make(chan *Summary)
	go func() {
		sum, err := Run(context.Background(), f, newFakeService(), Options{Events: events, Wait: 30 * time.Second, Clock: clk})
		if err != nil {
			t.Error(err)
		}
		done <- sum
	}()
	// No webhook ever comes; once the run is waiting, pass the deadline.
	for clk.Pending() == 0 {
		time.Sleep(time.Millisecond)
	}
	clk.Advance(30 * time.Second)
	sum := <-done
	if c := sum.Counts; c.Pending != 2 || c.Accepted != 2 || !sum.OK() {
		t.Errorf("counts = %+v; accepted payouts without a final state are pending, not failures", c)
	}
}

func TestRunRateSpacesPayouts(t *testing.T) {
	f, _ := writeBatch(t, 4)
	clk := clock.NewFake(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	svc := newFakeService()
	var at []time.Time
	svc.hook = func(int, *api.PayoutRequest) error { at = append(at, clk.Now()); return nil }
	done := make(chan error)
	go func() {
		_, err := Run(context.Background(), f, svc, Options{Rate: 2, Clock: clk})
		done <- err
	}()
	for {
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
			if len(at) != 4 {
				t.Fatalf("sent %d", len(at))
			}
			for i := 1; i < len(at); i++ {
				if gap := at[i].Sub(at[i-1]); gap < 500*time.Millisecond {
					t.Errorf("gap %d = %v, want >= 500ms at 2/s", i, gap)
				}
			}
			return
		default:
			if clk.Pending() > 0 {
				clk.Advance(100 * time.Millisecond)
			} else {
				time.Sleep(time.Millisecond)
			}
		}
	}
}

func TestDryRunSendsNothingAndWritesNoJournal(t *testing.T) {
	f, path := writeBatch(t, 3)
	svc := newFakeService()
	sum, err := Run(context.Background(), f, svc, Options{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(svc.calls) != 0 || sum.Counts.WouldSend != 3 {
		t.Errorf("dry run sent %d, would-send %d", len(svc.calls), sum.Counts.WouldSend)
	}
	if _, err := os.Stat(DefaultJournalPath(path)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("dry run wrote a journal: %v", err)
	}
	// After a real run, a dry run shows every row as already paid.
	if _, err := Run(context.Background(), f, svc, Options{}); err != nil {
		t.Fatal(err)
	}
	sum, err = Run(context.Background(), f, svc, Options{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Counts.WouldSend != 0 || sum.Counts.PreviousRun != 3 {
		t.Errorf("dry run after a complete run: %+v", sum.Counts)
	}
}
