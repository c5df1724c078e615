package headless

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/mattn/go-runewidth"
	"github.com/spf13/pflag"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/cli/cmdutil"
	"github.com/paydash/paydash/internal/export"
)

// TransactionsOptions are the flags of `paydash transactions`.
type TransactionsOptions struct {
	From     string
	To       string
	Since    string
	Type     string
	Currency string
	Status   string
	Search   string
	CSV      bool
	JSON     bool
	Out      string
}

// Bind registers the flags.
func (o *TransactionsOptions) Bind(fs *pflag.FlagSet) {
	fs.StringVar(&o.From, "from", "", "first day or time to include: 2025-01-31 or RFC 3339")
	fs.StringVar(&o.To, "to", "", "last day to include (2025-01-31 means up to the end of that day) or an RFC 3339 time")
	fs.StringVar(&o.Since, "since", "", "only the last period: 24h, 7d, 30d, 2w, or today")
	fs.StringVar(&o.Type, "type", "", "transaction type, e.g. payout or funding")
	fs.StringVar(&o.Currency, "currency", "", "currency, e.g. GBP")
	fs.StringVar(&o.Status, "status", "", "status, e.g. settled, rejected")
	fs.StringVar(&o.Search, "search", "", "text to find in beneficiary name, IBAN, reference or transaction id")
	fs.BoolVar(&o.CSV, "csv", false, "write CSV")
	fs.BoolVar(&o.JSON, "json", false, "write JSON")
	fs.StringVarP(&o.Out, "out", "o", "", "write to this file instead of standard output (format from --csv/--json or the .csv/.json extension)")
}

// TransactionStreamer is the part of the api client `transactions` uses.
type TransactionStreamer interface {
	StreamTransactions(ctx context.Context, q api.TransactionQuery, fn func(api.Transaction) error) error
}

// Query turns the flags into the service query and the filters the
// service does not take (status, search), applied as rows stream in.
func (o *TransactionsOptions) Query(now time.Time) (api.TransactionQuery, func(*api.Transaction) bool, error) {
	var q api.TransactionQuery
	if o.Since != "" && o.From != "" {
		return q, nil, fmt.Errorf("give --since or --from, not both")
	}
	var err error
	if o.Since != "" {
		if q.From, err = ParseSince(o.Since, now); err != nil {
			return q, nil, err
		}
	}
	if o.From != "" {
		if q.From, err = parseWhen(o.From, false); err != nil {
			return q, nil, fmt.Errorf("--from: %w", err)
		}
	}
	if o.To != "" {
		if q.To, err = parseWhen(o.To, true); err != nil {
			return q, nil, fmt.Errorf("--to: %w", err)
		}
	}
	if !q.From.IsZero() && !q.To.IsZero() && q.To.Before(q.From) {
		return q, nil, fmt.Errorf("--to (%s) is before --from (%s)", q.To.Format(time.RFC3339), q.From.Format(time.RFC3339))
	}
	q.Type = strings.TrimSpace(o.Type)
	q.Currency = strings.ToUpper(strings.TrimSpace(o.Currency))
	status := strings.ToLower(strings.TrimSpace(o.Status))
	search := strings.ToLower(strings.TrimSpace(o.Search))
	keep := func(t *api.Transaction) bool {
		if status != "" && strings.ToLower(t.Status) != status {
			return false
		}
		if search == "" {
			return true
		}
		for _, f := range []string{t.BeneficiaryName, t.BeneficiaryIBAN, t.BeneficiaryReference, t.TransactionID} {
			if strings.Contains(strings.ToLower(f), search) {
				return true
			}
		}
		// An IBAN is often typed with spaces.
		return strings.Contains(strings.ToLower(t.BeneficiaryIBAN), strings.ReplaceAll(search, " ", ""))
	}
	return q, keep, nil
}

