package batch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"
	"time"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/payout"
	"github.com/paydash/paydash/internal/platform/clock"
	"github.com/paydash/paydash/webhookrelay/relayclient"
)

// Sender creates payouts; *api.Client is one.
type Sender interface {
	CreatePayout(ctx context.Context, req *api.PayoutRequest) error
}

// Options tune a run.
type Options struct {
	// JournalPath is where the journal lives; empty means beside the file.
	JournalPath string
	// DryRun checks the file and reports what would be sent; nothing is
	// sent and no journal is written.
	DryRun bool
	// Rate caps payouts sent per second; 0 means as fast as the service
	// answers. The service's rate limits are not documented, so an
	// operator can stay well under them.
	Rate float64
	// Events, when set, carries webhooks (from a relay subscriber); the
	// payout states they report are recorded and summarised.
	Events <-chan relayclient.Event
	// Wait is how long to wait after sending for every accepted payout to
	// reach a final state, when Events is set.
	Wait time.Duration
	// Progress is called after each row with rows done and the total.
	Progress func(done, total int)
	// Clock is the time source; nil means the real clock.
	Clock clock.Clock
	// Guard is the duplicate check and audit record; nil leaves only the
	// journal (the package's own tests of the journal).
	Guard *Guard
}

// Guard is what stands between a batch and a second payment beyond its
// own journal: the profile's audit record and the service's report, read
// and written by the payout pipeline (payout.Pipeline) a run builds from
// it.
type Guard struct {
	Log *payout.Log
	// Report is read once before the plan; nil checks the record only.
	Report payout.ReportReader
	// Window is how far back a payout counts as a duplicate.
	Window time.Duration
	// AllowDuplicate sends rows that match earlier payouts as new ones.
	AllowDuplicate bool
	// States, when set, tells what became of earlier payouts the record
	// shows only accepted (the relay's history): a rejected one is not a
	// duplicate.
	States payout.FinalStates
}

// Row results: what finally happened to a row, as far as paydash knows.
const (
	ResultSettled   = "settled"   // a webhook reported it settled (or executed)
	ResultAccepted  = "accepted"  // the service accepted it; no final state seen yet
	ResultRejected  = "rejected"  // refused by the service, or a rejection webhook
	ResultFailed    = "failed"    // a failure webhook
	ResultNotSent   = "not_sent"  // not sent, or no answer: a re-run sends it
	ResultDuplicate = "duplicate" // matches a payout already made: not sent
	ResultChanged   = "changed"   // an edited version of a payout already sent: not sent
	ResultWouldPay  = "would_send"
)

// RowResult is the outcome of one row.
type RowResult struct {
	Line          int    `json:"line"`
	TransactionID string `json:"transaction_id,omitempty"`
	Name          string `json:"beneficiary_name"`
	IBAN          string `json:"beneficiary_iban"`
	Reference     string `json:"beneficiary_reference"`
	Currency      string `json:"currency"`
	AmountInMinor int64  `json:"amount_in_minor"`
	Amount        string `json:"amount"`
	// Result is one of the Result constants.
	Result string `json:"result"`
	// Sent is the send outcome (accepted, refused, unknown) or empty.
	Sent string `json:"sent,omitempty"`
	// PreviousRun is true when an earlier run had it accepted, so this run
	// did not send it again.
	PreviousRun bool   `json:"previous_run,omitempty"`
	HTTPStatus  int    `json:"http_status,omitempty"`
	Detail      string `json:"detail,omitempty"`
	// Advice is what a send the service did not accept means (the payout
	// pipeline's words, as the form and payout create say them).
	Advice string `json:"advice,omitempty"`
	// State is the last payout state a webhook reported, and Reason its
	// rejection or failure reason.
	State  string `json:"state,omitempty"`
	Reason string `json:"reason,omitempty"`
	// DuplicateOf is the earlier payout a duplicate row matches: held
	// back, or, released by --allow-duplicate, a second payout.
	DuplicateOf *payout.Payment `json:"duplicate_of,omitempty"`
	// RepeatOf is the earlier line of the file whose payout this row
	// repeats (sent only with --allow-duplicate: a second payout).
	RepeatOf int `json:"repeat_of_line,omitempty"`
	// ChangedFrom is the payout already sent for this row (same line of
	// the file, or same IBAN and reference) with other details: the row
	// was edited after it was paid.
	ChangedFrom *payout.Payment `json:"changed_from,omitempty"`
}

