package natsstream

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// Follower keeps a process's view of a stream current: an ordered
// consumer replays the stream (or, LastPerSubject, the last message of
// each subject) in pulled batches, then goes on with every new message,
// handing each to apply in stream order. The consumer makes itself
// again from where it was after a leader election or a lost connection,
// so no message is skipped. Reads of the view call Sync first: they then
// see every message the stream held when they began, whichever process
// wrote it, at the cost of one round trip — never one per message.
type Follower struct {
	mu sync.Mutex
	// seq is the last stream sequence applied, at its stream time at.
	seq  uint64
	at   time.Time
	wake chan struct{}

	stream jetstream.Stream
	cc     jetstream.ConsumeContext
}

// FollowConfig says what a Follower replays.
type FollowConfig struct {
	// Filter keeps the messages of matching subjects ("" all). Give it
	// when LastPerSubject is set; it must cover the stream's subjects
	// (Sync waits for the stream's last sequence).
	Filter string
	// LastPerSubject replays only the last message of each subject: the
	// current value of a stream laid out as a key-value bucket.
	LastPerSubject bool
}

// Follow starts following stream; apply hears each message with its
// stream sequence and time (the time the stream's leader stored it: one
// clock for every process). apply is called from one goroutine at a
// time and must not block for long.
func Follow(ctx context.Context, stream jetstream.Stream, cfg FollowConfig, apply func(subject string, data []byte, seq uint64, at time.Time)) (*Follower, error) {
	f := &Follower{stream: stream, wake: make(chan struct{})}
	oc := jetstream.OrderedConsumerConfig{DeliverPolicy: jetstream.DeliverAllPolicy}
	if cfg.LastPerSubject {
		oc.DeliverPolicy = jetstream.DeliverLastPerSubjectPolicy
	}
	if cfg.Filter != "" {
		oc.FilterSubjects = []string{cfg.Filter}
	}
	var cons jetstream.Consumer
	err := Retry(ctx, func(ctx context.Context) (err error) {
		cons, err = stream.OrderedConsumer(ctx, oc)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("following the stream: %w", err)
	}
	handle := func(msg jetstream.Msg) {
		md, err := msg.Metadata()
		if err != nil {
			return
		}
		apply(msg.Subject(), msg.Data(), md.Sequence.Stream, md.Timestamp)
		f.mu.Lock()
		if md.Sequence.Stream > f.seq {
			f.seq, f.at = md.Sequence.Stream, md.Timestamp
		}
		close(f.wake)
		f.wake = make(chan struct{})
		f.mu.Unlock()
	}
	// Large pulls: a replay of a long stream is a few hundred round trips.
	if f.cc, err = cons.Consume(handle, jetstream.PullMaxMessages(1000)); err != nil {
		return nil, fmt.Errorf("following the stream: %w", err)
	}
	return f, nil
}

// Stop stops following.
func (f *Follower) Stop() { f.cc.Stop() }

// Applied is the last sequence applied and its stream time.
func (f *Follower) Applied() (uint64, time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.seq, f.at
}

// WaitFor waits until the message at seq (or a later one) is applied.
func (f *Follower) WaitFor(ctx context.Context, seq uint64) error {
	for {
		f.mu.Lock()
		done, wake := f.seq >= seq, f.wake
		f.mu.Unlock()
		if done {
			return nil
		}
		select {
		case <-wake:
		case <-ctx.Done():
			return fmt.Errorf("the stream's message %d not yet read: %w", seq, ctx.Err())
		}
	}
}

// Sync waits until every message the stream held when it was called is
// applied, and returns the stream's last sequence then.
func (f *Follower) Sync(ctx context.Context) (uint64, error) {
	var info *jetstream.StreamInfo
	err := Retry(ctx, func(ctx context.Context) (err error) {
		info, err = f.stream.Info(ctx)
		return err
	})
	if err != nil {
		return 0, err
	}
	last := info.State.LastSeq
	if info.State.Msgs == 0 {
		return last, nil // nothing to read (an empty stream's LastSeq is 0)
	}
	return last, f.WaitFor(ctx, last)
}

// ErrNoFollower is a read of a view whose follower did not start.
var ErrNoFollower = errors.New("the stream is not being followed")
