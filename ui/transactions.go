package ui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/export"
)

var defaultSort = sortKey{col: colTime, desc: true}

// txView is the transaction report. The rows live in a txStore; the view
// holds index slices into it. Filtering and sorting run in commands with
// a generation number: a result whose generation is not the newest is
// dropped, and the worker itself stops early once superseded.
type txView struct {
	store      *txStore
	loading    bool
	loadErr    error
	loadCount  *atomic.Int64
	loadGen    uint64
	loadCancel context.CancelFunc

	order     []int32 // every row, sorted by orderSort
	orderSort sortKey

	idx         []int32 // the rows on screen (filtered, sorted)
	applied     txFilter
	appliedSort sortKey

	sort     sortKey
	gen      *atomic.Uint64
	busy     bool
	problems []string

	// totals are the rows on screen added up per currency.
	totals []curTotal
	filter    filterBar
	nav       listNav
	detail    bool
	exportAsk bool
	pageH     int
}

type txLoadedMsg struct {
	gen    uint64
	store  *txStore
	order  []int32
	sort   sortKey
	totals []curTotal
	err    error
}

type txResultMsg struct {
	gen       uint64
	idx       []int32
	f         txFilter
	sort      sortKey
	order     []int32
	orderSort sortKey
	totals    []curTotal
	err       error
}

type exportedMsg struct {
	path string
	n    int
	err  error
}

func newTxView() txView {
	return txView{filter: newFilterBar("text, or date:today|7d|30d from:2025-01-01 to:2025-01-31 type: cur: status:"), sort: defaultSort, gen: new(atomic.Uint64), appliedSort: defaultSort,
		applied: txFilter{typ: anyValue, cur: anyValue, status: anyValue}}
}

// load streams the whole report into a fresh store, off the Update path.
// A reload cancels a load still running.
func (v *txView) load(c *viewContext) tea.Cmd {
	be := c.opts.Backend
	if be == nil {
		return nil
	}
	if v.loadCancel != nil {
		v.loadCancel()
	}
	ctx, cancel := context.WithCancel(c.ctx)
	v.loadCancel = cancel
	v.loadGen++
	gen := v.loadGen
	counter := new(atomic.Int64)
	v.loadCount = counter
	v.loading = true
	v.loadErr = nil
	want := v.sort
	return func() tea.Msg {
		return loadStore(ctx, be, gen, want, counter)
	}
}

func loadStore(ctx context.Context, be Backend, gen uint64, want sortKey, counter *atomic.Int64) txLoadedMsg {
	st := &txStore{}
	err := be.StreamTransactions(ctx, api.TransactionQuery{}, func(t api.Transaction) error {
		if err := st.add(&t); err != nil {
			return err
		}
		counter.Add(1)
		return nil
	})
	st.compact()
	order := st.sorted(st.all(), want)
	return txLoadedMsg{gen: gen, store: st, order: order, sort: want, totals: st.totals(order), err: err}
}

func (v *txView) loaded(c *viewContext, msg txLoadedMsg) tea.Cmd {
	if msg.gen != v.loadGen {
		return nil // a newer load replaced this one
	}
	v.loading = false
	if v.loadCancel != nil {
		v.loadCancel()
		v.loadCancel = nil
	}
	if msg.err != nil && !errors.Is(msg.err, context.Canceled) {
		v.loadErr = msg.err
		c.setFlash("transactions: "+msg.err.Error()+" (showing the "+itoa(msg.store.len())+" rows received; r to retry)", true)
	}
	v.store = msg.store
	v.totals = msg.totals
	v.order, v.orderSort = msg.order, msg.sort
	v.idx = msg.order
	v.applied = txFilter{typ: anyValue, cur: anyValue, status: anyValue}
	v.appliedSort = msg.sort
	v.gen.Add(1) // results computed on the old store are now stale
	v.busy = false
	f, _ := v.parse(c)
	if !f.empty() || v.sort != msg.sort {
		return v.recompute(c)
	}
	v.nav.clamp(len(v.idx), v.pageH)
	return nil
}

func (v *txView) parse(c *viewContext) (txFilter, []string) {
	return parseFilter(v.filter.value(), v.store, c.now())
}