// Counts tallies the rows by result.
type Counts struct {
	Rows        int `json:"rows"`
	Accepted    int `json:"accepted"` // by the service, this run or earlier
	Settled     int `json:"settled"`
	Pending     int `json:"pending"` // accepted, no final state seen
	Rejected    int `json:"rejected"`
	Failed      int `json:"failed"`
	NotSent     int `json:"not_sent"`
	Duplicate   int `json:"duplicate"`
	Changed     int `json:"changed"`
	PreviousRun int `json:"previous_run"`
	WouldSend   int `json:"would_send,omitempty"`
}

// Summary is the result of a run.
type Summary struct {
	File    string      `json:"file"`
	Journal string      `json:"journal"`
	DryRun  bool        `json:"dry_run,omitempty"`
	Rows    []RowResult `json:"rows"`
	Counts  Counts      `json:"counts"`
	// Totals are the file's amounts per currency, in minor units.
	Totals map[string]int64 `json:"totals_in_minor"`
	// ToSend are the amounts per currency of the rows this run sends (or,
	// for a dry run, would send).
	ToSend map[string]int64 `json:"to_send_in_minor"`
	// Funds is the dry run's check of ToSend against available balances.
	Funds []FundsCheck `json:"funds,omitempty"`
	// Unchecked says why a dry run could not check balances and earlier
	// payouts (no profile); such a dry run fails.
	Unchecked string `json:"unchecked,omitempty"`
	// Watched is true when webhooks were followed to update the results.
	Watched bool `json:"watched_webhooks"`
	// AuditRecord is the profile's audit record, when one was kept.
	AuditRecord string `json:"audit_record,omitempty"`
}

// OK reports whether every row was paid or is on its way: nothing
// rejected, failed, left unsent or refused as a duplicate.
func (s *Summary) OK() bool {
	return s.Counts.Rejected == 0 && s.Counts.Failed == 0 && s.Counts.NotSent == 0 && s.Counts.Duplicate == 0 && s.Counts.Changed == 0
}

// ErrInterrupted is wrapped when a run stops before every row was sent
// (cancelled, or the service stopped answering); a re-run resumes.
var ErrInterrupted = errors.New("batch interrupted")

// ErrJournalLocked is wrapped when another run holds the journal.
var ErrJournalLocked = errors.New("batch journal in use")

// Plan actions.
const (
	ActionSend      = "send"
	ActionPrevious  = "previous"  // already accepted: not sent again
	ActionDuplicate = "duplicate" // matches an earlier payout: not sent
	// ActionChanged is a row edited after an earlier payout for it was
	// sent (same line, or same IBAN and reference, another amount or
	// payee name): sending it pays a second time, so it is refused unless
	// the operator passes --allow-duplicate.
	ActionChanged = "changed"
)

// Planned is what a run does with one row, decided before anything is
// sent so the rows to send can be listed and confirmed.
type Planned struct {
	Row           Row
	TransactionID string
	Action        string
	// Match is the earlier payout a duplicate matches.
	Match *payout.Payment
	// Why says how a row already sent was found ("journal", "audit
	// record", "service report").
	Why string
	// Before is what an earlier run sent for this line before the row
	// was edited: sending the edited row is a second payment.
	Before *payout.Payment
}

