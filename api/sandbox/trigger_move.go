package sandbox

import (
	"fmt"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/api/sandbox/sandboxapi"
)

// move applies a triggered event to a live payout the sandbox holds: its
// state moves as the event says (submitted, settled or executed, failed)
// and the event goes out from the ledger like the payout's own, in order
// with them. moved is false when t.PayoutID is not a live payout (only
// the event is made then); a move the payout's state does not allow is
// ErrInvalidState.
func (l *ledger) move(t sandboxapi.Trigger) (ev *event, moved bool, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	i, ok := l.byID[t.PayoutID]
	if !ok || t.PayoutID == "" {
		if reason, rejected := l.rejected[t.PayoutID]; rejected && t.PayoutID != "" {
			return nil, false, fmt.Errorf("%w: payout %s was rejected (%s); it has no further events", ErrInvalidState, t.PayoutID, reason)
		}
		return nil, false, nil
	}
	tx := &l.txns[i]
	if tx.kind != kindPayoutTxn {
		return nil, false, fmt.Errorf("%w: %s is a funding, not a payout", ErrInvalidState, t.PayoutID)
	}
	if tx.status == stSettled || tx.status == stFailed {
		return nil, false, fmt.Errorf("%w: payout %s is already %s, a final state", ErrInvalidState, t.PayoutID, statusNames[tx.status])
	}
	a := l.accounts[tx.acct]
	now := reportNow(l.clock)
	stop := func() {
		if tm, ok := l.timers[t.PayoutID]; ok {
			tm.Stop()
			delete(l.timers, t.PayoutID)
		}
	}
	switch t.Event {
	case api.EventPayoutSubmitted:
		if tx.status != stAuthorised {
			return nil, false, fmt.Errorf("%w: payout %s is %s; payout_submitted follows authorisation", ErrInvalidState, t.PayoutID, statusNames[tx.status])
		}
		stop()
		tx.status, tx.submitted = stSubmitted, now
		ev = payoutEvent(t.Event, t.PayoutID, api.PayoutEventBody{TransactionID: t.PayoutID, SubmittedAt: eventTime(now)})
		l.schedule(t.PayoutID)
	case api.EventPayoutSettled, api.EventPayoutExecuted:
		stop()
		if tx.submitted == 0 {
			tx.submitted = now
		}
		settlePayout(tx, a, now)
		if t.Event == api.EventPayoutSettled {
			ev = payoutEvent(t.Event, t.PayoutID, api.PayoutEventBody{TransactionID: t.PayoutID, SettledAt: eventTime(now)})
		} else {
			t.Currency = a.Currency
			ev = paymentsPayoutEvent(t, a, eventTime(now))
		}
	case api.EventPayoutFailed:
		stop()
		reason := orDefault(t.Reason, orDefault(l.reasons[t.PayoutID], api.FailureSchemeError))
		delete(l.reasons, t.PayoutID)
		failPayout(tx, a)
		if t.Family == sandboxapi.FamilyPayments {
			t.Reason, t.Currency = reason, a.Currency
			ev = paymentsPayoutEvent(t, a, eventTime(now))
		} else {
			ev = payoutEvent(t.Event, t.PayoutID, api.PayoutEventBody{TransactionID: t.PayoutID, FailedAt: eventTime(now), Reason: reason})
		}
	default:
		return nil, false, fmt.Errorf("%w: payout %s is %s; %s cannot move it (give no payout to make the event alone)", ErrInvalidState, t.PayoutID, statusNames[tx.status], t.Event)
	}
	l.hooks.enqueueLogged(ev)
	return ev, true, nil
}
