package webhookrelay

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"path/filepath"
	"testing"
	"time"
)

// On one core the runtime reads a connection only once the running
// signature check is done, so webhooks that have reached the relay wait
// unread. The writer must count them: committing each webhook alone costs
// two fsyncs per webhook, which kept one-core ingest at 0.83 of the
// verify rate.
func TestGroupCommitWaitsForWebhooksStillUnreadOnTheirConnections(t *testing.T) {
	r, err := Open(Config{StorePath: filepath.Join(t.TempDir(), "relay.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	watched := r.writer.conns.listener(ln)
	w := r.writer

	// backlogMin senders whose requests have arrived but that no handler
	// has read yet, and one more that has hung up.
	var senders, accepted []net.Conn
	defer func() {
		for _, c := range append(senders, accepted...) {
			c.Close()
		}
	}()
	for i := range backlogMin + 1 {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		s, err := watched.Accept()
		if err != nil {
			t.Fatal(err)
		}
		senders, accepted = append(senders, c), append(accepted, s)
		if i == backlogMin {
			c.Close()
			continue
		}
		if _, err := c.Write([]byte("POST /webhook HTTP/1.1\r\nHost: 127.0.0.1\r\n")); err != nil {
			t.Fatal(err)
		}
	}
	waitUnread := func(want int) {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for got := w.conns.unread(64); got != want; got = w.conns.unread(64) {
			if time.Now().After(deadline) {
				t.Fatalf("%d connections counted unread, want %d", got, want)
			}
			time.Sleep(time.Millisecond)
		}
	}
	// The hung-up connection has news (its end) but no webhook.
	waitUnread(backlogMin)

	event := func(id string) *Event {
		return &Event{EventID: id, Family: FamilyUnknown, ReceivedAt: time.Now(), Body: json.RawMessage(`{"event_id":"` + id + `"}`)}
	}
	ctx := context.Background()
	e := event("first")
	rec, err := encodeRecord(e)
	if err != nil {
		t.Fatal(err)
	}
	first := &writeReq{ev: e, rec: rec, done: make(chan writeResult, 1)}
	w.reqs <- first
	// Once the writer has taken the first webhook, the second is handed
	// over 2 ms later: well inside the wait a backlog earns
	// (backlogGatherWait), long after a writer that does not wait for
	// unread webhooks has committed the first alone.
	for deadline := time.Now().Add(5 * time.Second); len(w.reqs) > 0; time.Sleep(100 * time.Microsecond) {
		if time.Now().After(deadline) {
			t.Fatal("the writer did not take the first webhook")
		}
	}
	time.Sleep(2 * time.Millisecond)
	second := w.submit(ctx, event("second"), false)
	res := <-first.done
	if res.err != nil || second.err != nil {
		t.Fatal(res.err, second.err)
	}
	if n := w.m.commits.Load(); n != 1 {
		t.Errorf("%d commits for two webhooks while %d more waited unread; want both in one commit", n, backlogMin)
	}
	if res.seq != 1 || second.seq != 2 {
		t.Errorf("seqs %d and %d, want 1 and 2", res.seq, second.seq)
	}

	// Once a handler has read a connection's bytes it no longer counts,
	// or every commit would wait for webhooks that are not coming.
	for _, s := range accepted[:backlogMin] {
		buf := make([]byte, 512)
		if _, err := s.Read(buf); err != nil && !errors.Is(err, io.EOF) {
			t.Fatal(err)
		}
	}
	waitUnread(0)
}
