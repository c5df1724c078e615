package ui

import (
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/webhookrelay/relayclient"
)

// pollEvery is how often the tracker reads the transaction report for
// the payouts it follows while the relay is not live: their outcome is
// then known without webhooks.
const pollEvery = 5 * time.Second

// Where a tracked payout's state came from.
const (
	fromRelay  = "relay"
	fromReport = "report"
)

type trackerPollMsg struct{}

// polledMsg carries the report's rows for the payouts asked about.
type polledMsg struct {
	asked map[string]bool
	rows  map[string]api.Transaction
	err   error
}

// relayIsLive reports whether webhooks are arriving now.
func (m *model) relayIsLive() bool {
	return m.relayKnown && m.relay.Status == relayclient.StateLive
}

// notePollTick records the relay's liveness for the views and, when the
// relay is not live, polls the report for the payouts still under way.
func (m *model) notePollTick() tea.Cmd {
	m.relayLive = m.relayIsLive()
	next := after(m.clock, pollEvery, trackerPollMsg{})
	if m.relayLive {
		return next
	}
	return tea.Batch(m.tracker.poll(m.c()), next)
}

// poll reads the report for every payout that has no final state yet.
func (v *trackerView) poll(c *viewContext) tea.Cmd {
	be := c.backend
	if be == nil {
		return nil
	}
	asked := map[string]bool{}
	var since time.Time
	for _, p := range v.payouts.newestFirst() {
		if api.IsFinalState(p.state) {
			continue
		}
		asked[p.id] = true
		if since.IsZero() || p.firstSeen.Before(since) {
			since = p.firstSeen
		}
	}
	if len(asked) == 0 {
		return nil
	}
	ctx := c.ctx
	// A payout is booked when authorised, which is after this dashboard
	// first saw it; an hour of slack covers clocks that disagree.
	q := api.TransactionQuery{Type: api.TransactionPayout, From: since.Add(-time.Hour)}
	return func() tea.Msg {
		rows := map[string]api.Transaction{}
		err := be.StreamTransactions(ctx, q, func(t api.Transaction) error {
			if asked[t.TransactionID] {
				rows[t.TransactionID] = t
			}
			return nil
		})
		return polledMsg{asked: asked, rows: rows, err: err}
	}
}

// applyPolled moves payouts on from the report's rows. A payout the
// service accepted but the report does not hold was most likely rejected
// (rejections never enter the report): the tracker says so rather than
// showing "sent" for good.
func (v *trackerView) applyPolled(c *viewContext, msg polledMsg) {
	if msg.err != nil {
		return
	}
	for id := range msg.asked {
		p := v.byID[id]
		if p == nil {
			continue
		}
		row, ok := msg.rows[id]
		if !ok {
			if p.mine && p.state == stateSent {
				p.note = "not in the report: if it was rejected, only the relay can say why"
			}
			continue
		}
		p.note = ""
		if p.row == nil && p.req == nil {
			r := row
			p.row = &r
			v.touch(p)
		}
		state, at := row.Status, row.SettledAt.Time
		switch state {
		case api.StateAuthorised:
			at = row.AuthorisedAt.Time
		case api.StateSubmitted:
			at = row.SubmittedAt.Time
		}
		if at.IsZero() {
			at = c.now()
		}
		if api.StateRank(state) <= api.StateRank(p.state) && p.state != stateSent {
			continue
		}
		p.steps = append(p.steps, payoutStep{state: state, at: at, from: fromReport})
		p.state, p.from, p.changedAt = state, fromReport, c.now()
		v.noteState(p)
	}
}

// stateSource says where a payout's state came from, for the tracker's
// detail and the form's result.
func (p *trackedPayout) stateSource() string {
	switch p.from {
	case fromReport:
		return "from the transaction report (relay not live)"
	case fromRelay:
		return "from the relay's webhooks"
	}
	return ""
}
