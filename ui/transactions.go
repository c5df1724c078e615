package ui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/report"
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

	idx         []int32 // the rows on screen (filtered, sorted)
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

	filter    filterBar
	nav       listNav
	detail    bool
	exportAsk bool
	pageH     int
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
}

type exportedMsg struct {
	path string
	n    int
	err  error
}

func newTxView() txView {
	return txView{filter: newFilterBar("text, 54.89, amount:>100, date:today|7d|30d from:2025-01-01 to:2025-01-31 type: cur: status:"),
		sort: defaultSort, gen: new(atomic.Uint64), appliedSort: defaultSort}
}

// Totals are the per-currency totals (credits, debits, net, count) of the
// rows on screen, for the view to show.
func (v *txView) Totals() []report.Total { return v.totals }

// load streams the whole report into a fresh store, off the Update path.
// A reload cancels a load or refresh still running.
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
	be := c.backend
	if be == nil || v.loading || v.refreshing {
		return nil
	}
	ctx, gen := v.startLoad(c)
	v.refreshing = true
	st, want, order, orderSort := v.store, v.sort, v.order, v.orderSort
	return func() tea.Msg {
		next, ms, err := st.Refresh(ctx, be)
		msg := txLoadedMsg{gen: gen, store: next, sort: want, err: err, refresh: true, stats: ms}
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
		return nil // a newer load replaced this one
	}
	v.loading, v.refreshing = false, false
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
	release := releaseMemory(v.store.Len())
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
	}
	if keepSel {
		req.base = nil // the store changed: nothing to narrow from
	}
	return func() tea.Msg { return req.run() }
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
}

