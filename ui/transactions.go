package ui

import (
	"context"
	"errors"
	"runtime/debug"
	"sync/atomic"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/paydash/paydash/internal/report"
	"github.com/paydash/paydash/internal/report/cache"
)

var defaultSort = report.SortKey{Col: report.ColTime, Desc: true}

// txView is the transaction report. The rows live in a report.Store; the
// view holds index slices into it. Filtering and sorting run in commands
// with a generation number: a result whose generation is not the newest
// is dropped, and the worker itself stops early once superseded.
//
// After the first load, the report refreshes incrementally (only what is
// new since the newest row, merged by transaction id), keeping filter,
// sort and selection; R reloads it whole.
type txView struct {
	store      *report.Store
	loading    bool // a full load is running
	refreshing bool // an incremental refresh is running
	loadErr    error
	loadCount  *atomic.Int64
	loadGen    uint64
	loadCancel context.CancelFunc

	order     []int32 // every row, sorted by orderSort
	orderSort report.SortKey

	idx []int32 // the rows on screen (filtered, sorted)
	// preview, while a filter over a big report runs, is its matches
	// among the first rows of the order (see computeReq.start), shown
	// until the whole result replaces them; nil otherwise.
	preview []int32
	// progress, while the whole result of such a filter is computed,
	// counts its pass (the status line shows the matches found so far).
	progress    *report.Progress
	applied     report.Query
	appliedSort report.SortKey
	// totals are the per-currency totals of the rows on screen.
	totals []report.Total

	sort     report.SortKey
	gen      *atomic.Uint64
	busy     bool
	problems []string
	// results recycles the arrays of results gone off screen.
	results resultPool

	// cache is the report cache's state (cache mode: Options.ReportCache).
	cache cacheState

	filter    filterBar
	nav       listNav
	detail    bool
	exportAsk bool
	pageH     int

	// cols are the columns shown (nil: all), from a view or :columns;
	// shownView is the saved view opened (views_saved.go) and viewQ its
	// filter: the view is named while the filter bar still holds it.
	cols             colOrder
	shownView, viewQ string
}

type txLoadedMsg struct {
	gen   uint64
	store *report.Store
	order []int32
	sort  report.SortKey
	err   error
	// refresh is set for an incremental refresh (stats says what changed).
	refresh bool
	stats   report.MergeStats
	// base is the store a refresh merged into store (stats.Changed are
	// the rows of store it changed); nil for a whole load.
	base *report.Store
	// step, ranges and note are cache mode's (tx_cache.go): what this
	// load did, the report time the result holds, and why a cache on
	// disk was not used.
	step   txStep
	ranges cache.Ranges
	note   string
	// unsorted: the cache opened had no order for this sort (saving it
	// again with one spares the next start a sort).
	unsorted bool
	written  time.Time // when the cache opened was written
	partial  bool      // the store may hold rows of a window cut off
	// verify checks an opened cache (stepOpened; see cacheState.verify).
	verify func(context.Context) error
}

type txResultMsg struct {
	gen       uint64
	idx       []int32
	q         report.Query
	sort      report.SortKey
	order     []int32
	orderSort report.SortKey
	totals    []report.Total
	problems  []string
	keepSel   bool
	err       error
	// dst is the array the request was given to write into.
	dst []int32
	// partial marks a preview (idx: the first matches); more computes
	// the whole result.
	partial bool
	more    tea.Cmd
	// progress counts the pass more runs.
	progress *report.Progress
}

// txProgressMsg redraws the count of a filter still running.
type txProgressMsg struct{ gen uint64 }

// progressEvery is how often the count of a running filter is redrawn.
const progressEvery = 100 * time.Millisecond

func newTxView() txView {
	return txView{filter: newFilterBar("text, 54.89, -£54.89, EUR, amount:>100, date:today|7d|30d from:2025-01-01 to:2025-01-31 type: cur: status:"),
		sort: defaultSort, gen: new(atomic.Uint64), appliedSort: defaultSort}
}

// Totals are the per-currency totals (credits, debits, net, count) of the
// rows on screen, for the view to show.
func (v *txView) Totals() []report.Total { return v.totals }

