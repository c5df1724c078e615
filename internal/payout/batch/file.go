package batch

import (
	"bytes"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/google/uuid"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/payout"
)

// Column names of the CSV header. The first five are required; the order
// of columns is free.
const (
	ColName          = "name"
	ColIBAN          = "iban"
	ColReference     = "reference"
	ColAmount        = "amount"
	ColCurrency      = "currency"
	ColContextCode   = "context_code"
	ColTransactionID = "transaction_id"
)

var (
	requiredColumns = []string{ColName, ColIBAN, ColReference, ColAmount, ColCurrency}
	optionalColumns = []string{ColContextCode, ColTransactionID}
	// columnOfField names the CSV column a payout request field came from,
	// so a validation problem points at what the person typed.
	columnOfField = map[string]string{
		"beneficiary_name":      ColName,
		"beneficiary_iban":      ColIBAN,
		"beneficiary_reference": ColReference,
		"amount_in_minor":       ColAmount,
		"currency":              ColCurrency,
		"context_code":          ColContextCode,
		"transaction_id":        ColTransactionID,
	}
)

// MaxFileSize bounds what Load reads, so a wrong file (a video, a log)
// fails fast instead of filling memory.
const MaxFileSize = 64 << 20

// Row is one payout of the file.
type Row struct {
	// Line is the file line the row starts on (the header is line 1).
	Line int
	// Request is the payout to send. TransactionID is empty unless the file
	// gave one; the journal fixes it before anything is sent.
	Request api.PayoutRequest
}

// File is a parsed, fully valid batch file.
type File struct {
	Path string
	// SHA256 is the hex digest of the file's bytes: the journal remembers
	// it so a changed file is never resumed as if it were the same batch.
	SHA256 string
	Rows   []Row
}

// Totals sums the file's amounts per currency, for summaries and
// confirmation prompts.
func (f *File) Totals() map[string]int64 {
	t := map[string]int64{}
	for _, r := range f.Rows {
		t[r.Request.Currency] += r.Request.AmountInMinor
	}
	return t
}

// LineProblem is one thing wrong with one line of the file.
type LineProblem struct {
	Line    int    `json:"line"`
	Column  string `json:"column,omitempty"`
	Message string `json:"message"`
}

func (p LineProblem) String() string {
	if p.Column == "" {
		return fmt.Sprintf("line %d: %s", p.Line, p.Message)
	}
	return fmt.Sprintf("line %d: %s: %s", p.Line, p.Column, p.Message)
}

// InvalidFileError lists every problem of a refused file. Nothing was sent.
type InvalidFileError struct {
	Path     string
	Problems []LineProblem
}

// Lines returns the distinct line numbers that have problems, ascending.
func (e *InvalidFileError) Lines() []int {
	seen := map[int]bool{}
	var out []int
	for _, p := range e.Problems {
		if !seen[p.Line] {
			seen[p.Line] = true
			out = append(out, p.Line)
		}
	}
	sort.Ints(out)
	return out
}

func (e *InvalidFileError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d bad row(s); nothing was sent. Fix every line below and run again:", e.Path, len(e.Lines()))
	for _, p := range e.Problems {
		b.WriteString("\n  ")
		b.WriteString(p.String())
	}
	return b.String()
}

