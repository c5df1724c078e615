package payout

import (
	"context"
	"time"

	"github.com/paydash/paydash/api"
)

// FinalStates tells what became of a payout after the service accepted
// it; the relay's stored events are one (relayclient.History).
type FinalStates interface {
	FinalState(ctx context.Context, id string) (state, reason string, ok bool, err error)
}

// ReportGrace is how long a payout the record shows accepted may be
// missing from the service's report before that is more than lag: a
// rejected payout never enters the report.
const ReportGrace = 2 * time.Minute

// Resolve brings the duplicate check's local matches up to date with what
// is known since they were sent, before they are allowed to block a
// payout: the report's final state, or the relay's when the report does
// not list the payout. Each outcome learnt is appended to the record (log
// may be nil). Matches now known rejected or failed are dropped (they
// paid nothing: re-sending is the fix); the others stay. A match the
// record shows accepted that the report still lacks after ReportGrace and
// the relay cannot account for is kept and marked Unconfirmed: the check
// stays safe, and the refusal says how to find out and how to override.
func Resolve(ctx context.Context, log Record, k *Known, states FinalStates, matches []Payment, now time.Time) []Payment {
	out := matches[:0:0]
	for _, m := range matches {
		if m.Where != FromLocalRecord || !Pending(m.Outcome) {
			out = append(out, m)
			continue
		}
		state, reason, from := "", "", ""
		if rp, ok := k.reportByID(m.TransactionID); ok {
			if final(rp.Outcome) {
				state, from = rp.Outcome, "service report"
			}
		} else if states != nil {
			if st, why, ok, err := states.FinalState(ctx, m.TransactionID); err == nil && ok {
				state, reason, from = st, why, "relay"
			}
			if state == "" && now.Sub(m.At) > ReportGrace {
				m.Unconfirmed = true
			}
		} else if now.Sub(m.At) > ReportGrace {
			m.Unconfirmed = true
		}
		if state == "" {
			out = append(out, m)
			continue
		}
		if log != nil {
			detail := reason
			if detail == "" {
				detail = "learnt from the " + from
			}
			_ = log.Outcome(m.TransactionID, state, detail)
		}
		m.Outcome = state
		if m.paid() {
			out = append(out, m)
		}
	}
	return out
}

// Paid reports whether p may have paid its payee: not refused, rejected
// or failed as far as the record shows, and, when the record leaves it
// open, not since found rejected or failed in the report or the relay's
// history (which Resolve then appends to the record).
func Paid(ctx context.Context, log *Log, k *Known, states FinalStates, p Payment, now time.Time) bool {
	var rec Record
	if log != nil {
		rec = log
	}
	return p.paid() && len(Resolve(ctx, rec, k, states, []Payment{p}, now)) > 0
}

func final(state string) bool { return api.IsFinalState(state) }

func (k *Known) reportByID(id string) (Payment, bool) {
	if k.reportID == nil {
		k.index()
	}
	p, ok := k.reportID[id]
	return p, ok
}
