package report

import (
	"cmp"
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/paydash/paydash/api"
)

// TestStoreHoldsEveryRow: rows across several chunks come back exactly as
// received.
func TestStoreHoldsEveryRow(t *testing.T) {
	rows := genTxs(chunkRows + 5000)
	st := load(t, rows)
	if st.Len() != len(rows) {
		t.Fatalf("%d rows, want %d", st.Len(), len(rows))
	}
	for _, i := range []int{0, 1, chunkRows - 1, chunkRows, chunkRows + 1, len(rows) - 1} {
		if got := st.Tx(int32(i)); !reflect.DeepEqual(got, rows[i]) {
			t.Fatalf("row %d:\n got %+v\nwant %+v", i, got, rows[i])
		}
	}
	for i := range rows {
		if string(st.ID(int32(i))) != rows[i].TransactionID {
			t.Fatalf("row %d id %s", i, st.ID(int32(i)))
		}
	}
	if want := rows[len(rows)-1].SettledAt.Time; !st.Newest().Equal(want) && !st.Newest().Equal(rows[len(rows)-1].AuthorisedAt.Time) {
		t.Errorf("newest %v", st.Newest())
	}
}

// TestTextSearchFolds: free text finds references and ids whatever their
// case, ASCII (folded as it is searched) or not (searched in a folded
// copy kept beside the text), and the text reads back as received.
func TestTextSearchFolds(t *testing.T) {
	rows := genTxs(3000)
	special := map[int]struct{ id, ref string }{
		10: {"TX-ÄRGER-10", "Rechnung ÄRGER März"},
		11: {"tx-plain-11", "Facture ÉTÉ 2025"},
		12: {"TX-UPPER-12", "REF-Ünï-12"},
		13: {"tx-lower-13", "MiXeD CaSe Ref"},
	}
	for i, sp := range special {
		rows[i].TransactionID, rows[i].BeneficiaryReference = sp.id, sp.ref
	}
	st := load(t, rows)
	for i, sp := range special {
		if got := st.Tx(int32(i)); got.TransactionID != sp.id || got.BeneficiaryReference != sp.ref {
			t.Errorf("row %d reads back as %q / %q", i, got.TransactionID, got.BeneficiaryReference)
		}
	}
	byAmount := st.Sorted(st.All(), SortKey{Col: ColAmount})
	for _, c := range []struct {
		text string
		want []int32
	}{
		{"ärger", []int32{10}}, {"ÄRGER MÄRZ", []int32{10}}, {"tx-ärger", []int32{10}}, {"été 2025", []int32{11}},
		{"ünï", []int32{12}}, {"tx-upper", []int32{12}}, {"mixed case", []int32{13}}, {"TX-LOWER-13", []int32{13}},
		// with a structured condition the row test takes the other path
		{"été type:" + rows[11].Type, []int32{11}}, {"mixed cur:" + rows[13].Currency, []int32{13}},
	} {
		q := Parse(c.text, time.Now())
		f := st.Resolve(q)
		for _, cands := range [][]int32{st.All(), byAmount} {
			got, _, err := st.Select(cands, f, func() bool { return false })
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("%q: rows %v, want %v", c.text, got, c.want)
			}
		}
		for _, i := range c.want {
			if !q.MatchTx(&rows[i]) {
				t.Errorf("%q: MatchTx misses row %d", c.text, i)
			}
		}
	}
}

var testQueries = []string{
	"", "ada", "ADA LOVE", "gb33", "GB33 BUKB", "inv-1", "tx-1", "4000-8", "e", "édith", "ÉDITH", "özlem", "quotes",
	"type:funding", "cur:jpy", "status:failed", "status:settled ada", "128.95", "1234", "12",
	"amount:>1000", "amount:<=20", "amount:50..100", "amount:1000..", "amount:0.005", "cur:GBP amount:>=4000.5",
	"from:2025-03-02 to:2025-03-03", "date:7d", "status:nope", "type:payout inv-9 amount:<3000",
}

// TestMatchTxAgreesWithStore: the store's filter and the record-at-a-time
// filter of the CLI keep the same rows, for every query, in any candidate
// order (storage order, and sorted by amount, which takes the bitmap path).
func TestMatchTxAgreesWithStore(t *testing.T) {
	t.Run("ids any text", func(t *testing.T) { testMatchTxAgrees(t, genTxs(chunkRows+3000), true) })
	t.Run("ids UUIDs", func(t *testing.T) {
		rows := genTxs(chunkRows + 3000)
		for i := range rows {
			rows[i].TransactionID = fmt.Sprintf("%08x-0000-4000-8000-%012x", uint32(i*2654435761), i)
		}
		testMatchTxAgrees(t, rows[:5000], false) // the reference-only search: one chunk is enough
	})
}