// load streams the whole report into a fresh store, off the Update path.
// A reload cancels a load or refresh still running.
//
// With a report cache, the first load opens it, and a reload (R) starts
// over from the service, newest window first, ignoring what is cached.
func (v *txView) load(c *viewContext) tea.Cmd {
	be := c.backend
	if be == nil {
		return nil
	}
	ctx, gen := v.startLoad(c)
	counter := new(atomic.Int64)
	v.loadCount = counter
	v.loading = true
	v.loadErr = nil
	want := v.sort
	if cc := c.opts.ReportCache; cc != nil {
		ignore, now := v.store != nil || v.cache.skip, c.now()
		v.cache = cacheState{c: cc, saved: v.cache.saved}
		return func() tea.Msg {
			return openCached(ctx, be, cc, gen, want, now, counter, ignore)
		}
	}
	return func() tea.Msg {
		return loadStore(ctx, be, gen, want, counter)
	}
}

func (v *txView) startLoad(c *viewContext) (context.Context, uint64) {
	if v.loadCancel != nil {
		v.loadCancel()
	}
	ctx, cancel := context.WithCancel(c.ctx)
	v.loadCancel = cancel
	v.loadGen++
	return ctx, v.loadGen
}

// refresh asks only for what is new since the last load; with nothing
// loaded yet it loads. A refresh never starts while a load or another
// refresh runs.
func (v *txView) refresh(c *viewContext) tea.Cmd {
	if v.store == nil || v.loadErr != nil {
		if v.loading {
			return nil
		}
		return v.load(c)
	}
	if v.cache.c != nil {
		return v.syncCached(c, stepSync)
	}
	be := c.backend
	if be == nil || v.loading || v.refreshing {
		return nil
	}
	ctx, gen := v.startLoad(c)
	v.refreshing = true
	st, want, order, orderSort := v.store, v.sort, v.order, v.orderSort
	return func() tea.Msg {
		next, ms, err := st.Refresh(ctx, be)
		msg := txLoadedMsg{gen: gen, store: next, sort: want, err: err, refresh: true, stats: ms, base: st}
		switch {
		case len(ms.Changed) == 0 && orderSort == want:
			msg.order = order // nothing changed: the order stands
		case orderSort == want && len(ms.Changed) < next.Len()/8:
			// A few rows: merged into the order, not a sort of the whole
			// report (less time, and no garbage the size of the report).
			msg.order = next.Resort(order, want, ms.Changed)
		default:
			msg.order = next.Sorted(next.All(), want)
		}
		return msg
	}
}

func loadStore(ctx context.Context, be Backend, gen uint64, want report.SortKey, counter *atomic.Int64) txLoadedMsg {
	st, err := report.Load(ctx, be, 0, counter)
	return txLoadedMsg{gen: gen, store: st, order: st.Sorted(st.All(), want), sort: want, err: err}
}

func (v *txView) loaded(c *viewContext, msg txLoadedMsg) tea.Cmd {
	if msg.gen != v.loadGen {
		if msg.step == stepWindow && msg.stats.Added > 0 && msg.refresh {
			// Its rows are in the report's builder, which the next step
			// publishes: the window must then be merged, not appended.
			v.cache.partial = true
		}
		return nil // a newer load replaced this one
	}
	v.loading, v.refreshing, v.cache.older = false, false, false
	if msg.note != "" {
		c.setFlash("transactions: "+msg.note, false)
	}
	if v.loadCancel != nil {
		v.loadCancel()
		v.loadCancel = nil
	}
	v.loadErr = nil
	if msg.err != nil && !errors.Is(msg.err, context.Canceled) {
		if msg.refresh {
			c.setFlash("transactions: refresh: "+msg.err.Error()+" (r to retry, R to reload the whole report)", true)
		} else {
			v.loadErr = msg.err
			c.setFlash("transactions: "+msg.err.Error()+" (showing the "+itoa(msg.store.Len())+" rows received; r to retry)", true)
		}
	}
	v.store = msg.store
	v.order, v.orderSort = msg.order, msg.sort
	v.gen.Add(1) // results computed on the old store are now stale
	release := tea.Batch(releaseMemory(v.store.Len()), v.nextCached(c, msg))
	if msg.refresh {
		// Row numbers mean the same transactions in the new store: keep
		// the filter, the sort and the selected row.
		return tea.Batch(v.recompute(c, true), release)
	}
	v.idx = msg.order
	v.results.drop() // arrays sized for the previous report
	v.applied = report.Query{}
	v.appliedSort = msg.sort
	v.busy = false
	q := v.parse(c)
	if !q.Empty() || v.sort != msg.sort {
		return tea.Batch(v.recompute(c, false), release)
	}
	v.totals = v.store.Totals(v.idx)
	v.problems = nil
	v.nav.clamp(len(v.idx), v.pageH)
	return release
}

