package batch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"sync"
	"time"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/clock"
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
}

// Row results: what finally happened to a row, as far as paydash knows.
const (
	ResultSettled  = "settled"  // a webhook reported it settled (or executed)
	ResultAccepted = "accepted" // the service accepted it; no final state seen yet
	ResultRejected = "rejected" // refused by the service, or a rejection webhook
	ResultFailed   = "failed"   // a failure webhook
	ResultNotSent  = "not_sent" // not sent, or no answer: a re-run sends it
	ResultWouldPay = "would_send"
)

// RowResult is the outcome of one row.
type RowResult struct {
	Line          int    `json:"line"`
	TransactionID string `json:"transaction_id,omitempty"`
	Name          string `json:"beneficiary_name"`
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
	// State is the last payout state a webhook reported, and Reason its
	// rejection or failure reason.
	State  string `json:"state,omitempty"`
	Reason string `json:"reason,omitempty"`
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
	// Watched is true when webhooks were followed to update the results.
	Watched bool `json:"watched_webhooks"`
}

// OK reports whether every row was paid or is on its way: nothing
// rejected, failed or left unsent.
func (s *Summary) OK() bool {
	return s.Counts.Rejected == 0 && s.Counts.Failed == 0 && s.Counts.NotSent == 0
}

// ErrInterrupted is wrapped when a run stops before every row was sent
// (cancelled, or the service stopped answering); a re-run resumes.
var ErrInterrupted = errors.New("batch interrupted")

// Run sends the file's payouts through s, resuming from the journal. It
// returns the summary even when it also returns an error.
func Run(ctx context.Context, f *File, s Sender, opt Options) (*Summary, error) {
	clk := opt.Clock
	if clk == nil {
		clk = clock.Real()
	}
	jpath := opt.JournalPath
	if jpath == "" {
		jpath = DefaultJournalPath(f.Path)
	}
	sum := &Summary{File: f.Path, Journal: jpath, DryRun: opt.DryRun, Totals: f.Totals()}

	if opt.DryRun {
		j, err := ReadJournal(jpath, f)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return sum, err
		}
		if err != nil {
			j = nil
		}
		sum.Rows = results(f, j, accepted(f, j), true)
		sum.tally()
		return sum, nil
	}

	j, err := OpenJournal(jpath, f, clk.Now())
	if err != nil {
		return sum, err
	}
	defer j.Close()
	previous := accepted(f, j)

	w := newWatcher(j, f, clk)
	watchCtx, stopWatch := context.WithCancel(ctx)
	var wg sync.WaitGroup
	if opt.Events != nil {
		sum.Watched = true
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

	runErr := send(ctx, f, j, s, opt, clk)

	if runErr == nil && opt.Events != nil && opt.Wait > 0 {
		w.waitFinal(ctx, opt.Wait)
	}
	stopWatch()
	wg.Wait()
	sum.Rows = results(f, j, previous, false)
	sum.tally()
	if err := w.err(); err != nil && runErr == nil {
		runErr = err
	}
	return sum, runErr
}

// send sends every row not yet accepted, in file order.
func send(ctx context.Context, f *File, j *Journal, s Sender, opt Options, clk clock.Clock) error {
	var interval time.Duration
	if opt.Rate > 0 {
		interval = time.Duration(float64(time.Second) / opt.Rate)
	}
	var last time.Time
	for i, row := range f.Rows {
		if prev, ok := j.LastSent(row.Line); ok && prev.Outcome == OutcomeAccepted {
			progress(opt, i+1, len(f.Rows))
			continue
		}
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("%w at line %d: %v; run the same command again to resume", ErrInterrupted, row.Line, err)
		}
		if interval > 0 && !last.IsZero() {
			if wait := interval - clk.Now().Sub(last); wait > 0 {
				select {
				case <-ctx.Done():
					return fmt.Errorf("%w at line %d: %v; run the same command again to resume", ErrInterrupted, row.Line, ctx.Err())
				case <-clk.After(wait):
				}
			}
		}
		last = clk.Now()
		req := row.Request
		req.TransactionID = j.TransactionID(row.Line)
		sendErr := s.CreatePayout(ctx, &req)
		rec := classify(sendErr, clk.Now())
		if err := j.RecordSent(row.Line, rec); err != nil {
			return fmt.Errorf("%w: %v (line %d was %s; run again to resume, nothing is paid twice)", ErrInterrupted, err, row.Line, rec.Outcome)
		}
		progress(opt, i+1, len(f.Rows))
		if rec.Outcome == OutcomeUnknown {
			// No answer: the service is unreachable or failing. Going on
			// would only pile up unknowns; stop and let a re-run resume.
			return fmt.Errorf("%w at line %d: %v; run the same command again to resume (the same transaction_id is re-sent, so nothing is paid twice)", ErrInterrupted, row.Line, sendErr)
		}
	}
	return nil
}

