package headless

import (
	"bytes"
	"context"
	"io"
	"testing"
	"time"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/api/sandbox"
	"github.com/paydash/paydash/api/testkey"
	"github.com/paydash/paydash/internal/cli/cmdutil"
	"github.com/paydash/paydash/internal/report"
	"github.com/paydash/paydash/internal/report/rawreport"
)

// BenchmarkTransactionsCSV1M is `paydash transactions --csv` over a
// million-record report from the sandbox on loopback, in process (the
// whole-process figure is e2e's BenchmarkWholeProcess1M), beside the raw
// download of the same report in the same run.
func BenchmarkTransactionsCSV1M(b *testing.B) {
	key := testkey.Load(b)
	srv, err := sandbox.Listen(context.Background(), "127.0.0.1:0", sandbox.Options{MerchantKey: &key.PublicKey, History: 1_000_000, HistorySeed: 1})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	info := srv.Info()
	client, err := api.NewClient(api.Config{AuthURL: info.AuthURL, BaseURL: info.BaseURL, PayoutsURL: info.PayoutsURL,
		ClientID: info.ClientID, ClientSecret: info.ClientSecret, SigningKey: key, SigningKeyID: "k"})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	tok, err := client.Token(ctx, api.ScopePayouts)
	if err != nil {
		b.Fatal(err)
	}
	var raw, csv time.Duration
	for b.Loop() {
		d, _ := rawreport.Download(b, info.PayoutsURL, tok)
		raw += d
		start := time.Now()
		s := &cmdutil.Streams{Out: io.Discard, Err: io.Discard, Getenv: func(string) string { return "" }}
		if err := Transactions(ctx, s, client, &TransactionsOptions{CSV: true}); err != nil {
			b.Fatal(err)
		}
		csv += time.Since(start)
	}
	b.ReportMetric(raw.Seconds()/float64(b.N), "raw-s")
	b.ReportMetric(csv.Seconds()/float64(b.N), "csv-s")
	b.ReportMetric(csv.Seconds()/raw.Seconds(), "csv/raw")
}

// TestTransactionsOverHTTPMatchesTheExport: through the real client (its
// in-place record stream), the CSV and JSON are byte for byte the
// dashboard's export of the same rows, filter included.
func TestTransactionsOverHTTPMatchesTheExport(t *testing.T) {
	key := testkey.Load(t)
	srv, err := sandbox.Listen(context.Background(), "127.0.0.1:0", sandbox.Options{MerchantKey: &key.PublicKey, History: 3000, HistorySeed: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	info := srv.Info()
	client, err := api.NewClient(api.Config{AuthURL: info.AuthURL, BaseURL: info.BaseURL, PayoutsURL: info.PayoutsURL,
		ClientID: info.ClientID, ClientSecret: info.ClientSecret, SigningKey: key, SigningKeyID: "k"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	all, err := client.Transactions(ctx, api.TransactionQuery{})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range []TransactionsOptions{{CSV: true}, {JSON: true}, {CSV: true, Status: "failed", Search: "inv"}} {
		var out bytes.Buffer
		s := &cmdutil.Streams{Out: &out, Err: io.Discard, Getenv: func(string) string { return "" }}
		if err := Transactions(ctx, s, client, &o); err != nil {
			t.Fatal(err)
		}
		_, rq, _ := o.Query(time.Now())
		f := report.CSV
		if o.JSON {
			f = report.JSON
		}
		var want bytes.Buffer
		w := report.NewWriter(&want, f)
		for i := range all {
			if rq.MatchTx(&all[i]) {
				_ = w.Write(&all[i])
			}
		}
		_ = w.Close()
		if w.Count() == 0 || !bytes.Equal(out.Bytes(), want.Bytes()) {
			t.Fatalf("%+v: %d bytes, want %d (%d rows)", o, out.Len(), want.Len(), w.Count())
		}
	}
}
