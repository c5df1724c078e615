package headless

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/cli/cmdutil"
	"github.com/paydash/paydash/internal/report"
)

func makeTxs(n int) []api.Transaction {
	base := time.Date(2025, 3, 1, 9, 0, 0, 0, time.UTC)
	out := make([]api.Transaction, n)
	for i := range out {
		status := api.StateSettled
		if i%7 == 3 {
			status = api.StateFailed
		}
		name := fmt.Sprintf("Payee %d", i)
		if i%5 == 0 {
			name = "=cmd|calc" // a formula a spreadsheet would run: export defuses it
		}
		out[i] = api.Transaction{
			TransactionID: fmt.Sprintf("00000000-0000-4000-8000-%012d", i), Type: api.TransactionPayout,
			AuthorisedAt:    api.NewReportTime(base.Add(time.Duration(i) * time.Minute)),
			SettledAt:       api.NewReportTime(base.Add(time.Duration(i)*time.Minute + time.Second)),
			BeneficiaryName: name, BeneficiaryIBAN: "GB33BUKB20201555555555",
			BeneficiaryReference: fmt.Sprintf("REF-%d", i), AmountInMinor: int64(100 + i), Currency: "GBP",
			ContextCode: "withdrawal", Status: status,
		}
	}
	return out
}

type fakeStreamer struct {
	txs    []api.Transaction
	last   api.TransactionQuery
	called bool
}

func (f *fakeStreamer) StreamTransactions(_ context.Context, q api.TransactionQuery, fn func(api.Transaction) error) error {
	f.last, f.called = q, true
	for _, t := range f.txs {
		if err := fn(t); err != nil {
			return err
		}
	}
	return nil
}

func testStreams(in string) (*cmdutil.Streams, *bytes.Buffer, *bytes.Buffer) {
	var out, errb bytes.Buffer
	return &cmdutil.Streams{In: strings.NewReader(in), Out: &out, Err: &errb, Getenv: func(string) string { return "" }}, &out, &errb
}

func TestTransactionsFiltersAndFormats(t *testing.T) {
	txs := makeTxs(40)
	tests := []struct {
		name    string
		opts    TransactionsOptions
		wantIDs func(api.Transaction) bool
		query   func(t *testing.T, q api.TransactionQuery)
	}{
		{name: "status", opts: TransactionsOptions{Status: "FAILED", JSON: true},
			wantIDs: func(t api.Transaction) bool { return t.Status == api.StateFailed }},
		{name: "search reference", opts: TransactionsOptions{Search: "ref-1", JSON: true},
			wantIDs: func(t api.Transaction) bool { return strings.HasPrefix(t.BeneficiaryReference, "REF-1") }},
		{name: "search id", opts: TransactionsOptions{Search: "000000000033", JSON: true},
			wantIDs: func(t api.Transaction) bool { return strings.HasSuffix(t.TransactionID, "33") }},
		{name: "search IBAN typed with spaces", opts: TransactionsOptions{Search: "gb33 bukb", JSON: true},
			wantIDs: func(api.Transaction) bool { return true }},
		{name: "service filters pass through", opts: TransactionsOptions{Type: "Payout", Currency: "gbp", From: "2025-03-01", To: "2025-03-01", JSON: true},
			wantIDs: func(api.Transaction) bool { return true },
			query: func(t *testing.T, q api.TransactionQuery) {
				if q.Type != "Payout" || q.Currency != "GBP" || q.From.IsZero() || !q.To.After(q.From) || q.To.Sub(q.From) >= 24*time.Hour {
					t.Errorf("query = %+v", q)
				}
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, out, _ := testStreams("")
			f := &fakeStreamer{txs: txs}
			if err := Transactions(context.Background(), s, f, &tc.opts); err != nil {
				t.Fatal(err)
			}
			var rows []report.Row
			if err := json.Unmarshal(out.Bytes(), &rows); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			var want []string
			for _, tx := range txs {
				if tc.wantIDs(tx) {
					want = append(want, tx.TransactionID)
				}
			}
			if len(rows) != len(want) {
				t.Fatalf("got %d rows, want %d", len(rows), len(want))
			}
			for i := range rows {
				if rows[i].TransactionID != want[i] {
					t.Fatalf("row %d = %s, want %s", i, rows[i].TransactionID, want[i])
				}
			}
			if tc.query != nil {
				tc.query(t, f.last)
			}
		})
	}
}

