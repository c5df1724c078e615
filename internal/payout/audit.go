package payout

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/paydash/paydash/api"
)

// Record events.
const (
	EventAttempt = "attempt" // written before the payout is sent
	EventOutcome = "outcome" // written when its outcome is known
)

// Outcomes written in outcome lines.
const (
	OutcomeAccepted = "accepted" // the service answered 202
	OutcomeRefused  = "refused"  // a definite 4xx: nothing was created
	OutcomeUnknown  = "unknown"  // no answer: it may or may not exist
	OutcomeExisting = "existing" // the id was already used: nothing new was created
	// Final states learnt later are recorded under the state's own name.
	OutcomeSettled  = api.StateSettled
	OutcomeRejected = api.StateRejected
	OutcomeFailed   = api.StateFailed
)

// Sources of a payout.
const (
	SourceForm   = "form"
	SourceCreate = "create"
	SourceBatch  = "batch"
)

// Entry is one line of the audit record.
type Entry struct {
	At            time.Time `json:"at"`
	Event         string    `json:"event"`
	Profile       string    `json:"profile"`
	Source        string    `json:"source,omitempty"`
	TransactionID string    `json:"transaction_id"`
	Name          string    `json:"beneficiary_name,omitempty"`
	IBAN          string    `json:"beneficiary_iban,omitempty"`
	Reference     string    `json:"beneficiary_reference,omitempty"`
	AmountInMinor int64     `json:"amount_in_minor,omitempty"`
	Currency      string    `json:"currency,omitempty"`
	// BatchFile and Line say which batch row an attempt was, so a batch
	// whose journal was lost finds its own rows again.
	BatchFile string `json:"batch_file,omitempty"`
	Line      int    `json:"line,omitempty"`
	// AllowedDuplicate is set when the operator chose to send a payout
	// that matched an earlier one.
	AllowedDuplicate bool   `json:"allowed_duplicate,omitempty"`
	Outcome          string `json:"outcome,omitempty"`
	Detail           string `json:"detail,omitempty"`
}

// Request is the payout an attempt line describes.
func (e Entry) Request() api.PayoutRequest {
	return api.PayoutRequest{TransactionID: e.TransactionID, BeneficiaryName: e.Name, BeneficiaryIBAN: e.IBAN,
		BeneficiaryReference: e.Reference, AmountInMinor: e.AmountInMinor, Currency: e.Currency}
}

// Record is an audit record as the pipeline uses it: *Log, a profile's
// file on this machine, or a record shared by several processes (the
// hubs of a cluster). Whatever keeps it, ReserveIf must check and append
// as one step against every other writer: that is what stops two of
// them sending the same payout at the same moment.
type Record interface {
	// Entries reads the whole record, oldest first.
	Entries() ([]Entry, error)
	// ReserveIf checks e against the record and appends it as an attempt
	// unless it matches earlier payouts allow refuses (see Log.ReserveIf).
	ReserveIf(ctx context.Context, e Entry, window time.Duration, allow func([]Payment) bool) ([]Payment, error)
	// Outcome appends the outcome of a payout sent under transactionID.
	Outcome(transactionID, outcome, detail string) error
	// FinalOutcome appends a final state for a payout the record holds
	// whose outcome is still open (see Log.FinalOutcome).
	FinalOutcome(transactionID, state, reason string) (bool, error)
	// Profile is the profile the record belongs to.
	Profile() string
}

var _ Record = (*Log)(nil)

// Log is the audit record of one profile: a JSON-lines file, mode 0600.
type Log struct {
	path    string
	profile string
	now     func() time.Time

	mu sync.Mutex
	// What has been read of the file: up to off (lines lines), the
	// entries, and the payments they describe indexed for the check.
	off   int64
	lines int
	cache []Entry
	index *index
	tail  []byte
	// lastAttempt is, per transaction id, the index in cache of its
	// latest attempt line (Attempted).
	lastAttempt map[string]int
}

// DefaultPath is where a profile's audit record lives under paydash's
// state directory.
func DefaultPath(stateDir, profile string) string {
	name := strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == 0 {
			return '_'
		}
		return r
	}, profile)
	if name == "" {
		name = "default"
	}
	return filepath.Join(stateDir, "audit", name+".jsonl")
}

