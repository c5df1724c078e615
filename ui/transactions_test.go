package ui

import (
	"bytes"
	"cmp"
	"encoding/base64"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/report"
)

const reportRows = 2000

// want is the brute-force answer: the generated rows a filter must keep,
// decided from the api.Transaction values, not from the store.
func want(n int, keep func(t api.Transaction) bool) map[string]bool {
	out := map[string]bool{}
	for i := range n {
		if t := genTx(i); keep(t) {
			out[t.TransactionID] = true
		}
	}
	return out
}

func shownIDs(h *harness) []string {
	v := &h.m.tx
	ids := make([]string, len(v.idx))
	for i, x := range v.idx {
		ids[i] = string(v.store.ID(x))
	}
	return ids
}

func txAt(t api.Transaction) time.Time {
	switch {
	case !t.AuthorisedAt.IsZero():
		return t.AuthorisedAt.Time
	case !t.SubmittedAt.IsZero():
		return t.SubmittedAt.Time
	}
	return t.SettledAt.Time
}

func TestTransactionFilter(t *testing.T) {
	has := func(s, sub string) bool { return strings.Contains(strings.ToLower(s), sub) }
	text := func(q string) func(api.Transaction) bool {
		return func(t api.Transaction) bool {
			return has(t.BeneficiaryName, q) || has(t.BeneficiaryIBAN, q) || has(t.BeneficiaryReference, q) || has(t.TransactionID, q)
		}
	}
	day := time.Date(2025, 3, 13, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		query string
		keep  func(api.Transaction) bool
	}{
		{"grace", text("grace")},
		{"GRACE hop", text("grace hop")},
		{"gb33", text("gb33")},
		{"inv-1001", text("inv-1001")},
		{"-8000-000000000007", text("-8000-000000000007")},
		{"cur:EUR", func(t api.Transaction) bool { return t.Currency == "EUR" }},
		{"currency:gbp ada", func(t api.Transaction) bool { return t.Currency == "GBP" && text("ada")(t) }},
		{"status:failed", func(t api.Transaction) bool { return t.Status == api.StateFailed }},
		{"type:funding", func(t api.Transaction) bool { return t.Type == api.TransactionFunding }},
		{"date:today", func(t api.Transaction) bool { return !txAt(t).Before(day.Add(24 * time.Hour)) }},
		{"date:7d status:submitted", func(t api.Transaction) bool {
			return !txAt(t).Before(fixedNow.Add(-7*24*time.Hour)) && t.Status == api.StateSubmitted
		}},
		{"from:2025-03-13 to:2025-03-13", func(t api.Transaction) bool {
			at := txAt(t)
			return !at.Before(day) && at.Before(day.Add(24*time.Hour))
		}},
		{"status:nosuch", func(api.Transaction) bool { return false }},
		{"zzzz-no-match", func(api.Transaction) bool { return false }},
		{"", func(api.Transaction) bool { return true }},
	}
	for _, tc := range tests {
		t.Run(tc.query, func(t *testing.T) {
			h := newHarness(t, Options{Backend: newFake(reportRows)}, 120, 40)
			h.key("2")
			h.key("/")
			h.typeText(tc.query)
			h.key("enter")
			wantIDs := want(reportRows, tc.keep)
			got := shownIDs(h)
			if len(got) != len(wantIDs) {
				t.Fatalf("%q shows %d rows, want %d", tc.query, len(got), len(wantIDs))
			}
			for _, id := range got {
				if !wantIDs[id] {
					t.Fatalf("%q shows %s, which does not match", tc.query, id)
				}
			}
			mustContain(t, h.view(), thousands(len(wantIDs))+" of "+thousands(reportRows)+" transactions")
		})
	}
}

// Typing one key at a time narrows the previous result; it must end where
// a fresh filter over the whole report ends, and so must deleting.
func TestTransactionFilterNarrowingAgreesWithFullScan(t *testing.T) {
	h := newHarness(t, Options{Backend: newFake(reportRows)}, 120, 40)
	h.key("2")
	h.key("/")
	for _, step := range []string{"a", "d", "a", " ", "l", "o", "backspace", "backspace", "backspace", "backspace", "backspace"} {
		if step == "backspace" {
			h.key("backspace")
		} else {
			h.typeText(step)
		}
		q := strings.ToLower(strings.Join(strings.Fields(h.m.tx.filter.value()), " "))
		wantIDs := want(reportRows, func(t api.Transaction) bool {
			return strings.Contains(strings.ToLower(t.BeneficiaryName+"\x00"+t.BeneficiaryIBAN+"\x00"+t.BeneficiaryReference+"\x00"+t.TransactionID), q)
		})
		if got := len(h.m.tx.idx); got != len(wantIDs) {
			t.Fatalf("after %q: %d rows, want %d", h.m.tx.filter.value(), got, len(wantIDs))
		}
	}
}

