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
