package sandbox

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paydash/paydash/api"
)

// TestReportEncoding: the hand-written record encoder writes exactly what
// encoding/json writes for api.Transaction.
func TestReportEncoding(t *testing.T) {
	t.Parallel()
	l := &ledger{accounts: []*account{{MerchantAccount: MerchantAccount{Currency: "GBP"}}, {MerchantAccount: MerchantAccount{Currency: "EUR"}}}}
	at := time.Date(2024, 2, 29, 23, 59, 59, 123456700, time.UTC).UnixNano()
	tests := []txn{
		{id: "a", kind: kindPayoutTxn, status: stSettled, authorised: at, submitted: at + 100, settled: at + 9_999_999_900,
			name: "Ada Lovelace", iban: "GB33BUKB20201555555555", ref: "INV-1", amount: 12345, context: "withdrawal"},
		{id: "b", kind: kindPayoutTxn, status: stAuthorised, authorised: at, name: `Quote " and \ backslash`, ref: "<b>&amp;</b>", acct: 1, amount: 1},
		{id: "c", kind: kindFundingTxn, status: stSettled, settled: time.Date(1999, 1, 2, 3, 4, 5, 0, time.UTC).UnixNano(),
			name: "Zoë Ünïcödé \u2028 \x01", ref: "bad utf8 \xff", amount: 9_223_372_036_854_775_807},
		{id: "d", kind: kindPayoutTxn, status: stFailed, authorised: at, submitted: at + 1},
	}
	for _, tc := range tests {
		t.Run(tc.id, func(t *testing.T) {
			tc.plain = plainStrings(tc.id, tc.name, tc.iban, tc.ref, tc.context)
			if tc.plain != (tc.id == "a" || tc.id == "d") {
				t.Fatalf("plain = %v for %+v", tc.plain, tc)
			}
			want, err := json.Marshal(l.toAPI(&tc))
			if err != nil {
				t.Fatal(err)
			}
			if got := appendTxn(nil, &tc, l.accounts[tc.acct].Currency); !bytes.Equal(got, want) {
				t.Fatalf("encoded\n%s\nwant\n%s", got, want)
			}
		})
	}
}

