package sandbox

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
)

// A client that dialled a connection and sent nothing on it (Go's
// transport dials ahead and keeps the spare idle) does not hold Close up:
// it returns without error, where Shutdown alone waited 5 s for the
// connection's first request and then failed with "context deadline
// exceeded" (the demo quit at once reported it). A request answered
// before still got its whole answer.
func TestCloseDoesNotWaitForAnUnusedConnection(t *testing.T) {
	key := testKey(t)
	srv, err := Listen(context.Background(), "127.0.0.1:0", Options{MerchantKey: &key.PublicKey, MerchantKeyID: testKeyID})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get(srv.URL + "/sandbox")
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "/sandbox/fund") {
		t.Fatalf("GET /sandbox: %d %v", resp.StatusCode, err)
	}
	spare, err := net.Dial("tcp", strings.TrimPrefix(srv.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer spare.Close()
	if err := srv.Close(); err != nil {
		t.Fatalf("Close with an unused connection open: %v", err)
	}
	// The spare was closed by the server, not left to time out.
	if _, err := spare.Read(make([]byte, 1)); err == nil {
		t.Fatal("the unused connection is still open after Close")
	}
}