// Prepared is a batch ready to send: journal locked and open, every row
// planned. Close it when done.
type Prepared struct {
	f    *File
	opt  Options
	clk  clock.Clock
	j    *Journal // nil for a dry run without a journal
	lock *payout.Lock
	sum  *Summary
	// freshJournal says this run created the journal.
	freshJournal bool
	// Plan is one entry per row, in file order.
	Plan     []Planned
	previous map[int]bool
	dups     map[int]*payout.Payment
	// changed holds, for rows edited since an earlier run sent them, what
	// that run sent for the line.
	changed map[int]*payout.Payment
	ids     map[int]string // a dry run's ids when there is no journal
	// pl is the payout pipeline each row goes through: the same stages as
	// the form and payout create, fed into the journal.
	pl *payout.Pipeline
}

// pipeline builds the run's payout pipeline from its guard (nil: the
// journal alone, for the package's own tests of it).
func pipeline(opt Options, clk clock.Clock) *payout.Pipeline {
	pl := &payout.Pipeline{Source: payout.SourceBatch, Now: clk.Now}
	if g := opt.Guard; g != nil {
		pl.Log, pl.Report, pl.Window, pl.States = g.Log, g.Report, g.Window, g.States
	}
	return pl
}

// rowOptions are the pipeline's options for one row.
func (p *Prepared) rowOptions(row Row) payout.Options {
	o := payout.Options{BatchFile: p.f.Path, Line: row.Line, SkipFunds: true}
	if g := p.opt.Guard; g != nil {
		o.AllowDuplicate = g.AllowDuplicate
	}
	return o
}

// Prepare locks the journal (unless a dry run), opens or creates it,
// reads the audit record and the service's report, and plans every row.
func Prepare(ctx context.Context, f *File, opt Options) (*Prepared, error) {
	clk := opt.Clock
	if clk == nil {
		clk = clock.Real()
	}
	jpath := opt.JournalPath
	if jpath == "" {
		jpath = DefaultJournalPath(f.Path)
	}
	p := &Prepared{f: f, opt: opt, clk: clk, previous: map[int]bool{}, dups: map[int]*payout.Payment{}, ids: map[int]string{},
		changed: map[int]*payout.Payment{}, pl: pipeline(opt, clk),
		sum: &Summary{File: f.Path, Journal: jpath, DryRun: opt.DryRun, Totals: f.Totals(), ToSend: map[string]int64{}}}
	if !opt.DryRun {
		lk, err := payout.TryLock(jpath+".lock", "payout batch "+f.Path)
		if err != nil {
			var le *payout.LockedError
			if errors.As(err, &le) {
				return p, fmt.Errorf("%w: %w. Another paydash run is sending this batch; wait for it to finish (or stop it), then run the same command again: rows it sent are not sent again", ErrJournalLocked, le)
			}
			// The lock lives beside the journal: when it cannot be made
			// there (a read-only folder, a name too long), neither can
			// the journal, and another folder is the way out.
			return p, fmt.Errorf("%w %s", err, journalElsewhere)
		}
		p.lock = lk
	}
	var known *payout.Known
	if g := opt.Guard; g != nil {
		var ids []string
		for _, r := range f.Rows {
			if r.Request.TransactionID != "" {
				ids = append(ids, r.Request.TransactionID)
			}
		}
		k, err := p.pl.Known(ctx, ids)
		if err != nil {
			p.Close()
			return p, err
		}
		known = k
		if g.Log != nil {
			p.sum.AuditRecord = g.Log.Path()
		}
		// Before a journal is written, so that fixing the file and
		// running again is a fresh start.
		if probs := p.idsUsedElsewhere(known); len(probs) > 0 {
			p.Close()
			return p, &InvalidFileError{Path: f.Path, Problems: probs}
		}
	}
	var window time.Duration
	if opt.Guard != nil {
		window = opt.Guard.Window
	}
	adopt := p.adopter(known, clk.Now(), window)
	if opt.DryRun {
		j, err := ReadJournal(jpath, f)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return p, err
		}
		if err == nil {
			p.j = j
		}
		for _, r := range f.Rows {
			switch {
			case p.j != nil:
				p.ids[r.Line] = p.j.TransactionID(r.Line)
			case r.Request.TransactionID != "":
				p.ids[r.Line] = r.Request.TransactionID
			default:
				p.ids[r.Line] = adopt(r)
			}
		}
	} else {
		_, statErr := os.Stat(jpath)
		p.freshJournal = errors.Is(statErr, fs.ErrNotExist)
		j, err := OpenJournal(jpath, f, clk.Now(), adopt)
		if err != nil {
			p.Close()
			return p, err
		}
		p.j = j
	}
	if err := p.plan(ctx, known); err != nil {
		p.Close()
		return p, err
	}
	return p, nil
}

