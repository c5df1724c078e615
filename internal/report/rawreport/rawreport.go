// Package rawreport is the anchor of the report benchmarks: the
// transaction report's bytes fetched over HTTP, read and dropped, which is
// the least any reader of the report can take. Each benchmark (the
// report engine's load, the CLI's export, the whole-process run) puts its
// figure beside this one, measured in the same run.
package rawreport

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// Download fetches GET {payoutsURL}/v1/transactions with the bearer
// token, reads every byte and drops it. It returns the wall time from the
// request to the last byte and the bytes read, failing tb on any error or
// status other than 200.
func Download(tb testing.TB, payoutsURL, token string) (time.Duration, int64) {
	tb.Helper()
	req, err := http.NewRequest(http.MethodGet, strings.TrimSuffix(payoutsURL, "/")+"/v1/transactions", nil)
	if err != nil {
		tb.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	start := time.Now()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatalf("raw download: %v", err)
	}
	defer resp.Body.Close()
	n, err := io.Copy(io.Discard, resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		tb.Fatalf("raw download: HTTP %d, %d bytes: %v", resp.StatusCode, n, err)
	}
	return time.Since(start), n
}