// Unknown values are usage errors (exit 2) naming the valid ones, before
// anything is fetched: a typo must not look like an empty report.
func TestTransactionsRejectsUnknownValues(t *testing.T) {
	for _, tc := range []struct {
		opts TransactionsOptions
		want string
	}{
		{TransactionsOptions{Status: "settld"}, "valid: authorised, failed, settled, submitted"},
		{TransactionsOptions{Currency: "XYZ"}, "unknown currency \"XYZ\"; valid: AED, AUD"},
		{TransactionsOptions{Type: "refund"}, "valid: funding, payout"},
		{TransactionsOptions{Amount: "lots"}, "amount:lots"},
		{TransactionsOptions{Filter: "status:nope cur:GBP"}, "unknown status \"nope\""},
	} {
		s, out, _ := testStreams("")
		f := &fakeStreamer{txs: makeTxs(3)}
		err := Transactions(context.Background(), s, f, &tc.opts)
		var ee *cmdutil.ExitError
		if !errors.As(err, &ee) || ee.Code != cmdutil.ExitUsage || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want exit %d containing %q", tc.opts, err, cmdutil.ExitUsage, tc.want)
		}
		if f.called || out.Len() > 0 {
			t.Errorf("%+v: fetched or wrote the report despite the bad value", tc.opts)
		}
	}
}

// --amount and --filter take the dashboard's filter language.
func TestTransactionsAmountAndFilter(t *testing.T) {
	txs := makeTxs(40) // amounts 1.00 to 1.39 GBP
	s, out, _ := testStreams("")
	opts := TransactionsOptions{Amount: "1.10..1.20", Filter: "status:settled payee", JSON: true}
	if err := Transactions(context.Background(), s, &fakeStreamer{txs: txs}, &opts); err != nil {
		t.Fatal(err)
	}
	var rows []report.Row
	if err := json.Unmarshal(out.Bytes(), &rows); err != nil {
		t.Fatal(err)
	}
	var want, got []string
	for _, tx := range txs {
		if tx.AmountInMinor >= 110 && tx.AmountInMinor <= 120 && tx.Status == api.StateSettled && strings.HasPrefix(tx.BeneficiaryName, "Payee") {
			want = append(want, tx.TransactionID)
		}
	}
	for _, r := range rows {
		got = append(got, r.TransactionID)
	}
	if len(want) == 0 || strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("rows %v, want %v", got, want)
	}
}

func TestTransactionsOutFileIsCompleteAndPrivate(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "report.csv")
	s, out, errb := testStreams("")
	txs := makeTxs(5)
	if err := Transactions(context.Background(), s, &fakeStreamer{txs: txs}, &TransactionsOptions{Out: path}); err != nil {
		t.Fatal(err)
	}
	if out.Len() != 0 {
		t.Errorf("stdout got %q with --out", out)
	}
	if !strings.Contains(errb.String(), "wrote 5 transactions to "+path+": all in the report") {
		t.Errorf("stderr = %q", errb)
	}
	got, _ := os.ReadFile(path)
	var want bytes.Buffer
	w := report.NewWriter(&want, report.CSV)
	for i := range txs {
		_ = w.Write(&txs[i])
	}
	_ = w.Close()
	if !bytes.Equal(got, want.Bytes()) {
		t.Errorf("file is not the CSV export (format from the .csv extension)")
	}
	st, _ := os.Stat(path)
	if st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", st.Mode().Perm())
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("temporary files left behind: %v", entries)
	}
}

func TestParseSince(t *testing.T) {
	now := time.Date(2025, 3, 10, 15, 30, 0, 0, time.UTC)
	tests := []struct {
		in      string
		want    time.Time
		wantErr bool
	}{
		{in: "7d", want: now.AddDate(0, 0, -7)},
		{in: "2w", want: now.AddDate(0, 0, -14)},
		{in: "36h", want: now.Add(-36 * time.Hour)},
		{in: "today", want: time.Date(2025, 3, 10, 0, 0, 0, 0, time.UTC)},
		{in: "0d", wantErr: true},
		{in: "-3d", wantErr: true},
		{in: "soon", wantErr: true},
	}
	for _, tc := range tests {
		got, err := ParseSince(tc.in, now)
		if (err != nil) != tc.wantErr || (!tc.wantErr && !got.Equal(tc.want)) {
			t.Errorf("ParseSince(%q) = %v, %v; want %v (err %v)", tc.in, got, err, tc.want, tc.wantErr)
		}
	}
}

func TestTransactionsRejectsConflictingFlags(t *testing.T) {
	for _, o := range []TransactionsOptions{
		{Since: "7d", From: "2025-01-01"},
		{CSV: true, JSON: true},
		{From: "2025-02-01", To: "2025-01-01"},
		{From: "yesterday-ish"},
	} {
		s, _, _ := testStreams("")
		f := &fakeStreamer{}
		err := Transactions(context.Background(), s, f, &o)
		if cmdutil.ExitCode(err) != cmdutil.ExitUsage {
			t.Errorf("%+v: err = %v, want a usage error", o, err)
		}
	}
}

