package natsstream_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/paydash/paydash/internal/platform/natsstream"
	"github.com/paydash/paydash/internal/platform/natstest"
)

// TestPublishIfLetsOneOfManyWritersWin: writers that read the same last
// sequence each publish expecting it; on every version of the server in
// the test matrix exactly one lands, the others get ErrMoved, and a
// stream created twice (two hubs starting at once) has one first
// message.
func TestPublishIfLetsOneOfManyWritersWin(t *testing.T) {
	natstest.Each(t, func(t *testing.T, nodes natstest.Nodes) {
		nc, js := natstest.Client(t, nodes.URLs())
		defer nc.Close()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		sc := jetstream.StreamConfig{Name: "CAS", Subjects: []string{"cas.>"}, Replicas: 3, Duplicates: time.Minute}
		var streams [2]jetstream.Stream
		var errs [2]error
		var wg sync.WaitGroup
		for i := range streams {
			wg.Go(func() {
				streams[i], errs[i] = natsstream.Create(ctx, js, sc, untilDone, "a test", "cas.init")
			})
		}
		wg.Wait()
		if err := errors.Join(errs[:]...); err != nil {
			t.Fatal(err)
		}
		info, err := streamInfo(ctx, streams[0])
		if err != nil || info.State.Msgs != 1 {
			t.Fatalf("after two creates the stream holds %d messages (%v), want the one first message", info.State.Msgs, err)
		}
		last := info.State.LastSeq
		const writers = 8
		results := make([]error, writers)
		for i := range writers {
			wg.Go(func() {
				msg := nats.NewMsg("cas.value")
				msg.Data = []byte{byte('a' + i)}
				msg.Header.Set(jetstream.MsgIDHeader, "writer-"+string(rune('a'+i)))
				_, results[i] = natsstream.PublishIf(ctx, js, streams[0], msg, last)
			})
		}
		wg.Wait()
		won := 0
		for i, err := range results {
			switch {
			case err == nil:
				won++
			case !errors.Is(err, natsstream.ErrMoved):
				t.Errorf("writer %d: %v", i, err)
			}
		}
		if info, err = streamInfo(ctx, streams[0]); err != nil {
			t.Fatal(err)
		}
		if won != 1 || info.State.Msgs != 2 {
			t.Fatalf("%d writers won, stream holds %d messages; want 1 and 2", won, info.State.Msgs)
		}
	})
}

// untilDone retries a set-up step until it succeeds or ctx ends, as the
// relay's backoff does: a cluster just started has no meta leader yet.
func untilDone(ctx context.Context, _ string, step func(context.Context) error) error {
	for {
		actx, cancel := context.WithTimeout(ctx, natsstream.Attempt)
		err := step(actx)
		cancel()
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// streamInfo reads the stream's state through a leader election.
func streamInfo(ctx context.Context, st jetstream.Stream) (*jetstream.StreamInfo, error) {
	var info *jetstream.StreamInfo
	err := natsstream.Retry(ctx, func(ctx context.Context) (err error) {
		info, err = st.Info(ctx)
		return err
	})
	return info, err
}