func TestStaleFilterResultIsDiscarded(t *testing.T) {
	h := newHarness(t, Options{Backend: newFake(reportRows)}, 120, 40)
	h.key("2")
	v := &h.m.tx
	v.filter.set("grace")
	older := v.recompute(h.m.c(), false) // not run yet
	v.filter.set("alan")
	h.run(v.recompute(h.m.c(), false))
	alan := len(v.idx)
	h.run(older) // arrives late
	if len(v.idx) != alan {
		t.Fatalf("a stale result replaced the newer one: %d rows, want %d", len(v.idx), alan)
	}
	for _, id := range shownIDs(h) {
		if tx := findTx(id); !strings.Contains(tx.BeneficiaryName, "Alan") {
			t.Fatalf("row %s (%s) is from the stale filter", id, tx.BeneficiaryName)
		}
	}
}

func findTx(id string) api.Transaction {
	for i := range reportRows {
		if t := genTx(i); t.TransactionID == id {
			return t
		}
	}
	return api.Transaction{}
}

func TestTransactionSort(t *testing.T) {
	rows := make([]api.Transaction, reportRows)
	for i := range rows {
		rows[i] = genTx(i)
	}
	byID := map[string]int{}
	for i, r := range rows {
		byID[r.TransactionID] = i
	}
	keys := map[report.Column]func(a, b api.Transaction) int{
		colTime:     func(a, b api.Transaction) int { return txAt(a).Compare(txAt(b)) },
		colType:     func(a, b api.Transaction) int { return cmp.Compare(a.Type, b.Type) },
		colStatus:   func(a, b api.Transaction) int { return cmp.Compare(a.Status, b.Status) },
		colCurrency: func(a, b api.Transaction) int { return cmp.Compare(a.Currency, b.Currency) },
		colAmount:   func(a, b api.Transaction) int { return cmp.Compare(a.AmountInMinor, b.AmountInMinor) },
		colName: func(a, b api.Transaction) int {
			return cmp.Compare(strings.ToLower(a.BeneficiaryName), strings.ToLower(b.BeneficiaryName))
		},
		colIBAN:      func(a, b api.Transaction) int { return cmp.Compare(a.BeneficiaryIBAN, b.BeneficiaryIBAN) },
		colReference: func(a, b api.Transaction) int { return cmp.Compare(a.BeneficiaryReference, b.BeneficiaryReference) },
		colID:        func(a, b api.Transaction) int { return cmp.Compare(a.TransactionID, b.TransactionID) },
	}
	// 200 columns: every column is on screen, so s reaches each.
	h := newHarness(t, Options{Backend: newFake(reportRows)}, 200, 40)
	h.key("2")
	// The default is newest first; s steps through the columns, S flips.
	for col := range numColumns {
		for _, desc := range []bool{false, true} {
			for h.m.tx.sort.Col != col || h.m.tx.sort.Desc != desc {
				if h.m.tx.sort.Col != col {
					h.key("s")
				} else {
					h.key("S")
				}
			}
			ids := shownIDs(h)
			if len(ids) != reportRows {
				t.Fatalf("sorting lost rows: %d", len(ids))
			}
			for i := 1; i < len(ids); i++ {
				a, b := rows[byID[ids[i-1]]], rows[byID[ids[i]]]
				c := keys[col](a, b)
				if desc {
					c = -c
				}
				if c > 0 {
					t.Fatalf("%s desc=%v: row %d (%v) before row %d (%v)", report.ColumnNames[col], desc, i-1, a, i, b)
				}
			}
			mustContain(t, h.view(), "sorted by "+report.ColumnNames[col])
		}
	}
}