// run computes the rows for a filter and sort, and their totals. When the
// new filter only narrows the one on screen (same structured filters,
// text extended), it scans the rows on screen instead of the whole
// report.
func (r computeReq) run() txResultMsg {
	stale := func() bool { return r.cur.Load() != r.gen }
	res := txResultMsg{gen: r.gen, q: r.q, sort: r.sort, order: r.order, orderSort: r.orderSort, keepSel: r.keepSel, dst: r.dst}
	f := r.store.Resolve(r.q)
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

func (v *txView) result(c *viewContext, msg txResultMsg) {
	v.results.done()
	if msg.gen != v.gen.Load() || msg.err != nil {
		v.results.retire(msg.idx, v.idx, v.order)
		v.results.retire(msg.dst, v.idx, v.order)
		return // superseded
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
	// A refresh keeps the same transaction selected, at the same place on
	// screen, unless the selection is the first row: then the list
	// follows its head, and new rows appear at the top where "sorted by
	// Time ↓" promises the newest (kept, the old first row stayed on top
	// with the new ones hidden above it). A new sort or filter starts at
	// the top, where the rows it puts first are (keeping the cursor's row
	// made "sorted by Amount ↓" open on a row in the middle).
	if msg.keepSel && !sortChanged && selected >= 0 && v.nav.cursor > 0 {
		offset := v.nav.cursor - v.nav.top
		v.nav.cursor, v.nav.top = 0, 0
		for i, x := range v.idx {
			if x == selected {
				v.nav.cursor = i
				v.nav.top = i - offset
				if sortChanged {
					v.nav.top = i - v.pageH/2
				}
				break
			}
		}
		v.nav.top = max(v.nav.top, 0)
	} else if !msg.keepSel || v.nav.cursor == 0 {
		v.nav.cursor, v.nav.top = 0, 0
	}
	v.nav.clamp(len(v.idx), v.pageH)
}

// ---- filter bar ----

// setToken replaces the key:value token of key in the filter text (value
// "" removes it), keeping the free text as typed.
func setToken(text, key, value string, alsoRemove ...string) string {
	var toks, words []string
	drop := append([]string{key}, alsoRemove...)
	for _, tok := range strings.Fields(text) {
		k, _, ok := strings.Cut(tok, ":")
		if ok && containsFold(drop, k) {
			continue
		}
		if ok && isFilterKey(k) {
			toks = append(toks, tok)
		} else {
			words = append(words, tok)
		}
	}
	if value != "" {
		toks = append(toks, key+":"+value)
	}
	return strings.Join(append(toks, words...), " ")
}

func isFilterKey(k string) bool { return report.IsKey(k) }

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

func tokenValue(text, key string) string {
	for _, tok := range strings.Fields(text) {
		if k, val, ok := strings.Cut(tok, ":"); ok && strings.EqualFold(k, key) {
			return val
		}
	}
	return ""
}

// cycle moves a filter token to its next value ("" = no filter).
func cycle(values []string, cur string) string {
	all := append([]string{""}, values...)
	for i, v := range all {
		if strings.EqualFold(v, cur) {
			return all[(i+1)%len(all)]
		}
	}
	return all[1%len(all)]
}

// ---- keys ----

func (v *txView) capturing() bool { return v.filter.active || v.exportAsk }

func (v *txView) startFilter() (tea.Cmd, bool) {
	return tea.Batch(v.filter.start(), v.prepareSpare()), true
}

// spareMsg brings a result array made ready, while the operator starts
// typing, for the store it was sized for.
type spareMsg struct {
	store *report.Store
	arr   []int32
}

// prepareSpare returns, when the filter bar opens over a big report with
// no result array to reuse, a command that makes one and touches every
// page of it. The first key of a query keeps nearly every row, and its
// result is otherwise a fresh array the kernel faults in page by page as
// it is written: about 10 ms of a million-row first keystroke, spent
// instead in the moment between "/" and the first key.
func (v *txView) prepareSpare() tea.Cmd {
	if v.store == nil || v.store.Len() < bigReport || v.results.hasFree(v.store.Len()) {
		return nil
	}
	st, n := v.store, v.store.Len()
	return func() tea.Msg {
		arr := make([]int32, n)
		for i := 0; i < n; i += pageInts {
			arr[i] = 0 // a write faults the page in; a fresh array is not yet backed
		}
		return spareMsg{store: st, arr: arr}
	}
}

// pageInts is how many int32 fit in a 4 KiB page.
const pageInts = 4096 / 4

// spare takes a prepared array into the pool, unless the report changed
// meanwhile (then it is sized for another store).
func (v *txView) spare(msg spareMsg) {
	if msg.store == v.store {
		v.results.give(msg.arr)
	}
}

func (v *txView) keys(c *viewContext) helpMap {
	g := c.keys
	k := c.keys
	if v.filter.active {
		return filterBarKeys(c.keys)
	}
	if v.exportAsk {
		return helpMap{short: []key.Binding{c.keys.CSV, c.keys.JSON, c.keys.Back}}
	}
	return helpMap{
		short: []key.Binding{g.Filter, k.Sort, k.Date, k.Detail, k.Export, k.CopyID},
		full: [][]key.Binding{
			{g.Up, g.Down, g.PgUp, g.PgDown, g.Top, g.Bottom},
			{g.Filter, k.Date, k.Type, k.Currency, k.Status},
			{k.Sort, k.Reverse, k.Detail, g.Refresh, k.Reload},
			{k.Export, k.CopyRow, k.CopyID, k.Track},
		},
	}
}

func (v *txView) update(c *viewContext, k tea.KeyMsg) tea.Cmd {
	if v.exportAsk {
		v.exportAsk = false
		switch {
		case key.Matches(k, c.keys.CSV):
			return v.export(c, "csv")
		case key.Matches(k, c.keys.JSON):
			return v.export(c, "json")
		}
		return nil
	}
	if v.filter.active {
		cmd, changed := v.filter.update(c.keys, k)
		if changed {
			return tea.Batch(cmd, v.recompute(c, false))
		}
		return cmd
	}
	if v.nav.move(k, c.keys, len(v.idx), v.pageH) {
		return nil
	}
	switch {
	case key.Matches(k, c.keys.Sort):
		v.sort = report.SortKey{Col: v.nextSortColumn(c), Desc: v.sort.Desc}
		return v.recompute(c, false)
	case key.Matches(k, c.keys.Reverse):
		v.sort.Desc = !v.sort.Desc
		return v.recompute(c, false)
	case key.Matches(k, c.keys.Date):
		next := cycle([]string{"today", "7d", "30d"}, tokenValue(v.filter.value(), "date"))
		v.filter.set(setToken(v.filter.value(), "date", next, "from", "to"))
		return v.recompute(c, false)
	case key.Matches(k, c.keys.Type, c.keys.Currency, c.keys.Status):
		if v.store == nil {
			return nil
		}
		name, which := "type", report.EnumType
		switch {
		case key.Matches(k, c.keys.Currency):
			name, which = "cur", report.EnumCurrency
		case key.Matches(k, c.keys.Status):
			name, which = "status", report.EnumStatus
		}
		values := slices.Sorted(slices.Values(v.store.EnumValues(which)))
		cur := tokenValue(v.filter.value(), name)
		if name == "cur" && cur == "" {
			cur = tokenValue(v.filter.value(), "currency")
		}
		v.filter.set(setToken(v.filter.value(), name, cycle(values, cur), "currency", "state"))
		return v.recompute(c, false)
	case key.Matches(k, c.keys.Detail):
		v.detail = !v.detail
		return nil
	case key.Matches(k, c.keys.Reload):
		c.setFlash("reloading the whole report…", false)
		return v.load(c)
	case key.Matches(k, c.keys.Back):
		if v.detail {
			v.detail = false
			return nil
		}
		if v.filter.value() != "" {
			v.filter.set("")
			return v.recompute(c, false)
		}
		return nil
	case key.Matches(k, c.keys.Export):
		if v.store == nil || v.busy {
			c.setFlash("wait for the report to finish loading or filtering, then export", true)
			return nil
		}
		v.exportAsk = true
		return nil
	case key.Matches(k, c.keys.Track):
		// Follow this payout in the tracker, even one from before this
		// session.
		if v.nav.cursor >= len(v.idx) {
			return nil
		}
		t := v.store.Tx(v.idx[v.nav.cursor])
		if t.Type != api.TransactionPayout {
			c.setFlash("only payouts can be followed in 3 Payouts", true)
			return nil
		}
		return func() tea.Msg { return trackPayoutMsg{tx: t} }
	case key.Matches(k, c.keys.CopyID, c.keys.CopyRow):
		if v.nav.cursor >= len(v.idx) {
			return nil
		}
		t := v.store.Tx(v.idx[v.nav.cursor])
		if key.Matches(k, c.keys.CopyID) {
			return c.copyText(t.TransactionID, "transaction id "+t.TransactionID)
		}
		b, err := json.Marshal(t)
		if err != nil {
			c.setFlash("copy: "+err.Error(), true)
			return nil
		}
		return c.copyText(string(b), "the row as JSON")
	}
	return nil
}

// nextSortColumn is the next column after the sorted one that is on
// screen at this width: sorting by a column the user cannot see looks
// broken.
func (v *txView) nextSortColumn(c *viewContext) report.Column {
	ws := layoutCols(txCols[:], c.width-1)
	col := v.sort.Col
	for range report.NumColumns {
		col = (col + 1) % report.NumColumns
		if ws[col] > 0 {
			return col
		}
	}
	return col
}

// export writes the rows on screen to a new file in the export directory.
func (v *txView) export(c *viewContext, format string) tea.Cmd {
	st, idx := v.store, v.idx
	dir := c.opts.ExportDir
	name := "paydash-transactions-" + c.now().Format("20060102-150405")
	v.results.hold() // idx must not be reused while it is written out
	return func() tea.Msg {
		path, n, err := writeExport(dir, name, format, st, idx)
		return exportedMsg{path: path, n: n, err: err}
	}
}

func writeExport(dir, name, format string, st *report.Store, idx []int32) (string, int, error) {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	var f *os.File
	var path string
	// Never overwrite an earlier export: take the first free name.
	for i := 0; ; i++ {
		path = filepath.Join(dir, name+"."+format)
		if i > 0 {
			path = filepath.Join(dir, fmt.Sprintf("%s-%d.%s", name, i, format))
		}
		var err error
		// 0600: the report names people and accounts.
		f, err = os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600) //nolint:gosec // G304: the export directory is the user's own setting
		if err == nil {
			break
		}
		if !errors.Is(err, os.ErrExist) || i > 100 {
			return "", 0, fmt.Errorf("create %s (set a writable export directory in the config): %w", path, err)
		}
	}
	fm, _ := report.ParseFormat(format)
	_, err := st.Export(f, fm, idx)
	if cerr := f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("close %s: %w", path, cerr)
	}
	if err != nil {
		return path, 0, fmt.Errorf("write %s: %w", path, err)
	}
	return path, len(idx), nil
}

