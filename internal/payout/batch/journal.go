package batch

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/payout"
)

// Journal record kinds.
const (
	kindBegin = "begin"
	kindPlan  = "plan"
	kindSent  = "sent"
	kindState = "state"
)

// A row's send outcome in the journal is the payout pipeline's class of
// the answer (payout.Classify): payout.OutcomeAccepted (never sent
// again), payout.OutcomeRefused (nothing was created: a re-run sends the
// row again, same id) or payout.OutcomeUnknown (it may exist: a re-run
// re-sends the same id, which the service treats as the same payout).

const journalVersion = 1

// record is one JSON line of the journal. One struct for every kind keeps
// the file greppable and the reader simple.
type record struct {
	Kind          string    `json:"kind"`
	Version       int       `json:"v,omitempty"`
	File          string    `json:"file,omitempty"`
	SHA256        string    `json:"sha256,omitempty"`
	Rows          int       `json:"rows,omitempty"`
	Line          int       `json:"line,omitempty"`
	TransactionID string    `json:"transaction_id,omitempty"`
	Outcome       string    `json:"outcome,omitempty"`
	HTTPStatus    int       `json:"http_status,omitempty"`
	Detail        string    `json:"detail,omitempty"`
	State         string    `json:"state,omitempty"`
	Reason        string    `json:"reason,omitempty"`
	At            time.Time `json:"at"`
}

// Sent is the last recorded send outcome of a row.
type Sent struct {
	Outcome    string
	HTTPStatus int
	Detail     string
	At         time.Time
}

// StateRecord is the last payout state a webhook reported for a row.
type StateRecord struct {
	State  string
	Reason string
}

// ErrJournalMismatch is wrapped when the journal belongs to another
// version of the batch file.
var ErrJournalMismatch = errors.New("journal belongs to a different version of the batch file")

// Journal is the crash-safe record of one batch. Every write is appended
// and fsynced before the caller goes on, so after a crash the journal
// shows at least everything that happened before the last completed write.
type Journal struct {
	path string

	mu     sync.Mutex
	f      *os.File // nil when opened read-only
	begin  record
	ids    map[int]string // line -> transaction_id
	sent   map[int]Sent
	states map[string]StateRecord
}

// journalElsewhere is the advice when the journal cannot be made where
// it is asked for (TestJournalElsewhereAdviceIsSafeToFollow follows it).
const journalElsewhere = "(pass --journal PATH to put it elsewhere)"

// DefaultJournalPath is where a batch file's journal lives: beside it, so
// it travels with the file and the operator sees it.
func DefaultJournalPath(batchFile string) string { return batchFile + ".journal" }

// OpenJournal opens the journal at path for f, creating it when absent.
// Creation assigns every row without a transaction_id a new UUID and makes
// the whole plan durable (written to a temporary file, fsynced, renamed,
// directory fsynced) before returning, so no payout is ever sent under an
// id that a crash could forget.
//
// adopt, when not nil, gives the transaction_id an earlier run already
// used for a row (found in the audit record when this journal was lost);
// the row then keeps it, so re-sending it cannot pay it twice.
func OpenJournal(path string, f *File, now time.Time, adopt func(Row) string) (*Journal, error) {
	j, err := readJournal(path, f, true)
	if err == nil {
		return j, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if err := createJournal(path, f, now, adopt); err != nil {
		return nil, err
	}
	return readJournal(path, f, true)
}

// ReadJournal opens an existing journal without changing it (for dry
// runs). It returns an error wrapping fs.ErrNotExist when there is none.
func ReadJournal(path string, f *File) (*Journal, error) { return readJournal(path, f, false) }

func createJournal(path string, f *File, now time.Time, adopt func(Row) string) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("create batch journal in %s: %w %s", dir, err, journalElsewhere)
	}
	defer os.Remove(tmp.Name()) // a no-op once renamed
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return fmt.Errorf("create batch journal: %w", err)
	}
	w := bufio.NewWriter(tmp)
	enc := json.NewEncoder(w)
	recs := []record{{Kind: kindBegin, Version: journalVersion, File: f.Path, SHA256: f.SHA256, Rows: len(f.Rows), At: now.UTC()}}
	for _, r := range f.Rows {
		id := r.Request.TransactionID
		if id == "" && adopt != nil {
			id = adopt(r)
		}
		if id == "" {
			id = uuid.NewString()
		}
		recs = append(recs, record{Kind: kindPlan, Line: r.Line, TransactionID: id, At: now.UTC()})
	}
	for _, rec := range recs {
		if err := enc.Encode(rec); err != nil {
			tmp.Close()
			return fmt.Errorf("write batch journal: %w", err)
		}
	}
	if err := w.Flush(); err != nil {
		tmp.Close()
		return fmt.Errorf("write batch journal: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("sync batch journal: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write batch journal: %w", err)
	}
	// Link, not rename: it fails if another run created the journal in the
	// meantime, so two concurrent runs cannot plan different ids.
	if err := os.Link(tmp.Name(), path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return nil
		}
		return fmt.Errorf("create batch journal %s: %w", path, err)
	}
	return syncDir(dir)
}

