package report

import (
	"context"
	"strconv"
	"sync"
	"time"

	"github.com/paydash/paydash/api"
)

var (
	tNames = []string{"Ada Lovelace", "Alan Turing", "Grace Hopper", "Édith Piaf", "=cmd|' /C calc'!A0", "Barbara, Liskov", "ÖZLEM Türeci", "Ken \"K\" Thompson"}
	tIBANs = []string{"GB33BUKB20201555555555", "GB94BARC10201530093459", "DE89370400440532013000", "FR1420041010050500013M02606"}
	tCurs  = []string{"GBP", "EUR", "JPY"}
	tBase  = time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
)

// genTx is the i-th test row: deterministic, varied in every column.
func genTx(i int) api.Transaction {
	h := uint64(i)*0x9E3779B97F4A7C15 + 7
	h ^= h >> 29
	t := api.Transaction{
		TransactionID:        "tx-" + strconv.FormatUint(h%1_000_000_007, 16) + "-" + strconv.Itoa(i),
		Type:                 api.TransactionPayout,
		BeneficiaryName:      tNames[int(h>>8)%len(tNames)],
		BeneficiaryIBAN:      tIBANs[int(h>>16)%len(tIBANs)],
		BeneficiaryReference: "INV-" + strconv.Itoa(int(h>>20)%100000),
		AmountInMinor:        int64(h>>24) % 500_000,
		Currency:             tCurs[int(h>>40)%len(tCurs)],
		ContextCode:          api.ContextCodeWithdrawal,
		Status:               api.StateSettled,
	}
	at := tBase.Add(time.Duration(i) * time.Minute)
	switch h % 10 {
	case 0:
		t.Type = api.TransactionFunding
		t.SettledAt = api.NewReportTime(at)
		t.ContextCode = ""
	case 1:
		t.Status = api.StateFailed
		t.AuthorisedAt = api.NewReportTime(at)
	case 2:
		t.Status = api.StateAuthorised
		t.AuthorisedAt = api.NewReportTime(at)
	default:
		t.AuthorisedAt = api.NewReportTime(at)
		t.SubmittedAt = api.NewReportTime(at.Add(3 * time.Second))
		t.SettledAt = api.NewReportTime(at.Add(time.Minute))
	}
	if h%7 == 0 {
		t.BeneficiaryReference = "Ref, with \"quotes\"\nand lines"
	}
	if h%13 == 0 {
		t.BeneficiaryReference = "-SUM(A1)"
	}
	return t
}

func genTxs(n int) []api.Transaction {
	out := make([]api.Transaction, n)
	for i := range out {
		out[i] = genTx(i)
	}
	return out
}

// fakeSource serves rows, honouring From as the sandbox does (by report
// time), and records the queries it was asked.
type fakeSource struct {
	mu      sync.Mutex
	rows    []api.Transaction
	queries []api.TransactionQuery
	served  int
}

func (f *fakeSource) StreamTransactions(ctx context.Context, q api.TransactionQuery, fn func(api.Transaction) error) error {
	f.mu.Lock()
	f.queries = append(f.queries, q)
	rows := append([]api.Transaction(nil), f.rows...)
	f.mu.Unlock()
	for _, t := range rows {
		at := rowTime(unixNano(t.AuthorisedAt), unixNano(t.SubmittedAt), unixNano(t.SettledAt))
		if !q.From.IsZero() && at < q.From.UnixNano() {
			continue
		}
		f.mu.Lock()
		f.served++
		f.mu.Unlock()
		if err := fn(t); err != nil {
			return err
		}
	}
	return ctx.Err()
}

func load(t interface{ Fatal(...any) }, rows []api.Transaction) *Store {
	st, err := Load(context.Background(), &fakeSource{rows: rows}, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

type (
	apiQuery = api.TransactionQuery
	apiTx    = api.Transaction
)