// ---- rendering ----

var txCols = [numColumns]colSpec{
	colTime:      {title: "Time", w: 19},
	colType:      {title: "Type", w: 7, drop: 2}, // kept at 80 columns; the amount's sign says it too
	colStatus:    {title: "Status", w: 10},
	colCurrency:  {title: "Cur", w: 3},
	colAmount:    {title: "Amount", w: 14, right: true},
	colName:      {title: "Beneficiary", w: 14, flex: 2, max: 32},
	colIBAN:      {title: "IBAN", w: 27, drop: 3, flex: 1, max: 34},
	colReference: {title: "Reference", w: 12, drop: 4, flex: 2, max: 36},
	colID:        {title: "ID", w: 36, drop: 5},
}

// detailHeight is the detail pane's height: a rule and five lines of
// two fields side by side, or ten lines of one field on narrow screens.
func detailHeight(w int) int {
	if w < 100 {
		return 11
	}
	return 6
}

func (v *txView) view(c *viewContext, w, h int) string {
	var b strings.Builder
	// Line 1: the filter bar.
	switch {
	case v.filter.active:
		b.WriteString(v.filter.view())
	case v.filter.value() != "":
		b.WriteString(fit("/"+v.filter.value(), w))
	default:
		b.WriteString(c.st.muted.Render(fit("/ filter · d date · t type · c currency · u status · s sort · ctrl+s export", w)))
	}
	b.WriteByte('\n')
	// Line 2: counts and state.
	total := 0
	if v.store != nil {
		total = v.store.Len()
	}
	var info string
	// Filter problems get lines of their own, wrapped: the hint that says
	// how to write the term is what the user needs whole.
	var problemLines []string
	switch {
	case v.exportAsk:
		info = c.st.warn.Render("Export " + itoa(len(v.idx)) + " rows as [c]sv or [j]son?  (esc cancels)")
	case v.store == nil && v.loading:
		info = "Loading transactions… " + itoa(int(v.loadCount.Load())) + " rows"
	case v.store == nil && c.opts.Backend == nil:
		info = c.st.bad.Render("no backend configured")
	case v.store == nil:
		info = "No report loaded"
	case v.loadErr != nil && total == 0:
		// A failed load is not an empty filter: say what failed, in full.
		b.WriteString(c.st.bad.Render("Could not load the transaction report.") + "\n")
		b.WriteString(c.st.bad.Render(wrapText(clean(v.loadErr.Error()), w)) + "\n")
		b.WriteString(c.st.muted.Render(wrapText("r retries; the report reloads by itself every "+c.opts.ReportRefresh.String()+".", w)))
		return b.String()
	default:
		dir := "↑"
		if v.sort.Desc {
			dir = "↓"
		}
		info = itoa(len(v.idx)) + " of " + itoa(total) + " transactions · sorted by " + report.ColumnNames[v.sort.Col] + " " + dir
		if v.busy {
			info += " · " + c.st.warn.Render("filtering…")
		}
		if v.loading {
			info += " · " + c.st.warn.Render("reloading… "+itoa(int(v.loadCount.Load())))
		}
		if v.refreshing {
			info += " · " + c.st.muted.Render("refreshing…")
		}
		if v.loadErr != nil {
			info += " · " + c.st.bad.Render("incomplete, the load failed: "+clean(v.loadErr.Error())+" (r retries)")
		}
		if strings.Contains(strings.ToLower(v.filter.value()), "date:today") {
			// Which day "today" is depends on the zone: say it.
			now := c.now()
			info += " · today = " + now.Format("2006-01-02") + " " + zoneName(now)
		}
		if len(v.problems) > 0 {
			problemLines = strings.Split(wrapText(strings.Join(v.problems, "; "), w), "\n")
		}
	}
	b.WriteString(fit(info, w))
	b.WriteByte('\n')
	for _, l := range problemLines {
		b.WriteString(c.st.warn.Render(fit(l, w)))
		b.WriteByte('\n')
	}
	// Line 3: what the rows on screen add up to, always in view.
	b.WriteString(v.totalsLine(c, w))
	b.WriteByte('\n')
	// Table. The sorted column is wide enough for its arrow.
	specs := txCols
	arrow := " ↑"
	if v.sort.Desc {
		arrow = " ↓"
	}
	specs[v.sort.Col].title += arrow
	specs[v.sort.Col].w = max(specs[v.sort.Col].w, width(specs[v.sort.Col].title))
	ws := layoutCols(specs[:], w-1)
	b.WriteString(c.st.header.Render(" " + headerCells(specs[:], ws)))
	b.WriteByte('\n')
	rowsH := h - 4 - len(problemLines)
	if v.detail {
		rowsH -= detailHeight(w)
	}
	rowsH = max(rowsH, 1)
	v.pageH = rowsH
	v.nav.clamp(len(v.idx), rowsH)
	loc := c.now().Location()
	cells := make([]string, numColumns)
	cellStyles := make([]*lipgloss.Style, numColumns)
	var line strings.Builder
	end := min(v.nav.top+rowsH, len(v.idx))
	for p := v.nav.top; p < end; p++ {
		i := v.idx[p]
		st := v.store
		cells[colTime] = stamp(st.Time(i), loc)
		cells[colType] = st.Type(i)
		cells[colStatus] = st.Status(i)
		cells[colCurrency] = st.Currency(i)
		cells[colAmount] = signedAmount(st.Amount(i), cells[colCurrency], cells[colType])
		cells[colName] = st.Name(i)
		cells[colIBAN] = st.IBAN(i)
		cells[colReference] = string(st.Reference(i))
		cells[colID] = string(st.ID(i))
		line.Reset()
		line.WriteString(gutter(p == v.nav.cursor, false))
		if p == v.nav.cursor {
			renderCells(&line, specs[:], ws, cells)
			b.WriteString(c.st.selected.Render(fit(line.String(), w)))
		} else {
			cellStyles[colStatus] = c.stateStyle(cells[colStatus])
			cellStyles[colAmount] = &c.st.debit
			if credit(cells[colType]) {
				cellStyles[colAmount] = &c.st.credit
			}
			renderCells(&line, specs[:], ws, cells, cellStyles...)
			b.WriteString(line.String())
		}
		b.WriteByte('\n')
	}
	if v.store != nil && len(v.idx) == 0 {
		b.WriteString(c.st.muted.Render("No transactions match the filter. esc clears it.") + "\n")
	}
	if v.detail {
		out := padLines(strings.TrimSuffix(b.String(), "\n"), h-detailHeight(w))
		return out + "\n" + v.detailView(c, w)
	}
	return b.String()
}

