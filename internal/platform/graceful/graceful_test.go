package graceful

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"testing"
	"time"
)

// Shutdown does not wait on a connection that sent no request (closing
// it), and a request in flight still gets its whole answer.
func TestShutdownClosesUnusedConnectionsAndFinishesRequests(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	started := make(chan struct{})
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		close(started)
		<-release
		_, _ = io.WriteString(w, "whole answer")
	}), ReadHeaderTimeout: time.Minute}
	tr := Track(srv)
	go func() { _ = srv.Serve(ln) }()

	spare, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer spare.Close()
	got := make(chan string, 1)
	go func() {
		resp, err := http.Get("http://" + ln.Addr().String() + "/")
		if err != nil {
			got <- err.Error()
			return
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		got <- string(b)
	}()
	<-started
	// Shutdown alone would wait 5 s for the spare's first request: two
	// seconds is an error unless the spare is closed.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	stopped := make(chan error, 1)
	go func() { stopped <- tr.Shutdown(ctx) }()
	_ = spare.SetReadDeadline(time.Now().Add(4 * time.Second))
	if _, err := spare.Read(make([]byte, 1)); err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("the unused connection was not closed: %v", err)
	}
	close(release)
	if b := <-got; b != "whole answer" {
		t.Fatalf("the request in flight got %q", b)
	}
	if err := <-stopped; err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
}