// A new sort keeps the filter and starts at the top (issue 12: keeping
// the cursor's row made a fresh sort look broken).
func TestSortKeepsFilterAndGoesToTop(t *testing.T) {
	h := newHarness(t, Options{Backend: newFake(reportRows)}, 120, 40)
	h.key("2")
	h.key("/")
	h.typeText("cur:GBP")
	h.key("enter")
	h.key("down")
	h.key("down")
	h.key("s") // next column
	ids := shownIDs(h)
	if h.m.tx.nav.cursor != 0 {
		t.Errorf("after re-sorting the cursor is on row %d, want 0", h.m.tx.nav.cursor)
	}
	for _, id := range ids {
		if findTx(id).Currency != "GBP" {
			t.Fatalf("re-sorting dropped the filter: %s", id)
		}
	}
}

func TestExport(t *testing.T) {
	for _, format := range []string{"csv", "json"} {
		t.Run(format, func(t *testing.T) {
			dir := t.TempDir()
			h := newHarness(t, Options{Backend: newFake(reportRows), ExportDir: dir}, 120, 40)
			h.key("2")
			h.key("/")
			h.typeText("hopper cur:EUR")
			h.key("enter")
			shown := shownIDs(h)
			h.key("ctrl+s")
			mustContain(t, h.view(), "Export "+thousands(len(shown))+" rows")
			h.key(format[:1])
			files, _ := filepath.Glob(filepath.Join(dir, "paydash-transactions-*."+format))
			if len(files) != 1 {
				t.Fatalf("export wrote %v, want one ."+format+" file", files)
			}
			mustContain(t, h.view(), "exported "+thousands(len(shown))+" rows to "+files[0])
			if fi, _ := os.Stat(files[0]); fi.Mode().Perm() != 0o600 {
				t.Errorf("export file mode %v, want 0600", fi.Mode().Perm())
			}
			data, err := os.ReadFile(files[0])
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			if format == "csv" {
				recs, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(recs[0], report.Header()) {
					t.Errorf("header %v", recs[0])
				}
				for _, r := range recs[1:] {
					got = append(got, r[0])
					tx := findTx(r[0])
					if r[4] != api.FormatAmountPlain(tx.AmountInMinor, tx.Currency) || r[3] != tx.Currency {
						t.Errorf("row %s: amount %s %s, want %s %s", r[0], r[4], r[3], api.FormatAmountPlain(tx.AmountInMinor, tx.Currency), tx.Currency)
					}
				}
			} else {
				var rows []report.Row
				if err := json.Unmarshal(data, &rows); err != nil {
					t.Fatal(err)
				}
				for _, r := range rows {
					got = append(got, r.TransactionID)
					if tx := findTx(r.TransactionID); r.AmountInMinor != tx.AmountInMinor || r.SettledAt != tx.SettledAt {
						t.Errorf("row %s differs from the report", r.TransactionID)
					}
				}
			}
			if !slices.Equal(got, shown) {
				t.Errorf("exported %d rows, want the %d on screen in screen order", len(got), len(shown))
			}
			// A second export never overwrites the first.
			h.key("ctrl+s")
			h.key(format[:1])
			if files, _ := filepath.Glob(filepath.Join(dir, "*."+format)); len(files) != 2 {
				t.Errorf("second export: %v, want two files", files)
			}
		})
	}
}

var osc52Seq = regexp.MustCompile(`\x1b\]52;c;([A-Za-z0-9+/=]*)\x07`)

func TestCopyIDAndRow(t *testing.T) {
	h := newHarness(t, Options{Backend: newFake(50)}, 120, 40)
	h.key("2")
	h.key("down")
	id := shownIDs(h)[1]
	h.key("Y")
	m := osc52Seq.FindSubmatch(h.clip.Bytes())
	if m == nil {
		t.Fatalf("no OSC 52 sequence written: %q", h.clip.String())
	}
	if got, _ := base64.StdEncoding.DecodeString(string(m[1])); string(got) != id {
		t.Errorf("copied %q, want %q", got, id)
	}
	mustContain(t, h.view(), "copied transaction id")
	h.clip.Reset()
	h.key("y")
	m = osc52Seq.FindSubmatch(h.clip.Bytes())
	got, _ := base64.StdEncoding.DecodeString(string(m[1]))
	var tx api.Transaction
	if err := json.Unmarshal(got, &tx); err != nil || tx != findTx(id) {
		t.Errorf("copied row %s (err %v), want the selected transaction as JSON", got, err)
	}
}

func TestDetailPaneShowsSelectedRow(t *testing.T) {
	h := newHarness(t, Options{Backend: newFake(50)}, 120, 40)
	h.key("2")
	h.key("G")
	h.key("enter")
	id := shownIDs(h)[h.m.tx.nav.cursor]
	tx := findTx(id)
	mustContain(t, h.view(), id, tx.BeneficiaryReference, tx.BeneficiaryIBAN)
}