// AuditFormat is the audit record's file format. Format 1 (paydash
// before store versions) is the same lines without a header; format 2
// starts a new file with a header line, {"paydash_audit_format":2}. Both
// are read as they are: nothing to migrate. A file whose header names a
// newer format is refused rather than misread.
const AuditFormat = 2

// auditHeader marks a header line; it is never an entry.
var auditHeader = []byte(`{"paydash_audit_format":`)

// checkAuditHeader reads a header line's format.
func checkAuditHeader(path string, line []byte) error {
	var h struct {
		Format int `json:"paydash_audit_format"`
	}
	if err := json.Unmarshal(line, &h); err != nil {
		return fmt.Errorf("audit record %s: its header is damaged (%w)", path, err)
	}
	if h.Format > AuditFormat {
		return fmt.Errorf("audit record %s is format %d, written by a newer paydash; this one reads formats 1 to %d and will not send payouts it cannot check for duplicates: use the paydash that wrote it, or a newer one", path, h.Format, AuditFormat)
	}
	return nil
}

// Open returns the audit record at path for profile, creating its
// directory (0700). now is the clock; nil means time.Now.
func Open(path, profile string, now func() time.Time) (*Log, error) {
	if now == nil {
		now = time.Now
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("audit record: %w", err)
	}
	return &Log{path: path, profile: profile, now: now, index: newIndex(), lastAttempt: map[string]int{}}, nil
}

// Path is the record's file.
func (l *Log) Path() string { return l.path }

// Profile is the profile the record belongs to.
func (l *Log) Profile() string { return l.profile }

// lock takes the record's OS lock: held only while reading the record to
// check for duplicates and appending, never while waiting on the network.
func (l *Log) lock(ctx context.Context) (*Lock, error) {
	return WaitLock(ctx, l.path+".lock", "audit record", 30*time.Second)
}

// Entries reads the whole record. A torn last line (a crash mid-write) is
// skipped; a damaged line elsewhere is an error, since the record is what
// protects against paying twice.
func (l *Log) Entries() ([]Entry, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.refresh(); err != nil {
		return nil, err
	}
	return slices.Clone(l.cache), nil
}