// ParseSince reads a look-back period: "today", Nd (days), Nw (weeks), or
// any Go duration ("36h", "90m"), and returns its start.
func ParseSince(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(strings.ToLower(s))
	if s == "today" {
		y, m, d := now.Date()
		return time.Date(y, m, d, 0, 0, 0, 0, now.Location()), nil
	}
	for suffix, unit := range map[string]time.Duration{"d": 24 * time.Hour, "w": 7 * 24 * time.Hour} {
		if n, ok := strings.CutSuffix(s, suffix); ok {
			v, err := strconv.Atoi(n)
			if err != nil || v <= 0 {
				return time.Time{}, fmt.Errorf("--since %q: want a positive number before %q, e.g. 7d", s, suffix)
			}
			return now.Add(-time.Duration(v) * unit), nil
		}
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return time.Time{}, fmt.Errorf("--since %q: want today, 7d, 2w or a duration like 36h", s)
	}
	return now.Add(-d), nil
}

// parseWhen reads a date (local midnight; as an upper bound, the end of
// that day) or an RFC 3339 time.
func parseWhen(s string, upper bool) (time.Time, error) {
	s = strings.TrimSpace(s)
	if d, err := time.ParseInLocation(time.DateOnly, s, time.Local); err == nil {
		if upper {
			return d.AddDate(0, 0, 1).Add(-100 * time.Nanosecond), nil
		}
		return d, nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%q is neither a date like 2025-01-31 nor a time like 2025-01-31T09:30:00Z", s)
	}
	return t, nil
}

// format picks the output format from the flags and the --out extension.
func (o *TransactionsOptions) format() (string, error) {
	if o.CSV && o.JSON {
		return "", fmt.Errorf("give --csv or --json, not both")
	}
	switch {
	case o.CSV:
		return "csv", nil
	case o.JSON:
		return "json", nil
	}
	switch strings.ToLower(filepath.Ext(o.Out)) {
	case ".csv":
		return "csv", nil
	case ".json":
		return "json", nil
	}
	return "table", nil
}

// Transactions streams the report to standard output or --out, filtered,
// with a running count on stderr when it is a terminal.
func Transactions(ctx context.Context, s *cmdutil.Streams, c TransactionStreamer, o *TransactionsOptions) error {
	q, keep, err := o.Query(time.Now())
	if err != nil {
		return cmdutil.Exit(cmdutil.ExitUsage, err)
	}
	format, err := o.format()
	if err != nil {
		return cmdutil.Exit(cmdutil.ExitUsage, err)
	}
	out := s.Out
	var file *atomicFile
	if o.Out != "" {
		if file, err = createAtomic(o.Out); err != nil {
			return err
		}
		defer file.abort()
		out = file
	}
	bw := bufio.NewWriterSize(out, 64<<10)
	var w rowWriter
	switch format {
	case "csv":
		w = &chunkWriter{w: bw, encode: export.CSV, join: joinCSV}
	case "json":
		w = &chunkWriter{w: bw, encode: export.JSON, join: joinJSON}
	default:
		w = &tableWriter{w: bw}
	}
	prog := cmdutil.NewProgress(s, "fetching transactions", 0)
	var seen, kept int64
	err = c.StreamTransactions(ctx, q, func(t api.Transaction) error {
		seen++
		prog.Set(seen)
		if !keep(&t) {
			return nil
		}
		kept++
		return w.write(t)
	})
	prog.Done()
	if err != nil {
		return fmt.Errorf("read transactions (after %s rows): %w", humanize.Comma(seen), err)
	}
	if err := w.close(); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write transactions: %w", err)
	}
	if file != nil {
		if err := file.commit(); err != nil {
			return err
		}
		fmt.Fprintf(s.Err, "wrote %s of %s transactions to %s\n", humanize.Comma(kept), humanize.Comma(seen), o.Out)
	} else if s.ErrTerminal && format == "table" {
		fmt.Fprintf(s.Err, "%s of %s transactions\n", humanize.Comma(kept), humanize.Comma(seen))
	}
	return nil
}

type rowWriter interface {
	write(api.Transaction) error
	close() error
}

// chunkWriter streams rows through the export package in chunks, so the
// headless report and the dashboard's ctrl+s export are byte-identical
// while a million-row report never sits in memory whole.
type chunkWriter struct {
	w       io.Writer
	encode  func(io.Writer, []api.Transaction) error
	join    func(b []byte, first, last bool) []byte
	buf     []api.Transaction
	tmp     bytes.Buffer
	started bool
}

const chunkRows = 2048

func (c *chunkWriter) write(t api.Transaction) error {
	c.buf = append(c.buf, t)
	if len(c.buf) >= chunkRows {
		return c.flush(false)
	}
	return nil
}

