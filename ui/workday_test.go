package ui

import (
	"encoding/base64"
	"errors"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/platform/clock"
	"github.com/paydash/paydash/internal/report"
	"github.com/paydash/paydash/webhookrelay/relayclient"
)

// Item 1: a UUID and letters typed while a form's select has focus stay in
// the form: no view switch, and d does not reach the report's date filter.
func TestKeysInASelectStayInTheForm(t *testing.T) {
	for _, tb := range []struct {
		key string
		tab tab
	}{{"5", tabPayout}, {"6", tabPayment}, {"7", tabMandate}} {
		h := newHarness(t, Options{Backend: newFake(10)}, 120, 40)
		h.key(tb.key)
		if tb.tab == tabPayment {
			h.typeText("12")
			h.key("enter") // the currency choice
		}
		if !h.m.formFor(tb.tab).choiceFocused() {
			t.Fatalf("%s: first field is not a choice", tabNames[tb.tab])
		}
		for _, r := range "6f1d3c2a-2347-4a4a-9b9b-000000000001 dtq" {
			h.typeText(string(r))
			if h.m.tab != tb.tab {
				t.Fatalf("%s: typing %q moved to %s", tabNames[tb.tab], r, tabNames[h.m.tab])
			}
		}
		if h.m.tx.filter.value() != "" || h.quit() {
			t.Fatalf("%s: keys reached other views (filter %q, quit %v)", tabNames[tb.tab], h.m.tx.filter.value(), h.quit())
		}
	}
}

// Item 8: a message belongs to the view it was said on, a command that
// worked clears the last one's complaint, and refreshing… goes once the
// refresh has answered.
func TestMessagesDoNotGoStale(t *testing.T) {
	h := newHarness(t, Options{Backend: newFake(10)}, 120, 40)
	h.key(":")
	h.typeText("bogus")
	h.key("enter")
	mustContain(t, h.view(), "unknown command :bogus")
	h.key(":")
	h.typeText("tx")
	h.key("enter")
	if h.m.tab != tabTransactions || strings.Contains(h.view(), "bogus") {
		t.Fatalf("after :tx (tab %s) the old complaint stays:\n%s", tabNames[h.m.tab], h.view())
	}

	h.key("5")
	h.key("enter")
	h.typeText("Ada")
	h.key("enter")
	h.typeText("DE75512108001245126199")
	h.key("enter")
	h.typeText("R")
	h.key("enter")
	h.typeText("1")
	h.key("enter")
	h.key("enter")
	h.key("n") // back to edit: "payout not sent…"
	mustContain(t, h.view(), "payout not sent")
	h.key("alt+1")
	if strings.Contains(h.view(), "payout not sent") {
		t.Fatalf("the form's message followed the user to Balances:\n%s", h.view())
	}

	h.key("r")
	if strings.Contains(h.view(), "refreshing") {
		t.Fatalf("refreshing… still shown after the refresh answered:\n%s", h.view())
	}
}

// Item 11: ctrl+n on a filled form asks before wiping it; ? opens help on
// a choice field; : completes with tab.
func TestClearAsksHelpOnChoiceAndCompletion(t *testing.T) {
	h := newHarness(t, Options{Backend: newFake(10)}, 120, 40)
	h.key("5")
	h.key("?")
	if !h.m.showHelp {
		t.Fatal("? on the source account choice did not open help")
	}
	h.key("esc")
	h.key("enter")
	h.typeText("Ada")
	key := h.m.payout.key
	h.key("ctrl+n")
	mustContain(t, h.view(), "Clear this payout")
	h.key("n")
	if p := h.m.payout.spec.(*payoutForm); p.name != "Ada" || h.m.payout.key != key {
		t.Fatalf("answering n cleared the form (name %q)", p.name)
	}
	h.key("ctrl+n")
	h.key("y")
	if p := h.m.payout.spec.(*payoutForm); p.name != "" || h.m.payout.key == key {
		t.Fatalf("y did not clear the form (name %q, same key %v)", p.name, h.m.payout.key == key)
	}

	h.key("alt+1")
	h.key(":")
	h.typeText("tra")
	h.key("tab")
	if got := h.m.cmdline.Value(); got != "transactions" {
		t.Fatalf("tab completed %q to %q", "tra", got)
	}
	h.key("enter")
	if h.m.tab != tabTransactions {
		t.Fatalf("completed command went to %s", tabNames[h.m.tab])
	}

	// ":payo" is a prefix of the payout form and of the tracker: tab
	// offers the shorter first, and cycles.
	h.key(":")
	h.typeText("payo")
	for _, want := range []string{"payout", "payouts", "payout"} {
		h.key("tab")
		if got := h.m.cmdline.Value(); got != want {
			t.Fatalf("tab on :payo gave %q, want %q", got, want)
		}
	}
	h.key("enter")
	if h.m.tab != tabPayout {
		t.Fatalf(":payout went to %s, want the payout form", tabNames[h.m.tab])
	}
}

