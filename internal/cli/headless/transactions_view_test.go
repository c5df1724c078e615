package headless

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/config"
	"github.com/paydash/paydash/internal/cli/cmdutil"
	"github.com/paydash/paydash/internal/report"
)

// Issue 28 item 1: `transactions --view NAME` keeps the rows the
// dashboard's report engine keeps for the same view (what :view NAME
// shows), and other flags narrow it.
func TestTransactionsViewMatchesTheScreen(t *testing.T) {
	txs := makeTxs(200)
	now := time.Now()
	// Half the rows within the view's window, half before it.
	for i := range txs {
		at := now.Add(-time.Duration(i) * 90 * time.Minute)
		txs[i].AuthorisedAt = api.NewReportTime(at)
		txs[i].SettledAt = api.NewReportTime(at.Add(time.Second))
	}
	p := &config.Profile{Name: "ops", Views: []config.View{{Name: "failed-week", Filter: "status:failed payee", Window: "7d"}}}
	ids := func(o *TransactionsOptions) []string {
		t.Helper()
		var got []string
		for _, r := range viewRows(t, p, txs, o) {
			got = append(got, r.ID)
		}
		slices.Sort(got)
		return got
	}
	got := ids(&TransactionsOptions{View: "failed-week"})

	// The screen: the report engine over the same rows and the same query.
	st, err := report.Load(context.Background(), &fakeStreamer{txs: txs}, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	v, _ := p.ViewByName("failed-week")
	rows, _, err := st.Select(st.All(), st.Resolve(report.Parse(v.Query(), now)), func() bool { return false })
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, r := range rows {
		want = append(want, string(st.ID(r)))
	}
	slices.Sort(want)
	if len(want) == 0 || len(want) == len(txs) {
		t.Fatalf("the view keeps %d of %d rows: the test does not tell", len(want), len(txs))
	}
	if !slices.Equal(got, want) {
		t.Fatalf("--view kept %d rows, the screen's engine %d:\n%v\n%v", len(got), len(want), got, want)
	}
	// Another flag narrows the view.
	if narrowed := ids(&TransactionsOptions{View: "failed-week", Amount: ">1.50"}); len(narrowed) == 0 || len(narrowed) >= len(got) {
		t.Errorf("--amount within the view kept %d of its %d rows", len(narrowed), len(got))
	}
}

func TestTransactionsUnknownViewIsAUsageError(t *testing.T) {
	p := &config.Profile{Name: "ops", File: "/x/config.toml", Views: []config.View{{Name: "a"}, {Name: "b"}}}
	err := (&TransactionsOptions{View: "c"}).UseView(p)
	var ex *cmdutil.ExitError
	if !errors.As(err, &ex) || ex.Code != cmdutil.ExitUsage || !strings.Contains(err.Error(), "its views: a, b") {
		t.Fatalf("got %v", err)
	}
	err = (&TransactionsOptions{View: "c"}).UseView(&config.Profile{Name: "ops", File: "/x/config.toml"})
	if err == nil || !strings.Contains(err.Error(), "[[profiles.ops.views]]") {
		t.Fatalf("got %v", err)
	}
}

// A view's sort orders the CLI's rows as :view orders the screen's,
// unless --sort says otherwise.
func TestTransactionsViewSortsAsTheView(t *testing.T) {
	txs := makeTxs(50)
	p := &config.Profile{Name: "ops", Views: []config.View{{Name: "big", Sort: "amount desc"}}}
	amounts := func(o *TransactionsOptions) []int64 {
		t.Helper()
		var got []int64
		for _, r := range viewRows(t, p, txs, o) {
			got = append(got, r.Amount)
		}
		return got
	}
	got := amounts(&TransactionsOptions{View: "big"})
	if len(got) < 2 || !slices.IsSortedFunc(got, func(a, b int64) int { return cmp.Compare(b, a) }) || got[0] == got[len(got)-1] {
		t.Fatalf("--view big (sort amount desc) gave %v", got)
	}
	asc := amounts(&TransactionsOptions{View: "big", Sort: "amount:asc"})
	if !slices.IsSorted(asc) {
		t.Fatalf("--sort amount:asc over the view gave %v", asc)
	}
}

// viewRow is what the view tests read of a row of `transactions --json`.
type viewRow struct {
	ID     string `json:"transaction_id"`
	Amount int64  `json:"amount_in_minor"`
}

// viewRows runs `transactions --json` with o on profile p over txs, in
// the order it prints them.
func viewRows(t *testing.T, p *config.Profile, txs []api.Transaction, o *TransactionsOptions) []viewRow {
	t.Helper()
	o.JSON = true
	if err := o.UseView(p); err != nil {
		t.Fatal(err)
	}
	s, out, _ := testStreams("")
	if err := Transactions(context.Background(), s, &fakeStreamer{txs: txs}, o); err != nil {
		t.Fatal(err)
	}
	var rows []viewRow
	if err := json.Unmarshal(out.Bytes(), &rows); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	return rows
}