// bigReport is the size from which a new report's building garbage is
// handed back to the system at once.
const bigReport = 100_000

// releaseMemory returns, for a big report, a command that collects the
// garbage of building it (decoded records, the previous store, sort
// scratch) and returns those pages to the system: the dashboard's RSS
// then follows the report it holds instead of the peak of building it,
// and stays flat from one refresh to the next.
func releaseMemory(rows int) tea.Cmd {
	if rows < bigReport {
		return nil
	}
	return func() tea.Msg {
		debug.FreeOSMemory()
		return nil
	}
}

func (v *txView) parse(c *viewContext) report.Query {
	return report.Parse(v.filter.value(), c.now())
}

// recompute asks for the rows matching the filter bar in the wanted sort.
// keepSel keeps the selected transaction selected (after a refresh).
func (v *txView) recompute(c *viewContext, keepSel bool) tea.Cmd {
	if v.store == nil {
		return nil
	}
	q := v.parse(c)
	gen := v.gen.Add(1)
	v.busy = true
	req := computeReq{
		store: v.store, gen: gen, cur: v.gen, q: q, sort: v.sort,
		base: v.idx, baseQ: v.applied, baseSort: v.appliedSort,
		order: v.order, orderSort: v.orderSort, keepSel: keepSel,
		dst: v.results.take(), baseTotals: v.totals,
		screen: max(v.pageH, 1),
	}
	if keepSel {
		req.base = nil // the store changed: nothing to narrow from
	}
	v.preview = nil
	return func() tea.Msg { return req.start() }
}

// A filter over at least previewFrom candidates first shows its matches
// among the first of them (in the order shown: the top of the screen),
// then the whole result: at ten million rows a whole pass takes most of
// a second, the first rows on screen a few milliseconds. The preview
// tests candidates previewBlock at a time until a screenful matched,
// previewBudget passed or previewScan were tested: a filter matching
// few rows (a reference) would otherwise test all previewScan, 80 ms
// at ten million rows, before the screen said anything.
const (
	previewFrom   = 100_000
	previewScan   = 1 << 16
	previewBlock  = 1 << 11
	previewBudget = 10 * time.Millisecond
)

// start runs the request, first as a preview when it is big.
func (r computeReq) start() tea.Msg {
	var cands []int32
	switch {
	case r.base != nil && r.q.Narrows(&r.baseQ) && r.sort == r.baseSort:
		cands = r.base
	case r.base != nil && r.q.Equal(&r.baseQ):
		// A new sort of the same rows: nothing to preview.
	case r.order != nil && r.orderSort == r.sort:
		cands = r.order
	}
	if len(cands) < previewFrom {
		return r.run()
	}
	stale := func() bool { return r.cur.Load() != r.gen }
	f := r.store.Resolve(r.q)
	var idx []int32
	began, budget := time.Now(), r.budget
	if budget == 0 {
		budget = previewBudget
	}
	for lo := 0; lo < previewScan && len(idx) < r.screen && time.Since(began) < budget; lo += previewBlock {
		got, _, err := r.store.Select(cands[lo:lo+previewBlock], f, stale)
		if err != nil {
			return r.run() // superseded: run says so at once
		}
		idx = append(idx, got...)
	}
	r.prog = new(report.Progress)
	return txResultMsg{gen: r.gen, partial: true, idx: idx, progress: r.prog, more: func() tea.Msg { return r.run() }}
}

type computeReq struct {
	store     *report.Store
	gen       uint64
	cur       *atomic.Uint64
	q         report.Query
	sort      report.SortKey
	base      []int32
	baseQ     report.Query
	baseSort  report.SortKey
	order     []int32
	orderSort report.SortKey
	keepSel   bool
	dst       []int32
	// baseTotals are the totals of base (the rows on screen).
	baseTotals []report.Total
	// screen is how many rows the screen shows: what a preview looks for;
	// budget, when not 0, replaces previewBudget (a test's slow machine).
	screen int
	budget time.Duration
	// prog, when set, counts the whole pass (see report.Progress).
	prog *report.Progress
}

