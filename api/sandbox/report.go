package sandbox

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/paydash/paydash/api"
)

// Streaming sizes: records copied per lock hold, records examined per lock
// hold (so a filter matching little does not hold the lock for long), and
// the output buffer.
const (
	reportChunk     = 512
	reportScanBatch = 16 << 10
	reportBuffer    = 64 << 10
)

// handleBalances is GET /v1/balances.
func (s *Sandbox) handleBalances(w http.ResponseWriter, r *http.Request) error {
	if _, err := s.authorize(r, api.ScopePayouts); err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, api.BalancesResponse{Results: s.ledger.balances()})
}

// reportFilter is the parsed query of GET /v1/transactions. Bounds are
// inclusive Unix nanoseconds; kind and acct are -1 for "any".
type reportFilter struct {
	from, to   int64
	kind, acct int
}

func (f *reportFilter) match(t *txn) bool {
	b := t.booked()
	return b >= f.from && b <= f.to && f.matchKind(t)
}

// matchKind is match without the time bounds.
func (f *reportFilter) matchKind(t *txn) bool {
	return (f.kind < 0 || int(t.kind) == f.kind) && (f.acct < 0 || int(t.acct) == f.acct)
}

// noAccount is the acct of a filter naming a currency without an account:
// it matches nothing.
const noAccount = 1 << 10

// parseReportFilter reads from, to (ISO 8601: RFC 3339 with any fraction,
// a zoneless date-time taken as UTC, or a date: from its first instant,
// to its last), type (payout or funding, any case) and currency.
func (l *ledger) parseReportFilter(q url.Values) (reportFilter, error) {
	f := reportFilter{from: minTime, to: maxTime, kind: -1, acct: -1}
	var ps api.Problems
	if v := q.Get("from"); v != "" {
		t, _, err := parseQueryTime(v)
		if err != nil {
			ps = append(ps, api.Problem{Field: "from", Message: err.Error()})
		} else {
			f.from = t.UnixNano()
		}
	}
	if v := q.Get("to"); v != "" {
		t, dateOnly, err := parseQueryTime(v)
		switch {
		case err != nil:
			ps = append(ps, api.Problem{Field: "to", Message: err.Error()})
		case dateOnly:
			f.to = t.AddDate(0, 0, 1).UnixNano() - 1
		default:
			f.to = t.UnixNano()
		}
	}
	if len(ps) == 0 && f.from > f.to {
		ps = append(ps, api.Problem{Field: "to", Message: fmt.Sprintf("is before from (%s); swap them", q.Get("from"))})
	}
	if v := q.Get("type"); v != "" {
		switch strings.ToLower(v) {
		case api.TransactionPayout:
			f.kind = int(kindPayoutTxn)
		case api.TransactionFunding:
			f.kind = int(kindFundingTxn)
		default:
			ps = append(ps, api.Problem{Field: "type", Message: fmt.Sprintf("must be %s or %s (any case), not %q", api.TransactionPayout, api.TransactionFunding, v)})
		}
	}
	if v := q.Get("currency"); v != "" {
		c := strings.ToUpper(v)
		if len(c) != 3 || strings.Trim(c, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") != "" {
			ps = append(ps, api.Problem{Field: "currency", Message: fmt.Sprintf("must be a three-letter ISO 4217 code such as GBP, not %q", v)})
		} else if i, ok := l.acctIndex(c); ok {
			f.acct = int(i)
		} else {
			f.acct = noAccount
		}
	}
	if len(ps) > 0 {
		return f, errInvalidParameters(ps.Fields())
	}
	return f, nil
}

const (
	minTime = -1 << 63
	maxTime = 1<<63 - 1
)

// The report's times are nanoseconds since 1970 in an int64 (1677-09-21
// to 2262-04-11); from and to must lie in whole years inside that span,
// so a date far outside it is a 400 rather than an empty report.
var (
	queryTimeMin = time.Date(1678, 1, 1, 0, 0, 0, 0, time.UTC)
	queryTimeMax = time.Date(2262, 1, 1, 0, 0, 0, 0, time.UTC) // exclusive
)

func parseQueryTime(v string) (t time.Time, dateOnly bool, err error) {
	t, dateOnly, err = parseQueryTimeLayouts(v)
	if err == nil && (t.Before(queryTimeMin) || !t.Before(queryTimeMax)) {
		return time.Time{}, false, fmt.Errorf("%q is outside the dates the report covers; use a time from %s to %s",
			v, queryTimeMin.Format(time.DateOnly), queryTimeMax.AddDate(0, 0, -1).Format(time.DateOnly))
	}
	return t, dateOnly, err
}

func parseQueryTimeLayouts(v string) (t time.Time, dateOnly bool, err error) {
	if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
		return t.UTC(), false, nil
	}
	if t, err := time.Parse("2006-01-02T15:04:05.999999999", v); err == nil {
		return t, false, nil
	}
	if t, err := time.Parse(time.DateOnly, v); err == nil {
		return t, true, nil
	}
	return time.Time{}, false, fmt.Errorf("must be an ISO 8601 timestamp like 2024-03-01T10:15:30.1234567Z or a date like 2024-03-01, not %q", v)
}

// scan copies up to reportChunk matching live records from pos on,
// stopping at end; it examines at most reportScanBatch records per call.
func (l *ledger) scan(pos, end int, f *reportFilter, dst []txn) ([]txn, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	stop := min(end, pos+reportScanBatch)
	for ; pos < stop && len(dst) < reportChunk; pos++ {
		if f.match(&l.txns[pos]) {
			dst = append(dst, l.txns[pos])
		}
	}
	return dst, pos
}