// recompute asks for the rows matching the filter bar in the wanted sort.
func (v *txView) recompute(c *viewContext) tea.Cmd {
	if v.store == nil {
		return nil
	}
	f, probs := v.parse(c)
	v.problems = probs
	gen := v.gen.Add(1)
	v.busy = true
	req := computeReq{
		store: v.store, gen: gen, cur: v.gen, f: f, sort: v.sort,
		base: v.idx, baseF: v.applied, baseSort: v.appliedSort,
		order: v.order, orderSort: v.orderSort,
	}
	return func() tea.Msg { return req.run() }
}

type computeReq struct {
	store     *txStore
	gen       uint64
	cur       *atomic.Uint64
	f         txFilter
	sort      sortKey
	base      []int32
	baseF     txFilter
	baseSort  sortKey
	order     []int32
	orderSort sortKey
}

// run computes the rows for a filter and sort. When the new filter only
// narrows the one on screen (same structured filters, text extended), it
// scans the rows on screen instead of the whole report.
func (r computeReq) run() txResultMsg {
	stale := staleFunc(r.cur, r.gen)
	res := txResultMsg{gen: r.gen, f: r.f, sort: r.sort, order: r.order, orderSort: r.orderSort}
	switch {
	case r.f == r.baseF && r.sort == r.baseSort:
		res.idx = r.base
	case r.f.narrows(r.baseF):
		res.idx, res.err = r.store.filter(r.base, r.f, stale)
		if res.err == nil && r.sort != r.baseSort {
			res.idx = r.store.sorted(res.idx, r.sort)
		}
	case r.f == r.baseF:
		res.idx = r.store.sorted(r.base, r.sort)
	default:
		if r.orderSort != r.sort || r.order == nil {
			res.order, res.orderSort = r.store.sorted(r.store.all(), r.sort), r.sort
		}
		if stale() {
			res.err = errStale
			return res
		}
		res.idx, res.err = r.store.filter(res.order, r.f, stale)
	}
	if res.err == nil {
		res.totals = r.store.totals(res.idx)
	}
	return res
}

func (v *txView) result(c *viewContext, msg txResultMsg) {
	if msg.gen != v.gen.Load() || msg.err != nil {
		return // superseded
	}
	v.idx, v.applied, v.appliedSort = msg.idx, msg.f, msg.sort
	v.order, v.orderSort = msg.order, msg.orderSort
	v.totals = msg.totals
	v.busy = false
	// A new sort or filter starts at the top, where the rows it puts first
	// are: keeping the cursor's row made "sorted by Amount ↓" open on
	// some row in the middle.
	v.nav.cursor, v.nav.top = 0, 0
	v.nav.clamp(len(v.idx), v.pageH)
}

// ---- filter bar ----

// parseFilter reads the filter bar: key:value tokens (date:today|7d|30d|all,
// from:/to: dates, type:, cur:, status:) and free text over beneficiary
// name, IBAN, reference and id. Unknown or partial tokens are text.
func parseFilter(text string, st *txStore, now time.Time) (txFilter, []string) {
	f := txFilter{typ: anyValue, cur: anyValue, status: anyValue}
	var words, probs []string
	// Relative ranges start at a whole minute so that the filter, and with
	// it narrowing, stays the same from one keystroke to the next.
	base := now.Truncate(time.Minute)
	for _, tok := range strings.Fields(text) {
		k, val, ok := strings.Cut(tok, ":")
		if !ok {
			words = append(words, tok)
			continue
		}
		switch strings.ToLower(k) {
		case "date":
			switch strings.ToLower(val) {
			case "", "all":
			case "today":
				y, mo, d := now.Date()
				f.from = time.Date(y, mo, d, 0, 0, 0, 0, now.Location()).UnixNano()
			case "7d":
				f.from = base.Add(-7 * 24 * time.Hour).UnixNano()
			case "30d":
				f.from = base.Add(-30 * 24 * time.Hour).UnixNano()
			default:
				probs = append(probs, "date:"+val+" — use today, 7d, 30d or all")
			}
		case "from", "to":
			if val == "" {
				continue
			}
			t, dateOnly, err := parseDate(val, now.Location())
			if err != nil {
				probs = append(probs, k+": "+err.Error())
				continue
			}
			if strings.EqualFold(k, "from") {
				f.from = t.UnixNano()
			} else {
				if dateOnly {
					t = t.AddDate(0, 0, 1) // to: a day includes that whole day
				}
				f.to = t.UnixNano()
			}
		case "type":
			f.typ = enumFilter(&probs, "type", val, st.enumOrNil(0))
		case "cur", "currency":
			f.cur = enumFilter(&probs, "currency", val, st.enumOrNil(1))
		case "status", "state":
			f.status = enumFilter(&probs, "status", val, st.enumOrNil(2))
		default:
			words = append(words, tok)
		}
	}
	f.text = strings.ToLower(strings.Join(words, " "))
	return f, probs
}