// refresh reads what was appended to the file since the last read (by
// this process or another), so a batch's per-row check costs the new
// lines, not the whole record. A file that shrank was replaced: it is
// read again from the start.
func (l *Log) refresh() error {
	f, err := os.Open(l.path) //nolint:gosec // the profile's own audit record
	if errors.Is(err, os.ErrNotExist) {
		l.reset()
		return nil
	}
	if err != nil {
		return fmt.Errorf("read audit record: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("read audit record %s: %w", l.path, err)
	}
	if st.Size() < l.off || !l.sameTail(f) {
		l.reset() // replaced or rewritten: read it whole again
	}
	if st.Size() == l.off {
		return nil
	}
	if _, err := f.Seek(l.off, io.SeekStart); err != nil {
		return fmt.Errorf("read audit record %s: %w", l.path, err)
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return fmt.Errorf("read audit record %s: %w", l.path, err)
	}
	// Only complete lines: what follows the last newline is a write in
	// progress or torn by a crash, read again next time.
	end := bytes.LastIndexByte(data, '\n')
	if end < 0 {
		return nil
	}
	for _, line := range bytes.Split(data[:end], []byte("\n")) {
		l.lines++
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		if bytes.HasPrefix(line, auditHeader) {
			if err := checkAuditHeader(l.path, line); err != nil {
				l.reset()
				return err
			}
			continue
		}
		var e Entry
		if err := json.Unmarshal(line, &e); err != nil {
			n := l.lines
			l.reset()
			return fmt.Errorf("audit record %s line %d is damaged (%w); paydash will not send payouts it cannot check for duplicates: move the file aside to start a new record (the service's report is still checked)", l.path, n, err)
		}
		if e.Event == EventAttempt {
			l.lastAttempt[e.TransactionID] = len(l.cache)
		}
		l.cache = append(l.cache, e)
		l.index.apply(e)
	}
	l.off += int64(end + 1)
	l.tail = slices.Clone(data[max(0, end+1-tailLen) : end+1])
	return nil
}

// tailLen is how much of the end of what was read is kept to notice a
// record rewritten in place (appends never change it).
const tailLen = 256

// sameTail reports whether the bytes just before off are still those
// read last time.
func (l *Log) sameTail(f *os.File) bool {
	if l.off == 0 {
		return true
	}
	buf := make([]byte, len(l.tail))
	if _, err := f.ReadAt(buf, l.off-int64(len(buf))); err != nil {
		return false
	}
	return bytes.Equal(buf, l.tail)
}

func (l *Log) reset() {
	l.off, l.lines, l.cache, l.index, l.tail = 0, 0, nil, newIndex(), nil
	l.lastAttempt = map[string]int{}
}

// append writes entries as one write and fsyncs. The caller holds the
// OS lock.
func (l *Log) append(entries ...Entry) error {
	if err := l.repairTail(); err != nil {
		return err
	}
	var b bytes.Buffer
	for _, e := range entries {
		if e.At.IsZero() {
			e.At = l.now()
		}
		e.At = e.At.UTC()
		e.Profile = l.profile
		j, err := json.Marshal(e)
		if err != nil {
			return fmt.Errorf("audit record: %w", err)
		}
		b.Write(j)
		b.WriteByte('\n')
	}
	f, err := os.OpenFile(l.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600) //nolint:gosec // the profile's own audit record
	if err != nil {
		return fmt.Errorf("write audit record: %w", err)
	}
	out := b.Bytes()
	if st, err := f.Stat(); err == nil && st.Size() == 0 {
		// A new record starts with its format (the caller holds the lock).
		out = append(fmt.Appendf(nil, "%s%d}\n", auditHeader, AuditFormat), out...)
	}
	if _, err := f.Write(out); err != nil {
		f.Close()
		return fmt.Errorf("write audit record %s: %w", l.path, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("sync audit record %s: %w", l.path, err)
	}
	return f.Close()
}

// Outcome records the outcome of a payout sent under transactionID.
func (l *Log) Outcome(transactionID, outcome, detail string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	lk, err := l.lock(context.Background())
	if err != nil {
		return fmt.Errorf("audit record: %w", err)
	}
	defer func() { _ = lk.Unlock() }()
	return l.append(Entry{Event: EventOutcome, TransactionID: transactionID, Outcome: outcome, Detail: detail})
}

// FinalOutcome appends the final state learnt later (by the dashboard's
// tracker, a relay, the report) for a payout the record holds whose
// outcome is still open (accepted or no answer), so the record and the
// duplicate check know it. Ids the record does not hold (other operators'
// payouts) and outcomes already final are left alone: it reports whether
// a line was written.
func (l *Log) FinalOutcome(transactionID, state, reason string) (bool, error) {
	if !final(state) {
		return false, nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	open := func() (bool, error) {
		if err := l.refresh(); err != nil {
			return false, err
		}
		i, ok := l.index.byID[transactionID]
		return ok && Pending(l.index.list[i].Outcome), nil
	}
	// Read first without the OS lock (as Entries does): the dashboard
	// asks for every payout that finishes, mostly other operators' that
	// the record does not hold, and taking the lock writes its holder
	// file each time.
	if pending, err := open(); err != nil || !pending {
		return false, err
	}
	lk, err := l.lock(context.Background())
	if err != nil {
		return false, fmt.Errorf("audit record: %w", err)
	}
	defer func() { _ = lk.Unlock() }()
	// Again under the lock: another process may have recorded it since.
	if pending, err := open(); err != nil || !pending {
		return false, err
	}
	return true, l.append(Entry{Event: EventOutcome, TransactionID: transactionID, Outcome: state, Detail: reason})
}

// Attempted returns, for the ids the record holds an attempt for, the
// payout as its latest attempt describes it. It costs a look-up per id
// (and reading what was appended since the last read), not a pass over
// the whole record: the dashboard asks on every batch of events that
// brings payouts it does not know.
func (l *Log) Attempted(ids map[string]bool) (map[string]api.PayoutRequest, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.refresh(); err != nil {
		return nil, err
	}
	out := map[string]api.PayoutRequest{}
	for id := range ids {
		if i, ok := l.lastAttempt[id]; ok {
			out[id] = l.cache[i].Request()
		}
	}
	return out, nil
}

// repairTail cuts a last line torn by a crash (no newline after it), so
// the next record starts on a line of its own instead of gluing onto it
// and leaving a damaged line in the middle. The caller holds the lock.
func (l *Log) repairTail() error {
	f, err := os.OpenFile(l.path, os.O_RDWR, 0) //nolint:gosec // the profile's own audit record
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("audit record: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || st.Size() == 0 {
		return err
	}
	last := []byte{0}
	if _, err := f.ReadAt(last, st.Size()-1); err != nil {
		return fmt.Errorf("audit record %s: %w", l.path, err)
	}
	if last[0] == '\n' {
		return nil // the usual case: one byte read
	}
	n := min(st.Size(), 1<<20)
	buf := make([]byte, n)
	if _, err := f.ReadAt(buf, st.Size()-n); err != nil {
		return fmt.Errorf("audit record %s: %w", l.path, err)
	}
	if buf[len(buf)-1] == '\n' {
		return nil
	}
	keep := st.Size() - n + int64(bytes.LastIndexByte(buf, '\n')+1)
	if err := f.Truncate(keep); err != nil {
		return fmt.Errorf("repair audit record %s: %w", l.path, err)
	}
	return f.Sync()
}

// Reserve is the last check before a payout goes out, and its record:
// under the record's OS lock it reads the record, looks for an earlier
// payout matching e (same IBAN, amount, currency and reference within
// window, under another transaction id), and when there is none, or
// allowDuplicate is set, appends e as an attempt. It returns the matches;
// when they are not empty and allowDuplicate is false nothing was written
// and the payout must not be sent.
//
// Holding the lock across check and write is what stops two processes of
// the profile from sending the same payout at the same moment.
func (l *Log) Reserve(ctx context.Context, e Entry, window time.Duration, allowDuplicate bool) ([]Payment, error) {
	return l.ReserveIf(ctx, e, window, func([]Payment) bool { return allowDuplicate })
}

// ReserveIf is Reserve with the decision left to allow, called under the
// lock with the matches (when there are any): the operator may have
// confirmed some earlier payouts and not others.
func (l *Log) ReserveIf(ctx context.Context, e Entry, window time.Duration, allow func([]Payment) bool) ([]Payment, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	lk, err := l.lock(ctx)
	if err != nil {
		return nil, fmt.Errorf("audit record: %w", err)
	}
	defer func() { _ = lk.Unlock() }()
	if err := l.refresh(); err != nil {
		return nil, err
	}
	req := e.Request()
	matches := Matching(l.index.withKey(Key(&req)), &req, l.now(), window)
	if len(matches) > 0 && !allow(matches) {
		return matches, nil
	}
	e.Event = EventAttempt
	e.AllowedDuplicate = e.AllowedDuplicate || len(matches) > 0
	return matches, l.append(e)
}

// Attempt is one attempt line with the last outcome recorded for its
// transaction id after it: what `paydash payouts log` prints.
type Attempt struct {
	Entry
	// OutcomeAt is when the outcome was recorded (zero when none was).
	OutcomeAt time.Time `json:"outcome_at,omitzero"`
}

// Attempts folds the record into one Attempt per attempt line, oldest
// first, each with the last outcome of its id recorded after it.
func Attempts(entries []Entry) []Attempt {
	var out []Attempt
	last := map[string]int{} // transaction id -> index of its latest attempt
	for _, e := range entries {
		switch e.Event {
		case EventAttempt:
			last[e.TransactionID] = len(out)
			out = append(out, Attempt{Entry: e})
		case EventOutcome:
			if i, ok := last[e.TransactionID]; ok {
				out[i].Outcome, out[i].OutcomeAt = e.Outcome, e.At
				if e.Detail != "" {
					out[i].Detail = e.Detail
				}
			}
		}
	}
	return out
}