func testMatchTxAgrees(t *testing.T, rows []api.Transaction, strict bool) {
	st := load(t, rows)
	now := time.Date(2025, 3, 20, 12, 0, 0, 0, time.UTC)
	byAmount := st.Sorted(st.All(), SortKey{Col: ColAmount})
	for _, text := range testQueries {
		q := Parse(text, now)
		var want []int32
		for i := range rows {
			if q.MatchTx(&rows[i]) {
				want = append(want, int32(i))
			}
		}
		f := st.Resolve(q)
		if text == "status:nope" {
			want = nil
			if len(f.Problems) == 0 || !strings.Contains(f.Problems[0], "have: failed, authorised, settled") && !strings.Contains(f.Problems[0], "have:") {
				t.Errorf("status:nope: problems %v", f.Problems)
			}
		}
		got, _, err := st.Select(st.All(), f, func() bool { return false })
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) && (len(got) != 0 || len(want) != 0) {
			t.Fatalf("%q: store kept %d rows, MatchTx %d", text, len(got), len(want))
		}
		gotSorted, _, _ := st.Select(byAmount, f, func() bool { return false })
		slices.Sort(gotSorted)
		if !slices.Equal(gotSorted, want) && (len(gotSorted) != 0 || len(want) != 0) {
			t.Fatalf("%q sorted by amount: store kept %d rows, MatchTx %d", text, len(gotSorted), len(want))
		}
		if strict && text != "" && text != "status:nope" && text != "amount:0.005" && text != "4000-8" && text != "e" && text != "tx-1" && (len(want) == 0 || len(want) == len(rows)) {
			t.Errorf("%q keeps %d of %d rows: not a useful test query", text, len(want), len(rows))
		}
	}
}

// TestQueryAmounts: amounts are read in the row's currency.
func TestQueryAmounts(t *testing.T) {
	mk := func(minor int64, cur string) api.Transaction {
		return api.Transaction{AmountInMinor: minor, Currency: cur, TransactionID: "x", BeneficiaryReference: "r"}
	}
	cases := []struct {
		q    string
		tx   api.Transaction
		want bool
	}{
		{"54.89", mk(5489, "GBP"), true},
		{"54.89", mk(5490, "GBP"), false},
		{"54.89", mk(55, "JPY"), false},
		{"5489", mk(5489, "JPY"), true},
		{"amount:>1000", mk(100001, "EUR"), true},
		{"amount:>1000", mk(100000, "EUR"), false},
		{"amount:>=1000", mk(100000, "EUR"), true},
		{"amount:<1000", mk(99999, "EUR"), true},
		{"amount:<1000", mk(100000, "EUR"), false},
		{"amount:50..100", mk(5000, "GBP"), true},
		{"amount:50..100", mk(10000, "GBP"), true},
		{"amount:50..100", mk(10001, "GBP"), false},
		{"amount:50..100", mk(4999, "GBP"), false},
		{"amount:1,000.50", mk(100050, "GBP"), true},
		{"amount:0.001", mk(0, "GBP"), false},
		{"amount:>0.001", mk(1, "GBP"), true},
		{"amount:>=0.001", mk(0, "GBP"), false},
		{"amount:<0.011", mk(1, "GBP"), true},
		{"amount:<0.011", mk(2, "GBP"), false},
	}
	for _, c := range cases {
		q := Parse(c.q, time.Now())
		if len(q.Problems) > 0 {
			t.Fatalf("%q: %v", c.q, q.Problems)
		}
		if got := q.MatchTx(&c.tx); got != c.want {
			t.Errorf("%q on %d %s: %v, want %v", c.q, c.tx.AmountInMinor, c.tx.Currency, got, c.want)
		}
	}
	if q := Parse("amount:lots", time.Now()); len(q.Problems) != 1 {
		t.Errorf("amount:lots: problems %v", q.Problems)
	}
}

// TestCheckListsValidValues: the CLI's values are checked against what
// the interface knows, and the error lists them.
func TestCheckListsValidValues(t *testing.T) {
	for _, c := range []struct{ q, want string }{
		{"status:settld", "valid: authorised, failed, settled, submitted"},
		{"cur:XYZ", "valid: AED,"},
		{"type:refund", "valid: funding, payout"},
		{"amount:abc", "amount:abc"},
	} {
		q := Parse(c.q, time.Now())
		err := q.Check()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want it to contain %q", c.q, err, c.want)
		}
	}
	for _, ok := range []string{"status:SETTLED", "cur:gbp type:Payout", "ada 12.50"} {
		q := Parse(ok, time.Now())
		if err := q.Check(); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
}