// Item 4: e after a refusal lands on the field the service named, not on
// page 1 of the form.
func TestEditAfterFailureGoesToTheField(t *testing.T) {
	fb := newFake(10)
	fb.payoutErrs = []error{&api.Error{StatusCode: 422, Problem: &api.ProblemDetails{Title: "Invalid payout",
		Errors: map[string][]string{"beneficiary_reference": {"is not allowed"}}}}}
	h := newHarness(t, Options{Backend: fb}, 120, 40)
	fillPayout(h, "Ada Lovelace", "DE75512108001245126199", "INV-1", "12.34")
	h.key("y")
	h.key("e")
	if f := h.m.payout.form.GetFocusedField(); f == nil || f.GetKey() != "reference" {
		t.Fatalf("e focused %v, want the reference field", f.GetKey())
	}
}

// Item 6: one set of tab names at every width, and the footer keeps ? help.
func TestTabNamesAndFooterAtEveryWidth(t *testing.T) {
	for _, w := range []int{80, 120, 200} {
		for _, tb := range []string{"1", "2", "3", "4", "5"} {
			h := newHarness(t, Options{Backend: newFake(10)}, w, 24)
			h.key(tb)
			lines := strings.Split(h.view(), "\n")
			mustContain(t, lines[1], "2 Report", "5 Payout+")
			if foot := lines[len(lines)-1]; !strings.Contains(foot, "? help") && !strings.Contains(foot, "ctrl+c quit") {
				t.Errorf("%dx24 view %s: footer lacks ? help: %q", w, tb, foot)
			}
		}
	}
}

// Item 2: with the service unreachable the report says it could not load,
// with the whole cause, instead of "No transactions match the filter";
// the balances error is not cut before its cause either.
func TestUnreachableServiceIsNotAnEmptyReport(t *testing.T) {
	fb := newFake(10)
	fb.streamErr = errors.New(`cannot reach the service (check the URL and your network): dial tcp 127.0.0.1:9: connect: connection refused`)
	h := newHarness(t, Options{Backend: fb}, 80, 24)
	out := h.view()
	mustContain(t, strings.ReplaceAll(out, "\n", " "), "Could not load balances", "connection refused")
	h.key("2")
	out = h.view()
	if strings.Contains(out, "No transactions match") || strings.Contains(out, "0 of 0") {
		t.Fatalf("a failed load looks like an empty filter:\n%s", out)
	}
	mustContain(t, strings.Join(strings.Fields(out), " "), "Could not load the transaction report", "connection refused", "r retries")
	// Follow the advice once the service answers again: r loads the report.
	fb.streamErr = nil
	h.key("r")
	out = h.view()
	if strings.Contains(out, "Could not load the transaction report") || !strings.Contains(out, "10 of 10 transactions") {
		t.Fatalf("r did not load the report once the service answered:\n%s", out)
	}
}

