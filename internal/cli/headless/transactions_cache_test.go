package headless

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/report/cache"
)

// windowStreamer serves rows as the service does: those booked within
// the query's from and to, oldest first; it counts the rows it sent.
type windowStreamer struct {
	mu     sync.Mutex
	txs    []api.Transaction
	served int
	calls  int
}

func (f *windowStreamer) StreamTransactions(ctx context.Context, q api.TransactionQuery, fn func(api.Transaction) error) error {
	f.mu.Lock()
	f.calls++
	txs := f.txs
	f.mu.Unlock()
	for _, t := range txs {
		at := t.AuthorisedAt.Time
		if !q.From.IsZero() && at.Before(q.From) || !q.To.IsZero() && at.After(q.To) {
			continue
		}
		f.mu.Lock()
		f.served++
		f.mu.Unlock()
		if err := fn(t); err != nil {
			return err
		}
	}
	return ctx.Err()
}

// recentTxs are n rows an hour apart up to now, the last one newest.
func recentTxs(n int) []api.Transaction {
	txs := makeTxs(n)
	now := time.Now().UTC().Truncate(time.Second)
	for i := range txs {
		at := now.Add(-time.Duration(n-i) * time.Hour)
		txs[i].AuthorisedAt, txs[i].SettledAt = api.NewReportTime(at), api.NewReportTime(at.Add(time.Second))
		if txs[i].Status != api.StateFailed {
			txs[i].Status = api.StateSettled
		}
	}
	return txs
}

// TestTransactionsFromTheCache: `transactions` answers from the cache
// what the service would (the same bytes), and a second run after new
// rows asks the service only for those; --no-cache (no Cache) asks the
// service for everything.
func TestTransactionsFromTheCache(t *testing.T) {
	src := &windowStreamer{txs: recentTxs(24 * 60)} // sixty days
	cc := cache.New(filepath.Join(t.TempDir(), "p", cache.FileName), cache.Key{Profile: "p", ServiceURL: "http://svc.test"})
	run := func(o TransactionsOptions) string {
		t.Helper()
		s, out, _ := testStreams("")
		if err := Transactions(context.Background(), s, src, &o); err != nil {
			t.Fatal(err)
		}
		return out.String()
	}
	for _, flags := range []TransactionsOptions{{CSV: true}, {Since: "7d", Status: "failed"}, {JSON: true, Currency: "gbp", Search: "payee 14"}} {
		direct := run(flags)
		cached := flags
		cached.Cache = cc
		if got := run(cached); got != direct {
			t.Fatalf("%+v from the cache:\n%.400s\nfrom the service:\n%.400s", flags, got, direct)
		}
	}
	// Three new rows, then a run: one call, for the new rows and the
	// little overlap before them.
	src.mu.Lock()
	more := recentTxs(3)
	for i := range more {
		more[i].TransactionID = fmt.Sprintf("00000000-0000-4000-9000-%012d", i)
		at := time.Now().UTC().Add(time.Duration(i+1) * time.Minute)
		more[i].AuthorisedAt, more[i].SettledAt = api.NewReportTime(at), api.NewReportTime(at.Add(time.Second))
	}
	src.txs = append(src.txs, more...)
	calls, served := src.calls, src.served
	src.mu.Unlock()
	out := run(TransactionsOptions{Cache: cc, Search: "00000000-0000-4000-9000"})
	if src.calls-calls != 1 || src.served-served > 3+1 {
		t.Fatalf("a run after 3 new rows made %d calls served %d rows", src.calls-calls, src.served-served)
	}
	if got := run(TransactionsOptions{Search: "00000000-0000-4000-9000"}); got != out {
		t.Fatalf("after new rows, from the cache:\n%s\nfrom the service:\n%s", out, got)
	}
}