// Load reads and checks a batch file.
func Load(path string) (*File, error) {
	f, err := os.Open(path) //nolint:gosec // the batch file the operator named
	if err != nil {
		return nil, fmt.Errorf("open batch file: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("read batch file %s: %w", path, err)
	}
	if len(data) > MaxFileSize {
		return nil, fmt.Errorf("batch file %s is larger than %d MiB; split it into smaller files", path, MaxFileSize>>20)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	return Parse(abs, data)
}

// Parse checks a batch file's bytes. On any bad row it returns an
// *InvalidFileError listing all of them; the File is then nil.
func Parse(path string, data []byte) (*File, error) {
	sum := sha256.Sum256(data)
	file := &File{Path: path, SHA256: hex.EncodeToString(sum[:])}
	bad := &InvalidFileError{Path: path}
	problem := func(line int, col, format string, args ...any) {
		bad.Problems = append(bad.Problems, LineProblem{Line: line, Column: col, Message: fmt.Sprintf(format, args...)})
	}

	// Spreadsheets save CSV with a UTF-8 byte-order mark; it is not part
	// of the first column's name.
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	comma, err := delimiter(data)
	if err != nil {
		problem(1, "", "%v", err)
		return nil, bad
	}
	r := csv.NewReader(bytes.NewReader(data))
	r.Comma = comma
	r.FieldsPerRecord = -1 // counted per row below, to report every bad line
	r.TrimLeadingSpace = true
	r.ReuseRecord = false

	header, err := r.Read()
	if errors.Is(err, io.EOF) {
		problem(1, "", "the file is empty; want a header row %s", strings.Join(append(requiredColumns, optionalColumns...), ","))
		return nil, bad
	}
	if err != nil {
		problem(lineOf(err, 1), "", "not valid CSV: %v", err)
		return nil, bad
	}
	cols, ok := parseHeader(header, problem)
	if !ok {
		return nil, bad
	}

	seenID := map[string]int{}
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			// A quoting error leaves the reader unable to find the next
			// row reliably: report it and stop reading.
			problem(lineOf(err, 0), "", "not valid CSV: %v", unwrapCSV(err))
			break
		}
		line, _ := r.FieldPos(0)
		if len(rec) != len(header) {
			problem(line, "", "has %d field(s), the header has %d", len(rec), len(header))
			continue
		}
		row, probs := parseRow(line, rec, cols)
		bad.Problems = append(bad.Problems, probs...)
		if id := row.Request.TransactionID; id != "" {
			if first, dup := seenID[id]; dup {
				problem(line, ColTransactionID, "%s is already used on line %d; every payout needs its own id", id, first)
			} else {
				seenID[id] = line
			}
		}
		file.Rows = append(file.Rows, row)
	}
	if len(bad.Problems) == 0 && len(file.Rows) == 0 {
		problem(1, "", "the file has a header but no rows")
	}
	if len(bad.Problems) > 0 {
		sort.SliceStable(bad.Problems, func(i, j int) bool { return bad.Problems[i].Line < bad.Problems[j].Line })
		return nil, bad
	}
	return file, nil
}

// delimiters a batch file's columns may be separated by: spreadsheets in
// much of Europe save "CSV" with semicolons, and tab-separated text is
// what a copy from a spreadsheet gives.
var delimiters = []rune{',', ';', '\t'}

// delimiter finds the column separator from the header line: the one of
// delimiters that splits it into the most fields. A header split by none
// of them but by another common separator is refused once, naming it,
// rather than reported as one unknown column and five missing ones.
func delimiter(data []byte) (rune, error) {
	first, _, _ := bytes.Cut(data, []byte("\n"))
	header := string(bytes.TrimRight(first, "\r"))
	best, most := ',', 0
	for _, d := range delimiters {
		if n := strings.Count(header, string(d)); n > most {
			best, most = d, n
		}
	}
	if most == 0 {
		for _, other := range []string{"|", ":"} {
			if strings.Count(header, other) >= len(requiredColumns)-1 {
				return 0, fmt.Errorf("the header's columns are separated by %q; separate them with commas (or semicolons, or tabs): %s",
					other, strings.Join(append(requiredColumns, optionalColumns...), ","))
			}
		}
	}
	return best, nil
}

// parseHeader maps column names to indexes, reporting unknown, repeated
// and missing columns.
func parseHeader(header []string, problem func(int, string, string, ...any)) (map[string]int, bool) {
	known := map[string]bool{}
	for _, c := range append(requiredColumns, optionalColumns...) {
		known[c] = true
	}
	cols := map[string]int{}
	ok := true
	for i, h := range header {
		name := strings.ToLower(strings.TrimSpace(h))
		switch {
		case !known[name]:
			problem(1, "", "unknown column %q; the columns are %s", h, strings.Join(append(requiredColumns, optionalColumns...), ", "))
			ok = false
		case hasIndex(cols, name):
			problem(1, "", "column %q appears twice", name)
			ok = false
		default:
			cols[name] = i
		}
	}
	for _, c := range requiredColumns {
		if !hasIndex(cols, c) {
			problem(1, "", "missing required column %q (header must name %s)", c, strings.Join(requiredColumns, ","))
			ok = false
		}
	}
	return cols, ok
}