// idsUsedElsewhere finds rows whose transaction_id cell names a payout
// already made (audit record or report) with other details. The service
// creates nothing for a transaction_id it has seen, so such a row would
// never be paid, yet would look sent, with the other payout's outcome.
// payout create refuses the same.
func (p *Prepared) idsUsedElsewhere(known *payout.Known) []LineProblem {
	var probs []LineProblem
	for _, r := range p.f.Rows {
		id := r.Request.TransactionID
		if id == "" {
			continue
		}
		// The same payout under its id is this row sent before: a resume.
		var used *payout.IDUsedError
		if err := p.pl.CheckID(known, &r.Request, &payout.Checked{}); errors.As(err, &used) {
			probs = append(probs, LineProblem{r.Line, ColTransactionID, fmt.Sprintf(
				"%s was already used %s; the service would create nothing for this row. Leave the cell empty and paydash assigns a new id", id, used.Was)})
		}
	}
	return probs
}

// adopter finds, for a row of a batch whose journal is new, the
// transaction_id the audit record shows this file's same row was sent
// under (same file, line and payout details): the journal was deleted or
// moved aside, and the row keeps its id so it cannot be paid twice.
//
// Only attempts within the duplicate window count: the same file sent
// again next month is a new batch, not a resumed one.
func (p *Prepared) adopter(k *payout.Known, now time.Time, window time.Duration) func(Row) string {
	byRow := map[int]payout.Payment{}
	if k != nil {
		for _, pm := range k.Local { // oldest first: the last attempt wins
			if pm.BatchFile != p.f.Path || pm.Line == 0 || (window > 0 && now.Sub(pm.At) > window) {
				continue
			}
			byRow[pm.Line] = pm
		}
	}
	return func(r Row) string {
		pm, ok := byRow[r.Line]
		if !ok {
			return ""
		}
		req := api.PayoutRequest{BeneficiaryIBAN: pm.IBAN, AmountInMinor: pm.AmountInMinor, Currency: pm.Currency, BeneficiaryReference: pm.Reference}
		if !payout.SameDetails(&req, &r.Request) || pm.Name != r.Request.BeneficiaryName {
			// The row was edited since it was sent: a new payout, checked
			// as one, and listed with what the line paid before.
			p.changed[r.Line] = &pm
			return ""
		}
		return pm.TransactionID
	}
}

func (p *Prepared) id(line int) string {
	if p.j != nil {
		return p.j.TransactionID(line)
	}
	return p.ids[line]
}

