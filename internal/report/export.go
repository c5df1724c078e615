package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"unicode"
	"unicode/utf8"

	"github.com/paydash/paydash/api"
)

// Format is an export format.
type Format int

const (
	CSV Format = iota
	JSON
)

func (f Format) String() string {
	if f == JSON {
		return "json"
	}
	return "csv"
}

// ParseFormat reads "csv" or "json".
func ParseFormat(s string) (Format, bool) {
	switch s {
	case "csv":
		return CSV, true
	case "json":
		return JSON, true
	}
	return CSV, false
}

// header is the CSV header row, in column order.
var header = []string{
	"transaction_id", "type", "status", "currency", "amount",
	"beneficiary_name", "beneficiary_iban", "beneficiary_reference",
	"context_code", "authorised_at", "submitted_at", "settled_at",
}

// Header returns the CSV column names in order (a fresh slice each call).
func Header() []string { return append([]string(nil), header...) }

// Row is one element of the JSON export: the report's own member names,
// plus "amount" in major units. The writer produces exactly what
// encoding/json makes of it (TestWriterMatchesEncoders).
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

// Writer streams report rows as CSV or JSON, one at a time, for the
// dashboard's export and `paydash transactions`, so both write the same
// bytes for the same rows and a million rows never sit in memory.
//
// Both formats carry the amount in major units as api.FormatAmountPlain
// writes it, and JSON also "amount_in_minor" (lossless, for programs).
// Timestamps use the report layout (seven fractional digits, Z); a state
// not yet reached is an empty cell (CSV) or an absent member (JSON).
//
// CSV is RFC 4180 as encoding/csv writes it. Free-text cells a
// spreadsheet would evaluate as a formula (starting with = + - @, tab or
// carriage return) get a leading single quote: beneficiary names and
// references come from outside, and exports are opened in spreadsheets
// (OWASP "CSV injection"). JSON is not a spreadsheet: text is verbatim.
type Writer struct {
	w      *bufio.Writer
	format Format
	line   []byte
	n      int
	esc    bytes.Buffer
	enc    *json.Encoder
	err    error
}

// NewWriter starts an export to w; Close finishes it.
func NewWriter(w io.Writer, format Format) *Writer {
	x := &Writer{w: bufio.NewWriterSize(w, 64<<10), format: format, line: make([]byte, 0, 512)}
	x.enc = json.NewEncoder(&x.esc)
	x.enc.SetEscapeHTML(false)
	if format == CSV {
		for i, h := range header {
			if i > 0 {
				x.line = append(x.line, ',')
			}
			x.line = append(x.line, h...)
		}
		x.line = append(x.line, '\n')
	} else {
		x.line = append(x.line, "[\n"...)
	}
	x.flushLine("header")
	return x
}

// Count is the number of rows written.
func (x *Writer) Count() int { return x.n }

func (x *Writer) flushLine(what string) {
	x.flushRow(what, nil)
}

// flushRow writes the line; t (when not nil) names the row in an error.
func (x *Writer) flushRow(what string, t *api.Transaction) {
	if x.err != nil {
		return
	}
	if _, err := x.w.Write(x.line); err != nil {
		if t != nil {
			what = "row " + strconv.Itoa(x.n) + " (" + t.TransactionID + ")"
		}
		x.err = fmt.Errorf("export %s: %s: %w", x.format, what, err)
	}
	x.line = x.line[:0]
}

// Write adds one row.
func (x *Writer) Write(t *api.Transaction) error {
	if x.err != nil {
		return x.err
	}
	x.n++
	if x.format == CSV {
		x.appendCSV(t)
	} else {
		x.appendJSON(t)
	}
	x.flushRow("", t)
	return x.err
}

// Close writes the end of the export and flushes it.
func (x *Writer) Close() error {
	if x.format == JSON {
		x.line = append(x.line, "]\n"...)
		x.flushLine("end")
	}
	if x.err == nil {
		if err := x.w.Flush(); err != nil {
			x.err = fmt.Errorf("export %s: %w", x.format, err)
		}
	}
	return x.err
}

func (x *Writer) appendCSV(t *api.Transaction) {
	b := x.line
	b = csvField(b, t.TransactionID, false)
	b = csvField(append(b, ','), t.Type, false)
	b = csvField(append(b, ','), t.Status, false)
	b = csvField(append(b, ','), t.Currency, false)
	b = append(b, ',')
	b = appendAmountPlain(b, t.AmountInMinor, t.Currency)
	b = csvField(append(b, ','), t.BeneficiaryName, true)
	b = csvField(append(b, ','), t.BeneficiaryIBAN, true)
	b = csvField(append(b, ','), t.BeneficiaryReference, true)
	b = csvField(append(b, ','), t.ContextCode, true)
	for _, ts := range [...]api.ReportTime{t.AuthorisedAt, t.SubmittedAt, t.SettledAt} {
		b = append(b, ',')
		if !ts.IsZero() {
			b = api.AppendReportTime(b, ts)
		}
	}
	x.line = append(b, '\n')
}

