package cache_test

import (
	"context"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/api/sandbox"
	"github.com/paydash/paydash/api/testkey"
	"github.com/paydash/paydash/internal/platform/clock"
	"github.com/paydash/paydash/internal/report"
	"github.com/paydash/paydash/internal/report/cache"
	"github.com/paydash/paydash/internal/report/rawreport"
)

type env struct {
	clk    *clock.Fake
	client *api.Client
	ct     *rawreport.Counter
	url    string
}

func newEnv(t *testing.T, history int) *env {
	t.Helper()
	key := testkey.Load(t)
	clk := clock.NewFake(time.Date(2025, 3, 14, 9, 0, 0, 0, time.UTC))
	srv, err := sandbox.Listen(context.Background(), "127.0.0.1:0", sandbox.Options{MerchantKey: &key.PublicKey,
		MerchantKeyID: "k1", Clock: clk, History: history, HistorySeed: 7, StepDelay: 40 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	info := srv.Info()
	ct := &rawreport.Counter{Base: http.DefaultTransport}
	client, err := api.NewClient(api.Config{AuthURL: info.AuthURL, BaseURL: info.BaseURL, PayoutsURL: info.PayoutsURL,
		ClientID: info.ClientID, ClientSecret: info.ClientSecret, SigningKeyID: "k1", SigningKey: key,
		HTTPClient: &http.Client{Transport: ct}, Retry: api.RetryPolicy{MaxAttempts: 1}})
	if err != nil {
		t.Fatal(err)
	}
	return &env{clk: clk, client: client, ct: ct, url: info.PayoutsURL}
}

func (e *env) payouts(t *testing.T, n int, ref string) {
	t.Helper()
	for range n {
		p := &api.PayoutRequest{TransactionID: uuid.NewString(), BeneficiaryName: "Ada Lovelace",
			BeneficiaryIBAN: "GB33BUKB20201555555555", BeneficiaryReference: ref, Currency: "GBP",
			AmountInMinor: 1_00, ContextCode: api.ContextCodeWithdrawal}
		if err := e.client.CreatePayout(context.Background(), p); err != nil {
			t.Fatal(err)
		}
	}
}

// coldLoad fetches the whole report window by window, newest first.
func (e *env) coldLoad(t *testing.T) cache.Held {
	t.Helper()
	var h cache.Held
	windows := 0
	for !h.Complete() {
		var err error
		h, _, err = cache.Older(context.Background(), e.client, h, e.clk.Now(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if windows++; windows > 10 {
			t.Fatalf("history not complete after %d windows: %+v", windows, h.Ranges)
		}
	}
	return h
}

// sameAsService fails unless st holds exactly the service's report now,
// row for row by transaction id.
func sameAsService(t *testing.T, e *env, st *report.Store) {
	t.Helper()
	fresh, err := report.Load(context.Background(), e.client, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if st.Len() != fresh.Len() {
		t.Fatalf("%d rows held, the service has %d", st.Len(), fresh.Len())
	}
	want := map[string]api.Transaction{}
	for i := range int32(fresh.Len()) {
		want[string(fresh.ID(i))] = fresh.Tx(i)
	}
	for i := range int32(st.Len()) {
		got := st.Tx(i)
		if got != want[got.TransactionID] {
			t.Fatalf("row %d held:\n %+v\nservice:\n %+v", i, got, want[got.TransactionID])
		}
	}
}

var newestFirst = report.SortKey{Col: report.ColTime, Desc: true}

func save(t *testing.T, c *cache.Cache, h cache.Held, now time.Time) {
	t.Helper()
	if _, err := cache.Save(context.Background(), c, h, h.Store.Sorted(h.Store.All(), newestFirst), newestFirst, now); err != nil {
		t.Fatal(err)
	}
}

// TestCacheRoundTrip: a report fetched newest first in windows, saved
// and opened again, is the service's report row for row, with its order,
// in a file only its owner reads; the opened store takes refreshes.
func TestCacheRoundTrip(t *testing.T) {
	e := newEnv(t, 5_000)
	h := e.coldLoad(t)
	sameAsService(t, e, h.Store)
	c := cache.New(filepath.Join(t.TempDir(), "demo", cache.FileName), cache.Key{Profile: "demo", ServiceURL: e.url})
	save(t, c, h, e.clk.Now())
	fi, err := os.Stat(c.Path())
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("cache mode %v, want 0600", fi.Mode().Perm())
	}
	o, err := c.Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := cache.FromOpened(o)
	if !got.Complete() || o.Meta.Rows != h.Store.Len() {
		t.Fatalf("opened %d rows, ranges %+v", o.Meta.Rows, got.Ranges)
	}
	sameAsService(t, e, got.Store)
	if !got.Store.Mapped() || h.Store.Mapped() {
		t.Fatal("the opened store is not read from the file")
	}
	if a, b := got.Store.Totals(got.Store.All()), h.Store.Totals(h.Store.All()); !slices.Equal(a, b) || len(a) == 0 {
		t.Fatalf("totals of the opened store %+v, of the one saved %+v", a, b)
	}
	want := h.Store.Sorted(h.Store.All(), newestFirst)
	if len(got.Order) != len(want) || got.OrderSort != newestFirst {
		t.Fatalf("order of %d rows by %+v", len(got.Order), got.OrderSort)
	}
	for i := range want {
		if got.Order[i] != want[i] {
			t.Fatalf("order differs at %d", i)
		}
	}
	e.payouts(t, 3, "AFTER")
	next, ms, err := cache.Sync(context.Background(), e.client, got, e.clk.Now())
	if err != nil || ms.Added != 3 {
		t.Fatalf("sync: %+v, %v", ms, err)
	}
	sameAsService(t, e, next.Store)
}

// TestChangedRowCorrected: payouts cached in flight (authorised) and
// settled since are corrected by the next sync after a restart.
func TestChangedRowCorrected(t *testing.T) {
	e := newEnv(t, 2_000)
	e.payouts(t, 5, "INFLIGHT")
	h := e.coldLoad(t)
	c := cache.New(filepath.Join(t.TempDir(), cache.FileName), cache.Key{Profile: "p", ServiceURL: e.url})
	save(t, c, h, e.clk.Now())
	for range 3 {
		e.clk.Advance(40 * time.Second) // authorised -> submitted -> settled
	}
	o, err := c.Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	held := cache.FromOpened(o)
	inflight := func(st *report.Store) (n int) {
		for i := range int32(st.Len()) {
			if string(st.Reference(i)) == "INFLIGHT" && st.Status(i) != api.StateSettled {
				n++
			}
		}
		return n
	}
	if inflight(held.Store) != 5 {
		t.Fatalf("%d payouts in flight in the cache, want 5", inflight(held.Store))
	}
	next, ms, err := cache.Sync(context.Background(), e.client, held, e.clk.Now())
	if err != nil {
		t.Fatal(err)
	}
	if ms.Updated != 5 || ms.Added != 0 || inflight(next.Store) != 0 {
		t.Fatalf("sync %+v left %d in flight", ms, inflight(next.Store))
	}
	sameAsService(t, e, next.Store)
}

// TestForeignCacheRefused: a cache of another profile, another service
// URL or another format version is never used.
func TestForeignCacheRefused(t *testing.T) {
	e := newEnv(t, 500)
	h := e.coldLoad(t)
	path := filepath.Join(t.TempDir(), cache.FileName)
	save(t, cache.New(path, cache.Key{Profile: "live", ServiceURL: e.url}), h, e.clk.Now())
	for _, k := range []cache.Key{{Profile: "demo", ServiceURL: e.url}, {Profile: "live", ServiceURL: "https://other.example"}} {
		if _, err := cache.New(path, k).Open(context.Background()); !errors.Is(err, cache.ErrForeign) {
			t.Errorf("open as %+v: %v, want ErrForeign", k, err)
		}
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, at := range []int{8, 12} { // the format, then the layout version
		old := append([]byte(nil), raw...)
		old[at]++
		if err := os.WriteFile(path, old, 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := cache.New(path, cache.Key{Profile: "live", ServiceURL: e.url}).Open(context.Background()); !errors.Is(err, cache.ErrFormat) {
			t.Errorf("version byte %d changed: %v, want ErrFormat", at, err)
		}
	}
}

// TestTornCacheRefused: a cache cut off anywhere or damaged anywhere is
// refused, never decoded.
func TestTornCacheRefused(t *testing.T) {
	e := newEnv(t, 2_000)
	h := e.coldLoad(t)
	key := cache.Key{Profile: "p", ServiceURL: e.url}
	path := filepath.Join(t.TempDir(), cache.FileName)
	save(t, cache.New(path, key), h, e.clk.Now())
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	c := cache.New(path, key)
	for _, cut := range []int{0, 10, 4096, 4100, len(raw) / 2, len(raw) - 17, len(raw) - 1} {
		if err := os.WriteFile(path, raw[:cut], 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Open(context.Background()); !errors.Is(err, cache.ErrTorn) {
			t.Errorf("cut at %d of %d: %v, want ErrTorn", cut, len(raw), err)
		}
	}
	for _, at := range []int{40, 5000, len(raw) / 2, len(raw) - 20, len(raw) - 3} {
		bad := append([]byte(nil), raw...)
		bad[at] ^= 0x40
		if err := os.WriteFile(path, bad, 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Open(context.Background()); !errors.Is(err, cache.ErrTorn) {
			t.Errorf("byte %d of %d flipped: %v, want ErrTorn", at, len(raw), err)
		}
	}
}

// TestKilledMidWrite kills (SIGKILL) a child process while it rewrites
// the cache over and over: whenever it dies, the cache at the path is a
// whole one (the last the child finished) or none, never a torn one.
func TestKilledMidWrite(t *testing.T) {
	if dir := os.Getenv("PAYDASH_CACHE_WRITER"); dir != "" {
		writeForever(t, dir)
		return
	}
	if testing.Short() {
		t.Skip("starts child processes")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	key := cache.Key{Profile: "child", ServiceURL: "http://child.invalid"}
	seen := false
	for round, delay := range []time.Duration{20, 45, 90, 150, 230, 320, 450, 600} {
		cmd := exec.Command(self, "-test.run", "^TestKilledMidWrite$")
		cmd.Env = append(os.Environ(), "PAYDASH_CACHE_WRITER="+dir)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(delay * time.Millisecond)
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		o, err := cache.New(filepath.Join(dir, cache.FileName), key).Open(context.Background())
		switch {
		case errors.Is(err, cache.ErrNone) && !seen: // killed before its first save
		case err != nil:
			t.Fatalf("round %d: after kill -9 mid-write: %v", round, err)
		case o.Decoded.Store.Len() != o.Meta.Rows || o.Decoded.Store.Len() < 1:
			t.Fatalf("round %d: %d rows", round, o.Decoded.Store.Len())
		default:
			seen = true
		}
	}
	if !seen {
		t.Fatal("the child never finished a save: the test proved nothing")
	}
	if err := cache.New(filepath.Join(dir, cache.FileName), key).Clear(); err != nil {
		t.Fatal(err)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Fatalf("clear left %v", left)
	}
}

// writeForever is the child of TestKilledMidWrite: it saves a store of
// growing size until killed.
func writeForever(t *testing.T, dir string) {
	c := cache.New(filepath.Join(dir, cache.FileName), cache.Key{Profile: "child", ServiceURL: "http://child.invalid"})
	st := report.New(0)
	src := genSource{}
	for n := 0; ; n++ {
		next, _, err := st.Append(context.Background(), src, api.TransactionQuery{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		st = next
		if _, err := cache.Save(context.Background(), c, cache.Held{Store: st}, nil, newestFirst, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
}

// genSource streams 20,000 made-up rows.
type genSource struct{}

func (genSource) StreamTransactions(ctx context.Context, _ api.TransactionQuery, fn func(api.Transaction) error) error {
	at := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 20_000 {
		t := api.Transaction{TransactionID: uuid.NewString(), Type: api.TransactionPayout, BeneficiaryName: "Grace Hopper",
			BeneficiaryIBAN: "GB33BUKB20201555555555", BeneficiaryReference: "REF", AmountInMinor: int64(i), Currency: "GBP",
			Status: api.StateSettled, AuthorisedAt: api.NewReportTime(at.Add(time.Duration(i) * time.Second))}
		if err := fn(t); err != nil {
			return err
		}
	}
	return ctx.Err()
}

// TestRestartFetchesOnlyWhatIsNew: a restart after new rows asks only
// for the new window (and the rows still in flight), not the history.
func TestRestartFetchesOnlyWhatIsNew(t *testing.T) {
	e := newEnv(t, 20_000)
	h := e.coldLoad(t)
	full := e.ct.Bytes.Load()
	c := cache.New(filepath.Join(t.TempDir(), cache.FileName), cache.Key{Profile: "p", ServiceURL: e.url})
	save(t, c, h, e.clk.Now())
	e.clk.Advance(10 * time.Minute)
	e.payouts(t, 40, "NEW")
	o, err := c.Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	before, calls := e.ct.Bytes.Load(), e.ct.Calls.Load()
	next, ms, err := cache.Sync(context.Background(), e.client, cache.FromOpened(o), e.clk.Now())
	if err != nil {
		t.Fatal(err)
	}
	served := e.ct.Bytes.Load() - before
	perRow := full / int64(h.Store.Len())
	if e.ct.Calls.Load()-calls != 1 || ms.Added != 40 || ms.Seen > 60 || served > 2*int64(ms.Seen)*perRow+64 {
		t.Fatalf("restart sync: %+v, %d bytes in %d calls (whole report %d bytes, %d a row)", ms, served, e.ct.Calls.Load()-calls, full, perRow)
	}
	sameAsService(t, e, next.Store)
	t.Logf("whole report %d bytes; restart after 40 new rows: %d bytes, %d rows seen", full, served, ms.Seen)
}

// cutOff streams from src and fails after n rows, as a connection cut
// in the middle of a report does.
type cutOff struct {
	src report.Source
	n   int
}

func (c cutOff) StreamTransactions(ctx context.Context, q api.TransactionQuery, fn func(api.Transaction) error) error {
	k := 0
	return c.src.StreamTransactions(ctx, q, func(t api.Transaction) error {
		if k++; k > c.n {
			return errors.New("connection reset")
		}
		return fn(t)
	})
}

// TestWindowCutOffIsMergedNotDuplicated: a window of history cut off in
// the middle leaves its rows held, marked partial (in the cache too);
// fetched again, it is merged by id, so no row is held twice.
func TestWindowCutOffIsMergedNotDuplicated(t *testing.T) {
	e := newEnv(t, 5_000)
	h, _, err := cache.Older(context.Background(), e.client, cache.Held{}, e.clk.Now(), nil)
	if err != nil {
		t.Fatal(err)
	}
	first := h.Store.Len()
	h, ms, err := cache.Older(context.Background(), cutOff{e.client, 700}, h, e.clk.Now(), nil)
	if err == nil || ms.Added != 700 || !h.Partial || h.Complete() {
		t.Fatalf("cut-off window: %v, %+v, partial %t", err, ms, h.Partial)
	}
	c := cache.New(filepath.Join(t.TempDir(), cache.FileName), cache.Key{Profile: "p", ServiceURL: e.url})
	save(t, c, h, e.clk.Now())
	o, err := c.Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	h = cache.FromOpened(o)
	if !h.Partial || h.Store.Len() != first+700 {
		t.Fatalf("reopened: partial %t, %d rows", h.Partial, h.Store.Len())
	}
	for !h.Complete() {
		if h, _, err = cache.Older(context.Background(), e.client, h, e.clk.Now(), nil); err != nil {
			t.Fatal(err)
		}
	}
	if h.Partial {
		t.Fatal("still partial once the window was fetched whole")
	}
	sameAsService(t, e, h.Store)
}
