package headless

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/mattn/go-runewidth"
	"github.com/spf13/pflag"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/cli/cmdutil"
	"github.com/paydash/paydash/internal/platform/termtext"
	"github.com/paydash/paydash/internal/report"
	"github.com/paydash/paydash/internal/report/cache"
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
	Amount   string
	Filter   string
	View     string
	CSV      bool
	JSON     bool
	Out      string
	// Sort orders the rows (transactions_sort.go); "" is the format's
	// default.
	Sort string
	// NoCache asks the service only, leaving the report cache as it is.
	NoCache bool
	// Cache is the profile's report cache (nil = none, or --no-cache):
	// the answer then comes from it after a sync.
	Cache *cache.Cache
}

// Bind registers the flags.
func (o *TransactionsOptions) Bind(fs *pflag.FlagSet) {
	fs.StringVar(&o.From, "from", "", "first day or time to include: 2025-01-31 or RFC 3339")
	fs.StringVar(&o.To, "to", "", "last day to include (2025-01-31 means up to the end of that day) or an RFC 3339 time")
	fs.StringVar(&o.Since, "since", "", "only since then: a period (7d, 24h, 2w, \"7 days\"), today, or a time (2026-11-01, 2026-11-01T09:00:00Z)")
	fs.StringVar(&o.Type, "type", "", "transaction type, e.g. payout or funding")
	fs.StringVar(&o.Currency, "currency", "", "currency, e.g. GBP")
	// Built from the list --status is checked against, so the help cannot
	// name a status the command refuses; a rejected payout never reaches
	// the report (it was never booked), so rejected is not one.
	fs.StringVar(&o.Status, "status", "", "status: "+orWords(report.KnownStatuses)+" (rejected payouts are not in the report)")
	fs.StringVar(&o.Search, "search", "", "text to find in beneficiary name, IBAN, reference or transaction id")
	fs.StringVar(&o.Amount, "amount", "", "amount in the row's currency: 54.89, >1000, <=20 or 50..100")
	fs.StringVar(&o.Filter, "filter", "", "the dashboard's filter language, e.g. 'cur:GBP status:failed amount:>100 ada'")
	fs.StringVar(&o.View, "view", "", "a saved view of the profile ([[profiles.NAME.views]]): its filter and window, the rows the dashboard's :view shows; other flags narrow it")
	fs.BoolVar(&o.CSV, "csv", false, "write CSV")
	fs.BoolVar(&o.JSON, "json", false, "write JSON")
	fs.StringVar(&o.Sort, "sort", "", sortHelp)
	fs.BoolVar(&o.NoCache, "no-cache", false, "ask the service for the whole report instead of answering from the profile's report cache (which is left as it is)")
	fs.StringVarP(&o.Out, "out", "o", "", "write to this file instead of standard output (format from --csv/--json or the .csv/.json extension)")
}