// csvField writes one cell as encoding/csv would (quoted when it holds a
// comma, quote, CR or LF, or starts with a space), defused first when it
// is free text.
func csvField(b []byte, s string, free bool) []byte {
	if free && s != "" {
		switch s[0] {
		case '=', '+', '-', '@', '\t', '\r':
			return csvQuoted(b, "'"+s)
		}
	}
	return csvQuoted(b, s)
}

func csvQuoted(b []byte, s string) []byte {
	if !csvNeedsQuotes(s) {
		return append(b, s...)
	}
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		if s[i] == '"' {
			b = append(b, '"')
		}
		b = append(b, s[i])
	}
	return append(b, '"')
}

func csvNeedsQuotes(s string) bool {
	if s == "" {
		return false
	}
	if s == `\.` {
		return true
	}
	for i := 0; i < len(s); i++ {
		if csvSpecial[s[i]] {
			return true
		}
	}
	if c := s[0]; c < utf8.RuneSelf {
		return c == ' ' || '\t' <= c && c <= '\r'
	}
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsSpace(r)
}

// csvSpecial marks the bytes that make encoding/csv quote a field.
var csvSpecial = [256]bool{',': true, '"': true, '\r': true, '\n': true}

func (x *Writer) appendJSON(t *api.Transaction) {
	b := x.line
	if x.n > 1 {
		b = append(b, ',')
	}
	b = append(b, `{"transaction_id":`...)
	b = x.jsonString(b, t.TransactionID)
	b = append(b, `,"type":`...)
	b = x.jsonString(b, t.Type)
	b = append(b, `,"status":`...)
	b = x.jsonString(b, t.Status)
	b = append(b, `,"currency":`...)
	b = x.jsonString(b, t.Currency)
	b = append(b, `,"amount":"`...)
	b = appendAmountPlain(b, t.AmountInMinor, t.Currency)
	b = append(b, `","amount_in_minor":`...)
	b = strconv.AppendInt(b, t.AmountInMinor, 10)
	b = append(b, `,"beneficiary_name":`...)
	b = x.jsonString(b, t.BeneficiaryName)
	b = append(b, `,"beneficiary_iban":`...)
	b = x.jsonString(b, t.BeneficiaryIBAN)
	b = append(b, `,"beneficiary_reference":`...)
	b = x.jsonString(b, t.BeneficiaryReference)
	b = append(b, `,"context_code":`...)
	b = x.jsonString(b, t.ContextCode)
	for _, m := range [...]struct {
		name string
		ts   api.ReportTime
	}{{`,"authorised_at":"`, t.AuthorisedAt}, {`,"submitted_at":"`, t.SubmittedAt}, {`,"settled_at":"`, t.SettledAt}} {
		if !m.ts.IsZero() {
			b = append(b, m.name...)
			b = append(api.AppendReportTime(b, m.ts), '"')
		}
	}
	x.line = append(b, "}\n"...)
}

// jsonString quotes s as encoding/json with HTML escaping off: plain
// printable ASCII is copied, anything else goes through the encoder.
func (x *Writer) jsonString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			x.esc.Reset()
			_ = x.enc.Encode(s) // a string always encodes
			return append(b, bytes.TrimSuffix(x.esc.Bytes(), []byte("\n"))...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// appendAmountPlain is api.FormatAmountPlain without the string.
func appendAmountPlain(b []byte, minor int64, currency string) []byte {
	digits, ok := api.CurrencyDigits(currency)
	if !ok {
		digits = 2
	}
	mag := uint64(minor) //nolint:gosec // G115: negated below when minor is negative (two's complement gives the magnitude)
	if minor < 0 {
		b = append(b, '-')
		mag = -mag
	}
	scale := uint64(1)
	for range digits {
		scale *= 10
	}
	b = strconv.AppendUint(b, mag/scale, 10)
	if digits > 0 {
		b = append(b, '.')
		frac := mag % scale
		for p := scale / 10; p > 0; p /= 10 {
			b = append(b, byte('0'+frac/p%10))
		}
	}
	return b
}

// Export writes rows of s in their order.
func (s *Store) Export(w io.Writer, f Format, rows []int32) (int, error) {
	x := NewWriter(w, f)
	for _, i := range rows {
		t := s.Tx(i)
		if err := x.Write(&t); err != nil {
			return x.Count(), err
		}
	}
	return x.Count(), x.Close()
}
