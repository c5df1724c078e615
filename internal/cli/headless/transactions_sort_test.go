package headless

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/cli/cmdutil"
)

// sortTxs are three rows in the service's order: oldest first, a funding
// between two payouts.
func sortTxs() []api.Transaction {
	at := func(h int) api.ReportTime {
		return api.NewReportTime(time.Date(2025, 3, 1, h, 0, 0, 0, time.UTC))
	}
	return []api.Transaction{
		{TransactionID: "00000000-0000-4000-8000-000000000001", Type: api.TransactionPayout, Status: api.StateSettled, Currency: "GBP", AmountInMinor: 500, BeneficiaryName: "Bob", AuthorisedAt: at(9)},
		{TransactionID: "00000000-0000-4000-8000-000000000002", Type: api.TransactionFunding, Status: api.StateSettled, Currency: "GBP", AmountInMinor: 10000, BeneficiaryName: "acme", SettledAt: at(10)},
		{TransactionID: "00000000-0000-4000-8000-000000000003", Type: api.TransactionPayout, Status: api.StateFailed, Currency: "GBP", AmountInMinor: 2000, BeneficiaryName: "Ada", AuthorisedAt: at(11)},
	}
}

// ids runs `transactions` with o and lists the ids it printed, in order.
func ids(t *testing.T, o *TransactionsOptions) ([]string, string) {
	t.Helper()
	s, out, _ := testStreams("")
	if err := Transactions(context.Background(), s, &fakeStreamer{txs: sortTxs()}, o); err != nil {
		t.Fatal(err)
	}
	var got []string
	if o.JSON {
		var rows []struct {
			ID string `json:"transaction_id"`
		}
		if err := json.Unmarshal(out.Bytes(), &rows); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		for _, r := range rows {
			got = append(got, r.ID[len(r.ID)-1:])
		}
		return got, out.String()
	}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n")[1:] {
		if o.CSV {
			line = strings.Split(line, ",")[0]
		}
		for _, f := range strings.Fields(line) {
			if strings.HasPrefix(f, "00000000-") {
				got = append(got, f[len(f)-1:])
			}
		}
	}
	return got, out.String()
}

// Issue 28 item 8: the CLI agrees with the screen. The table is newest
// first and signs its amounts as the dashboard does; --sort orders every
// format; CSV and JSON keep the service's order unless sorted.
func TestTransactionsOrderAndSigns(t *testing.T) {
	tests := []struct {
		name string
		o    TransactionsOptions
		want string
	}{
		{"table: newest first", TransactionsOptions{}, "321"},
		{"table in the service's order", TransactionsOptions{Sort: "none"}, "123"},
		{"table by amount, by size as the dashboard", TransactionsOptions{Sort: "amount"}, "132"},
		{"table by amount, largest first", TransactionsOptions{Sort: "amount:desc"}, "231"},
		{"table oldest first", TransactionsOptions{Sort: "time:asc"}, "123"},
		{"table by name, case folded", TransactionsOptions{Sort: "beneficiary"}, "231"},
		{"JSON streams in the service's order", TransactionsOptions{JSON: true}, "123"},
		{"JSON sorted", TransactionsOptions{JSON: true, Sort: "time"}, "321"},
		{"CSV streams in the service's order", TransactionsOptions{CSV: true}, "123"},
		{"CSV sorted by status", TransactionsOptions{CSV: true, Sort: "status"}, "312"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := tc.o
			got, out := ids(t, &o)
			if strings.Join(got, "") != tc.want {
				t.Errorf("order %v, want %s:\n%s", got, tc.want, out)
			}
		})
	}
	_, out := ids(t, &TransactionsOptions{})
	for _, want := range []string{"-£5.00", "+£100.00", "-£20.00"} {
		if !strings.Contains(out, want) {
			t.Errorf("the table lacks the signed amount %s:\n%s", want, out)
		}
	}
}

func TestTransactionsSortIsChecked(t *testing.T) {
	for _, bad := range []string{"colour", "amount:up"} {
		err := (&TransactionsOptions{Sort: bad}).Check()
		if cmdutil.ExitCode(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), "--sort") {
			t.Errorf("--sort %s: %v, want a usage error naming --sort", bad, err)
		}
	}
}