func (s *txStore) enumOrNil(which int) *enumTable {
	if s == nil {
		return nil
	}
	return [...]*enumTable{&s.types, &s.currencies, &s.statuses}[which]
}

func enumFilter(probs *[]string, what, val string, e *enumTable) int {
	if val == "" {
		return anyValue
	}
	if e == nil {
		return noValue
	}
	if i, ok := e.lookup(val); ok {
		return int(i)
	}
	*probs = append(*probs, "no "+what+" "+val+" in the report (have: "+strings.Join(e.sorted(), ", ")+")")
	return noValue
}

func parseDate(s string, loc *time.Location) (t time.Time, dateOnly bool, err error) {
	if t, err := time.ParseInLocation("2006-01-02", s, loc); err == nil {
		return t, true, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, false, nil
	}
	return time.Time{}, false, fmt.Errorf("%q is not a date like 2025-01-31 or 2025-01-31T09:30:00Z", s)
}

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

func isFilterKey(k string) bool {
	return containsFold([]string{"date", "from", "to", "type", "cur", "currency", "status", "state"}, k)
}

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

func (v *txView) startFilter() (tea.Cmd, bool) { return v.filter.start(), true }

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
			{k.Sort, k.Reverse, k.Detail, g.Refresh},
			{k.Export, k.CopyRow, k.CopyID},
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
			return tea.Batch(cmd, v.recompute(c))
		}
		return cmd
	}
	if v.nav.move(k, c.keys, len(v.idx), v.pageH) {
		return nil
	}
	switch {
	case key.Matches(k, c.keys.Sort):
		v.sort = sortKey{col: v.nextSortColumn(c), desc: v.sort.desc}
		return v.recompute(c)
	case key.Matches(k, c.keys.Reverse):
		v.sort.desc = !v.sort.desc
		return v.recompute(c)
	case key.Matches(k, c.keys.Date):
		next := cycle([]string{"today", "7d", "30d"}, tokenValue(v.filter.value(), "date"))
		v.filter.set(setToken(v.filter.value(), "date", next, "from", "to"))
		return v.recompute(c)
	case key.Matches(k, c.keys.Type, c.keys.Currency, c.keys.Status):
		if v.store == nil {
			return nil
		}
		name, tbl := "type", &v.store.types
		switch {
		case key.Matches(k, c.keys.Currency):
			name, tbl = "cur", &v.store.currencies
		case key.Matches(k, c.keys.Status):
			name, tbl = "status", &v.store.statuses
		}
		cur := tokenValue(v.filter.value(), name)
		if name == "cur" && cur == "" {
			cur = tokenValue(v.filter.value(), "currency")
		}
		v.filter.set(setToken(v.filter.value(), name, cycle(tbl.sorted(), cur), "currency", "state"))
		return v.recompute(c)
	case key.Matches(k, c.keys.Detail):
		v.detail = !v.detail
		return nil
	case key.Matches(k, c.keys.Back):
		if v.detail {
			v.detail = false
			return nil
		}
		if v.filter.value() != "" {
			v.filter.set("")
			return v.recompute(c)
		}
		return nil
	case key.Matches(k, c.keys.Export):
		if v.store == nil || v.busy {
			c.setFlash("wait for the report to finish loading or filtering, then export", true)
			return nil
		}
		v.exportAsk = true
		return nil
	case key.Matches(k, c.keys.CopyID, c.keys.CopyRow):
		if v.nav.cursor >= len(v.idx) {
			return nil
		}
		t := v.store.tx(v.idx[v.nav.cursor])
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
func (v *txView) nextSortColumn(c *viewContext) txColumn {
	ws := layoutCols(txCols[:], c.width-1)
	col := v.sort.col
	for range numColumns {
		col = (col + 1) % numColumns
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
	return func() tea.Msg {
		path, n, err := writeExport(dir, name, format, st, idx)
		return exportedMsg{path: path, n: n, err: err}
	}
}

func writeExport(dir, name, format string, st *txStore, idx []int32) (string, int, error) {
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
		f, err = os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil {
			break
		}
		if !errors.Is(err, os.ErrExist) || i > 100 {
			return "", 0, fmt.Errorf("create %s (set a writable export directory in the config): %w", path, err)
		}
	}
	row := func(i int) api.Transaction { return st.tx(idx[i]) }
	var err error
	if format == "json" {
		err = export.JSONFunc(f, len(idx), row)
	} else {
		err = export.CSVFunc(f, len(idx), row)
	}
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
		total = v.store.len()
	}
	var info string
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
		if v.sort.desc {
			dir = "↓"
		}
		info = itoa(len(v.idx)) + " of " + itoa(total) + " transactions · sorted by " + columnNames[v.sort.col] + " " + dir
		if v.busy {
			info += " · " + c.st.warn.Render("filtering…")
		}
		if v.loading {
			info += " · " + c.st.warn.Render("reloading… "+itoa(int(v.loadCount.Load())))
		}
		if v.loadErr != nil {
			info += " · " + c.st.bad.Render("incomplete, the load failed: "+clean(v.loadErr.Error())+" (r retries)")
		}
		if len(v.problems) > 0 {
			info += " · " + c.st.warn.Render(strings.Join(v.problems, "; "))
		}
	}
	b.WriteString(fit(info, w))
	b.WriteByte('\n')
	// Line 3: what the rows on screen add up to, always in view.
	b.WriteString(v.totalsLine(c, w))
	b.WriteByte('\n')
	// Table. The sorted column is wide enough for its arrow.
	specs := txCols
	arrow := " ↑"
	if v.sort.desc {
		arrow = " ↓"
	}
	specs[v.sort.col].title += arrow
	specs[v.sort.col].w = max(specs[v.sort.col].w, width(specs[v.sort.col].title))
	ws := layoutCols(specs[:], w-1)
	b.WriteString(c.st.header.Render(" " + headerCells(specs[:], ws)))
	b.WriteByte('\n')
	rowsH := h - 4
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
		r := &v.store.rows[i]
		st := v.store
		cells[colTime] = stamp(time.Unix(0, r.at()), loc)
		cells[colType] = st.types.name(r.typ)
		cells[colStatus] = st.statuses.name(r.status)
		cells[colCurrency] = st.currencies.name(r.currency)
		cells[colAmount] = signedAmount(r.amount, cells[colCurrency], cells[colType])
		cells[colName] = string(st.nameBytes(i))
		cells[colIBAN] = string(st.ibanBytes(i))
		cells[colReference] = string(st.refBytes(i))
		cells[colID] = string(st.idBytes(i))
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
	net := func(t curTotal) string {
		n := t.in - t.out
		if n >= 0 {
			return "+" + api.FormatAmount(n, t.cur)
		}
		return "−" + api.FormatAmount(-n, t.cur)
	}
	var long, short []string
	excluded := 0
	for _, t := range v.totals {
		long = append(long, t.cur+" in +"+api.FormatAmount(t.in, t.cur)+" out −"+api.FormatAmount(t.out, t.cur)+" net "+net(t))
		short = append(short, t.cur+" net "+net(t))
		excluded += t.excluded
	}
	note := ""
	if excluded > 0 {
		note = " (" + itoa(excluded) + " failed/rejected not counted)"
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
	t := v.store.tx(v.idx[v.nav.cursor])
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
	lines := []string{
		pair("id", t.TransactionID, "type", t.Type+" · "+t.ContextCode),
		pair("amount", api.FormatAmount(t.AmountInMinor, t.Currency)+" "+t.Currency, "status", t.Status),
		pair("beneficiary", t.BeneficiaryName, "iban", t.BeneficiaryIBAN),
		pair("reference", t.BeneficiaryReference, "authorised", ts(t.AuthorisedAt)),
		pair("submitted", ts(t.SubmittedAt), "settled", ts(t.SettledAt)),
	}
	b.WriteString(strings.Join(lines, "\n"))
	return b.String()
}