// totalsLine is the rows on screen added up per currency: money in, money
// out and the net; when that does not fit, the net alone.
func (v *txView) totalsLine(c *viewContext, w int) string {
	if v.store == nil {
		return ""
	}
	if len(v.totals) == 0 {
		return c.st.muted.Render(fit("Totals: no rows", w))
	}
	net := func(t report.Total) string {
		if t.Net >= 0 {
			return "+" + api.FormatAmount(t.Net, t.Currency)
		}
		return "−" + api.FormatAmount(-t.Net, t.Currency)
	}
	var long, short []string
	failed := 0
	for _, t := range v.totals {
		long = append(long, t.Currency+" in +"+api.FormatAmount(t.Credits, t.Currency)+" out −"+api.FormatAmount(t.Debits, t.Currency)+" net "+net(t))
		short = append(short, t.Currency+" net "+net(t))
		failed += t.Failed
	}
	note := ""
	if failed > 0 {
		// Only the statuses the report holds: the service's report lists
		// failed payouts, and rejected ones only if it ever does.
		what := "failed"
		if slices.ContainsFunc(v.store.EnumValues(report.EnumStatus), func(s string) bool { return strings.EqualFold(s, api.StateRejected) }) {
			what = "failed/rejected"
		}
		note = " (" + itoa(failed) + " " + what + " not counted)"
	}
	line := "Totals: " + strings.Join(long, " · ") + note
	if width(line) > w {
		line = "Totals: " + strings.Join(short, " · ") + note
	}
	if width(line) > w {
		line = "Totals: " + strings.Join(short, " · ")
	}
	return c.st.bold.Render(fit(line, w))
}