// reportEnv is a sandbox with a small seeded history plus live records.
func reportEnv(t *testing.T) (*env, []api.Transaction) {
	e := newEnv(t, func(o *Options) { o.History = 400; o.HistorySeed = 7; o.HistoryDays = 30 })
	ctx := context.Background()
	if _, err := e.srv.Fund("EUR", 5_000, "Live Funder"); err != nil {
		t.Fatal(err)
	}
	for _, p := range []*api.PayoutRequest{payout("GBP", 300), payout("EUR", 200)} {
		if err := e.client.CreatePayout(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	all, err := e.client.Transactions(ctx, api.TransactionQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 400+2+3 {
		t.Fatalf("%d records, want 400 seeded + 2 opening balances + 3 live", len(all))
	}
	return e, all
}

func booked(tx api.Transaction) time.Time {
	if !tx.AuthorisedAt.IsZero() {
		return tx.AuthorisedAt.Time
	}
	return tx.SettledAt.Time
}

func TestReportFilters(t *testing.T) {
	t.Parallel()
	e, all := reportEnv(t)
	for i := 1; i < len(all); i++ {
		if booked(all[i]).Before(booked(all[i-1])) {
			t.Fatalf("record %d is older than record %d", i, i-1)
		}
	}
	mid := booked(all[len(all)/2])
	day := mid.Truncate(24 * time.Hour)
	tests := []struct {
		name string
		q    api.TransactionQuery
		keep func(api.Transaction) bool
	}{
		{"type Payout", api.TransactionQuery{Type: "Payout"}, func(tx api.Transaction) bool { return tx.Type == api.TransactionPayout }},
		{"type FUNDING", api.TransactionQuery{Type: "FUNDING"}, func(tx api.Transaction) bool { return tx.Type == api.TransactionFunding }},
		{"currency EUR", api.TransactionQuery{Currency: "EUR"}, func(tx api.Transaction) bool { return tx.Currency == "EUR" }},
		{"currency without an account", api.TransactionQuery{Currency: "USD"}, func(api.Transaction) bool { return false }},
		{"from is inclusive", api.TransactionQuery{From: mid}, func(tx api.Transaction) bool { return !booked(tx).Before(mid) }},
		{"to is inclusive", api.TransactionQuery{To: mid}, func(tx api.Transaction) bool { return !booked(tx).After(mid) }},
		{"one day of GBP payouts", api.TransactionQuery{From: day, To: day.Add(24*time.Hour - time.Nanosecond), Type: "payout", Currency: "GBP"},
			func(tx api.Transaction) bool {
				return tx.Type == api.TransactionPayout && tx.Currency == "GBP" && !booked(tx).Before(day) && booked(tx).Before(day.Add(24*time.Hour))
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := e.client.Transactions(context.Background(), tc.q)
			if err != nil {
				t.Fatal(err)
			}
			var want []api.Transaction
			for _, tx := range all {
				if tc.keep(tx) {
					want = append(want, tx)
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("%d records, want %d", len(got), len(want))
			}
		})
	}

	t.Run("date-only bounds cover whole days", func(t *testing.T) {
		d := day.Format(time.DateOnly)
		got := rawReport(t, e, url.Values{"from": {d}, "to": {d}})
		for _, tx := range all {
			in := !booked(tx).Before(day) && booked(tx).Before(day.Add(24*time.Hour))
			if in != strings.Contains(got, tx.TransactionID) {
				t.Fatalf("record at %s: in the report %v, want %v", booked(tx), !in, in)
			}
		}
	})

	bad := []struct {
		q     url.Values
		field string
	}{
		{url.Values{"from": {"yesterday"}}, "from"},
		{url.Values{"to": {"2024-13-01"}}, "to"},
		{url.Values{"from": {"2024-03-02"}, "to": {"2024-03-01"}}, "to"},
		{url.Values{"type": {"refund"}}, "type"},
		{url.Values{"currency": {"pounds"}}, "currency"},
	}
	tok := e.token(api.ScopePayouts)
	for _, tc := range bad {
		t.Run("bad "+tc.q.Encode(), func(t *testing.T) {
			r := e.do("GET", "/v1/transactions?"+tc.q.Encode(), http.Header{"Authorization": {"Bearer " + tok}}, nil)
			if r.status != 400 || len(r.problem.Errors[tc.field]) == 0 {
				t.Fatalf("status %d %s, want 400 with errors[%s]", r.status, r.body, tc.field)
			}
		})
	}
}

func rawReport(t *testing.T, e *env, q url.Values) string {
	t.Helper()
	r := e.do("GET", "/v1/transactions?"+q.Encode(), http.Header{"Authorization": {"Bearer " + e.token(api.ScopePayouts)}}, nil)
	if r.status != 200 || r.header.Get("Content-Type") != api.ContentTypeJSON {
		t.Fatalf("report: %d %s", r.status, r.body)
	}
	return string(r.body)
}

// TestHistory: the seeded history is deterministic, realistic and
// consistent with the balances.
func TestHistory(t *testing.T) {
	t.Parallel()
	gen := func(seed int64) ([]txn, []*account) {
		accts := []*account{{MerchantAccount: accountDefs()[0]}, {MerchantAccount: accountDefs()[1]}}
		o, _ := Options{MerchantKey: &testKey(t).PublicKey, History: 3_000, HistorySeed: seed}.withDefaults()
		return generateHistory(o, testStart, accts), accts
	}
	a, accts := gen(42)
	b, _ := gen(42)
	c, _ := gen(43)
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Fatal("the same seed gave different histories")
	}
	if fmt.Sprint(a) == fmt.Sprint(c) {
		t.Fatal("different seeds gave the same history")
	}
	if len(a) != 3_002 {
		t.Fatalf("%d records, want 3,000 and two opening balances", len(a))
	}
	running := make([]int64, len(accts))
	kinds := map[string]int{}
	ids := map[string]bool{}
	windowStart := testStart.Add(-DefaultHistoryDays * 24 * time.Hour).UnixNano()
	for i, tx := range a {
		kinds[kindNames[tx.kind]+"/"+statusNames[tx.status]]++
		if ids[tx.id] {
			t.Fatalf("duplicate id %s", tx.id)
		}
		ids[tx.id] = true
		if err := api.ValidateIBAN(tx.iban); err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
		if problems := api.ValidatePayout(&api.PayoutRequest{TransactionID: tx.id, BeneficiaryName: tx.name, BeneficiaryIBAN: tx.iban,
			BeneficiaryReference: tx.ref, Currency: accts[tx.acct].Currency, AmountInMinor: tx.amount, ContextCode: "withdrawal"}); len(problems) > 0 {
			t.Fatalf("record %d %+v would not pass payout validation: %v", i, tx, problems)
		}
		if tx.booked() < windowStart || tx.booked() > testStart.UnixNano() || (i > 0 && tx.booked() < a[i-1].booked()) {
			t.Fatalf("record %d booked at %s: out of the window or out of order", i, time.Unix(0, tx.booked()).UTC())
		}
		if tx.settled != 0 && tx.settled > testStart.UnixNano() {
			t.Fatalf("record %d settles in the future", i)
		}
		switch {
		case tx.kind == kindFundingTxn:
			running[tx.acct] += tx.amount
		case tx.status == stSettled:
			running[tx.acct] -= tx.amount
		}
		if running[tx.acct] < 0 {
			t.Fatalf("record %d overdraws %s", i, accts[tx.acct].Currency)
		}
	}
	for i, acct := range accts {
		if acct.current != running[i] || acct.available != running[i] {
			t.Fatalf("%s: balances %d/%d, records say %d", acct.Currency, acct.current, acct.available, running[i])
		}
	}
	if kinds["payout/settled"] < 2_500 || kinds["payout/failed"] == 0 || kinds["funding/settled"] < 20 {
		t.Fatalf("mix %v: want mostly settled payouts, some failed, some fundings", kinds)
	}
}

// TestLargeHistoryStreams: a 200,000-record report is streamed (chunked,
// never sized up front), every record arrives, a sample decodes as
// api.Transaction, and the totals agree with the balances. The stream is
// scanned record by record rather than decoded whole by the client, whose
// reflection decoding would take most of the package's time under -race;
// the client reads reports in the other tests.
func TestLargeHistoryStreams(t *testing.T) {
	if testing.Short() {
		t.Skip("seeds and streams 200,000 records, several CPU-seconds: left to the full run")
	}
	t.Parallel()
	const n = 200_000
	e := newEnv(t, func(o *Options) { o.History = n; o.HistorySeed = 1; o.WebhookURI = "" })
	req, _ := http.NewRequest("GET", e.srv.URL+"/v1/transactions", nil)
	req.Header.Set("Authorization", "Bearer "+e.token(api.ScopePayouts))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || resp.ContentLength != -1 || !slices.Equal(resp.TransferEncoding, []string{"chunked"}) {
		t.Fatalf("status %d, length %d, encoding %v: want a chunked stream", resp.StatusCode, resp.ContentLength, resp.TransferEncoding)
	}
	br := bufio.NewReaderSize(resp.Body, 64<<10)
	head := make([]byte, len(`{"results":[`))
	if _, err := io.ReadFull(br, head); err != nil || string(head) != `{"results":[` {
		t.Fatalf("report starts %q", head)
	}
	total := map[string]int64{}
	count := 0
	for {
		// Seeded strings hold no braces, so each record ends at its first '}'.
		rec, err := br.ReadSlice('}')
		if err != nil {
			t.Fatalf("after %d records: %v", count, err)
		}
		rec = bytes.TrimPrefix(rec, []byte(","))
		if count%1000 == 0 {
			var tx api.Transaction
			if err := json.Unmarshal(rec, &tx); err != nil || tx.TransactionID == "" || tx.AmountInMinor <= 0 {
				t.Fatalf("record %d %s: %v", count, rec, err)
			}
		}
		count++
		amount, _ := strconv.ParseInt(string(field(rec, "amount_in_minor", ',')), 10, 64)
		cur := string(field(rec, "currency", ','))
		switch {
		case bytes.Contains(rec, []byte(`"type":"funding"`)):
			total[cur] += amount
		case bytes.Contains(rec, []byte(`"status":"settled"`)):
			total[cur] -= amount
		}
		if next, _ := br.Peek(1); len(next) == 1 && next[0] == ']' {
			break
		}
	}
	if rest, _ := io.ReadAll(br); string(rest) != "]}\n" {
		t.Fatalf("report ends %q", rest)
	}
	if count != n+2 {
		t.Fatalf("streamed %d records, want %d", count, n+2)
	}
	for _, b := range e.srv.Balances() {
		if b.CurrentBalanceInMinor != total[b.Currency] || b.AvailableBalanceInMinor != total[b.Currency] {
			t.Fatalf("%s balance %+v, report totals %d", b.Currency, b, total[b.Currency])
		}
	}
}

// field returns the raw value of "name": in rec, up to end (quotes
// stripped).
func field(rec []byte, name string, end byte) []byte {
	key := []byte(`"` + name + `":`)
	i := bytes.Index(rec, key)
	if i < 0 {
		return nil
	}
	v := rec[i+len(key):]
	if j := bytes.IndexByte(v, end); j >= 0 {
		v = v[:j]
	}
	return bytes.Trim(v, `"`)
}

// reportTotals streams the whole report through the client and returns,
// per currency, fundings minus settled payouts, and the record count. No
// payout may be left in flight.
func reportTotals(t *testing.T, e *env) (map[string]int64, int) {
	t.Helper()
	total := map[string]int64{}
	count := 0
	err := e.client.StreamTransactions(context.Background(), api.TransactionQuery{}, func(tx api.Transaction) error {
		count++
		switch {
		case tx.Status == api.StateAuthorised || tx.Status == api.StateSubmitted:
			return fmt.Errorf("payout %s still %s", tx.TransactionID, tx.Status)
		case tx.Type == api.TransactionFunding:
			total[tx.Currency] += tx.AmountInMinor
		case tx.Status == api.StateSettled:
			total[tx.Currency] -= tx.AmountInMinor
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return total, count
}

// TestReportStopsForGoneClient: a reader that hangs up mid-report does
// not keep the server writing.
func TestReportStopsForGoneClient(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(o *Options) { o.History = 50_000 })
	req, _ := http.NewRequest("GET", e.srv.URL+"/v1/transactions", nil)
	req.Header.Set("Authorization", "Bearer "+e.token(api.ScopePayouts))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(resp.Body, make([]byte, 1024)); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	// The server is still healthy and answers a whole report after.
	if got := len(rawReport(t, e, url.Values{"type": {"funding"}, "currency": {"EUR"}})); got == 0 {
		t.Fatal("empty report")
	}
}

// TestLedgerInvariant runs 2,000 random operations — payouts of every
// kind, fundings, clock ticks, account switches, repeats — checking the
// invariant after each.
func TestLedgerInvariant(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(o *Options) {
		o.WebhookURI = ""
		o.StepDelay = time.Second
		o.InitialFunds = map[string]int64{"GBP": 50_000, "EUR": 10_000}
		o.DeliveryLogSize = 100
	})
	l := e.srv.ledger
	rng := rand.New(rand.NewPCG(2024, 6))
	var ids []string
	currencies := []string{"GBP", "EUR"}
	refs := []string{"INV-9", "FAIL", "FAIL:timeout", "RETURN", "ORDER 5"}
	names := []string{"Ada Lovelace", "AML Corp", "Grace Hopper", "Blocked Beneficiary"}
	for i := range 2_000 {
		cur := currencies[rng.IntN(2)]
		switch op := rng.IntN(100); {
		case op < 55:
			p := payout(cur, 1+rng.Int64N(20_000))
			p.BeneficiaryReference = refs[rng.IntN(len(refs))]
			p.BeneficiaryName = names[rng.IntN(len(names))]
			if len(ids) > 0 && rng.IntN(10) == 0 {
				p.TransactionID = ids[rng.IntN(len(ids))] // a repeat
			}
			ids = append(ids, p.TransactionID)
			if _, err := l.createPayout(p); err != nil && !strings.Contains(err.Error(), "disabled") {
				t.Fatalf("op %d: %v", i, err)
			}
		case op < 70:
			if _, err := e.srv.Fund(cur, 1+rng.Int64N(30_000), "Top Up"); err != nil {
				t.Fatalf("op %d: %v", i, err)
			}
		case op < 95:
			e.clock.Advance(time.Duration(rng.IntN(3)) * time.Second)
		default:
			status := api.AccountEnabled
			if rng.IntN(3) == 0 {
				status = api.AccountDisabled
			}
			if err := e.srv.SetAccountStatus(cur, status); err != nil {
				t.Fatal(err)
			}
		}
		checkLedger(t, l)
	}
	// Drain: every payout reaches its end, and the report agrees.
	e.clock.Advance(time.Minute)
	checkLedger(t, l)
	total, _ := reportTotals(t, e)
	for _, b := range e.srv.Balances() {
		if b.CurrentBalanceInMinor != total[b.Currency] || b.AvailableBalanceInMinor != b.CurrentBalanceInMinor {
			t.Fatalf("%s balance %+v, report says %d", b.Currency, b, total[b.Currency])
		}
	}
}

// BenchmarkTransactionsReport streams the whole report over loopback HTTP
// for seeded histories of 100,000 and 1,000,000 records.
func BenchmarkTransactionsReport(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000} {
		b.Run(fmt.Sprintf("records=%d", n), func(b *testing.B) {
			e := newEnv(b, func(o *Options) { o.History = n; o.WebhookURI = "" })
			req, _ := http.NewRequest("GET", e.srv.URL+"/v1/transactions", nil)
			req.Header.Set("Authorization", "Bearer "+e.token(api.ScopePayouts))
			b.ResetTimer()
			var bytes int64
			for b.Loop() {
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				bytes, err = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if err != nil || resp.StatusCode != 200 {
					b.Fatalf("status %d: %v", resp.StatusCode, err)
				}
			}
			b.SetBytes(bytes)
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
		})
	}
}