func refCompare(col Column) func(a, b *api.Transaction) int {
	at := func(t *api.Transaction) int64 {
		return rowTime(unixNano(t.AuthorisedAt), unixNano(t.SubmittedAt), unixNano(t.SettledAt))
	}
	return func(a, b *api.Transaction) int {
		switch col {
		case ColTime:
			return cmp.Compare(at(a), at(b))
		case ColType:
			return strings.Compare(a.Type, b.Type)
		case ColStatus:
			return strings.Compare(a.Status, b.Status)
		case ColCurrency:
			return strings.Compare(a.Currency, b.Currency)
		case ColAmount:
			return cmp.Compare(a.AmountInMinor, b.AmountInMinor)
		case ColName:
			return strings.Compare(Fold(a.BeneficiaryName), Fold(b.BeneficiaryName))
		case ColIBAN:
			return strings.Compare(a.BeneficiaryIBAN, b.BeneficiaryIBAN)
		case ColReference:
			return strings.Compare(a.BeneficiaryReference, b.BeneficiaryReference)
		}
		return strings.Compare(a.TransactionID, b.TransactionID)
	}
}

// TestSortedEveryColumn: every column, both directions, over a filtered
// subset in scattered order, equals a plain comparison sort with ties in
// report order.
func TestSortedEveryColumn(t *testing.T) {
	rows := genTxs(chunkRows + 2000)
	st := load(t, rows)
	f := st.Resolve(Parse("a", time.Now()))
	subset, _, _ := st.Select(st.Sorted(st.All(), SortKey{Col: ColReference, Desc: true}), f, func() bool { return false })
	for col := range NumColumns {
		for _, desc := range []bool{false, true} {
			got := st.Sorted(subset, SortKey{Col: col, Desc: desc})
			want := slices.Clone(subset)
			c := refCompare(col)
			slices.SortFunc(want, func(a, b int32) int {
				r := c(&rows[a], &rows[b])
				if desc {
					r = -r
				}
				if r == 0 {
					r = cmp.Compare(a, b)
				}
				return r
			})
			if !slices.Equal(got, want) {
				t.Fatalf("%s desc=%v: order differs", ColumnNames[col], desc)
			}
		}
	}
}

// TestSortedAlreadyInOrder: a report whose times already run one way (as
// the service sends it) is put in order without a sort, and the result
// is the stable sort's: equal times stay in row order, both directions.
func TestSortedAlreadyInOrder(t *testing.T) {
	rows := genTxs(5000)
	for i := range rows {
		at := api.NewReportTime(tBase.Add(time.Duration(i/7) * time.Minute)) // runs of seven equal times
		rows[i].AuthorisedAt, rows[i].SubmittedAt, rows[i].SettledAt = at, api.ReportTime{}, api.ReportTime{}
	}
	st := load(t, rows)
	for _, desc := range []bool{false, true} {
		for _, cands := range [][]int32{st.All(), st.All()[:4000]} {
			got := st.Sorted(cands, SortKey{Col: ColTime, Desc: desc})
			want := slices.Clone(cands)
			c := refCompare(ColTime)
			slices.SortStableFunc(want, func(a, b int32) int {
				if desc {
					return c(&rows[b], &rows[a])
				}
				return c(&rows[a], &rows[b])
			})
			if !slices.Equal(got, want) {
				t.Fatalf("desc=%v, %d rows: order differs from the stable sort", desc, len(cands))
			}
		}
	}
}

