package headless

import (
	"bufio"
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/mattn/go-runewidth"

	"github.com/paydash/paydash/api"
)

// The transactions table keeps each column in the same cells on every row
// and in its header, whatever the sign, the currency symbol or a wide
// payee name (what the dashboard's report does too).
func TestTransactionsTableColumnsLineUp(t *testing.T) {
	at := api.NewReportTime(time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC))
	txs := []api.Transaction{
		{TransactionID: "5b0f3a52-7d1e-4c7a-9a57-0d6c2b1e0001", Type: api.TransactionPayout, Status: "settled", AmountInMinor: 123456, Currency: "GBP", BeneficiaryName: "Ada Lovelace", BeneficiaryReference: "INV-1", AuthorisedAt: at, SettledAt: at},
		{TransactionID: "5b0f3a52-7d1e-4c7a-9a57-0d6c2b1e0002", Type: api.TransactionFunding, Status: "settled", AmountInMinor: 50, Currency: "EUR", BeneficiaryName: "株式会社テスト", BeneficiaryReference: "TOP-UP", AuthorisedAt: at, SettledAt: at},
		{TransactionID: "5b0f3a52-7d1e-4c7a-9a57-0d6c2b1e0003", Type: api.TransactionPayout, Status: "failed", AmountInMinor: 10000000, Currency: "EUR", BeneficiaryName: "Zoë Müller", BeneficiaryReference: "WD-7", AuthorisedAt: at, SettledAt: at},
	}
	var out bytes.Buffer
	bw := bufio.NewWriter(&out)
	w := &tableWriter{w: bw}
	for i := range txs {
		if err := w.write(&txs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.close(); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != len(txs)+1 {
		t.Fatalf("table:\n%s", out.String())
	}
	// Where each column's cell starts (left) or ends (right), read from
	// the header: every row must agree.
	for ci, col := range tableCols {
		at := strings.Index(lines[0], col.name)
		want := runewidth.StringWidth(lines[0][:at])
		if col.right {
			want += runewidth.StringWidth(col.name)
		}
		for li, line := range lines[1:] {
			cell := cellOf(txs[li], ci)
			i := strings.Index(line, cell)
			if i < 0 {
				t.Fatalf("row %d lacks %q:\n%s", li, cell, out.String())
			}
			got := runewidth.StringWidth(line[:i])
			if col.right {
				got += runewidth.StringWidth(cell)
			}
			if got != want {
				t.Errorf("column %s: row %d at cell %d, header at %d:\n%s", col.name, li, got, want, out.String())
			}
		}
	}
}

// cellOf is what the table prints in column i for tx (short enough not to
// be cut here).
func cellOf(tx api.Transaction, i int) string {
	switch tableCols[i].name {
	case "TYPE":
		return tx.Type
	case "STATUS":
		return tx.Status
	case "AMOUNT":
		return api.FormatSignedAmount(api.SignedMinor(tx.Type, tx.AmountInMinor), tx.Currency)
	case "BENEFICIARY":
		return tx.BeneficiaryName
	case "REFERENCE":
		return tx.BeneficiaryReference
	case "TRANSACTION ID":
		return tx.TransactionID
	}
	return "2026-11-27 09:00:00"
}