// Item 5: a new sort starts at the top; the sorted column's header has
// room for its arrow; s cycles only through columns on screen.
func TestSortGoesToTheTopAndOnlyShownColumns(t *testing.T) {
	h := newHarness(t, Options{Backend: newFake(300)}, 80, 24)
	h.key("2")
	for range 5 {
		h.key("j")
	}
	for h.m.tx.sort.Col != colAmount {
		h.key("s")
	}
	if h.m.tx.nav.cursor != 0 {
		t.Fatalf("after sorting the cursor is on row %d, want the top", h.m.tx.nav.cursor)
	}
	top := h.m.tx.store.Tx(h.m.tx.idx[0]).AmountInMinor
	for _, i := range h.m.tx.idx {
		if a := h.m.tx.store.Tx(i).AmountInMinor; a > top {
			t.Fatalf("top row %d is not the largest (%d)", top, a)
		}
	}
	seen := map[report.Column]bool{}
	for range 2 * report.NumColumns {
		h.key("s")
		seen[h.m.tx.sort.Col] = true
		if h.m.tx.sort.Col == colCurrency {
			mustContain(t, h.view(), "Cur ↓")
		}
	}
	for _, hidden := range []report.Column{colIBAN, colReference, colID} {
		if seen[hidden] {
			t.Errorf("at 80 columns s sorted by %s, which is not on screen", report.ColumnNames[hidden])
		}
	}
	if !seen[colType] || !seen[colCurrency] {
		t.Errorf("s skipped shown columns: %v", seen)
	}
}

// Item 6 and the signed report: at 80x24 fundings and payouts differ (the
// Type column stays, amounts are signed) and the filtered rows' totals
// per currency are on screen.
func TestReportSignedTypedAndTotalledAt80(t *testing.T) {
	h := newHarness(t, Options{Backend: newFake(300)}, 80, 24)
	h.key("2")
	out := h.view()
	mustContain(t, out, " Type ", "funding", "payout", "+£713.71", "-£1.00", "Totals:")
	h.key("/")
	h.typeText("type:funding cur:GBP")
	h.key("enter")
	var in int64
	for _, i := range h.m.tx.idx {
		tx := h.m.tx.store.Tx(i)
		if tx.Status != api.StateFailed && tx.Status != api.StateRejected {
			in += tx.AmountInMinor
		}
	}
	mustContain(t, h.view(), "Totals: GBP in +"+api.FormatAmount(in, "GBP")+" out £0.00 net +"+api.FormatAmount(in, "GBP"))
}

// Item 4: form errors name their field by its title, messages say the
// fields' titles rather than request paths, and a long service error is
// wrapped whole rather than cut.
func TestFormErrorsNameTheirField(t *testing.T) {
	h := newHarness(t, Options{Backend: newFake(10)}, 80, 24)
	h.key("5")
	h.key("enter") // source account
	h.key("enter") // empty name
	h.key("enter")
	out := strings.Join(strings.Fields(h.view()), " ")
	mustContain(t, out, "✗ Beneficiary name:")

	// The mandate's dates: "must be after constraints.valid_from" reads
	// as the field's title.
	h = newHarness(t, Options{Backend: newFake(10)}, 120, 40)
	fillMandateToLimits(h)
	f := h.m.mandate.spec.(*mandateForm)
	f.validFrom, f.validTo = "2026-04-01", "2025-04-01"
	msgs := h.m.mandate.described(f.problems(h.m.c(), h.m.mandate.key))
	joined := strings.Join(msgs, "\n")
	if strings.Contains(joined, "constraints.") || !strings.Contains(joined, "Valid to: must be after Valid from") {
		t.Fatalf("problems still speak in request paths:\n%s", joined)
	}

	// A long field error from the service arrives whole.
	long := "is blocked by the sanctions screening service because the account holder matches an entry on the consolidated list; contact compliance with the trace id before retrying"
	fb := newFake(10)
	fb.payoutErrs = []error{&api.Error{StatusCode: 422, Problem: &api.ProblemDetails{Title: "Invalid payout",
		Errors: map[string][]string{"beneficiary_iban": {long}}}}}
	h = newHarness(t, Options{Backend: fb}, 80, 24)
	fillPayout(h, "Ada Lovelace", "DE75512108001245126199", "INV-1", "12.34")
	h.key("y")
	mustContain(t, strings.Join(strings.Fields(h.view()), " "), "Beneficiary IBAN: "+long)
}