func (c *chunkWriter) flush(last bool) error {
	c.tmp.Reset()
	if err := c.encode(&c.tmp, c.buf); err != nil {
		return err
	}
	if _, err := c.w.Write(c.join(c.tmp.Bytes(), !c.started, last)); err != nil {
		return fmt.Errorf("write transactions: %w", err)
	}
	c.started = true
	c.buf = c.buf[:0]
	return nil
}

func (c *chunkWriter) close() error { return c.flush(true) }

// joinCSV keeps the header of the first chunk only.
func joinCSV(b []byte, first, _ bool) []byte {
	if first {
		return b
	}
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		return b[i+1:]
	}
	return nil
}

// joinJSON splices chunks of "[\n" row ("," row)* "]\n" into one array.
func joinJSON(b []byte, first, last bool) []byte {
	body := bytes.TrimSuffix(bytes.TrimPrefix(b, []byte("[\n")), []byte("]\n"))
	var out []byte
	if first {
		out = append(out, "[\n"...)
	} else if len(body) > 0 {
		out = append(out, ',')
	}
	out = append(out, body...)
	if last {
		out = append(out, "]\n"...)
	}
	return out
}

// tableWriter prints fixed-width columns as rows arrive, so a person sees
// the first rows at once and memory stays flat.
type tableWriter struct {
	w       io.Writer
	started bool
}

var tableCols = []struct {
	name  string
	width int
	right bool
}{
	{"TIME (UTC)", 19, false}, {"TYPE", 8, false}, {"STATUS", 10, false}, {"AMOUNT", 16, true},
	{"BENEFICIARY", 24, false}, {"REFERENCE", 20, false}, {"TRANSACTION ID", 36, false},
}

func (t *tableWriter) line(cells []string) error {
	var b strings.Builder
	for i, c := range tableCols {
		v := runewidth.Truncate(cells[i], c.width, "…")
		pad := strings.Repeat(" ", c.width-runewidth.StringWidth(v))
		if i > 0 {
			b.WriteString("  ")
		}
		if c.right {
			b.WriteString(pad + v)
		} else if i < len(tableCols)-1 {
			b.WriteString(v + pad)
		} else {
			b.WriteString(v)
		}
	}
	b.WriteByte('\n')
	_, err := io.WriteString(t.w, b.String())
	return err
}

func (t *tableWriter) header() error {
	if t.started {
		return nil
	}
	t.started = true
	names := make([]string, len(tableCols))
	for i, c := range tableCols {
		names[i] = c.name
	}
	return t.line(names)
}

func (t *tableWriter) write(tx api.Transaction) error {
	if err := t.header(); err != nil {
		return err
	}
	return t.line([]string{txTime(tx).UTC().Format(time.DateTime), tx.Type, tx.Status,
		api.FormatAmount(tx.AmountInMinor, tx.Currency), tx.BeneficiaryName, tx.BeneficiaryReference, tx.TransactionID})
}

func (t *tableWriter) close() error { return t.header() }

// txTime is a transaction's latest timestamp.
func txTime(tx api.Transaction) time.Time {
	for _, ts := range []api.ReportTime{tx.SettledAt, tx.SubmittedAt, tx.AuthorisedAt} {
		if !ts.IsZero() {
			return ts.Time
		}
	}
	return time.Time{}
}

// atomicFile is an output file that appears only when complete, so a
// failed or interrupted export never leaves a truncated report behind.
// It is 0600: reports name beneficiaries and their accounts.
type atomicFile struct {
	*os.File
	path string
	done bool
}

func createAtomic(path string) (*atomicFile, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	return &atomicFile{File: f, path: path}, nil
}

func (a *atomicFile) commit() error {
	if err := a.Sync(); err != nil {
		return fmt.Errorf("write %s: %w", a.path, err)
	}
	if err := a.Close(); err != nil {
		return fmt.Errorf("write %s: %w", a.path, err)
	}
	if err := os.Rename(a.Name(), a.path); err != nil {
		return fmt.Errorf("write %s: %w", a.path, err)
	}
	a.done = true
	return nil
}

func (a *atomicFile) abort() {
	if !a.done {
		a.Close()
		os.Remove(a.Name())
	}
}
