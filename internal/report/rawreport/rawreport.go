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
	"sync/atomic"
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

// Counter is an http.RoundTripper that counts what the service sent for
// report calls (GET …/v1/transactions): the calls and their body bytes,
// as read. Tests put it under an api.Client to say how much a sync
// fetched.
type Counter struct {
	Base         http.RoundTripper
	Bytes, Calls atomic.Int64
}

// RoundTrip sends r through Base, counting a report call's body.
func (c *Counter) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := c.Base.RoundTrip(r)
	if err == nil && strings.HasSuffix(r.URL.Path, "/v1/transactions") {
		c.Calls.Add(1)
		resp.Body = countingBody{resp.Body, &c.Bytes}
	}
	return resp, err
}

type countingBody struct {
	io.ReadCloser
	n *atomic.Int64
}

func (b countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n.Add(int64(n))
	return n, err
}