// Item 7: inside tmux the copy is a plain OSC 52 (tmux drops the DCS
// passthrough wrapping by default, which left its buffer empty).
func TestCopyInsideTmuxIsPlainOSC52(t *testing.T) {
	t.Setenv("TMUX", "/tmp/tmux-1000/default,1234,0")
	t.Setenv("TERM", "screen-256color")
	h := newHarness(t, Options{Backend: newFake(10)}, 120, 40)
	h.key("2")
	h.key("Y")
	got := h.clip.String()
	id := h.m.tx.store.Tx(h.m.tx.idx[0]).TransactionID
	want := "\x1b]52;c;" + base64.StdEncoding.EncodeToString([]byte(id)) + "\x07"
	if got != want {
		t.Fatalf("inside tmux wrote %q, want the plain OSC 52 %q", got, want)
	}
}

// Item 3: the header names the time zone, times show in it, and
// date:today is that zone's day (and says which day it is).
func TestTimeZoneInHeaderAndToday(t *testing.T) {
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Skip("no tz database:", err)
	}
	// 03:30 UTC on the 14th is still the 13th in New York.
	fc := clock.NewFake(time.Date(2025, 3, 14, 3, 30, 0, 0, time.UTC))
	fb := newFake(0)
	fb.txs = func(i int) api.Transaction {
		tx := genTx(i)
		at := time.Date(2025, 3, 13, 23, 0, 0, 0, time.UTC).Add(time.Duration(i) * 2 * time.Hour) // 19:00 NY on the 13th, then every 2h
		tx.Type, tx.AuthorisedAt, tx.SubmittedAt, tx.SettledAt = api.TransactionPayout, api.NewReportTime(at), api.ReportTime{}, api.ReportTime{}
		return tx
	}
	fb.nTxs = 3 // 23:00 UTC 13th, 01:00 and 03:00 UTC 14th: all the 13th in New York
	h := newHarness(t, Options{Backend: fb, Clock: fc, Location: ny}, 120, 40)
	mustContain(t, strings.Split(h.view(), "\n")[0], "EDT")
	h.key("2")
	h.key("d") // date:today
	out := h.view()
	mustContain(t, out, "3 of 3 transactions", "today = 2025-03-13 EDT", "2025-03-13 19:00:00")

	h = newHarness(t, Options{Backend: fb, Clock: fc, Location: time.UTC}, 120, 40)
	mustContain(t, strings.Split(h.view(), "\n")[0], "UTC")
	h.key("2")
	h.key("d")
	mustContain(t, h.view(), "2 of 3 transactions", "today = 2025-03-14 UTC")
}