// plan decides every row: already sent (journal, audit record or the
// service's report), a duplicate of an earlier payout, or to send.
func (p *Prepared) plan(ctx context.Context, known *payout.Known) error {
	now := p.clk.Now()
	for _, row := range p.f.Rows {
		pl := Planned{Row: row, TransactionID: p.id(row.Line), Action: ActionSend, Before: p.changed[row.Line]}
		req := row.Request
		req.TransactionID = pl.TransactionID
		switch {
		case p.j != nil && lastAccepted(p.j, row.Line):
			pl.Action, pl.Why = ActionPrevious, "journal"
		case known != nil && pl.TransactionID != "" && known.InReport(pl.TransactionID):
			pl.Action, pl.Why = ActionPrevious, "service report"
		case known != nil && pl.TransactionID != "" && acceptedLocally(known, pl.TransactionID):
			pl.Action, pl.Why = ActionPrevious, "audit record"
		case known != nil:
			m, err := p.pl.Duplicates(ctx, known, &req, p.rowOptions(row))
			if len(m) > 0 {
				pl.Match = &m[0]
			}
			if err != nil {
				pl.Action = ActionDuplicate
			}
		}
		// What this line sent before it was edited only makes the edit a
		// second payment if that payout may have paid: one the service
		// rejected or that failed paid nobody, and the corrected row is
		// simply its first payout.
		if pl.Before != nil && known != nil && !p.paid(ctx, known, *pl.Before, now) {
			pl.Before = nil
			delete(p.changed, row.Line)
		}
		if pl.Action == ActionSend && pl.Before == nil && known != nil {
			for _, m := range known.SamePayee(&req, now, p.opt.Guard.Window) {
				if p.otherRowOfThisFile(m, row.Line) || !p.paid(ctx, known, m, now) {
					continue // another row of this batch, still as it was sent; or nothing paid
				}
				pl.Before = &m
				break
			}
		}
		if pl.Action == ActionSend && pl.Before != nil && (p.opt.Guard == nil || !p.opt.Guard.AllowDuplicate) {
			pl.Action = ActionChanged
		}
		switch pl.Action {
		case ActionChanged:
			p.changed[row.Line] = pl.Before
		case ActionPrevious:
			p.previous[row.Line] = true
			if p.j != nil && pl.Why != "journal" && !p.opt.DryRun {
				// Found outside the journal (it was lost): write it back,
				// so the journal tells the whole story again. A dry run
				// only reads: the journal is another run's, or read-only.
				if err := p.j.RecordSent(row.Line, Sent{Outcome: payout.OutcomeAccepted, HTTPStatus: 202, Detail: "found in the " + pl.Why, At: now}); err != nil {
					return err
				}
			}
		case ActionDuplicate:
			p.dups[row.Line] = pl.Match
		case ActionSend:
			p.sum.ToSend[req.Currency] += req.AmountInMinor
		}
		p.Plan = append(p.Plan, pl)
	}
	return nil
}

// paid reports whether an earlier payout pm may have paid its payee (see
// payout.Paid).
func (p *Prepared) paid(ctx context.Context, known *payout.Known, pm payout.Payment, now time.Time) bool {
	var states payout.FinalStates
	if p.opt.Guard != nil {
		states = p.opt.Guard.States
	}
	return payout.Paid(ctx, p.pl.Log, known, states, pm, now)
}

// otherRowOfThisFile reports whether pm is what another line of this
// file sent, and that line is unchanged: two rows of one batch to one
// payee under one reference (salary and expenses) are not an edit of
// each other.
func (p *Prepared) otherRowOfThisFile(pm payout.Payment, line int) bool {
	if pm.BatchFile != p.f.Path || pm.Line == 0 || pm.Line == line {
		return false
	}
	for _, r := range p.f.Rows {
		if r.Line == pm.Line {
			sent := api.PayoutRequest{BeneficiaryIBAN: pm.IBAN, AmountInMinor: pm.AmountInMinor, Currency: pm.Currency, BeneficiaryReference: pm.Reference}
			return payout.SameDetails(&sent, &r.Request)
		}
	}
	return false
}

// planned returns the plan of the i-th row (nil before planning): the
// plan is in file order.
func (p *Prepared) planned(i int) *Planned {
	if i < len(p.Plan) {
		return &p.Plan[i]
	}
	return nil
}

func lastAccepted(j *Journal, line int) bool {
	s, ok := j.LastSent(line)
	return ok && s.Outcome == payout.OutcomeAccepted
}

// acceptedLocally reports whether the audit record shows id accepted.
func acceptedLocally(k *payout.Known, id string) bool {
	p, ok := k.LocalByID(id)
	return ok && payout.Created(p.Outcome)
}

// ToSend returns the planned rows this run sends.
func (p *Prepared) ToSend() []Planned {
	var out []Planned
	for _, pl := range p.Plan {
		if pl.Action == ActionSend {
			out = append(out, pl)
		}
	}
	return out
}

// File is the batch file the run was prepared for.
func (p *Prepared) File() *File { return p.f }

