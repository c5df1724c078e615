package ui

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/paydash/paydash/internal/report"
	"github.com/paydash/paydash/internal/report/cache"
)

// The report with a cache (Options.ReportCache): the view opens on the
// cached report at once, then syncs (only rows after the newest cached,
// and the recent past still in flight), then fetches any older history
// the cache lacks, a window at a time, newest first; with no usable
// cache the first window is the last day's rows, shown while the older
// windows load behind them. Each step is one txLoadedMsg, run one at a
// time; what a step brought is saved back to the cache in the
// background.

// saveEvery is how often, at most, syncs that brought a few rows rewrite
// the cache (a fetched window saves at once, and so do changes to more
// than a twentieth of the rows): a rewrite costs the whole file, on the
// dashboard's core, while a few minutes' rows are cheap to fetch again on
// the next start.
const saveEvery = 10 * time.Minute

// txStep says what a cache-mode txLoadedMsg did.
type txStep int

const (
	stepNone   txStep = iota // not cache mode
	stepOpened               // the cache was opened
	stepWindow               // an older window was fetched (or the first, with no cache)
	stepSync                 // the recent past was synced
)

// cacheState is the view's side of the cache.
type cacheState struct {
	c      *cache.Cache
	ranges cache.Ranges
	older  bool // an older window is being fetched
	synced bool // the first sync after opening has run
	saving bool
	// changed counts the rows added or updated since the last save;
	// must says a save is due whatever their number (a window fetched,
	// an order to persist).
	changed int
	must    bool
	saved   time.Time // when the cache file was last written
	// partial: the store may hold rows of a window cut off (see
	// cache.Held.Partial).
	partial bool
	// verify checks the cache just opened (its checksum: a pass over the
	// whole file). It runs once the first sync's rows are on screen, so
	// it does not delay them on the dashboard's core; until it has
	// passed nothing is saved (a save would seal damaged rows under a
	// fresh checksum). verifying: it is running.
	verify    func(context.Context) error
	verifying bool
	// skip: the cache failed its check; the next load ignores it.
	skip bool
}

// openCached opens the cache, or when there is none (or it may not be
// used) fetches the newest window of the report.
func openCached(ctx context.Context, be Backend, cc *cache.Cache, gen uint64, want report.SortKey, now time.Time, counter *atomic.Int64, ignore bool) txLoadedMsg {
	var note string
	if !ignore {
		// Mapped, not yet checksummed: the first sync verifies it
		// beside its request and drops it if damaged (see cache.Map).
		o, err := cc.Map(ctx)
		if err == nil {
			h := cache.FromOpened(o)
			order, sorted := h.Order, false
			if order == nil || h.OrderSort != want {
				order, sorted = h.Store.Sorted(h.Store.All(), want), true
			}
			return txLoadedMsg{gen: gen, store: h.Store, order: order, sort: want, step: stepOpened, ranges: h.Ranges, unsorted: sorted, written: o.Meta.Written, partial: h.Partial, verify: o.Verify}
		}
		if !errors.Is(err, cache.ErrNone) {
			note = "report cache not used: " + cache.Describe(err)
		}
	}
	h, _, err := cache.Older(ctx, be, cache.Held{}, now, counter)
	return txLoadedMsg{gen: gen, store: h.Store, order: h.Store.Sorted(h.Store.All(), want), sort: want, err: err,
		step: stepWindow, ranges: h.Ranges, note: note, partial: h.Partial}
}

// syncCached runs one cache-mode step on the report held: the sync of
// the recent past, or the next older window.
func (v *txView) syncCached(c *viewContext, step txStep) tea.Cmd {
	be := c.backend
	// One step at a time: a periodic refresh while an older window
	// loads would cancel it.
	if be == nil || v.store == nil || v.loading || v.refreshing || v.cache.older {
		return nil
	}
	ctx, gen := v.startLoad(c)
	v.refreshing = step == stepSync
	v.cache.older = step == stepWindow
	counter := new(atomic.Int64)
	v.loadCount = counter
	h := cache.Held{Store: v.store, Ranges: v.cache.ranges, Partial: v.cache.partial}
	want, order, orderSort := v.sort, v.order, v.orderSort
	now := c.now()
	return func() tea.Msg {
		var next cache.Held
		var ms report.MergeStats
		var err error
		if step == stepSync {
			next, ms, err = cache.Sync(ctx, be, h, now)
		} else {
			next, ms, err = cache.Older(ctx, be, h, now, counter)
		}
		msg := txLoadedMsg{gen: gen, store: next.Store, sort: want, err: err, refresh: true, stats: ms, step: step, ranges: next.Ranges, partial: next.Partial, base: h.Store}
		msg.order = reorder(next.Store, order, orderSort, want, ms.Changed)
		return msg
	}
}

// reorder is the order of every row of st after a merge that changed
// the rows changed, from the order before.
func reorder(st *report.Store, order []int32, orderSort, want report.SortKey, changed []int32) []int32 {
	switch {
	case len(changed) == 0 && orderSort == want:
		return order // nothing changed: the order stands
	case orderSort == want && len(changed) < st.Len()/8:
		// A few rows: merged into the order, not a sort of the whole
		// report (less time, and no garbage the size of the report).
		return st.Resort(order, want, changed)
	}
	return st.Sorted(st.All(), want)
}