// Balance history and drill-down (items 10 and the balances part of the
// issue): the balances keep the service's order (GBP first, as the CLI);
// enter opens an account with its available balance over 30/90 days
// reconstructed from the report back from today's balance, the threshold
// drawn and its latest transactions; y copies its IBAN; a small move on a
// large balance is a flat trend, not a cliff.
func TestBalanceHistoryAndAccountPage(t *testing.T) {
	day := func(d int) time.Time { return fixedNow.AddDate(0, 0, -d) }
	rows := []api.Transaction{
		{TransactionID: "f1", Type: api.TransactionFunding, Currency: "GBP", AmountInMinor: 50_000_00, Status: api.StateSettled, SettledAt: api.NewReportTime(day(10))},
		{TransactionID: "p1", Type: api.TransactionPayout, Currency: "GBP", AmountInMinor: 20_000_00, Status: api.StateSettled, BeneficiaryName: "Ada", SettledAt: api.NewReportTime(day(5))},
		{TransactionID: "p2", Type: api.TransactionPayout, Currency: "GBP", AmountInMinor: 99_999_00, Status: api.StateRejected, BeneficiaryName: "Bob", AuthorisedAt: api.NewReportTime(day(3))},
		{TransactionID: "p3", Type: api.TransactionPayout, Currency: "GBP", AmountInMinor: 5_00, Status: api.StateSettled, BeneficiaryName: "Cy", SettledAt: api.NewReportTime(day(0).Add(-time.Hour))},
	}
	fb := newFake(0)
	fb.balances = []api.Balance{testBalances[1], testBalances[0]} // GBP, then EUR
	fb.txs = func(i int) api.Transaction { return rows[i] }
	fb.nTxs = len(rows)
	h := newHarness(t, Options{Backend: fb, LowBalance: map[string]int64{"GBP": 100_000_00}}, 120, 40)
	if h.m.bal.rows[0].b.Currency != "GBP" {
		t.Fatalf("balances not in the service's order: %s first", h.m.bal.rows[0].b.Currency)
	}
	series := h.m.bal.history(h.m.bal.rows[0], 30)
	today := int64(120_000_00)
	if got := series[29]; got != today {
		t.Fatalf("today's point %d, want the balance %d", got, today)
	}
	// Back through the report: before the £5 payout, before the
	// £20,000 payout, before the £50,000 funding; the rejected one moved
	// nothing.
	for _, c := range []struct {
		daysAgo int
		want    int64
	}{{1, today + 5_00}, {5, today + 5_00}, {6, today + 5_00 + 20_000_00}, {10, today + 5_00 + 20_000_00}, {11, today + 5_00 + 20_000_00 - 50_000_00}, {29, today + 5_00 + 20_000_00 - 50_000_00}} {
		if got := series[29-c.daysAgo]; got != c.want {
			t.Errorf("%d days ago: %d, want %d", c.daysAgo, got, c.want)
		}
	}
	if trend := h.m.bal.trend(h.m.bal.rows[0], 10); strings.ContainsRune(trend, '▁') {
		t.Errorf("a £5 move on £120,000 draws as %q", trend)
	}
	h.key("enter")
	out := h.view()
	mustContain(t, out, "GBP account", "last 30 days", "threshold £100,000.00", "┄", "Latest transactions", "-£5.00", "+£50,000.00")
	// The date axis is under the chart's 30 columns, "today" under the
	// last bar, not at the screen's right edge.
	for _, line := range strings.Split(out, "\n") {
		if strings.HasSuffix(strings.TrimRight(line, " "), "today") {
			if got := len([]rune(strings.TrimRight(line, " "))); got != 30 {
				t.Errorf("date axis %q is %d columns, want the chart's 30", line, got)
			}
		}
	}
	h.key("h")
	mustContain(t, h.view(), "last 90 days")
	h.key("y")
	if !strings.Contains(h.clip.String(), base64.StdEncoding.EncodeToString([]byte("GB33BUKB20201555555555"))) {
		t.Fatalf("y did not copy the IBAN: %q", h.clip.String())
	}
	h.key("esc")
	if h.m.bal.open {
		t.Fatal("esc did not go back to the list")
	}
}

// Item 9: events name an external payment's amount and do not repeat the
// payout id the list already shows; the tracker wraps a long reason and
// id instead of cutting them, and Y copies the reason.
func TestEventsAndTrackerReadable(t *testing.T) {
	h := newHarness(t, Options{Backend: newFake(10), Events: closedEvents(testEvents()), States: liveState()}, 120, 40)
	h.key("4")
	out := h.view()
	mustContain(t, out, "received 50,000 (minor units)")
	if l, ok := line(out, "payout_settled", "11111111-2222-4333-8444-555555555555"); !ok || strings.Count(l, "11111111") != 1 {
		t.Errorf("the payout id is said twice on its line: %q", l)
	}
	long := api.FailureInsufficientFunds + " — the payout account held less than the amount when the bank tried to execute it; fund the account and send a new payout"
	id := "99999999-8888-4777-8666-555555555555"
	h.send(relayEventsMsg{events: []relayclient.Event{{Seq: 9, EventID: "e9", Type: api.EventPayoutFailed, PayoutID: id,
		State: api.StateFailed, Reason: long, OccurredAt: fixedNow, ReceivedAt: fixedNow}}})
	h.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	h.key("3")
	for h.m.tracker.visible()[h.m.tracker.nav.cursor].id != id {
		h.key("j")
	}
	out = strings.Join(strings.Fields(h.view()), " ")
	mustContain(t, out, "payout "+id, long)
	h.key("Y")
	if !strings.Contains(h.clip.String(), base64.StdEncoding.EncodeToString([]byte(long))) {
		t.Fatal("Y did not copy the failure reason")
	}
}