// TestTotals: per-currency credits, debits (failed payouts excluded), net
// and counts of the filtered rows, on both summing paths.
func TestTotals(t *testing.T) {
	rows := genTxs(chunkRows + 3000)
	st := load(t, rows)
	byAmount := st.Sorted(st.All(), SortKey{Col: ColAmount})
	for _, c := range []struct {
		text  string
		cands []int32
	}{{"", byAmount}, {"ada", byAmount}, {"status:failed", st.All()}, {"cur:JPY", byAmount}, {"cur:JPY", byAmount[:500]}, {"inv-1", st.All()[:40000]},
		// every row kept: the totals are every row's less none rejected
		{"inv", st.All()}, {"inv", byAmount}, {"inv-", byAmount[:500]},
		// most rows kept, not all: every row's totals less the rejected
		// (in storage order and through the bitmap of a scattered order)
		{"status:settled", st.All()}, {"status:settled", byAmount}, {"e", st.All()}, {"e", byAmount},
		// a scattered part of the report: only rows among it are tested
		{"inv-1", byAmount[:30000]}, {"e", byAmount[:30000]},
		// part of the report in storage order, most kept: with the
		// candidates' totals given, the rejected are summed
		{"e", st.All()[:40000]}, {"status:settled", st.All()[1000:50000]}} {
		text := c.text
		f := st.Resolve(Parse(text, time.Now()))
		sel, selTotals, _ := st.Select(c.cands, f, func() bool { return false })
		want := map[string]*Total{}
		for _, i := range sel {
			r := &rows[i]
			w := want[r.Currency]
			if w == nil {
				w = &Total{Currency: r.Currency}
				want[r.Currency] = w
			}
			w.Count++
			switch {
			case r.Type == api.TransactionFunding:
				w.Credits += r.AmountInMinor
			case r.Status == api.StateFailed:
				w.Failed++
			default:
				w.Debits += r.AmountInMinor
			}
			w.Net = w.Credits - w.Debits
		}
		sel2, knownTotals, _ := st.SelectInto(nil, c.cands, st.Totals(c.cands), f, func() bool { return false })
		if !slices.Equal(sel2, sel) {
			t.Fatalf("%q: with the candidates' totals given, %d rows, want %d", text, len(sel2), len(sel))
		}
		for _, got := range [][]Total{st.Totals(sel), selTotals, knownTotals} {
			if len(got) != len(want) {
				t.Fatalf("%q: %d currencies, want %d", text, len(got), len(want))
			}
			for _, g := range got {
				if w := want[g.Currency]; w == nil || *w != g {
					t.Errorf("%q: %+v, want %+v", text, g, w)
				}
			}
		}
	}
}

// TestSelectIntoWritesGivenArray: a result written into a given array is
// the one Select makes, in that array when it is large enough; whatever
// the array held before does not matter.
func TestSelectIntoWritesGivenArray(t *testing.T) {
	rows := genTxs(chunkRows + 3000)
	st := load(t, rows)
	never := func() bool { return false }
	byAmount := st.Sorted(st.All(), SortKey{Col: ColAmount})
	for _, text := range []string{"inv-1", "e", "status:settled", "cur:JPY ada"} {
		f := st.Resolve(Parse(text, time.Now()))
		for _, cands := range [][]int32{st.All(), byAmount} {
			want, wantTotals, _ := st.Select(cands, f, never)
			big := make([]int32, len(cands))
			for i := range big {
				big[i] = -7 // garbage from an earlier result
			}
			got, gotTotals, err := st.SelectInto(big, cands, nil, f, never)
			if err != nil || !slices.Equal(got, want) || !slices.Equal(gotTotals, wantTotals) {
				t.Fatalf("%q: SelectInto differs from Select (%d rows, want %d; %v)", text, len(got), len(want), err)
			}
			if len(got) > 0 && len(got) < len(cands) && &got[0] != &big[0] {
				t.Errorf("%q: result not written into the array given", text)
			}
			small := make([]int32, 0, 1)
			if got, _, _ := st.SelectInto(small, cands, nil, f, never); !slices.Equal(got, want) {
				t.Errorf("%q: with a small array, %d rows, want %d", text, len(got), len(want))
			}
		}
	}
}

