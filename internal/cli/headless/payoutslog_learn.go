package headless

import (
	"context"
	"fmt"
	"time"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/cli/cmdutil"
	"github.com/paydash/paydash/internal/payout"
	"github.com/paydash/paydash/internal/platform/termtext"
)

// learnTimeout bounds what `payouts log` spends asking the report, and
// then the relay: the record is local and must print without them.
const learnTimeout = 10 * time.Second

// LearnOutcomes asks, for every payout the record still shows open
// (accepted, or no answer), what became of it: the relay's history (it
// alone sees a rejection, and carries a failure's reason), else the
// service's report. The report is read first, once for all of them, so
// the relay is asked only about payouts the report does not show paid. Each final state learnt is appended to the record, so `payouts
// log` shows settled, rejected, failed or returned, as `payout create
// --wait` would have. A payout that failed after it was submitted is
// recorded as failed with the reason "returned": the money went out and
// came back. states or report may be nil; a service that cannot be asked
// is said on stderr and the record is shown as it is.
func LearnOutcomes(ctx context.Context, s *cmdutil.Streams, log *payout.Log, report payout.ReportReader, states payout.FinalStates) {
	entries, err := log.Entries()
	if err != nil {
		return
	}
	var open []payout.Attempt
	earliest := time.Time{}
	for _, a := range payout.Attempts(entries) {
		if payout.Pending(a.Outcome) {
			open = append(open, a)
			if earliest.IsZero() || a.At.Before(earliest) {
				earliest = a.At
			}
		}
	}
	if len(open) == 0 {
		return
	}
	learnt := map[string][2]string{} // id -> state, reason
	// The report first: one read answers for every payout it lists.
	if report != nil {
		want := map[string]bool{}
		for _, a := range open {
			want[a.TransactionID] = true
		}
		rctx, cancel := context.WithTimeout(ctx, learnTimeout)
		err := report.StreamTransactions(rctx, api.TransactionQuery{Type: api.TransactionPayout, From: earliest.Add(-time.Minute)}, func(t api.Transaction) error {
			if !want[t.TransactionID] {
				return nil
			}
			if fin, ok := payout.FinalFromReport(t); ok {
				learnt[t.TransactionID] = [2]string{fin.State, fin.Reason}
			}
			return nil
		})
		cancel()
		if err != nil {
			fmt.Fprintf(s.Err, "note: the service's report could not be read (%s)\n", termtext.Safe(err.Error()))
		}
	}
	// Then the relay, for what the report cannot say: a rejection never
	// enters it, and a failure's reason is only in the relay's event.
	if states != nil {
		rctx, cancel := context.WithTimeout(ctx, learnTimeout)
		for _, a := range open {
			prior, known := learnt[a.TransactionID]
			if known && api.StatePaid(prior[0]) {
				continue
			}
			st, reason, ok, err := states.FinalState(rctx, a.TransactionID)
			if err != nil {
				fmt.Fprintf(s.Err, "note: the relay could not be asked (%s); outcomes as the report and the record have them\n", termtext.Safe(err.Error()))
				break
			}
			if ok {
				if reason == "" {
					reason = prior[1]
				}
				learnt[a.TransactionID] = [2]string{st, reason}
			}
		}
		cancel()
	}
	for id, st := range learnt {
		if _, err := log.FinalOutcome(id, st[0], st[1]); err != nil {
			fmt.Fprintf(s.Err, "note: %s\n", termtext.Safe(err.Error()))
		}
	}
}

// outcomeWord is the word `payouts log` shows for an attempt's outcome:
// the final state's name, and "returned" for a payout that failed after
// it was submitted, the word `payout create --wait` uses for it.
func outcomeWord(a payout.Attempt) string {
	switch {
	case a.Outcome == "":
		return "no answer recorded"
	case a.Outcome == api.StateFailed && a.Detail == payout.ReasonReturned:
		return payout.ReasonReturned
	}
	return a.Outcome
}
