package ui

import (
	tea "github.com/charmbracelet/bubbletea"

	"github.com/paydash/paydash/api"
)

// OutcomeRecorder, when the payout guard is one (*payout.Pipeline is),
// takes the final states the tracker learns (from the relay or the
// report) into the profile's audit record: `paydash payouts log` and the
// duplicate check then know a payout was rejected, not just accepted. It
// ignores payouts the record does not hold.
type OutcomeRecorder interface {
	Record(id, state, reason string) error
}

// recordOutcomes returns a command writing the final states not yet
// passed on, off the update loop (it touches a file under a lock).
func (v *trackerView) recordOutcomes(c *viewContext) tea.Cmd {
	finished := v.toRecord
	v.toRecord = v.toRecord[:0]
	rec, ok := c.opts.Guard.(OutcomeRecorder)
	if !ok || rec == nil {
		return nil
	}
	type final struct{ id, state, reason string }
	var todo []final
	for _, p := range finished {
		if !api.IsFinalState(p.state) || p.outcomeRecorded {
			continue
		}
		p.outcomeRecorded = true
		todo = append(todo, final{p.id, p.state, p.reason})
	}
	if len(todo) == 0 {
		return nil
	}
	return func() tea.Msg {
		for _, f := range todo {
			_ = rec.Record(f.id, f.state, f.reason) // the record is a trace; the screen already shows the state
		}
		return nil
	}
}