// TestRefreshMerges: a refresh asks from the newest row minus the overlap
// (or the oldest row in flight), updates changed rows in place, appends
// new ones, and leaves the Store it started from untouched.
func TestRefreshMerges(t *testing.T) {
	rows := genTxs(chunkRows + 100)
	for i := range rows {
		if rows[i].Status == api.StateAuthorised {
			rows[i].Status = api.StateFailed // nothing in flight yet
		}
	}
	src := &fakeSource{rows: slices.Clone(rows)}
	st, err := Load(context.Background(), src, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	last := rows[len(rows)-1]
	// A new payout in flight, then it settles; one older row changes too.
	at := tBase.Add(time.Duration(len(rows)+5) * time.Minute)
	p := api.Transaction{TransactionID: "new-1", Type: api.TransactionPayout, Status: api.StateAuthorised,
		AuthorisedAt: api.NewReportTime(at), BeneficiaryName: "Zed New", BeneficiaryIBAN: tIBANs[0],
		BeneficiaryReference: "NEW", AmountInMinor: 4200, Currency: "GBP"}
	src.mu.Lock()
	src.rows = append(src.rows, p)
	src.rows[len(rows)-1].Status = api.StateFailed
	src.rows[len(rows)-1].BeneficiaryReference = "CHANGED REF"
	src.mu.Unlock()
	st2, ms, err := st.Refresh(context.Background(), src)
	if err != nil {
		t.Fatal(err)
	}
	wantFrom := time.Unix(0, rowTime(unixNano(last.AuthorisedAt), unixNano(last.SubmittedAt), unixNano(last.SettledAt))-int64(Overlap)).UTC()
	if got := src.queries[1].From; !got.Equal(wantFrom) && !got.Before(wantFrom) {
		t.Fatalf("refresh asked from %v, want %v", got, wantFrom)
	}
	if ms.Added != 1 || ms.Updated != 1 || st2.Len() != len(rows)+1 || st.Len() != len(rows) {
		t.Fatalf("stats %+v, lengths %d/%d", ms, st.Len(), st2.Len())
	}
	if st.Tx(int32(len(rows)-1)).Status != last.Status || st.Tx(int32(len(rows)-1)).BeneficiaryReference != last.BeneficiaryReference {
		t.Fatal("the refresh changed the Store it started from")
	}
	if got := st2.Tx(int32(len(rows) - 1)); got.Status != api.StateFailed || got.BeneficiaryReference != "CHANGED REF" {
		t.Fatalf("updated row %+v", got)
	}
	if got := st2.Tx(int32(len(rows))); !reflect.DeepEqual(got, p) {
		t.Fatalf("new row %+v", got)
	}
	// The new payout is in flight: the next refresh asks from it at the
	// latest, and picks up its settlement.
	if since := st2.Since(); since.After(at) {
		t.Fatalf("since %v is after the payout in flight (%v)", since, at)
	}
	src.mu.Lock()
	src.rows[len(src.rows)-1].Status = api.StateSettled
	src.rows[len(src.rows)-1].SettledAt = api.NewReportTime(at.Add(time.Hour))
	src.mu.Unlock()
	st3, ms, err := st2.Refresh(context.Background(), src)
	if err != nil || ms.Updated != 1 || ms.Added != 0 {
		t.Fatalf("second refresh %+v %v", ms, err)
	}
	if got := st3.Tx(int32(len(rows))); got.Status != api.StateSettled || st2.Tx(int32(len(rows))).Status != api.StateAuthorised {
		t.Fatalf("settlement: %s (before %s)", got.Status, st2.Tx(int32(len(rows))).Status)
	}
	if sel, _, _ := st3.Select(st3.All(), st3.Resolve(Parse("zed", time.Now())), func() bool { return false }); len(sel) != 1 || sel[0] != int32(len(rows)) {
		t.Fatalf("filter finds the new row at %v", sel)
	}
	if n := fmt.Sprint(st3.Totals([]int32{int32(len(rows))})[0].Debits); n != "4200" {
		t.Fatalf("debits %s", n)
	}
}

// TestResortEqualsSort: after a refresh, merging the changed rows into the
// old order gives exactly a fresh sort, for every column and direction.
func TestResortEqualsSort(t *testing.T) {
	rows := genTxs(5000)
	changed := slices.Clone(rows)
	for i := range 40 { // new rows, some copying old values (ties)
		n := genTx(len(rows) + i)
		n.TransactionID = fmt.Sprintf("new-%d", i)
		if i%3 == 0 {
			old := rows[len(rows)-1-i*7]
			n.AmountInMinor, n.BeneficiaryName, n.BeneficiaryReference = old.AmountInMinor, old.BeneficiaryName, old.BeneficiaryReference
		}
		changed = append(changed, n)
	}
	for _, i := range []int{len(rows) - 1, len(rows) - 3} { // changes in place
		changed[i].Status, changed[i].AmountInMinor, changed[i].BeneficiaryName = api.StateFailed, 7, "Zz Changed"
	}
	for col := range NumColumns {
		for _, desc := range []bool{false, true} {
			k := SortKey{Col: col, Desc: desc}
			src := &fakeSource{rows: rows}
			st, err := Load(context.Background(), src, 0, nil)
			if err != nil {
				t.Fatal(err)
			}
			order := st.Sorted(st.All(), k)
			src.rows = changed
			next, ms, err := st.Refresh(context.Background(), src)
			if err != nil {
				t.Fatal(err)
			}
			if ms.Added != 40 || ms.Updated != 2 || len(ms.Changed) != 42 {
				t.Fatalf("refresh %+v", ms)
			}
			got := next.Resort(order, k, ms.Changed)
			if want := next.Sorted(next.All(), k); !slices.Equal(got, want) {
				t.Fatalf("%s desc=%v: resort differs from a sort", ColumnNames[col], desc)
			}
		}
	}
}