// TestStatusHelpNamesOnlyAcceptedStatuses: every payout state the --status
// help names is one the command accepts (QA found "e.g. settled, rejected"
// while --status rejected was exit 2), and every accepted one is named.
func TestStatusHelpNamesOnlyAcceptedStatuses(t *testing.T) {
	o := &TransactionsOptions{}
	fs := pflag.NewFlagSet("transactions", pflag.ContinueOnError)
	o.Bind(fs)
	help := fs.Lookup("status").Usage
	accepted := func(status string) bool {
		_, _, err := (&TransactionsOptions{Status: status}).Query(time.Now())
		return err == nil
	}
	offered := strings.TrimSpace(strings.SplitN(help, "(", 2)[0]) // the list, before the remark
	for _, st := range []string{api.StateAuthorised, api.StateSubmitted, api.StateSettled, api.StateRejected, api.StateFailed, api.StateExecuted} {
		named := strings.Contains(offered, st)
		if named != accepted(st) {
			t.Errorf("--status %s: named in the help = %v, accepted = %v (help %q)", st, named, accepted(st), help)
		}
	}
}

// TestTransactionsOutSaysWhatWasWrittenOfWhat: QA read "wrote 3,301 of
// 3,355 transactions" while the report held 5,004 rows. The message names
// what the written rows match and what they were counted among, and the
// number written is the number of rows in the file.
func TestTransactionsOutSaysWhatWasWrittenOfWhat(t *testing.T) {
	txs := makeTxs(14) // rows 3 and 10 failed, the other 12 settled
	tests := []struct {
		name string
		opts TransactionsOptions
		want string
		rows int
	}{
		{"service and local filters", TransactionsOptions{Type: "payout", Currency: "GBP", Status: "settled"},
			"wrote 12 transactions to %s: those matching --status settled among the 14 for --type payout --currency GBP", 12},
		{"local filter only", TransactionsOptions{Filter: "status:failed ref-"},
			`wrote 2 transactions to %s: those matching --filter "status:failed ref-" among the 14 in the report`, 2},
		{"service filters only", TransactionsOptions{Type: "payout", Since: "30000d"},
			"wrote 14 transactions to %s: all for --type payout --since 30000d", 14},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "payouts.csv")
			s, _, errb := testStreams("")
			o := tc.opts
			o.Out = path
			if err := Transactions(context.Background(), s, &fakeStreamer{txs: txs}, &o); err != nil {
				t.Fatal(err)
			}
			if want := fmt.Sprintf(tc.want, path); strings.TrimSpace(errb.String()) != want {
				t.Errorf("stderr = %q\nwant     %q", errb, want)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if lines := strings.Count(string(data), "\n") - 1; lines != tc.rows {
				t.Errorf("the file holds %d rows, the message says %d", lines, tc.rows)
			}
		})
	}
}

// The table's time is the row's report time, the one --from/--to, date:
// and the dashboard's Time column use: a payout authorised on the last
// day asked for and settled two days later is listed at its authorisation,
// inside the dates asked for, and rows come out in time order (newest
// first, as the dashboard's report: issue 28 item 8).
func TestTransactionsTableTimeIsTheTimeTheDatesFilterBy(t *testing.T) {
	day := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	txs := []api.Transaction{
		{TransactionID: "00000000-0000-4000-8000-000000000001", Type: api.TransactionPayout, Status: api.StateSettled, Currency: "GBP", AmountInMinor: 100,
			AuthorisedAt: api.NewReportTime(day.Add(9 * time.Hour)), SettledAt: api.NewReportTime(day.Add(9*time.Hour + time.Minute))},
		{TransactionID: "00000000-0000-4000-8000-000000000002", Type: api.TransactionPayout, Status: api.StateSettled, Currency: "GBP", AmountInMinor: 200,
			AuthorisedAt: api.NewReportTime(day.Add(23*time.Hour + 59*time.Minute)), SubmittedAt: api.NewReportTime(day.Add(47 * time.Hour)),
			SettledAt: api.NewReportTime(day.Add(71 * time.Hour))},
	}
	s, out, _ := testStreams("")
	if err := Transactions(context.Background(), s, &fakeStreamer{txs: txs}, &TransactionsOptions{From: "2025-03-01", To: "2025-03-01"}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("want a header and 2 rows:\n%s", out)
	}
	for i, want := range []string{"2025-03-01 23:59:00", "2025-03-01 09:00:00"} {
		if !strings.HasPrefix(lines[i+1], want) {
			t.Errorf("row %d: %q, want it at %s", i+1, lines[i+1], want)
		}
	}
}
