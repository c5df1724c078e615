package natsstream_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/paydash/paydash/internal/platform/natsstream"
	"github.com/paydash/paydash/internal/platform/natstest"
)

// A follower replays the last message of each subject (a key-value
// view), then every new message whoever wrote it; Sync returns once it
// has read everything the stream held when Sync was called. One
// replaying from a time skips what came before and still syncs.
func TestAFollowerSeesEveryWriteBeforeItsSync(t *testing.T) {
	c := natstest.StartCluster(t, 3)
	nc, js := natstest.Client(t, c.ClientURLs())
	defer nc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	st, err := natsstream.Create(ctx, js, jetstream.StreamConfig{Name: "FOLLOW", Subjects: []string{"kv.>"}, Replicas: 3}, untilDone, "a test", "kv.init")
	if err != nil {
		t.Fatal(err)
	}
	put := func(subject, value string) {
		t.Helper()
		if _, err := js.Publish(ctx, subject, []byte(value)); err != nil {
			t.Fatal(err)
		}
	}
	put("kv.a", "1")
	put("kv.b", "1")
	put("kv.a", "2")
	var mu sync.Mutex
	var seen []string
	f, err := natsstream.Follow(ctx, st, natsstream.FollowConfig{Filter: "kv.>", LastPerSubject: true}, func(m natsstream.Message) {
		mu.Lock()
		seen = append(seen, m.Subject+"="+string(m.Data))
		mu.Unlock()
	})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Stop()
	if _, err := f.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	got := append([]string(nil), seen...)
	mu.Unlock()
	want := map[string]bool{"kv.init={}": true, "kv.b=1": true, "kv.a=2": true}
	if len(got) != len(want) {
		t.Fatalf("replayed %v, want the last of each subject %v", got, want)
	}
	for _, s := range got {
		if !want[s] {
			t.Fatalf("replayed %v, want the last of each subject %v", got, want)
		}
	}
	// Written by another connection: seen by the next Sync.
	nc2, js2 := natstest.Client(t, c.ClientURLs())
	defer nc2.Close()
	if _, err := js2.PublishMsg(ctx, &nats.Msg{Subject: "kv.c", Data: []byte("1")}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	last := seen[len(seen)-1]
	mu.Unlock()
	if last != "kv.c=1" {
		t.Fatalf("after Sync the last message read is %q, want kv.c=1", last)
	}
	// From a time after every message: nothing is replayed, and Sync
	// does not wait for what was skipped.
	time.Sleep(10 * time.Millisecond)
	var n atomic.Int32
	g, err := natsstream.Follow(ctx, st, natsstream.FollowConfig{Since: time.Now()}, func(natsstream.Message) { n.Add(1) })
	if err != nil {
		t.Fatal(err)
	}
	defer g.Stop()
	sctx, scancel := context.WithTimeout(ctx, 5*time.Second)
	defer scancel()
	if _, err := g.Sync(sctx); err != nil || n.Load() != 0 {
		t.Fatalf("following from now: %d replayed, Sync %v; want none and no wait", n.Load(), err)
	}
}