// Tracker from history: a payout from before this session, found in the
// report, is followed with p: the tracker has its payee, amount and state
// from the row, and later events move it.
func TestFollowAPayoutFromTheReport(t *testing.T) {
	h := newHarness(t, Options{Backend: newFake(50)}, 120, 40)
	h.key("2")
	want := genTx(3) // a submitted payout from before the session
	h.key("/")
	h.typeText(want.TransactionID)
	h.key("enter")
	h.key("p")
	if h.m.tab != tabPayouts {
		t.Fatalf("p went to %s, want the tracker", tabNames[h.m.tab])
	}
	p := h.m.tracker.byID[want.TransactionID]
	if p == nil || p.state != want.Status {
		t.Fatalf("tracker has %+v for the report's payout", p)
	}
	out := h.view()
	mustContain(t, out, want.BeneficiaryName, api.FormatAmount(want.AmountInMinor, want.Currency), want.Status)
	h.send(relayEventsMsg{events: []relayclient.Event{{Seq: 20, EventID: "e20", Type: api.EventPayoutSettled, PayoutID: want.TransactionID,
		State: api.StateSettled, OccurredAt: fixedNow, ReceivedAt: fixedNow}}})
	if p.state != api.StateSettled {
		t.Fatalf("a later event did not move the followed payout: %s", p.state)
	}
}

// Item 11: the payout form's source accounts show fresh balances while
// the form is open, keeping the choice.
func TestPayoutFormBalancesStayFresh(t *testing.T) {
	fb := newFake(10)
	h := newHarness(t, Options{Backend: fb}, 120, 40)
	h.key("5")
	h.key("down") // GBP
	mustContain(t, h.view(), "available £120,000.00")
	fb.mu.Lock()
	fb.balances[1].AvailableBalanceInMinor = 99_000_00
	fb.mu.Unlock()
	h.send(balanceTickMsg{})
	out := h.view()
	mustContain(t, out, "available £99,000.00")
	if strings.Contains(out, "£120,000.00") {
		t.Fatalf("the form still shows the old balance:\n%s", out)
	}
	if p := h.m.payout.spec.(*payoutForm); !strings.HasPrefix(p.account, "GBP|") {
		t.Fatalf("the refresh changed the chosen account to %s", p.account)
	}
}

// Item 6: full help at 80x24 keeps every column of the view's keys (it
// wraps them instead of cutting the last, where export and copy were).
func TestHelpKeepsEveryColumnAt80(t *testing.T) {
	h := newHarness(t, Options{Backend: newFake(10)}, 80, 24)
	h.key("2")
	h.key("?")
	mustContain(t, h.view(), "ctrl+s", "export shown rows", "copy row (JSON)", "copy id", "follow payout in 3")
}

// The tracker points to the report for payouts it does not hold.
func TestTrackerSaysWhereOlderPayoutsAre(t *testing.T) {
	h := newHarness(t, Options{Backend: newFake(10)}, 80, 24)
	h.key("3")
	mustContain(t, strings.Join(strings.Fields(h.view()), " "), "find it in 2 Report (by id or search) and press p")
}

// The way out of help stays on screen however short the terminal is.
func TestHelpSaysHowToCloseAt80x24(t *testing.T) {
	for _, tab := range []string{"1", "2", "3", "4"} {
		h := newHarness(t, Options{Backend: newFake(50)}, 80, 24)
		h.key(tab)
		h.key("?")
		if v := h.view(); !strings.Contains(v, "esc closes") {
			t.Fatalf("view %s: help does not say how to close it at 80x24:\n%s", tab, v)
		}
		h.key("esc")
		if v := h.view(); strings.Contains(v, "esc closes") {
			t.Fatalf("view %s: esc did not close help:\n%s", tab, v)
		}
	}
}

// A filter term the report cannot read is explained in full, even at 80
// columns, and the screen still fits.
func TestFilterProblemIsShownWholeAt80(t *testing.T) {
	h := newHarness(t, Options{Backend: newFake(50)}, 80, 24)
	h.key("2")
	h.key("/")
	for _, r := range "amount:>abc" {
		h.key(string(r))
	}
	v := h.view()
	flat := strings.Join(strings.Fields(v), " ")
	for _, want := range []string{"amount:>1000", "amount:<=20", "amount:50..100"} {
		if !strings.Contains(flat, want) {
			t.Fatalf("the filter hint lacks %q at 80 columns:\n%s", want, v)
		}
	}
	if n := strings.Count(v, "\n") + 1; n > 24 {
		t.Fatalf("view is %d lines at 80x24", n)
	}
}