// Watch has Send record the payout states events carry (a relay
// subscriber's) and, with Options.Wait, wait for the rows' final states.
// Set once the operator confirmed, before Send.
func (p *Prepared) Watch(events <-chan relayclient.Event) { p.opt.Events = events }

// OnProgress has Send call fn after each row with rows done and the
// total (the command's progress bar).
func (p *Prepared) OnProgress(fn func(done, total int)) { p.opt.Progress = fn }

// Summary is the summary so far (the plan's, before Send).
func (p *Prepared) Summary() *Summary {
	p.sum.Rows = p.results()
	p.sum.Tally()
	return p.sum
}

// Discard closes a run stopped before anything was sent, and removes the
// journal it created: it holds only the ids it planned, and kept, it
// would tie the file to this version, so a corrected file (rows taken
// out, amounts lowered) would be refused as "a different version". A
// journal from an earlier run stays.
func (p *Prepared) Discard() {
	remove := p.freshJournal && p.j != nil && len(p.j.sent) == 0
	path := p.sum.Journal
	p.Close()
	if remove {
		_ = os.Remove(path)
	}
}

// Close releases the journal and its lock.
func (p *Prepared) Close() {
	if p.j != nil {
		p.j.Close()
		p.j = nil
	}
	if p.lock != nil {
		_ = p.lock.Unlock()
		p.lock = nil
	}
}

// Run prepares and sends in one go (no confirmation in between).
func Run(ctx context.Context, f *File, s Sender, opt Options) (*Summary, error) {
	p, err := Prepare(ctx, f, opt)
	if err != nil {
		return p.sum, err
	}
	defer p.Close()
	if opt.DryRun {
		return p.Summary(), nil
	}
	return p.Send(ctx, s)
}

// Send sends the planned rows through s. It returns the summary even when
// it also returns an error.
func (p *Prepared) Send(ctx context.Context, s Sender) (*Summary, error) {
	if p.opt.DryRun {
		return p.Summary(), nil
	}
	opt, j := p.opt, p.j
	p.pl.Sender = s
	w := newWatcher(j, p.f, p.clk)
	w.onFinal = func(id, state, reason string) { _ = p.pl.RecordFinal(id, payout.Final{State: state, Reason: reason}) }
	watchCtx, stopWatch := context.WithCancel(ctx)
	var wg sync.WaitGroup
	if opt.Events != nil {
		p.sum.Watched = true
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.watch(watchCtx, opt.Events)
		}()
	}
	defer func() {
		stopWatch()
		wg.Wait()
	}()

	runErr := p.send(ctx, s)

	if runErr == nil && opt.Events != nil && opt.Wait > 0 {
		w.waitFinal(ctx, opt.Wait)
	}
	stopWatch()
	wg.Wait()
	sum := p.Summary()
	if err := w.err(); err != nil && runErr == nil {
		runErr = err
	}
	return sum, runErr
}