// live is the number of records booked after the seeded history.
func (l *ledger) live() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.txns)
}

// size is the number of records in the report.
func (l *ledger) size() int { return l.hist.len() + l.live() }

// handleTransactions is GET /v1/transactions. It streams
// {"results":[...]} record by record through a buffer: the seeded history
// as it is generated (from the mark nearest the from bound), then the
// live records, a chunk at a time under the ledger lock, so a
// million-record report needs neither the whole response nor the history
// in memory, nor the lock for long. The report holds the records that
// existed when the request arrived, oldest first, in their state at the
// moment they are copied.
func (s *Sandbox) handleTransactions(w http.ResponseWriter, r *http.Request) error {
	if _, err := s.authorize(r, api.ScopePayouts); err != nil {
		return err
	}
	f, err := s.ledger.parseReportFilter(r.URL.Query())
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", api.ContentTypeJSON)
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return nil
	}
	bw := bufio.NewWriterSize(w, reportBuffer)
	_, _ = bw.WriteString(`{"results":[`)
	currencies := make([]string, len(s.ledger.accounts))
	for i, a := range s.ledger.accounts {
		currencies[i] = a.Currency
	}
	end := s.ledger.live()
	line := make([]byte, 0, 512)
	first := true
	var failed error
	n := 0
	emit := func(t *txn) bool {
		line = line[:0]
		if !first {
			line = append(line, ',')
		}
		first = false
		line = appendTxn(line, t, currencies[t.acct])
		if _, err := bw.Write(line); err != nil { // the client is gone
			failed = err
			return false
		}
		if n++; n%reportChunk == 0 && r.Context().Err() != nil {
			failed = r.Context().Err()
			return false
		}
		return true
	}
	s.ledger.hist.each(f.from, f.to, func(t *txn) bool {
		return !f.matchKind(t) || emit(t)
	})
	chunk := make([]txn, 0, reportChunk)
	for pos := 0; pos < end && failed == nil; {
		chunk, pos = s.ledger.scan(pos, end, &f, chunk[:0])
		for i := range chunk {
			if !emit(&chunk[i]) {
				break
			}
		}
		if r.Context().Err() != nil {
			return errResponseStarted
		}
	}
	if failed != nil {
		s.log.Info("transaction report cut off", "trace_id", traceID(r), "error", failed)
		return errResponseStarted
	}
	_, _ = bw.WriteString("]}\n")
	if err := bw.Flush(); err != nil {
		s.log.Info("transaction report cut off", "trace_id", traceID(r), "error", err)
		return errResponseStarted
	}
	return nil
}

// appendTxn writes one record exactly as json.Marshal(api.Transaction)
// would (same member order, omitted unreached timestamps), without
// reflection or allocation. Records whose strings need no escaping (all
// seeded ones, most live ones) skip the escaping scan.
func appendTxn(b []byte, t *txn, currency string) []byte {
	str := appendString
	if t.plain {
		str = appendPlain
	}
	b = append(b, `{"transaction_id":`...)
	b = str(b, t.id)
	b = append(b, `,"type":"`...)
	b = append(b, kindNames[t.kind]...)
	b = append(b, '"')
	if t.authorised != 0 {
		b = append(b, `,"authorised_at":`...)
		b = appendReportTime(b, t.authorised)
	}
	if t.submitted != 0 {
		b = append(b, `,"submitted_at":`...)
		b = appendReportTime(b, t.submitted)
	}
	if t.settled != 0 {
		b = append(b, `,"settled_at":`...)
		b = appendReportTime(b, t.settled)
	}
	b = append(b, `,"beneficiary_name":`...)
	b = str(b, t.name)
	b = append(b, `,"beneficiary_iban":`...)
	b = str(b, t.iban)
	b = append(b, `,"beneficiary_reference":`...)
	b = str(b, t.ref)
	b = append(b, `,"amount_in_minor":`...)
	b = strconv.AppendInt(b, t.amount, 10)
	b = append(b, `,"currency":`...)
	b = appendString(b, currency)
	b = append(b, `,"context_code":`...)
	b = str(b, t.context)
	b = append(b, `,"status":"`...)
	b = append(b, statusNames[t.status]...)
	return append(b, `"}`...)
}

// needsEscape reports whether encoding/json would write s other than as
// itself between quotes.
func needsEscape(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return true
		}
	}
	return false
}

// plainStrings reports whether none of the strings needs escaping.
func plainStrings(ss ...string) bool {
	for _, s := range ss {
		if needsEscape(s) {
			return false
		}
	}
	return true
}

// appendString quotes s as encoding/json does: plain printable ASCII is
// copied; anything needing an escape goes through json.Marshal.
func appendString(b []byte, s string) []byte {
	if needsEscape(s) {
		q, _ := json.Marshal(s) // a string always marshals
		return append(b, q...)
	}
	return appendPlain(b, s)
}

func appendPlain(b []byte, s string) []byte {
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// appendReportTime writes the quoted report timestamp of ns (Unix
// nanoseconds).
func appendReportTime(b []byte, ns int64) []byte {
	return append(api.AppendReportTime(append(b, '"'), api.ReportTime{Time: time.Unix(0, ns)}), '"')
}

// appendDigits writes v zero-padded to n digits.
func appendDigits(b []byte, v, n int) []byte {
	var buf [20]byte
	for i := n - 1; i >= 0; i-- {
		buf[i] = byte('0' + v%10)
		v /= 10
	}
	return append(b, buf[:n]...)
}
