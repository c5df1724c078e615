package report_test

import (
	"context"
	"net/http"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/api/sandbox"
	"github.com/paydash/paydash/api/testkey"
	"github.com/paydash/paydash/internal/platform/clock"
	"github.com/paydash/paydash/internal/report"
	"github.com/paydash/paydash/internal/report/rawreport"
)

// cpuTime is the process's user and system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestRefreshServesOnlyWhatIsNew runs the engine against the sandbox over
// loopback HTTP: after the first load, ten refreshes with three new
// payouts each are served bytes in proportion to the new rows (and the
// few in flight), not to the report; payouts settling in between are
// updated in place, and the store ends equal to a full reload.
func TestRefreshServesOnlyWhatIsNew(t *testing.T) {
	const history = 20_000
	key := testkey.Load(t)
	clk := clock.NewFake(time.Date(2025, 3, 14, 9, 0, 0, 0, time.UTC))
	srv, err := sandbox.Listen(context.Background(), "127.0.0.1:0", sandbox.Options{MerchantKey: &key.PublicKey,
		MerchantKeyID: "k1", Clock: clk, History: history, HistorySeed: 5, StepDelay: 40 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	info := srv.Info()
	ct := &rawreport.Counter{Base: http.DefaultTransport}
	client, err := api.NewClient(api.Config{AuthURL: info.AuthURL, BaseURL: info.BaseURL, PayoutsURL: info.PayoutsURL,
		ClientID: info.ClientID, ClientSecret: info.ClientSecret, SigningKeyID: "k1", SigningKey: key,
		HTTPClient: &http.Client{Transport: ct}, Retry: api.RetryPolicy{MaxAttempts: 1}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st, err := report.Load(ctx, client, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	full := ct.Bytes.Load()
	if st.Len() != history+2 {
		t.Fatalf("loaded %d rows", st.Len())
	}
	var refreshBytes int64
	updated := 0
	for round := range 10 {
		for range 3 {
			p := &api.PayoutRequest{TransactionID: uuid.NewString(), BeneficiaryName: "Ada Lovelace",
				BeneficiaryIBAN: "GB33BUKB20201555555555", BeneficiaryReference: "ROUND", Currency: "GBP",
				AmountInMinor: 1_00, ContextCode: api.ContextCodeWithdrawal}
			if err := client.CreatePayout(ctx, p); err != nil {
				t.Fatal(err)
			}
		}
		clk.Advance(30 * time.Second) // payouts move a step every 40 s
		before := ct.Bytes.Load()
		next, ms, err := st.Refresh(ctx, client)
		if err != nil {
			t.Fatal(err)
		}
		n := ct.Bytes.Load() - before
		refreshBytes += n
		// Three new rows, and the rows of the last four rounds again
		// (two minutes of overlap, and back to the oldest payout still in
		// flight: each takes 80 s to settle).
		if ms.Added != 3 || ms.Seen > 3*6 || n > int64(ms.Seen+1)*600 {
			t.Fatalf("round %d: %+v, %d bytes", round, ms, n)
		}
		st = next
		updated += ms.Updated
	}
	if updated < 3*2*7 { // submitted, then settled, for most rounds' payouts
		t.Fatalf("%d rows updated over ten refreshes", updated)
	}
	if refreshBytes*100 > full {
		t.Fatalf("ten refreshes read %d bytes, the whole report is %d: want under 1%%", refreshBytes, full)
	}
	for range 3 {
		clk.Advance(30 * time.Second)
	}
	st, _, err = st.Refresh(ctx, client)
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := report.Load(ctx, client, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if st.Len() != fresh.Len() {
		t.Fatalf("refreshed store has %d rows, a full load %d", st.Len(), fresh.Len())
	}
	settled := 0
	for i := range int32(st.Len()) {
		a, b := st.Tx(i), fresh.Tx(i)
		if a != b {
			t.Fatalf("row %d after refreshes:\n %+v\nfull load:\n %+v", i, a, b)
		}
		if a.BeneficiaryReference == "ROUND" && a.Status == api.StateSettled {
			settled++
		}
	}
	if settled != 30 {
		t.Fatalf("%d of 30 payouts settled in the refreshed store", settled)
	}
	t.Logf("full load %d bytes; ten refreshes %d bytes", full, refreshBytes)
}

// BenchmarkLoad1MOverHTTP loads the sandbox's million-record report into a
// Store over loopback HTTP, as the dashboard does (api.Client, report.Load,
// then the newest-first sort it shows), beside the raw download of the
// same report in the same run: load-s / raw-s is the figure. cpu-s is
// the process's CPU time (sandbox and client, both cores) for each, the
// figure to compare on a machine whose cores others share.
func BenchmarkLoad1MOverHTTP(b *testing.B) {
	key := testkey.Load(b)
	srv, err := sandbox.Listen(context.Background(), "127.0.0.1:0", sandbox.Options{MerchantKey: &key.PublicKey,
		History: 1_000_000, HistorySeed: 1})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	info := srv.Info()
	client, err := api.NewClient(api.Config{AuthURL: info.AuthURL, BaseURL: info.BaseURL, PayoutsURL: info.PayoutsURL,
		ClientID: info.ClientID, ClientSecret: info.ClientSecret, SigningKeyID: "k1", SigningKey: key})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	tok, err := client.Token(ctx, api.ScopePayouts)
	if err != nil {
		b.Fatal(err)
	}
	var raw, load, rawCPU, loadCPU time.Duration
	rows := 0
	for b.Loop() {
		cpu0 := cpuTime()
		d, _ := rawreport.Download(b, info.PayoutsURL, tok)
		raw += d
		rawCPU += cpuTime() - cpu0
		start, cpu0 := time.Now(), cpuTime()
		st, err := report.Load(ctx, client, 0, nil)
		if err != nil {
			b.Fatal(err)
		}
		_ = st.Sorted(st.All(), report.SortKey{Col: report.ColTime, Desc: true})
		load += time.Since(start)
		loadCPU += cpuTime() - cpu0
		rows = st.Len()
	}
	if rows != 1_000_002 {
		b.Fatalf("loaded %d rows", rows)
	}
	b.ReportMetric(raw.Seconds()/float64(b.N), "raw-s")
	b.ReportMetric(load.Seconds()/float64(b.N), "load-s")
	b.ReportMetric(load.Seconds()/raw.Seconds(), "load/raw")
	b.ReportMetric(rawCPU.Seconds()/float64(b.N), "raw-cpu-s")
	b.ReportMetric(loadCPU.Seconds()/float64(b.N), "load-cpu-s")
}