func TestThousands(t *testing.T) {
	for n, want := range map[int]string{0: "0", 7: "7", 999: "999", 1000: "1,000", 1234: "1,234", 123456: "123,456", 1000000: "1,000,000", -1234567: "-1,234,567"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestSparkline(t *testing.T) {
	tests := []struct {
		vals []int64
		w    int
		want string
	}{
		{[]int64{0, 7}, 10, "▁█"},
		{[]int64{5, 5, 5}, 10, "███"},                 // from zero: a steady balance is a full bar
		{[]int64{770_000_000, 769_999_500}, 10, "██"}, // −£5 on £7.7M is not a cliff
		{[]int64{-4, 4}, 10, "▁█"},
		{[]int64{0, 1, 2, 3, 4, 5, 6, 7}, 10, "▁▂▃▄▅▆▇█"},
		{[]int64{9, 0, 7}, 2, "▁█"}, // keeps the most recent points
		{nil, 5, ""},
	}
	for _, tc := range tests {
		if got := sparkline(tc.vals, tc.w); got != tc.want {
			t.Errorf("sparkline(%v, %d) = %q, want %q", tc.vals, tc.w, got, tc.want)
		}
	}
}

func TestCleanStripsControlSequences(t *testing.T) {
	for in, want := range map[string]string{
		"plain":              "plain",
		"Ada\x1b[2J":         `Ada\x1b[2J`,
		"bell\a":             `bell\x07`,
		"c1\u009b31m":        `c1\x9b31m`,
		"GB29\u202e4321":     `GB29\u202e4321`,
		"é and ü stay as is": "é and ü stay as is",
	} {
		if got := clean(in); got != want {
			t.Errorf("clean(%q) = %q, want %q", in, got, want)
		}
	}
}

// The report refreshes on its interval so payouts made in the session show
// up without r: it asks only for what is new (from the newest row, or the
// oldest still in flight), merges by transaction id, and keeps the
// filter, the sort and the selected row; R reloads the whole report.
func TestReportRefreshesIncrementallyKeepingFilterAndSelection(t *testing.T) {
	fb := newFake(50)
	base := fb.txs
	settled := false
	fb.txs = func(i int) api.Transaction {
		if i < 50 {
			t := base(i)
			if t.Status == api.StateSubmitted && (i != 3 || settled) { // only row 3 is in flight, until it settles
				t.Status, t.SettledAt = api.StateSettled, api.NewReportTime(t.SubmittedAt.Add(time.Minute))
			}
			return t
		}
		return newerRow(base, i, 50)
	}
	h := newHarness(t, Options{Backend: fb, ReportRefresh: time.Minute}, 120, 40)
	h.key("2")
	h.key("/")
	h.typeText("cur:GBP")
	h.key("enter")
	h.key("down")
	h.key("down")
	sel := shownIDs(h)[h.m.tx.nav.cursor]
	before, servedBefore := fb.reportCalls(), fb.served
	filtered := h.view()

	fb.setRows(60)
	settled = true
	h.advance(time.Minute) // the report's refresh interval
	if got := fb.reportCalls() - before; got != 1 {
		t.Fatalf("report calls after the tick: %d, want 1", got)
	}
	q := fb.queries[len(fb.queries)-1]
	if q.From.IsZero() || !q.From.Before(base(3).AuthorisedAt.Add(time.Second)) {
		t.Fatalf("refresh asked from %v: want a start no later than the row in flight (%v)", q.From, base(3).AuthorisedAt.Time)
	}
	if served := fb.served - servedBefore; served > 10+4 { // the new rows, and rows 0-3 since the one in flight

		t.Fatalf("the refresh was sent %d rows, want the 10 new ones and the 4 since the row in flight", served)
	}
	if h.m.tx.filter.value() != "cur:GBP" {
		t.Fatalf("filter after refresh %q, want it kept", h.m.tx.filter.value())
	}
	mustContain(t, h.view(), "of 60 transactions")
	if strings.Contains(filtered, "of 60 transactions") {
		t.Fatal("the count did not change with the refresh")
	}
	if got := shownIDs(h)[h.m.tx.nav.cursor]; got != sel {
		t.Fatalf("the refresh moved the selection from %s to %s", sel, got)
	}
	for _, id := range shownIDs(h) {
		if tx := h.m.tx.store.Tx(findRow(h, id)); tx.Currency != "GBP" {
			t.Fatalf("refreshed rows include %s (%s)", id, tx.Currency)
		}
	}
	if st := h.m.tx.store.Tx(findRow(h, base(3).TransactionID)).Status; st != api.StateSettled {
		t.Fatalf("row in flight is %s after the refresh, want settled", st)
	}
	// The next reload is scheduled too.
	h.advance(time.Minute)
	if got := fb.reportCalls() - before; got != 2 {
		t.Fatalf("report loads after two intervals: %d, want 2", got)
	}

	// R: the whole report again.
	h.key("R")
	if q := fb.queries[len(fb.queries)-1]; !q.From.IsZero() {
		t.Fatalf("full reload asked from %v", q.From)
	}
	mustContain(t, h.view(), "of 60 transactions")
	if h.m.tx.filter.value() != "cur:GBP" {
		t.Fatalf("filter after reload %q", h.m.tx.filter.value())
	}
}

// TestRefreshAtTheTopShowsTheNewRows: with the first row selected (as on
// first display), a refresh that brings newer transactions shows them at
// the top of "sorted by Time ↓"; nothing new is left hidden above the
// screen, and the selection stays on the row it was on (issue 22 item 1:
// a selection follows its row, never its position).
func TestRefreshAtTheTopShowsTheNewRows(t *testing.T) {
	fb := newFake(50)
	base := fb.txs
	fb.txs = func(i int) api.Transaction {
		if i >= 50 {
			return newerRow(base, i, 50)
		}
		return base(i)
	}
	h := newHarness(t, Options{Backend: fb, ReportRefresh: time.Minute}, 120, 40)
	h.key("2")
	if h.m.tx.nav.cursor != 0 {
		t.Fatalf("cursor %d on first display", h.m.tx.nav.cursor)
	}
	sel := shownIDs(h)[0]
	fb.setRows(53)
	h.advance(time.Minute)
	mustContain(t, h.view(), "of 53 transactions")
	shown := shownIDs(h)
	if len(shown) < 4 || shown[0] != testUUID(1000+52) || h.m.tx.nav.top != 0 {
		t.Fatalf("after the refresh the screen starts at %v (top %d), want the newest row %s at the top",
			shown[:min(3, len(shown))], h.m.tx.nav.top, testUUID(1000+52))
	}
	if got := shown[h.m.tx.nav.cursor]; got != sel {
		t.Fatalf("the refresh moved the selection from %s to %s", sel, got)
	}
}

// newerRow is row i (at or past loaded, the rows first loaded) as a
// transaction newer than anything loaded, one minute apart, under its own
// id: what a refresh brings.
func newerRow(base func(int) api.Transaction, i, loaded int) api.Transaction {
	t := base(i)
	t.TransactionID = testUUID(1000 + i)
	at := fixedNow.Add(time.Duration(i-loaded+1) * time.Minute)
	t.AuthorisedAt, t.SubmittedAt, t.SettledAt = api.NewReportTime(at), api.ReportTime{}, api.ReportTime{}
	if t.Type == api.TransactionFunding {
		t.AuthorisedAt, t.SettledAt = api.ReportTime{}, api.NewReportTime(at)
	}
	return t
}

func findRow(h *harness, id string) int32 {
	st := h.m.tx.store
	for i := range int32(st.Len()) {
		if string(st.ID(i)) == id {
			return i
		}
	}
	return -1
}

// A funding has no context code: its detail shows the type alone, not a
// separator with nothing after it.
func TestDetailPaneTypeWithoutContextCode(t *testing.T) {
	fb := newFake(50)
	fb.txs = func(i int) api.Transaction {
		tx := genTx(i)
		if tx.Type == api.TransactionFunding {
			tx.ContextCode = ""
		}
		return tx
	}
	h := newHarness(t, Options{Backend: fb}, 120, 40)
	h.key("2")
	for _, k := range []string{"/", "t", "y", "p", "e", ":", "f", "u", "n", "d", "i", "n", "g", "enter", "enter"} {
		h.key(k)
	}
	view := h.view()
	if !strings.Contains(view, "funding") {
		t.Fatalf("no funding row in the detail pane:\n%s", view)
	}
	if strings.Contains(view, "funding ·") {
		t.Fatalf("the type of a funding ends in a bare separator:\n%s", view)
	}
}