func progress(opt Options, done, total int) {
	if opt.Progress != nil {
		opt.Progress(done, total)
	}
}

// classify turns a CreatePayout result into a journal outcome. Only a 4xx
// answer is a definite refusal (nothing created); 408 and 429 are "try
// later", and 5xx or no answer leave the outcome unknown.
func classify(err error, now time.Time) Sent {
	if err == nil {
		return Sent{Outcome: OutcomeAccepted, HTTPStatus: http.StatusAccepted, At: now}
	}
	var ae *api.Error
	if errors.As(err, &ae) && ae.StatusCode >= 400 && ae.StatusCode < 500 &&
		ae.StatusCode != http.StatusRequestTimeout && ae.StatusCode != http.StatusTooManyRequests {
		return Sent{Outcome: OutcomeRefused, HTTPStatus: ae.StatusCode, Detail: ae.Error(), At: now}
	}
	s := Sent{Outcome: OutcomeUnknown, Detail: err.Error(), At: now}
	if ae != nil {
		s.HTTPStatus = ae.StatusCode
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
		if s, ok := j.LastSent(row.Line); ok && s.Outcome == OutcomeAccepted {
			out[row.Line] = true
		}
	}
	return out
}

// results builds the per-row view from the journal (nil for a dry run
// without one); previous holds the lines accepted before this run.
func results(f *File, j *Journal, previous map[int]bool, dry bool) []RowResult {
	out := make([]RowResult, 0, len(f.Rows))
	for _, row := range f.Rows {
		r := RowResult{
			Line: row.Line, TransactionID: row.Request.TransactionID,
			Name: row.Request.BeneficiaryName, Reference: row.Request.BeneficiaryReference,
			Currency: row.Request.Currency, AmountInMinor: row.Request.AmountInMinor,
			Amount: api.FormatAmountPlain(row.Request.AmountInMinor, row.Request.Currency),
			Result: ResultNotSent,
		}
		var sent Sent
		var sentOK bool
		if j != nil {
			r.TransactionID = j.TransactionID(row.Line)
			sent, sentOK = j.LastSent(row.Line)
		}
		if sentOK {
			r.Sent, r.HTTPStatus, r.Detail = sent.Outcome, sent.HTTPStatus, sent.Detail
			switch sent.Outcome {
			case OutcomeAccepted:
				r.Result = ResultAccepted
				if st, ok := j.State(r.TransactionID); ok {
					r.State, r.Reason = st.State, st.Reason
					switch st.State {
					case api.StateSettled, api.StateExecuted:
						r.Result = ResultSettled
					case api.StateRejected:
						r.Result = ResultRejected
					case api.StateFailed:
						r.Result = ResultFailed
					}
				}
			case OutcomeRefused:
				r.Result = ResultRejected
			}
		}
		r.PreviousRun = previous[row.Line]
		if dry && !r.PreviousRun {
			r.Result = ResultWouldPay
		}
		out = append(out, r)
	}
	return out
}

func (s *Summary) tally() {
	c := Counts{Rows: len(s.Rows)}
	for _, r := range s.Rows {
		if r.Sent == OutcomeAccepted {
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
		}
	}
	s.Counts = c
}