// orWords writes "a, b or c".
func orWords(xs []string) string {
	if len(xs) < 2 {
		return strings.Join(xs, "")
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " or " + xs[len(xs)-1]
}

// RecordStreamer is the api client's cheaper stream, used when the
// client has it.
type RecordStreamer interface {
	StreamRecords(ctx context.Context, q api.TransactionQuery, fn func(*api.Record) error) error
}

// TransactionStreamer is the part of the api client `transactions` uses.
type TransactionStreamer interface {
	StreamTransactions(ctx context.Context, q api.TransactionQuery, fn func(api.Transaction) error) error
}

// Query turns the flags into the service query (dates, type, currency:
// what the service filters on) and the report filter the rows are matched
// against as they stream in: the flags are written in the dashboard's
// filter language and read by the same parser, so --status settld or
// --currency XYZ is a usage error listing the valid values, not an empty
// report.
func (o *TransactionsOptions) Query(now time.Time) (api.TransactionQuery, report.Query, error) {
	var q api.TransactionQuery
	if o.Since != "" && o.From != "" {
		return q, report.Query{}, fmt.Errorf("give --since or --from, not both")
	}
	var err error
	if o.Since != "" {
		if q.From, err = ParseSince(o.Since, now); err != nil {
			return q, report.Query{}, err
		}
	}
	if o.From != "" {
		if q.From, err = parseWhen(o.From, false); err != nil {
			return q, report.Query{}, fmt.Errorf("--from: %w", err)
		}
	}
	if o.To != "" {
		if q.To, err = parseWhen(o.To, true); err != nil {
			return q, report.Query{}, fmt.Errorf("--to: %w", err)
		}
	}
	if !q.From.IsZero() && !q.To.IsZero() && q.To.Before(q.From) {
		return q, report.Query{}, fmt.Errorf("--to (%s) is before --from (%s)", q.To.Format(time.RFC3339), q.From.Format(time.RFC3339))
	}
	var text []string
	token := func(flag, key, val string) error {
		val = strings.TrimSpace(val)
		if val == "" {
			return nil
		}
		if strings.ContainsAny(val, " \t") {
			return fmt.Errorf("--%s %q: one value, without spaces", flag, val)
		}
		text = append(text, key+":"+val)
		return nil
	}
	for _, f := range []struct{ flag, key, val string }{
		{"type", "type", o.Type}, {"currency", "cur", o.Currency}, {"status", "status", o.Status}, {"amount", "amount", o.Amount},
	} {
		if err := token(f.flag, f.key, f.val); err != nil {
			return q, report.Query{}, err
		}
	}
	text = append(text, o.Filter, o.Search)
	rq := report.Parse(strings.Join(text, " "), now)
	if err := rq.Check(); err != nil {
		return q, rq, err
	}
	// The service filters type and currency itself: fewer bytes to read.
	q.Type = strings.TrimSpace(o.Type)
	q.Currency = strings.ToUpper(strings.TrimSpace(o.Currency))
	return q, rq, nil
}

// ParseSince is cmdutil.ParseSince: every --since reads the same forms.
func ParseSince(s string, now time.Time) (time.Time, error) { return cmdutil.ParseSince(s, now) }

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

// Check reports a usage error (exit 2) for flags that cannot be read or
// name an unknown type, currency or status, listing the valid values.
func (o *TransactionsOptions) Check() error {
	if _, _, err := o.Query(time.Now()); err != nil {
		return cmdutil.Exit(cmdutil.ExitUsage, err)
	}
	format, err := o.format()
	if err != nil {
		return cmdutil.Exit(cmdutil.ExitUsage, err)
	}
	if _, err := parseSort(o.Sort, format); err != nil {
		return cmdutil.Exit(cmdutil.ExitUsage, err)
	}
	return nil
}

// Transactions streams the report to standard output or --out, filtered,
// with a running count on stderr when it is a terminal. CSV and JSON go
// through the report engine's writer, record by record, so memory stays
// flat whatever the report's size and the bytes are the dashboard's
// export's.
func Transactions(ctx context.Context, s *cmdutil.Streams, c TransactionStreamer, o *TransactionsOptions) error {
	q, rq, err := o.Query(time.Now())
	if err != nil {
		return cmdutil.Exit(cmdutil.ExitUsage, err)
	}
	format, err := o.format()
	if err != nil {
		return cmdutil.Exit(cmdutil.ExitUsage, err)
	}
	order, err := parseSort(o.Sort, format)
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
	var w rowWriter
	switch format {
	case "csv":
		w = exportWriter{report.NewWriter(out, report.CSV)}
	case "json":
		w = exportWriter{report.NewWriter(out, report.JSON)}
	default:
		w = &tableWriter{w: bufio.NewWriterSize(out, 64<<10)}
	}
	if !order.none {
		w = &sortingWriter{k: order, next: w}
	}
	prog := cmdutil.NewProgress(s, "fetching transactions", 0)
	all := rq.Empty()
	var seen, kept int64
	each := func(t *api.Transaction) error {
		seen++
		if seen&1023 == 0 {
			prog.Set(seen)
		}
		if !all && !rq.MatchTx(t) {
			return nil
		}
		kept++
		return w.write(t)
	}
	if o.Cache != nil {
		var n atomic.Int64
		stop := make(chan struct{})
		go func() { // the count of rows fetched, while the cache syncs
			for {
				select {
				case <-stop:
					return
				case <-time.After(100 * time.Millisecond):
					prog.Set(n.Load())
				}
			}
		}()
		h, herr := heldReport(ctx, s, c, o.Cache, time.Now(), &n)
		close(stop)
		if herr != nil {
			prog.Done()
			return herr
		}
		seen, kept, err = fromCache(h.Store, q, &rq, w)
	} else if rs, ok := c.(RecordStreamer); ok && order.none {
		// Rows are written and dropped: no need to make their strings.
		var t api.Transaction // one for the whole stream: no allocation a record
		err = rs.StreamRecords(ctx, q, func(r *api.Record) error {
			t = r.Transient()
			return each(&t)
		})
	} else {
		err = c.StreamTransactions(ctx, q, func(t api.Transaction) error { return each(&t) })
	}
	prog.Set(seen)
	prog.Done()
	if err != nil {
		return fmt.Errorf("read transactions (after %s rows): %w", humanize.Comma(seen), err)
	}
	if err := w.close(); err != nil {
		return fmt.Errorf("write transactions: %w", err)
	}
	if file != nil {
		if err := file.commit(); err != nil {
			return err
		}
		fmt.Fprintf(s.Err, "wrote %s to %s: %s\n", transactionCount(kept), o.Out, o.countedAs(kept, seen))
	} else if s.ErrTerminal && format == "table" {
		fmt.Fprintf(s.Err, "%s: %s\n", transactionCount(kept), o.countedAs(kept, seen))
	}
	return nil
}

// countedAs says what the kept rows are and what they were counted among:
// the service returns the rows of the dates, type and currency asked
// (seen), and --status, --amount, --search and --filter are matched here,
// so "3,301 of 3,355" needs both halves named.
func (o *TransactionsOptions) countedAs(kept, seen int64) string {
	among := "in the report"
	if scope := flagList([2]string{"type", o.Type}, [2]string{"currency", o.Currency},
		[2]string{"since", o.Since}, [2]string{"from", o.From}, [2]string{"to", o.To}); scope != "" {
		among = "for " + scope
	}
	matching := flagList([2]string{"status", o.Status}, [2]string{"amount", o.Amount}, [2]string{"search", o.Search}, [2]string{"filter", o.Filter})
	if matching == "" {
		if kept == seen {
			return "all " + among
		}
		// The service sent rows of another type or currency than asked;
		// they were matched out here.
		matching = flagList([2]string{"type", o.Type}, [2]string{"currency", o.Currency})
	}
	return fmt.Sprintf("those matching %s among the %s %s", matching, humanize.Comma(seen), among)
}

func transactionCount(n int64) string {
	if n == 1 {
		return "1 transaction"
	}
	return humanize.Comma(n) + " transactions"
}

// flagList writes the given flags as typed: --type payout --currency GBP.
func flagList(flags ...[2]string) string {
	var parts []string
	for _, f := range flags {
		v := strings.TrimSpace(f[1])
		if v == "" {
			continue
		}
		if strings.ContainsAny(v, " \t'\"") {
			v = strconv.Quote(v)
		}
		parts = append(parts, "--"+f[0]+" "+v)
	}
	return strings.Join(parts, " ")
}

type rowWriter interface {
	write(*api.Transaction) error
	close() error
}

type exportWriter struct{ w *report.Writer }

func (e exportWriter) write(t *api.Transaction) error { return e.w.Write(t) }
func (e exportWriter) close() error                   { return e.w.Close() }

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
		// Names and references come from the service: shown escaped.
		v := runewidth.Truncate(termtext.Safe(cells[i]), c.width, "…")
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

func (t *tableWriter) write(tx *api.Transaction) error {
	if err := t.header(); err != nil {
		return err
	}
	// Signed as the dashboard shows it: + money in, - money out.
	return t.line([]string{report.RowTime(tx).Format(time.DateTime), tx.Type, tx.Status,
		api.FormatSignedAmount(api.SignedMinor(tx.Type, tx.AmountInMinor), tx.Currency), tx.BeneficiaryName, tx.BeneficiaryReference, tx.TransactionID})
}

func (t *tableWriter) close() error {
	if err := t.header(); err != nil {
		return err
	}
	if f, ok := t.w.(*bufio.Writer); ok {
		return f.Flush()
	}
	return nil
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
