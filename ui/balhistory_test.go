package ui

import (
	"context"
	"testing"
	"time"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/report"
)

// txList is a report source serving fixed rows.
type txList []api.Transaction

func (l txList) StreamTransactions(_ context.Context, _ api.TransactionQuery, fn func(api.Transaction) error) error {
	for _, t := range l {
		if err := fn(t); err != nil {
			return err
		}
	}
	return nil
}

// The account page dates money by when it last moved: a payout authorised
// days ago that settled this morning is today's debit and heads the
// latest transactions, ahead of a full list of rows authorised yesterday
// and not moved since (it used to be dated, and pre-filtered, by its
// authorisation, and fell off the list).
func TestAccountHistoryDatesRowsByTheirLatestMove(t *testing.T) {
	now := fixedNow
	yesterday := now.Add(-24 * time.Hour)
	var rows txList
	for i := range recentRows {
		rows = append(rows, api.Transaction{TransactionID: "y" + itoa(i), Type: "Payout", Status: api.StateAuthorised, Currency: "GBP",
			AmountInMinor: 100, AuthorisedAt: api.NewReportTime(yesterday.Add(time.Duration(i) * time.Minute))})
	}
	rows = append(rows, api.Transaction{TransactionID: "old-settled-today", Type: "Payout", Status: api.StateSettled, Currency: "GBP", AmountInMinor: 500,
		AuthorisedAt: api.NewReportTime(now.Add(-72 * time.Hour)), SubmittedAt: api.NewReportTime(now.Add(-71 * time.Hour)),
		SettledAt: api.NewReportTime(now.Add(-30 * time.Minute))})
	st, err := report.Load(context.Background(), rows, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	msg, ok := balanceHistory(st, now)().(balanceHistoryMsg)
	if !ok {
		t.Fatal("no history")
	}
	h := msg.byCur["GBP"]
	if h == nil || len(h.recent) != recentRows {
		t.Fatalf("history %+v", h)
	}
	if h.recent[0].TransactionID != "old-settled-today" {
		t.Errorf("latest transactions start with %s, want the payout that settled this morning", h.recent[0].TransactionID)
	}
	today, threeDaysAgo, dayBefore := historyDays-1, historyDays-4, historyDays-2
	if h.moves[today] != -500 || h.moves[threeDaysAgo] != 0 || h.moves[dayBefore] != -100*recentRows {
		t.Errorf("moves: today %d (want -500), 3 days ago %d (want 0), yesterday %d (want %d)",
			h.moves[today], h.moves[threeDaysAgo], h.moves[dayBefore], -100*recentRows)
	}
}

// After a refresh the balances' history is worked out from the one shown
// and the rows the refresh changed, and comes out as a whole pass over
// the refreshed report would: a payout that settled today moves to
// today, a new funding is counted. A history of a report since replaced,
// arriving late, is not shown.
func TestBalanceHistoryAfterARefreshIsAWholePass(t *testing.T) {
	now := fixedNow
	var rows txList
	for i := range 40 {
		rows = append(rows, api.Transaction{TransactionID: "p" + itoa(i), Type: "Payout", Status: api.StateSubmitted, Currency: "GBP",
			AmountInMinor: int64(100 + i), AuthorisedAt: api.NewReportTime(now.Add(-time.Duration(i) * 6 * time.Hour)),
			SubmittedAt: api.NewReportTime(now.Add(-time.Duration(i)*6*time.Hour + time.Minute))})
	}
	st0, err := report.Load(context.Background(), rows, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	var v balancesView
	msg0 := v.historyFor(st0, nil, nil, now)().(balanceHistoryMsg)
	v.setHistory(msg0)

	more := append(txList(nil), rows...)
	more[30].Status, more[30].SettledAt = api.StateSettled, api.NewReportTime(now.Add(-time.Hour))
	more[35].Status = api.StateFailed
	more = append(more, api.Transaction{TransactionID: "f1", Type: api.TransactionFunding, Status: api.StateSettled, Currency: "GBP",
		AmountInMinor: 7_000, SettledAt: api.NewReportTime(now.Add(-2 * time.Hour))})
	st1, ms, err := st0.Merge(context.Background(), more, api.TransactionQuery{}, nil)
	if err != nil || ms.Updated != 2 || ms.Added != 1 {
		t.Fatalf("refresh: %+v %v", ms, err)
	}
	msg1 := v.historyFor(st1, st0, ms.Changed, now)().(balanceHistoryMsg)
	whole := balanceHistory(st1, now)().(balanceHistoryMsg)
	got, want := msg1.byCur["GBP"], whole.byCur["GBP"]
	if got.moves != want.moves {
		t.Errorf("after the refresh %v, a whole pass %v", got.moves, want.moves)
	}
	if len(got.recent) != len(want.recent) || got.recent[0].TransactionID != want.recent[0].TransactionID {
		t.Errorf("latest after the refresh %v, a whole pass %v", got.recent, want.recent)
	}
	if got.moves == msg0.byCur["GBP"].moves {
		t.Fatal("the refresh changed nothing: the test tests nothing")
	}
	v.setHistory(msg1)
	v.setHistory(msg0) // the first report's, late
	if v.hist.byCur["GBP"].moves != want.moves {
		t.Error("a late history of the report before replaced the refreshed one")
	}
}
