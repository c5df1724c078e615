package report

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"testing"
	"time"

	"github.com/paydash/paydash/api"
)

// refCSV and refJSON are the export as encoding/csv and encoding/json
// write it (the implementation the Writer replaced): the Writer must give
// the same bytes.
func refCSV(w io.Writer, txs []api.Transaction) {
	cw := csv.NewWriter(w)
	_ = cw.Write(header)
	defuse := func(s string) string {
		if s != "" && (s[0] == '=' || s[0] == '+' || s[0] == '-' || s[0] == '@' || s[0] == '\t' || s[0] == '\r') {
			return "'" + s
		}
		return s
	}
	ts := func(t api.ReportTime) string {
		if t.IsZero() {
			return ""
		}
		return t.String()
	}
	for _, t := range txs {
		_ = cw.Write([]string{t.TransactionID, t.Type, t.Status, t.Currency, api.FormatAmountPlain(t.AmountInMinor, t.Currency),
			defuse(t.BeneficiaryName), defuse(t.BeneficiaryIBAN), defuse(t.BeneficiaryReference), defuse(t.ContextCode),
			ts(t.AuthorisedAt), ts(t.SubmittedAt), ts(t.SettledAt)})
	}
	cw.Flush()
}

func refJSON(w io.Writer, txs []api.Transaction) {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	bw.WriteString("[\n")
	for i, t := range txs {
		if i > 0 {
			bw.WriteString(",")
		}
		_ = enc.Encode(Row{TransactionID: t.TransactionID, Type: t.Type, Status: t.Status, Currency: t.Currency,
			Amount: api.FormatAmountPlain(t.AmountInMinor, t.Currency), AmountInMinor: t.AmountInMinor,
			BeneficiaryName: t.BeneficiaryName, BeneficiaryIBAN: t.BeneficiaryIBAN, BeneficiaryReference: t.BeneficiaryReference,
			ContextCode: t.ContextCode, AuthorisedAt: t.AuthorisedAt, SubmittedAt: t.SubmittedAt, SettledAt: t.SettledAt})
	}
	bw.WriteString("]\n")
	bw.Flush()
}

func write(t *testing.T, f Format, txs []api.Transaction) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := NewWriter(&buf, f)
	for i := range txs {
		if err := w.Write(&txs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func odd() []api.Transaction {
	at := api.NewReportTime(time.Date(2025, 3, 1, 10, 15, 30, 123456700, time.UTC))
	return []api.Transaction{
		{TransactionID: "a", Type: "payout", AuthorisedAt: at, BeneficiaryName: " leading space", BeneficiaryReference: `\.`,
			AmountInMinor: -5, Currency: "JPY", Status: "settled"},
		{TransactionID: "b", BeneficiaryName: "<tag> & \u2028 \xff bad", BeneficiaryIBAN: "\ttab", BeneficiaryReference: "\r\nx",
			AmountInMinor: 1234567, Currency: "KWD", ContextCode: "+1", Status: "failed", SettledAt: at},
		{TransactionID: "c", BeneficiaryName: "\u00a0nbsp", BeneficiaryReference: "-,\"", Currency: "XYZ", AmountInMinor: 7},
	}
}

// TestWriterMatchesEncoders: CSV and JSON, byte for byte what
// encoding/csv and encoding/json give, on awkward text and on many rows.
func TestWriterMatchesEncoders(t *testing.T) {
	for name, txs := range map[string][]api.Transaction{"odd": odd(), "generated": genTxs(3000), "empty": nil} {
		var c, j bytes.Buffer
		refCSV(&c, txs)
		refJSON(&j, txs)
		if got := write(t, CSV, txs); !bytes.Equal(got, c.Bytes()) {
			t.Errorf("%s CSV differs:\n got %q\nwant %q", name, firstDiff(got, c.Bytes()), firstDiff(c.Bytes(), got))
		}
		if got := write(t, JSON, txs); !bytes.Equal(got, j.Bytes()) {
			t.Errorf("%s JSON differs:\n got %q\nwant %q", name, firstDiff(got, j.Bytes()), firstDiff(j.Bytes(), got))
		}
	}
}

func firstDiff(a, b []byte) []byte {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return a[max(0, i-20):min(len(a), i+40)]
}

// TestExportReadsBack: a spreadsheet formula is defused in CSV, JSON
// round-trips every field, unreached states are absent.
func TestExportReadsBack(t *testing.T) {
	txs := genTxs(50)
	recs, err := csv.NewReader(bytes.NewReader(write(t, CSV, txs))).ReadAll()
	if err != nil || len(recs) != 51 || !reflect.DeepEqual(recs[0], Header()) {
		t.Fatalf("CSV: %d records, %v", len(recs), err)
	}
	for i, r := range recs[1:] {
		if name := txs[i].BeneficiaryName; name[0] == '=' && r[5] != "'"+name {
			t.Errorf("row %d name %q: formula not defused", i, r[5])
		}
	}
	var rows []Row
	out := write(t, JSON, txs)
	if err := json.Unmarshal(out, &rows); err != nil || len(rows) != 50 {
		t.Fatalf("JSON: %v", err)
	}
	for i, r := range rows {
		got := api.Transaction{TransactionID: r.TransactionID, Type: r.Type, AuthorisedAt: r.AuthorisedAt,
			SubmittedAt: r.SubmittedAt, SettledAt: r.SettledAt, BeneficiaryName: r.BeneficiaryName,
			BeneficiaryIBAN: r.BeneficiaryIBAN, BeneficiaryReference: r.BeneficiaryReference,
			AmountInMinor: r.AmountInMinor, Currency: r.Currency, ContextCode: r.ContextCode, Status: r.Status}
		if !reflect.DeepEqual(got, txs[i]) {
			t.Fatalf("row %d: %+v", i, got)
		}
	}
	if bytes.Contains(out, []byte(`"submitted_at":""`)) {
		t.Error("an unreached state must be absent")
	}
}

type failWriter struct{}

var errDisk = errors.New("disk full")

func (failWriter) Write([]byte) (int, error) { return 0, errDisk }

func TestWriteErrorsSurface(t *testing.T) {
	for _, f := range []Format{CSV, JSON} {
		w := NewWriter(failWriter{}, f)
		txs := genTxs(2000)
		var err error
		for i := range txs {
			if err = w.Write(&txs[i]); err != nil {
				break
			}
		}
		if err == nil {
			err = w.Close()
		}
		if !errors.Is(err, errDisk) {
			t.Errorf("%s: err %v, want %v", f, err, errDisk)
		}
	}
}