// moveAsideAdvice is what to do with a journal that cannot be read. It is
// safe to follow: a new journal takes back the transaction_ids the audit
// record holds for the file's rows, and rows the record or the service's
// report already show are not sent again.
func moveAsideAdvice(path string) string {
	return fmt.Sprintf("Move it aside (mv %s %s.damaged) and run the same command again: paydash then finds the rows already sent "+
		"in its audit record and the service's report and does not send them again", shellQuote(path), shellQuote(path))
}

// shellQuote quotes p for a POSIX shell when it needs it.
func shellQuote(p string) string {
	if p != "" && strings.IndexFunc(p, func(r rune) bool {
		plain := strings.ContainsRune("/.-_+,:", r) || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9')
		return !plain
	}) < 0 {
		return p
	}
	return "'" + strings.ReplaceAll(p, "'", `'\''`) + "'"
}

// syncDir makes a new directory entry durable.
func syncDir(dir string) error {
	d, err := os.Open(dir) //nolint:gosec // the journal's own directory
	if err != nil {
		return fmt.Errorf("sync journal directory: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync journal directory %s: %w", dir, err)
	}
	return nil
}

func readJournal(path string, f *File, writable bool) (*Journal, error) {
	flag := os.O_RDONLY
	if writable {
		flag = os.O_RDWR
	}
	fh, err := os.OpenFile(path, flag, 0) //nolint:gosec // the journal the operator named (or FILE.journal)
	if err != nil {
		return nil, fmt.Errorf("open batch journal: %w", err)
	}
	j := &Journal{path: path, ids: map[int]string{}, sent: map[int]Sent{}, states: map[string]StateRecord{}}
	good, err := j.load(fh)
	if err != nil {
		fh.Close()
		return nil, err
	}
	if err := j.check(f); err != nil {
		fh.Close()
		return nil, err
	}
	if !writable {
		fh.Close()
		return j, nil
	}
	// A crash can leave half a line at the end; cut it so the next record
	// starts on a line of its own.
	if err := fh.Truncate(good); err != nil {
		fh.Close()
		return nil, fmt.Errorf("repair batch journal %s: %w", path, err)
	}
	fh.Close()
	// Every later write is an append (O_APPEND): the kernel puts it at
	// the end of the file, never at an offset this process remembered.
	af, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0) //nolint:gosec // the journal just read
	if err != nil {
		return nil, fmt.Errorf("open batch journal %s: %w", path, err)
	}
	j.f = af
	return j, nil
}

// load replays the journal and returns the offset just past the last
// complete, well-formed line.
func (j *Journal) load(r io.Reader) (int64, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return 0, fmt.Errorf("read batch journal %s: %w", j.path, err)
	}
	var off int64
	lineNo := 0
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			break // torn final write: ignored and cut off
		}
		line := data[:i]
		data = data[i+1:]
		lineNo++
		var rec record
		if err := json.Unmarshal(line, &rec); err != nil {
			if len(data) == 0 {
				break // torn final write that happened to end in a newline
			}
			return 0, fmt.Errorf("batch journal %s line %d is damaged (%w). %s", j.path, lineNo, err, moveAsideAdvice(j.path))
		}
		off += int64(i + 1)
		j.apply(rec)
	}
	if j.begin.Kind != kindBegin {
		return 0, fmt.Errorf("batch journal %s is empty or has no header, so it cannot say what was sent. %s", j.path, moveAsideAdvice(j.path))
	}
	return off, nil
}