// send sends every planned row, in file order.
func (p *Prepared) send(ctx context.Context, s Sender) error {
	opt, j, clk := p.opt, p.j, p.clk
	var interval time.Duration
	if opt.Rate > 0 {
		interval = time.Duration(float64(time.Second) / opt.Rate)
	}
	var last time.Time
	total := len(p.Plan)
	for i, pl := range p.Plan {
		row := pl.Row
		if pl.Action != ActionSend || lastAccepted(j, row.Line) {
			progress(opt, i+1, total)
			continue
		}
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("%w at line %d: %w; run the same command again to resume", ErrInterrupted, row.Line, err)
		}
		if interval > 0 && !last.IsZero() {
			if wait := interval - clk.Now().Sub(last); wait > 0 {
				select {
				case <-ctx.Done():
					return fmt.Errorf("%w at line %d: %w; run the same command again to resume", ErrInterrupted, row.Line, ctx.Err())
				case <-clk.After(wait):
				}
			}
		}
		last = clk.Now()
		req := row.Request
		req.TransactionID = j.TransactionID(row.Line)
		res, err := p.pl.Run(ctx, &req, p.rowOptions(row), p.rowHooks(row, pl))
		var dup *payout.DuplicateError
		var sendErr *payout.SendError
		switch {
		case errors.Is(err, ErrInterrupted):
			return err // the journal could not be written
		case errors.As(err, &dup):
			// The last check, under the audit record's lock: another
			// process of this profile sent the same payout since the plan
			// was made. Nothing was sent.
			p.dups[row.Line] = &dup.Matches[0]
			progress(opt, i+1, total)
			continue
		case err != nil && !errors.As(err, &sendErr):
			return fmt.Errorf("%w at line %d: %w; nothing was sent for this row. Run the same command again to resume", ErrInterrupted, row.Line, err)
		}
		a := res.Answer
		if !a.Reached {
			// It never left: nothing happened to this row, and the journal
			// keeps it unsent. The service cannot be reached: stop.
			return fmt.Errorf("%w at line %d: %w; nothing was sent for this row (%s); run the same command again to resume", ErrInterrupted, row.Line, a.Err, a.Advice())
		}
		if res.RecordErr != nil {
			return fmt.Errorf("%w: %w (line %d was %s; run again to resume, nothing is paid twice)", ErrInterrupted, res.RecordErr, row.Line, a.Outcome)
		}
		progress(opt, i+1, total)
		if a.Unknown() {
			// No answer: the service is unreachable or failing. Going on
			// would only pile up unknowns; stop and let a re-run resume.
			return fmt.Errorf("%w at line %d: %w; run the same command again to resume (the same transaction_id is re-sent, so nothing is paid twice)", ErrInterrupted, row.Line, a.Err)
		}
	}
	return nil
}

// rowHooks are how the pipeline's Run takes one planned row: with the
// plan's check (the rows were checked together, over one read of the
// record and the report, and the operator confirmed that list) and its
// answer written to the journal before the audit record. Run reserves
// the row in the audit record (fsynced, under its lock, checking once
// more for a payout sent meanwhile) before the POST; the row's id was
// fsynced in the journal when the journal was made.
func (p *Prepared) rowHooks(row Row, pl Planned) payout.Hooks {
	// A row the plan found matching an earlier payout is sent only when
	// the operator allowed it: the record marks it a second payout.
	chk := &payout.Checked{}
	if pl.Match != nil {
		chk.Matches = []payout.Payment{*pl.Match}
	}
	return payout.Hooks{
		Check: func(context.Context, *api.PayoutRequest, payout.Options) (*payout.Checked, error) { return chk, nil },
		Answered: func(_ context.Context, a payout.Answer) error {
			if !a.Reached {
				return nil // it never left: the journal keeps the row unsent
			}
			rec := sentOf(a, p.clk.Now())
			if err := p.j.RecordSent(row.Line, rec); err != nil {
				return fmt.Errorf("%w: %w (line %d was %s; run again to resume, nothing is paid twice)", ErrInterrupted, err, row.Line, rec.Outcome)
			}
			return nil
		},
	}
}

func progress(opt Options, done, total int) {
	if opt.Progress != nil {
		opt.Progress(done, total)
	}
}

// sentOf is the journal's record of a send's answer, as the payout
// pipeline classified it (payout.Classify).
func sentOf(a payout.Answer, now time.Time) Sent {
	s := Sent{Outcome: a.Outcome, HTTPStatus: a.HTTPStatus, At: now}
	if a.Err != nil {
		s.Detail = a.Err.Error()
	}
	return s
}

// accepted returns the lines the journal already records as accepted.
func accepted(f *File, j *Journal) map[int]bool {
	out := map[int]bool{}
	if j == nil {
		return out
	}
	for _, row := range f.Rows {
		if s, ok := j.LastSent(row.Line); ok && s.Outcome == payout.OutcomeAccepted {
			out[row.Line] = true
		}
	}
	return out
}