func hasIndex(m map[string]int, k string) bool { _, ok := m[k]; return ok }

// placeholderID stands in for a transaction_id the journal will assign, so
// validation of the other fields can run before the journal exists.
const placeholderID = "00000000-0000-4000-8000-000000000000"

func parseRow(line int, rec []string, cols map[string]int) (Row, []LineProblem) {
	var probs []LineProblem
	get := func(c string) string {
		if i, ok := cols[c]; ok {
			return strings.TrimSpace(rec[i])
		}
		return ""
	}
	req := api.PayoutRequest{
		BeneficiaryName:      get(ColName),
		BeneficiaryIBAN:      api.NormalizeIBAN(get(ColIBAN)),
		BeneficiaryReference: get(ColReference),
		Currency:             strings.ToUpper(get(ColCurrency)),
		ContextCode:          get(ColContextCode),
	}
	if req.ContextCode == "" {
		req.ContextCode = api.ContextCodeWithdrawal
	}
	amountBad := false
	if s := get(ColAmount); s == "" {
		probs = append(probs, LineProblem{line, ColAmount, "is empty; give the amount in major units, e.g. 12.50"})
		amountBad = true
	} else if minor, err := api.ParseAmount(s, req.Currency, false); err != nil {
		probs = append(probs, LineProblem{line, ColAmount, err.Error()})
		amountBad = true
	} else {
		req.AmountInMinor = minor
	}
	idBad := false
	if s := get(ColTransactionID); s != "" {
		id, err := uuid.Parse(s)
		if err != nil {
			probs = append(probs, LineProblem{line, ColTransactionID, fmt.Sprintf("%q is not a UUID (leave the cell empty and paydash assigns one)", s)})
			idBad = true
		} else {
			req.TransactionID = id.String()
		}
	}

	check := req
	if check.TransactionID == "" || idBad {
		check.TransactionID = placeholderID
	}
	if amountBad {
		check.AmountInMinor = 1 // already reported; keep the rules from repeating it
	}
	for _, p := range api.ValidatePayout(&check) {
		col, ok := columnOfField[p.Field]
		if !ok {
			col = p.Field
		}
		if (col == ColAmount && amountBad) || (col == ColTransactionID && idBad) {
			continue
		}
		probs = append(probs, LineProblem{line, col, p.Message})
	}
	return Row{Line: line, Request: req}, probs
}

// lineOf extracts the line of a csv.ParseError, or def.
func lineOf(err error, def int) int {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		if pe.StartLine > 0 {
			return pe.StartLine
		}
		return pe.Line
	}
	return def
}

func unwrapCSV(err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) && pe.Err != nil {
		return pe.Err
	}
	return err
}

// DuplicateRows lists the rows that repeat an earlier row of the file:
// same IBAN, amount, currency and reference. Such a file is refused unless
// the operator says the repeats are meant (--allow-duplicate), as a bank
// portal refuses a payment file that pays one invoice twice.
func (f *File) DuplicateRows() []LineProblem {
	var out []LineProblem
	repeats := f.Repeats()
	for _, row := range f.Rows {
		if line, dup := repeats[row.Line]; dup {
			r := row.Request
			out = append(out, LineProblem{Line: row.Line, Message: fmt.Sprintf(
				"pays %s to %s with reference %q again: line %d is the same payout (same IBAN, amount, currency and reference)",
				api.FormatAmount(r.AmountInMinor, r.Currency), r.BeneficiaryIBAN, r.BeneficiaryReference, line)})
		}
	}
	return out
}

// Repeats maps each line that repeats an earlier line's payout (same
// IBAN, amount, currency and reference) to that earlier line.
func (f *File) Repeats() map[int]int {
	out := map[int]int{}
	first := map[string]int{}
	for _, row := range f.Rows {
		k := payout.Key(&row.Request)
		if line, dup := first[k]; dup {
			out[row.Line] = line
			continue
		}
		first[k] = row.Line
	}
	return out
}