// nextCached is what follows a cache-mode step: the first sync after
// opening, the next older window while history is missing, and a save
// of what changed.
func (v *txView) nextCached(c *viewContext, msg txLoadedMsg) tea.Cmd {
	if v.cache.c == nil || msg.step == stepNone {
		return nil
	}
	if msg.err == nil {
		v.cache.ranges = msg.ranges
	}
	v.cache.partial = msg.partial
	if msg.step == stepOpened {
		v.cache.verify = msg.verify
		v.cache.verifying = msg.verify != nil
		v.cache.saved = msg.written
	}
	v.cache.changed += msg.stats.Added + msg.stats.Updated
	if msg.unsorted || msg.step == stepWindow {
		v.cache.must = true
	}
	if msg.err != nil {
		return nil // the flash says so; the next refresh tries again
	}
	switch {
	case msg.step == stepOpened:
		return v.syncCached(c, stepSync)
	case !v.cache.ranges.Complete():
		return tea.Batch(v.saveCached(c), v.syncCached(c, stepWindow))
	}
	v.cache.synced = true
	// The save (the whole file: seconds at ten million rows) waits for
	// the rows to be on screen: see txView.result.
	return nil
}

// saveCached writes the report to the cache in the background when a
// save is due: a window fetched, or rows changed and either saveEvery
// has passed since the file was written or they are many. The order is
// copied: the view recycles its arrays.
func (v *txView) saveCached(c *viewContext) tea.Cmd {
	cs := &v.cache
	if cs.c == nil || cs.saving || cs.verifying || v.store == nil {
		return nil
	}
	due := cs.must || cs.changed > 0 && (c.now().Sub(cs.saved) >= saveEvery || cs.changed >= max(v.store.Len()/20, 1000))
	if !due {
		return nil
	}
	cs.saving, cs.must, cs.changed, cs.saved = true, false, 0, c.now()
	h := cache.Held{Store: v.store, Ranges: cs.ranges, Partial: cs.partial}
	var order []int32
	if v.orderSort == defaultSort && len(v.order) == v.store.Len() {
		order = slices.Clone(v.order)
	}
	cc, ctx, at := cs.c, c.ctx, c.now()
	return func() tea.Msg {
		_, err := cache.Save(ctx, cc, h, order, defaultSort, at)
		msg := txSavedMsg{err: err, store: h.Store}
		if err == nil && h.Store.Len() >= bigReport {
			// The report just written, mapped: the same rows, so the
			// view may read them there and hand the heap's copy back
			// (a cold start's rows are built on the heap).
			if o, oerr := cc.Open(ctx); oerr == nil && o.Decoded.Store.Len() == h.Store.Len() {
				msg.mapped = o.Decoded.Store
			}
		}
		return msg
	}
}

// verifyCached checks the cache the report was opened from, once its
// first sync is on screen (see cacheState.verify).
func (v *txView) verifyCached(c *viewContext) tea.Cmd {
	verify, cc := v.cache.verify, v.cache.c
	if verify == nil || v.busy || v.loading || v.refreshing || v.cache.older {
		return nil // not before the first sync's rows are on screen
	}
	v.cache.verify = nil
	ctx := c.ctx
	return func() tea.Msg { return txVerifiedMsg{cache: cc, err: verify(ctx)} }
}

// txVerifiedMsg is the check of an opened cache: err when it failed.
type txVerifiedMsg struct {
	cache *cache.Cache
	err   error
}

// verified drops a report opened from a damaged cache and fetches it
// again, or lets the cache be saved.
func (v *txView) verified(c *viewContext, msg txVerifiedMsg) tea.Cmd {
	if msg.cache != v.cache.c {
		return nil // another profile's cache since
	}
	v.cache.verifying = false
	if msg.err == nil {
		return v.saveCached(c)
	}
	if errors.Is(msg.err, context.Canceled) {
		return nil
	}
	c.setFlash("transactions: report cache not used: "+cache.Describe(msg.err), true)
	v.cache.skip = true
	v.gen.Add(1) // results computed on the dropped rows are stale
	v.store, v.idx, v.order = nil, nil, nil
	return v.load(c)
}

// txSavedMsg says a cache save finished; mapped, when not nil, is the
// saved report read back from the file (store's rows, mapped).
type txSavedMsg struct {
	err    error
	store  *report.Store
	mapped *report.Store
}

// savedCache notes a save's end; rows that came meanwhile are saved
// next, once the history is whole and no window is loading.
func (v *txView) savedCache(c *viewContext, msg txSavedMsg) tea.Cmd {
	v.cache.saving = false
	if msg.err != nil {
		v.cache.must = true
		if !errors.Is(msg.err, context.Canceled) {
			c.setFlash("transactions: could not save the report cache: "+msg.err.Error(), true)
		}
		return nil
	}
	var release tea.Cmd
	if msg.mapped != nil && msg.store == v.store && !v.loading && !v.refreshing && !v.cache.older {
		// Nothing changed the report since it was saved: the mapped copy
		// replaces the heap's, row for row (row numbers, the order and
		// the filter's results stay valid), and the heap's is released.
		v.store = msg.mapped
		release = releaseMemory(v.store.Len())
	}
	if v.cache.ranges.Complete() && !v.cache.older {
		return tea.Batch(release, v.saveCached(c))
	}
	return release
}