// AwaitingEarlier reports whether an earlier run's journal (at
// journalPath, or beside the file when empty) has accepted payouts whose
// final state it never saw: following the relay then replays its store
// so their states are found too.
func AwaitingEarlier(f *File, journalPath string) bool {
	if journalPath == "" {
		journalPath = DefaultJournalPath(f.Path)
	}
	j, err := ReadJournal(journalPath, f)
	if err != nil {
		return false
	}
	for line := range accepted(f, j) {
		if st, _ := j.State(j.TransactionID(line)); !api.IsFinalState(st.State) {
			return true
		}
	}
	return false
}

// results builds the per-row view from the journal (nil for a dry run
// without one) and the plan.
func (p *Prepared) results() []RowResult {
	f, j, previous, dry := p.f, p.j, p.previous, p.opt.DryRun
	out := make([]RowResult, 0, len(f.Rows))
	repeats := f.Repeats()
	for i, row := range f.Rows {
		r := RowResult{
			Line: row.Line, TransactionID: p.id(row.Line),
			Name: row.Request.BeneficiaryName, IBAN: row.Request.BeneficiaryIBAN, Reference: row.Request.BeneficiaryReference,
			Currency: row.Request.Currency, AmountInMinor: row.Request.AmountInMinor,
			Amount: api.FormatAmountPlain(row.Request.AmountInMinor, row.Request.Currency),
			Result: ResultNotSent,
		}
		var sent Sent
		var sentOK bool
		if j != nil {
			sent, sentOK = j.LastSent(row.Line)
		}
		if sentOK {
			r.Sent, r.HTTPStatus, r.Detail = sent.Outcome, sent.HTTPStatus, sent.Detail
			if sent.Outcome != payout.OutcomeAccepted {
				// Journalled sends reached the service (one that never
				// left is not journalled).
				r.Advice = payout.Answer{Outcome: sent.Outcome, Reached: true}.Advice()
			}
			switch sent.Outcome {
			case payout.OutcomeAccepted:
				r.Result = ResultAccepted
				if st, ok := j.State(r.TransactionID); ok {
					r.State, r.Reason = st.State, st.Reason
					switch {
					case api.StatePaid(st.State):
						r.Result = ResultSettled
					case st.State == api.StateRejected:
						r.Result = ResultRejected
					case st.State == api.StateFailed:
						r.Result = ResultFailed
					}
				}
			case payout.OutcomeRefused:
				r.Result = ResultRejected
			}
		}
		r.RepeatOf = repeats[row.Line]
		r.PreviousRun = previous[row.Line]
		if r.PreviousRun && r.Result == ResultNotSent {
			r.Result = ResultAccepted // found in the audit record or report
			r.Sent = payout.OutcomeAccepted
		}
		if dry && !r.PreviousRun {
			r.Result = ResultWouldPay
		}
		if m := p.dups[row.Line]; m != nil {
			r.Result, r.DuplicateOf = ResultDuplicate, m
		} else if pl := p.planned(i); pl != nil && pl.Match != nil && !r.PreviousRun {
			// Released by --allow-duplicate: sent (or to be sent) as a
			// second payout, and shown as one.
			r.DuplicateOf = pl.Match
		}
		if pl := p.planned(i); pl != nil && pl.Before != nil {
			r.ChangedFrom = pl.Before
			if pl.Action == ActionChanged {
				r.Result = ResultChanged
			}
		}
		out = append(out, r)
	}
	return out
}

// Tally counts the rows by result, into Counts.
func (s *Summary) Tally() {
	c := Counts{Rows: len(s.Rows)}
	for _, r := range s.Rows {
		if r.Sent == payout.OutcomeAccepted {
			c.Accepted++
		}
		if r.PreviousRun {
			c.PreviousRun++
		}
		switch r.Result {
		case ResultSettled:
			c.Settled++
		case ResultAccepted:
			c.Pending++
		case ResultRejected:
			c.Rejected++
		case ResultFailed:
			c.Failed++
		case ResultNotSent:
			c.NotSent++
		case ResultWouldPay:
			c.WouldSend++
		case ResultDuplicate:
			c.Duplicate++
		case ResultChanged:
			c.Changed++
		}
	}
	s.Counts = c
}
