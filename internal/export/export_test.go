package export

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/paydash/paydash/api"
)

func sample() []api.Transaction {
	at := api.NewReportTime(time.Date(2025, 3, 1, 10, 15, 30, 123456700, time.UTC))
	return []api.Transaction{
		{
			TransactionID: "0b6b3a3e-8c1e-4a8e-9c55-1d2f7b1f0001", Type: api.TransactionPayout,
			AuthorisedAt: at, SubmittedAt: api.NewReportTime(at.Add(time.Second)), SettledAt: api.NewReportTime(at.Add(2 * time.Second)),
			BeneficiaryName: "Ada, \"the\" Countess", BeneficiaryIBAN: "GB33BUKB20201555555555",
			BeneficiaryReference: "line1\nline2", AmountInMinor: 123456, Currency: "GBP",
			ContextCode: api.ContextCodeWithdrawal, Status: api.StateSettled,
		},
		{
			TransactionID: "0b6b3a3e-8c1e-4a8e-9c55-1d2f7b1f0002", Type: api.TransactionPayout,
			AuthorisedAt:    at, // not yet submitted or settled
			BeneficiaryName: "=HYPERLINK(\"http://evil\")", BeneficiaryIBAN: "DE89370400440532013000",
			BeneficiaryReference: "@ref", AmountInMinor: 1, Currency: "EUR",
			ContextCode: api.ContextCodeWithdrawal, Status: api.StateAuthorised,
		},
	}
}

func TestCSV(t *testing.T) {
	txs := sample()
	var buf bytes.Buffer
	if err := CSV(&buf, txs); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatalf("output is not valid CSV: %v", err)
	}
	if len(recs) != len(txs)+1 {
		t.Fatalf("got %d records, want header + %d", len(recs), len(txs))
	}
	if !reflect.DeepEqual(recs[0], Header()) {
		t.Errorf("header = %v, want %v", recs[0], Header())
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	tests := []struct {
		row        int
		name, want string
	}{
		{1, "transaction_id", txs[0].TransactionID},
		{1, "amount", api.FormatAmountPlain(123456, "GBP")},
		{1, "currency", "GBP"},
		{1, "beneficiary_name", `Ada, "the" Countess`},
		{1, "beneficiary_reference", "line1\nline2"},
		{1, "authorised_at", "2025-03-01T10:15:30.1234567Z"},
		{1, "settled_at", "2025-03-01T10:15:32.1234567Z"},
		{1, "status", api.StateSettled},
		{2, "amount", api.FormatAmountPlain(1, "EUR")},
		{2, "submitted_at", ""},
		{2, "settled_at", ""},
		{2, "beneficiary_name", `'=HYPERLINK("http://evil")`},
		{2, "beneficiary_reference", "'@ref"},
		{2, "beneficiary_iban", "DE89370400440532013000"},
	}
	for _, tc := range tests {
		if got := recs[tc.row][col[tc.name]]; got != tc.want {
			t.Errorf("row %d %s = %q, want %q", tc.row, tc.name, got, tc.want)
		}
	}
}

func TestJSONRoundTrip(t *testing.T) {
	txs := sample()
	var buf bytes.Buffer
	if err := JSON(&buf, txs); err != nil {
		t.Fatal(err)
	}
	var rows []Row
	if err := json.Unmarshal(buf.Bytes(), &rows); err != nil {
		t.Fatalf("output is not a JSON array: %v\n%s", err, buf.String())
	}
	if len(rows) != len(txs) {
		t.Fatalf("got %d rows, want %d", len(rows), len(txs))
	}
	// JSON is not a spreadsheet: text is exported verbatim.
	for i, r := range rows {
		got := api.Transaction{
			TransactionID: r.TransactionID, Type: r.Type, AuthorisedAt: r.AuthorisedAt,
			SubmittedAt: r.SubmittedAt, SettledAt: r.SettledAt, BeneficiaryName: r.BeneficiaryName,
			BeneficiaryIBAN: r.BeneficiaryIBAN, BeneficiaryReference: r.BeneficiaryReference,
			AmountInMinor: r.AmountInMinor, Currency: r.Currency, ContextCode: r.ContextCode, Status: r.Status,
		}
		if !reflect.DeepEqual(got, txs[i]) {
			t.Errorf("row %d:\n got %+v\nwant %+v", i, got, txs[i])
		}
		if want := api.FormatAmountPlain(txs[i].AmountInMinor, txs[i].Currency); r.Amount != want {
			t.Errorf("row %d amount = %q, want %q", i, r.Amount, want)
		}
	}
	if bytes.Contains(buf.Bytes(), []byte(`"submitted_at":""`)) {
		t.Error("an unreached state must be absent, not an empty string")
	}
}

func TestEmpty(t *testing.T) {
	var c, j bytes.Buffer
	if err := CSV(&c, nil); err != nil {
		t.Fatal(err)
	}
	if recs, err := csv.NewReader(&c).ReadAll(); err != nil || len(recs) != 1 {
		t.Errorf("empty CSV = %v records (err %v), want only the header", len(recs), err)
	}
	if err := JSON(&j, nil); err != nil {
		t.Fatal(err)
	}
	var rows []Row
	if err := json.Unmarshal(j.Bytes(), &rows); err != nil || rows == nil || len(rows) != 0 {
		t.Errorf("empty JSON = %q (err %v), want []", j.String(), err)
	}
}

type failWriter struct{}

var errDisk = errors.New("disk full")

func (failWriter) Write([]byte) (int, error) { return 0, errDisk }

func TestWriteErrorsSurface(t *testing.T) {
	for name, fn := range map[string]func() error{
		"csv":  func() error { return CSV(failWriter{}, sample()) },
		"json": func() error { return JSON(failWriter{}, sample()) },
	} {
		if err := fn(); !errors.Is(err, errDisk) {
			t.Errorf("%s: err = %v, want it to wrap %v", name, err, errDisk)
		}
	}
}