// run computes the rows for a filter and sort, and their totals. When the
// new filter only narrows the one on screen (same structured filters,
// text extended), it scans the rows on screen instead of the whole
// report.
func (r computeReq) run() txResultMsg {
	stale := func() bool { return r.cur.Load() != r.gen }
	res := txResultMsg{gen: r.gen, q: r.q, sort: r.sort, order: r.order, orderSort: r.orderSort, keepSel: r.keepSel, dst: r.dst}
	f := r.store.Resolve(r.q)
	f.Progress = r.prog
	res.problems = f.Problems
	switch {
	case r.base != nil && r.q.Equal(&r.baseQ) && r.sort == r.baseSort:
		res.idx = r.base
		res.totals = r.store.Totals(res.idx)
	case r.base != nil && r.q.Narrows(&r.baseQ):
		res.idx, res.totals, res.err = r.store.SelectInto(r.dst, r.base, r.baseTotals, f, stale)
		if res.err == nil && r.sort != r.baseSort {
			res.idx = r.store.Sorted(res.idx, r.sort)
		}
	case r.base != nil && r.q.Equal(&r.baseQ):
		res.idx = r.store.Sorted(r.base, r.sort)
		res.totals = r.store.Totals(res.idx)
	default:
		if r.orderSort != r.sort || r.order == nil {
			res.order, res.orderSort = r.store.Sorted(r.store.All(), r.sort), r.sort
		}
		if stale() {
			res.err = report.ErrStale
			return res
		}
		res.idx, res.totals, res.err = r.store.SelectInto(r.dst, res.order, nil, f, stale)
	}
	return res
}

func (v *txView) result(c *viewContext, msg txResultMsg) tea.Cmd {
	if msg.partial {
		if msg.gen != v.gen.Load() {
			v.results.done() // superseded: the request ends with its preview
			return nil
		}
		v.preview, v.progress = msg.idx, msg.progress
		return tea.Batch(msg.more, progressTick(msg.gen))
	}
	v.preview, v.progress = nil, nil
	v.results.done()
	if msg.gen != v.gen.Load() || msg.err != nil {
		v.results.retire(msg.idx, v.idx, v.order)
		v.results.retire(msg.dst, v.idx, v.order)
		return nil // superseded
	}
	// Only a filter's result is handed back: without a filter the rows on
	// screen are the report's order, so refreshes leave the dashboard's
	// memory what the report holds.
	defer func(old []int32, filtered bool) {
		v.results.reclaim(v.idx) // back on screen (a result that kept its base)
		if filtered {
			v.results.retire(old, v.idx, v.order)
		}
		v.results.retire(msg.dst, v.idx, v.order)
	}(v.idx, !v.applied.Empty())
	var selected int32 = -1
	if v.nav.cursor < len(v.idx) {
		selected = v.idx[v.nav.cursor]
	}
	sortChanged := msg.sort != v.appliedSort
	v.idx, v.applied, v.appliedSort = msg.idx, msg.q, msg.sort
	v.order, v.orderSort = msg.order, msg.orderSort
	v.totals, v.problems = msg.totals, msg.problems
	v.busy = false
	// A refresh keeps the same transaction selected (by its row, never
	// its position), at the same place on screen; a list showing its head
	// keeps showing it, so new rows appear at the top where "sorted by
	// Time ↓" promises the newest, above the selection rather than in its
	// place. A new sort or filter starts at the top, where the rows it
	// puts first are (keeping the cursor's row made "sorted by Amount ↓"
	// open on a row in the middle).
	if msg.keepSel && !sortChanged && selected >= 0 {
		offset := v.nav.cursor - v.nav.top
		atHead := v.nav.top == 0
		v.nav.cursor, v.nav.top = 0, 0
		for i, x := range v.idx {
			if x == selected {
				v.nav.cursor = i
				v.nav.top = i - offset
				break
			}
		}
		if atHead {
			v.nav.top = 0
		}
		v.nav.top = max(v.nav.top, 0)
	} else if !msg.keepSel {
		v.nav.cursor, v.nav.top = 0, 0
	}
	v.nav.clamp(len(v.idx), v.pageH)
	// With the rows on screen, the cache's work: its check, a save due.
	return tea.Batch(v.verifyCached(c), v.saveCached(c))
}

// progressTick asks for a redraw of filter gen's count.
func progressTick(gen uint64) tea.Cmd {
	return tea.Tick(progressEvery, func(time.Time) tea.Msg { return txProgressMsg{gen: gen} })
}

// progressed keeps redrawing a running filter's count until its result
// comes (the redraw follows any message).
func (v *txView) progressed(msg txProgressMsg) tea.Cmd {
	if !v.busy || v.progress == nil || msg.gen != v.gen.Load() {
		return nil
	}
	return progressTick(msg.gen)
}

// report is the loaded report (nil before the first load), shared read
// only: the tracker looks payouts up in it.
func (v *txView) report() *report.Store { return v.store }
