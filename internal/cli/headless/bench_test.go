package headless

import (
	"context"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/api/sandbox"
	"github.com/paydash/paydash/internal/cli/cmdutil"
	"github.com/paydash/paydash/internal/testkey"
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
		start := time.Now()
		req, _ := http.NewRequest("GET", info.PayoutsURL+"/v1/transactions", nil)
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		raw += time.Since(start)
		start = time.Now()
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