func (j *Journal) apply(rec record) {
	switch rec.Kind {
	case kindBegin:
		j.begin = rec
	case kindPlan:
		j.ids[rec.Line] = rec.TransactionID
	case kindSent:
		j.sent[rec.Line] = Sent{Outcome: rec.Outcome, HTTPStatus: rec.HTTPStatus, Detail: rec.Detail, At: rec.At}
	case kindState:
		j.states[rec.TransactionID] = StateRecord{State: rec.State, Reason: rec.Reason}
	}
}

func (j *Journal) check(f *File) error {
	if j.begin.Version != journalVersion {
		return fmt.Errorf("batch journal %s has version %d; this paydash reads version %d and sent nothing: finish the batch with the paydash that started it, or a newer one (the journal is what keeps a resumed batch from paying a row twice)", j.path, j.begin.Version, journalVersion)
	}
	if j.begin.SHA256 != f.SHA256 {
		accepted, unpaid := 0, 0
		for line, s := range j.sent {
			if s.Outcome != payout.OutcomeAccepted {
				continue
			}
			accepted++
			if api.StateUnpaid(j.states[j.ids[line]].State) {
				unpaid++
			}
		}
		records := fmt.Sprintf("%d payout(s) accepted by the service", accepted)
		if unpaid > 0 {
			records += fmt.Sprintf(" (%d of them since rejected or failed)", unpaid)
		}
		return fmt.Errorf("%w: %s changed since the run that wrote %s, which records %s. "+
			"Restore the original file to resume that batch, or pass --journal NEWPATH to reconcile the changed file with what was already sent: "+
			"rows already sent are skipped and only new rows are sent, listed first; a row edited after it was paid is listed as CHANGED and not sent "+
			"(pass --allow-duplicate as well to pay it as a second, new payout)", ErrJournalMismatch, f.Path, j.path, records)
	}
	for _, r := range f.Rows {
		if j.ids[r.Line] == "" {
			return fmt.Errorf("batch journal %s has no transaction_id for line %d of %s (it was cut short). %s", j.path, r.Line, f.Path, moveAsideAdvice(j.path))
		}
	}
	return nil
}

// TransactionID is the id fixed for the row on line.
func (j *Journal) TransactionID(line int) string {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.ids[line]
}

// LastSent is the last recorded send outcome of the row on line.
func (j *Journal) LastSent(line int) (Sent, bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	s, ok := j.sent[line]
	return s, ok
}

// State is the last webhook state recorded for a transaction id.
func (j *Journal) State(transactionID string) (StateRecord, bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	s, ok := j.states[transactionID]
	return s, ok
}

// RecordSent durably records a send outcome.
func (j *Journal) RecordSent(line int, s Sent) error {
	return j.append(record{Kind: kindSent, Line: line, TransactionID: j.TransactionID(line), Outcome: s.Outcome, HTTPStatus: s.HTTPStatus, Detail: s.Detail, At: s.At.UTC()})
}

// RecordState durably records a payout state reported by a webhook.
func (j *Journal) RecordState(transactionID string, s StateRecord, at time.Time) error {
	return j.append(record{Kind: kindState, TransactionID: transactionID, State: s.State, Reason: s.Reason, At: at.UTC()})
}

func (j *Journal) append(rec record) error {
	b, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("batch journal: %w", err)
	}
	b = append(b, '\n')
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil {
		return fmt.Errorf("batch journal %s is open read-only", j.path)
	}
	// One write call per record: a crash tears at most this line, which
	// the reader then ignores.
	if _, err := j.f.Write(b); err != nil {
		return fmt.Errorf("write batch journal %s: %w", j.path, err)
	}
	if err := j.f.Sync(); err != nil {
		return fmt.Errorf("sync batch journal %s: %w", j.path, err)
	}
	j.apply(rec)
	return nil
}

// Close closes the journal file.
func (j *Journal) Close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil {
		return nil
	}
	err := j.f.Close()
	j.f = nil
	return err
}
