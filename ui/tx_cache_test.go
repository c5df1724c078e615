package ui

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/report/cache"
)

// TestReportCacheOpensAndSyncsOnlyWhatIsNew: with no cache the report is
// fetched newest window first and saved; the next start opens the cache
// and asks the service only for what is new since its newest row (and
// the recent past still in flight), never for the whole history again.
func TestReportCacheOpensAndSyncsOnlyWhatIsNew(t *testing.T) {
	const n = 3000 // 37 s apart: a day and more, so more than one window
	fb := newFake(n)
	base := fb.txs
	settle := false
	fb.txs = func(i int) api.Transaction {
		if i >= n {
			return newerRow(base, i, n)
		}
		t := base(i)
		if t.Status == api.StateSubmitted && (i != 3 || settle) { // one row in flight, two minutes old, until it settles
			t.Status, t.SettledAt = api.StateSettled, api.NewReportTime(t.SubmittedAt.Add(time.Minute))
		}
		return t
	}
	cc := cache.New(filepath.Join(t.TempDir(), "demo", cache.FileName), cache.Key{Profile: "demo", ServiceURL: "http://svc.test"})
	h := newHarness(t, Options{Backend: fb, ReportRefresh: time.Minute, ReportCache: cc}, 120, 40)
	h.key("2")
	mustContain(t, h.view(), "3,000 of 3,000 transactions")
	if strings.Contains(h.view(), "older history") {
		t.Fatalf("history complete, yet:\n%s", h.view())
	}
	first := fb.queries[0]
	if first.From.IsZero() || !first.To.IsZero() || fixedNow.Sub(first.From) > 25*time.Hour {
		t.Fatalf("cold start asked first for %+v: want the last day", first)
	}
	for i := 1; i < len(fb.queries); i++ {
		if q := fb.queries[i]; q.To.IsZero() || !q.To.Before(fb.queries[i-1].From) && !fb.queries[i-1].From.IsZero() {
			t.Fatalf("window %d %+v does not lie below window %d %+v", i, q, i-1, fb.queries[i-1])
		}
	}
	if fb.served != n {
		t.Fatalf("cold start served %d rows for a report of %d", fb.served, n)
	}
	fi, err := os.Stat(cc.Path())
	if err != nil {
		t.Fatalf("no cache saved: %v", err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("cache mode %v", fi.Mode().Perm())
	}

	// A restart after ten new rows: one call, for the new rows and the
	// little before them.
	fb.setRows(n + 10)
	settle = true
	written, _ := os.ReadFile(cc.Path())
	calls, served := fb.reportCalls(), fb.served
	h2 := newHarness(t, Options{Backend: fb, ReportRefresh: time.Minute, ReportCache: cc}, 120, 40)
	h2.key("2")
	mustContain(t, h2.view(), "3,010 of 3,010 transactions")
	if got := fb.reportCalls() - calls; got != 1 {
		t.Fatalf("restart made %d report calls, want 1 (the sync)", got)
	}
	if got := fb.served - served; got > 10+4 {
		t.Fatalf("restart was served %d rows, want the 10 new ones and the 4 since the one in flight", got)
	}
	if q := fb.queries[len(fb.queries)-1]; q.From.IsZero() {
		t.Fatal("the sync asked for the whole report")
	}
	if st := h2.m.tx.store.Tx(findRow(h2, base(3).TransactionID)).Status; st != api.StateSettled {
		t.Fatalf("the row cached in flight is %s after the sync, want settled", st)
	}
	// Eleven rows changed, minutes after the cache was written: not
	// worth rewriting it (the next start fetches them again, cheaply).
	if now, _ := os.ReadFile(cc.Path()); !bytes.Equal(now, written) {
		t.Fatal("a sync of eleven rows rewrote the cache")
	}

	// A cache of another service is not used: the report is fetched again.
	other := cache.New(cc.Path(), cache.Key{Profile: "demo", ServiceURL: "http://elsewhere.test"})
	calls, served = fb.reportCalls(), fb.served
	h3 := newHarness(t, Options{Backend: fb, ReportRefresh: time.Minute, ReportCache: other}, 120, 40)
	h3.key("2")
	mustContain(t, h3.view(), "3,010 of 3,010 transactions")
	if got := fb.served - served; got != n+10 {
		t.Fatalf("with a foreign cache %d rows were served in %d calls, want the whole report", got, fb.reportCalls()-calls)
	}
}

// TestBigFilterPreviewsItsFirstMatches: over a big report a filter first
// shows its matches among the top rows of the order (marked as such),
// then the whole result, which is what a filter without preview finds.
func TestBigFilterPreviewsItsFirstMatches(t *testing.T) {
	h := newHarness(t, Options{Backend: newFake(previewFrom + 20_000)}, 120, 40)
	h.key("2")
	h.key("/")
	v := &h.m.tx
	c := h.m.c()
	v.filter.set("ada")
	h.view() // lays the screen out: how many rows a preview fills
	gen := v.gen.Add(1)
	req := computeReq{store: v.store, gen: gen, cur: v.gen, q: v.parse(c), sort: v.sort,
		base: v.idx, baseQ: v.applied, baseSort: v.appliedSort, order: v.order, orderSort: v.orderSort, screen: v.pageH, budget: time.Minute}
	msg, ok := req.start().(txResultMsg)
	if !ok || !msg.partial || len(msg.idx) == 0 || msg.more == nil {
		t.Fatalf("no preview: %+v", msg.partial)
	}
	if len(msg.idx) < v.pageH {
		t.Fatalf("the preview holds %d rows, not a screenful (%d)", len(msg.idx), v.pageH)
	}
	v.busy = true
	if cmd := v.result(c, msg); cmd == nil {
		t.Fatal("a preview asks for nothing more")
	}
	mustContain(t, h.view(), "first "+itoa(len(msg.idx))+" matches of "+itoa(previewFrom+20_000)+" transactions", "filtering")
	full, _ := msg.more().(txResultMsg)
	// While the whole pass ran the status line counted its matches: the
	// count it shows now, before the result lands, is at most the
	// result's.
	found := regexp.MustCompile(`filtering… ([\d,]+) found in (\d+)%`).FindStringSubmatch(h.view())
	if found == nil {
		t.Fatalf("no running count on the status line:\n%s", h.view())
	}
	if n, _ := strconv.Atoi(strings.ReplaceAll(found[1], ",", "")); n == 0 || n > len(full.idx) {
		t.Fatalf("the running count says %d found, the whole result holds %d", n, len(full.idx))
	}
	want := req.run()
	if full.partial || len(full.idx) != len(want.idx) || len(full.idx) <= len(msg.idx) {
		t.Fatalf("whole result %d rows, a pass without preview %d, the preview %d", len(full.idx), len(want.idx), len(msg.idx))
	}
	for i := range msg.idx { // the preview is the head of the whole result
		if msg.idx[i] != full.idx[i] {
			t.Fatalf("preview row %d is %d, the whole result's %d", i, msg.idx[i], full.idx[i])
		}
	}
	v.result(c, full)
	if strings.Contains(h.view(), "matches of") {
		t.Fatal("the preview mark stayed after the whole result")
	}
}

// TestColdStartHandsItsRowsToTheCache: a big report fetched with no
// cache is saved and then read from the file (its heap copy released);
// the dashboard goes on refreshing it as before.
func TestColdStartHandsItsRowsToTheCache(t *testing.T) {
	if testing.Short() {
		t.Skip("loads 120,000 rows")
	}
	const n = 120_000
	fb := newFake(n)
	base := fb.txs
	fb.txs = func(i int) api.Transaction {
		if i >= n {
			return newerRow(base, i, n)
		}
		return base(i)
	}
	cc := cache.New(filepath.Join(t.TempDir(), cache.FileName), cache.Key{Profile: "demo", ServiceURL: "http://svc.test"})
	h := newHarness(t, Options{Backend: fb, ReportRefresh: time.Minute, ReportCache: cc}, 120, 40)
	h.key("2")
	mustContain(t, h.view(), "120,000 of 120,000 transactions")
	o, err := cc.Open(context.Background())
	if err != nil || o.Meta.Rows != n {
		t.Fatalf("cache after a cold start: %v", err)
	}
	if !h.m.tx.store.Mapped() {
		t.Fatal("the view kept the heap's rows after saving them")
	}
	fb.setRows(n + 5)
	h.advance(time.Minute)
	mustContain(t, h.view(), "120,005 of 120,005 transactions")
	if findRow(h, newerRow(base, n+4, n).TransactionID) < 0 || !h.m.tx.store.Mapped() {
		t.Fatal("the newest row is not in the refreshed report")
	}
}

// TestDamagedCacheIsRefetched: a cache whose payload was damaged after
// it was written (its checksum fails) is dropped once checked, and the
// report fetched from the service and saved whole again.
func TestDamagedCacheIsRefetched(t *testing.T) {
	const n = 2000
	fb := newFake(n)
	cc := cache.New(filepath.Join(t.TempDir(), cache.FileName), cache.Key{Profile: "demo", ServiceURL: "http://svc.test"})
	h := newHarness(t, Options{Backend: fb, ReportRefresh: time.Minute, ReportCache: cc}, 120, 40)
	h.key("2")
	mustContain(t, h.view(), "2,000 of 2,000 transactions")
	raw, err := os.ReadFile(cc.Path())
	if err != nil {
		t.Fatal(err)
	}
	raw[len(raw)/2] ^= 0x20 // inside the columns: the header and marker are whole
	if err := os.WriteFile(cc.Path(), raw, 0o600); err != nil {
		t.Fatal(err)
	}
	served := fb.served
	h2 := newHarness(t, Options{Backend: fb, ReportRefresh: time.Minute, ReportCache: cc}, 120, 40)
	h2.key("2")
	mustContain(t, h2.view(), "2,000 of 2,000 transactions")
	// The whole report again (besides the sync that ran beside the check).
	if got := fb.served - served; got < n {
		t.Fatalf("after a damaged cache %d rows were fetched, want the whole report (%d)", got, n)
	}
	if _, err := cc.Open(context.Background()); err != nil {
		t.Fatalf("the cache was not rebuilt: %v", err)
	}
}