func (v *txView) detailView(c *viewContext, w int) string {
	var b strings.Builder
	b.WriteString(c.st.muted.Render(strings.Repeat("─", w)) + "\n")
	if v.nav.cursor >= len(v.idx) {
		return b.String() + c.st.muted.Render("No row selected.")
	}
	t := v.store.Tx(v.idx[v.nav.cursor])
	loc := c.now().Location()
	ts := func(rt api.ReportTime) string {
		if rt.IsZero() {
			return "—"
		}
		return stamp(rt.Time, loc)
	}
	half := w / 2
	field := func(k, val string, fw int) string {
		return c.st.muted.Render(fit(k, 12)) + fit(clean(val), fw-12)
	}
	pair := func(k1, v1, k2, v2 string) string {
		if w < 100 {
			return field(k1, v1, w) + "\n" + field(k2, v2, w)
		}
		return field(k1, v1, half) + field(k2, v2, w-half)
	}
	typ := t.Type
	if t.ContextCode != "" { // fundings carry none
		typ += " · " + t.ContextCode
	}
	lines := []string{
		pair("id", t.TransactionID, "type", typ),
		pair("amount", api.FormatAmount(t.AmountInMinor, t.Currency)+" "+t.Currency, "status", t.Status),
		pair("beneficiary", t.BeneficiaryName, "iban", t.BeneficiaryIBAN),
		pair("reference", t.BeneficiaryReference, "authorised", ts(t.AuthorisedAt)),
		pair("submitted", ts(t.SubmittedAt), "settled", ts(t.SettledAt)),
	}
	b.WriteString(strings.Join(lines, "\n"))
	return b.String()
}

// The report's columns, by their short names in this view.
const (
	colTime      = report.ColTime
	colType      = report.ColType
	colStatus    = report.ColStatus
	colCurrency  = report.ColCurrency
	colAmount    = report.ColAmount
	colName      = report.ColName
	colIBAN      = report.ColIBAN
	colReference = report.ColReference
	colID        = report.ColID
	numColumns   = report.NumColumns
)

// filterSyntax is what the filter bar accepts, for the help screen.
func (v *txView) filterSyntax() string { return v.filter.syntax() }
