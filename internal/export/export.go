// Package export writes transaction-report rows as CSV or JSON, for the
// dashboard's ctrl+s and for the headless `paydash transactions` command,
// so both produce byte-identical files for the same rows.
//
// Both formats carry the amount twice: "amount" in major units as
// api.FormatAmountPlain writes it (what a person or a spreadsheet wants)
// and, in JSON, "amount_in_minor" (what a program wants, lossless).
// Timestamps use the report layout (seven fractional digits, Z); a state
// not yet reached is an empty cell (CSV) or an absent member (JSON).
package export

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"

	"github.com/paydash/paydash/api"
)

// Header is the CSV header row, in column order.
var header = []string{
	"transaction_id", "type", "status", "currency", "amount",
	"beneficiary_name", "beneficiary_iban", "beneficiary_reference",
	"context_code", "authorised_at", "submitted_at", "settled_at",
}

// Header returns the CSV column names in order (a fresh slice each call).
func Header() []string { return append([]string(nil), header...) }

// CSV writes txs as RFC 4180 CSV with a header row.
//
// Free-text cells that a spreadsheet would evaluate as a formula (starting
// with = + - @, tab or carriage return) are prefixed with a single quote:
// beneficiary names and references come from outside, and an exported
// report is routinely opened in a spreadsheet (OWASP "CSV injection").
func CSV(w io.Writer, txs []api.Transaction) error {
	return CSVFunc(w, len(txs), func(i int) api.Transaction { return txs[i] })
}

// CSVFunc is CSV for n rows produced one at a time by row(0..n-1), so a
// caller holding rows in another shape (the dashboard's compact store)
// never materialises them all.
func CSVFunc(w io.Writer, n int, row func(i int) api.Transaction) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	cw := csv.NewWriter(bw)
	if err := cw.Write(header); err != nil {
		return fmt.Errorf("export csv: write header: %w", err)
	}
	rec := make([]string, len(header))
	for i := range n {
		tx := row(i)
		t := &tx
		rec[0] = t.TransactionID
		rec[1] = t.Type
		rec[2] = t.Status
		rec[3] = t.Currency
		rec[4] = api.FormatAmountPlain(t.AmountInMinor, t.Currency)
		rec[5] = defuse(t.BeneficiaryName)
		rec[6] = defuse(t.BeneficiaryIBAN)
		rec[7] = defuse(t.BeneficiaryReference)
		rec[8] = defuse(t.ContextCode)
		rec[9] = reportTime(t.AuthorisedAt)
		rec[10] = reportTime(t.SubmittedAt)
		rec[11] = reportTime(t.SettledAt)
		if err := cw.Write(rec); err != nil {
			return fmt.Errorf("export csv: row %d (%s): %w", i+1, t.TransactionID, err)
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("export csv: %w", err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("export csv: %w", err)
	}
	return nil
}

// Row is one element of the JSON export: the report's own member names,
// plus "amount" in major units.
type Row struct {
	TransactionID        string         `json:"transaction_id"`
	Type                 string         `json:"type"`
	Status               string         `json:"status"`
	Currency             string         `json:"currency"`
	Amount               string         `json:"amount"`
	AmountInMinor        int64          `json:"amount_in_minor"`
	BeneficiaryName      string         `json:"beneficiary_name"`
	BeneficiaryIBAN      string         `json:"beneficiary_iban"`
	BeneficiaryReference string         `json:"beneficiary_reference"`
	ContextCode          string         `json:"context_code"`
	AuthorisedAt         api.ReportTime `json:"authorised_at,omitzero"`
	SubmittedAt          api.ReportTime `json:"submitted_at,omitzero"`
	SettledAt            api.ReportTime `json:"settled_at,omitzero"`
}

// JSON writes txs as a JSON array of Row, one element per line, streamed
// so a million rows never sit in memory twice.
func JSON(w io.Writer, txs []api.Transaction) error {
	return JSONFunc(w, len(txs), func(i int) api.Transaction { return txs[i] })
}

// JSONFunc is JSON for n rows produced one at a time by row(0..n-1).
func JSONFunc(w io.Writer, n int, row func(i int) api.Transaction) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	if _, err := bw.WriteString("[\n"); err != nil {
		return fmt.Errorf("export json: %w", err)
	}
	for i := range n {
		tx := row(i)
		t := &tx
		if i > 0 {
			if _, err := bw.WriteString(","); err != nil {
				return fmt.Errorf("export json: %w", err)
			}
		}
		// Encode appends a newline, giving one element per line.
		if err := enc.Encode(Row{
			TransactionID:        t.TransactionID,
			Type:                 t.Type,
			Status:               t.Status,
			Currency:             t.Currency,
			Amount:               api.FormatAmountPlain(t.AmountInMinor, t.Currency),
			AmountInMinor:        t.AmountInMinor,
			BeneficiaryName:      t.BeneficiaryName,
			BeneficiaryIBAN:      t.BeneficiaryIBAN,
			BeneficiaryReference: t.BeneficiaryReference,
			ContextCode:          t.ContextCode,
			AuthorisedAt:         t.AuthorisedAt,
			SubmittedAt:          t.SubmittedAt,
			SettledAt:            t.SettledAt,
		}); err != nil {
			return fmt.Errorf("export json: row %d (%s): %w", i+1, t.TransactionID, err)
		}
	}
	if _, err := bw.WriteString("]\n"); err != nil {
		return fmt.Errorf("export json: %w", err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("export json: %w", err)
	}
	return nil
}

func reportTime(t api.ReportTime) string {
	if t.IsZero() {
		return ""
	}
	return t.String()
}

// defuse neutralises a cell a spreadsheet would run as a formula.
func defuse(s string) string {
	if s == "" {
		return s
	}
	switch s[0] {
	case '=', '+', '-', '@', '\t', '\r':
		return "'" + s
	}
	return s
}
