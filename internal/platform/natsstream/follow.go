package natsstream

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
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
// Message is one message of a stream as a Follower or Scan reads it: Seq
// its stream sequence, At the time the stream's leader stored it (one
// clock for every process).
type Message struct {
	Subject string
	Header  nats.Header
	Data    []byte
	Seq     uint64
	At      time.Time
}

type Follower struct {
	// applyMu makes the consumer's messages and Sync's own reads one
	// sequence, each message applied once.
	applyMu sync.Mutex
	apply   func(Message)
	mu      sync.Mutex
	// seq is the last stream sequence applied, at its stream time at.
	seq  uint64
	at   time.Time
	wake chan struct{}

	stream jetstream.Stream
	cc     jetstream.ConsumeContext
	filter string
	// contiguous: every message of the stream is delivered (no
	// last-per-subject replay, no filter leaving subjects out), so a
	// sequence skipped is a gap to read (fillGap).
	contiguous bool
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
	// Since, when set, replays only the messages the stream stored at or
	// after it (by their stream time).
	Since time.Time
	// From, when set, starts at this stream sequence (what came before
	// is already known to the caller, from a snapshot).
	From uint64
}

// Follow starts following stream; apply hears each message with its
// stream sequence and time (the time the stream's leader stored it: one
// clock for every process). apply is called from one goroutine at a
// time and must not block for long.
func Follow(ctx context.Context, stream jetstream.Stream, cfg FollowConfig, apply func(Message)) (*Follower, error) {
	f := &Follower{stream: stream, wake: make(chan struct{}), apply: apply, filter: cfg.Filter,
		contiguous: !cfg.LastPerSubject && covers(stream, cfg.Filter)}
	oc := jetstream.OrderedConsumerConfig{DeliverPolicy: jetstream.DeliverAllPolicy}
	switch {
	case cfg.LastPerSubject:
		oc.DeliverPolicy = jetstream.DeliverLastPerSubjectPolicy
	case !cfg.Since.IsZero():
		oc.DeliverPolicy, oc.OptStartTime = jetstream.DeliverByStartTimePolicy, &cfg.Since
	case cfg.From > 0:
		oc.DeliverPolicy, oc.OptStartSeq = jetstream.DeliverByStartSequencePolicy, cfg.From
		f.seq = cfg.From - 1
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
		f.applyOne(Message{Subject: msg.Subject(), Header: msg.Headers(), Data: msg.Data(), Seq: md.Sequence.Stream, At: md.Timestamp})
	}
	// Large pulls: a replay of a long stream is a few hundred round
	// trips. Short pulls with frequent heartbeats: a consumer lost with
	// its server is noticed (two heartbeats missed) and made again from
	// where it was within a few seconds, not the default minute, so Sync
	// waits out a node's death as the writes do.
	if f.cc, err = cons.Consume(handle, jetstream.PullMaxMessages(1000), jetstream.PullExpiry(4*time.Second), jetstream.PullHeartbeat(time.Second)); err != nil {
		return nil, fmt.Errorf("following the stream: %w", err)
	}
	// The consumer starts past the messages it skips (those before Since):
	// they count as read, or Sync would wait for them.
	if info := cons.CachedInfo(); info != nil {
		f.mu.Lock()
		f.seq = max(f.seq, info.Delivered.Stream)
		f.mu.Unlock()
	}
	return f, nil
}

// applyOne applies the message at seq unless one at seq or later was.
func (f *Follower) applyOne(m Message) {
	f.applyMu.Lock()
	defer f.applyMu.Unlock()
	f.mu.Lock()
	done, prev := m.Seq <= f.seq, f.seq
	f.mu.Unlock()
	if done {
		return
	}
	if f.contiguous && prev > 0 && m.Seq > prev+1 {
		fillGap(f.stream, prev+1, m.Seq, f.apply)
	}
	f.apply(m)
	f.mu.Lock()
	f.seq, f.at = m.Seq, m.At
	close(f.wake)
	f.wake = make(chan struct{})
	f.mu.Unlock()
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
// applied, and returns the last sequence it waited for.
func (f *Follower) Sync(ctx context.Context) (uint64, error) {
	last, any, err := f.target(ctx)
	if err != nil || !any {
		return last, err
	}
	// A consumer still bringing messages (a hub's replay at start) is
	// waited for while it makes progress. One lost with its server may
	// take many seconds to be made again: past consumerGrace without
	// progress, the messages it has not brought are read here, in one
	// pulled scan.
	from, _ := f.Applied()
	for {
		wctx, cancel := context.WithTimeout(ctx, consumerGrace)
		err = f.WaitFor(wctx, last)
		cancel()
		if err == nil || ctx.Err() != nil {
			return last, err
		}
		now, _ := f.Applied()
		if now == from {
			break
		}
		from = now
	}
	err = Scan(ctx, f.stream, jetstream.ConsumerConfig{DeliverPolicy: jetstream.DeliverByStartSequencePolicy, OptStartSeq: from + 1, FilterSubject: f.filter},
		func(m Message) (bool, error) {
			f.applyOne(m)
			return m.Seq < last, nil
		})
	if err != nil {
		return last, fmt.Errorf("reading the stream from %d: %w", from+1, err)
	}
	return last, f.WaitFor(ctx, last)
}

// target is the sequence Sync waits for: the stream's last; any is false
// when the stream is empty.
func (f *Follower) target(ctx context.Context) (last uint64, any bool, err error) {
	var info *jetstream.StreamInfo
	err = Retry(ctx, func(ctx context.Context) (err error) {
		info, err = f.stream.Info(ctx)
		return err
	})
	if err != nil {
		return 0, false, err
	}
	// An empty stream's LastSeq is 0: nothing to read.
	return info.State.LastSeq, info.State.Msgs > 0, nil
}

// consumerGrace is how long Sync waits for the consumer to bring one
// more message before reading the stream itself.
const consumerGrace = 2 * time.Second

// scanBatch is how many messages one pull of a scan asks for.
const scanBatch = 1000

// Scan reads what an ephemeral consumer of cc delivers, in pulled
// batches, handing each message to fn until it returns false or every
// message is read. The consumer may sit on a replica a little behind the
// stream's leader: it counts as done once it has delivered the stream's
// last sequence as the leader gave it before the scan began, or, for a
// filter that leaves that message out, once nothing more has come for
// scanSettle after its pending count fell to zero.
func Scan(ctx context.Context, stream jetstream.Stream, cc jetstream.ConsumerConfig, fn func(Message) (bool, error)) error {
	var info *jetstream.StreamInfo
	if err := Retry(ctx, func(ctx context.Context) (err error) {
		info, err = stream.Info(ctx)
		return err
	}); err != nil {
		return err
	}
	until := info.State.LastSeq
	cc.AckPolicy, cc.MemoryStorage, cc.Replicas, cc.InactiveThreshold = jetstream.AckNonePolicy, true, 1, time.Minute
	var cons jetstream.Consumer
	if err := Retry(ctx, func(ctx context.Context) (err error) {
		cons, err = stream.CreateConsumer(ctx, cc)
		return err
	}); err != nil {
		return err
	}
	defer func() {
		dctx, cancel := context.WithTimeout(context.Background(), Attempt)
		defer cancel()
		_ = stream.DeleteConsumer(dctx, cons.CachedInfo().Name)
	}()
	pending := cons.CachedInfo().NumPending
	contiguous := cc.DeliverPolicy != jetstream.DeliverLastPerSubjectPolicy && covers(stream, cc.FilterSubject)
	next := max(cc.OptStartSeq, 1)
	var seen uint64
	var drained time.Time
	// A pull that fails is asked again (a consumer just made in a
	// cluster may not answer yet: "no responders"), within ctx.
	retry := PublishBackoff()
	for {
		var batch jetstream.MessageBatch
		var err error
		if pending > 0 {
			drained = time.Time{}
			batch, err = cons.Fetch(int(min(pending, scanBatch)), jetstream.FetchMaxWait(Attempt))
		} else {
			if seen >= until {
				return nil
			}
			if drained.IsZero() {
				drained = time.Now()
			} else if time.Since(drained) > scanSettle {
				return nil
			}
			batch, err = cons.FetchNoWait(scanBatch)
		}
		if err != nil {
			if retry.Wait(ctx) != nil {
				return err
			}
			continue
		}
		got := 0
		for msg := range batch.Messages() {
			got++
			md, err := msg.Metadata()
			if err != nil {
				return err
			}
			seen, pending = max(seen, md.Sequence.Stream), md.NumPending
			if contiguous && md.Sequence.Stream > next {
				var ferr error
				more := true
				fillGap(stream, next, md.Sequence.Stream, func(m Message) {
					if more && ferr == nil {
						more, ferr = fn(m)
					}
				})
				if ferr != nil || !more {
					return ferr
				}
			}
			next = md.Sequence.Stream + 1
			more, err := fn(Message{Subject: msg.Subject(), Header: msg.Headers(), Data: msg.Data(), Seq: md.Sequence.Stream, At: md.Timestamp})
			if err != nil || !more {
				return err
			}
		}
		switch {
		case got > 0:
			retry.Reset()
		case pending > 0 || batch.Error() != nil && !errors.Is(batch.Error(), jetstream.ErrNoMessages):
			if retry.Wait(ctx) != nil {
				if err := batch.Error(); err != nil {
					return err
				}
				return fmt.Errorf("the stream delivered nothing (%d messages pending)", pending)
			}
		default:
			// Drained: a short pause before asking the replica again.
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(10 * time.Millisecond):
			}
		}
	}
}

// covers says whether filter takes every message of stream ("" or its
// one subject as configured).
func covers(stream jetstream.Stream, filter string) bool {
	if filter == "" {
		return true
	}
	info := stream.CachedInfo()
	return info != nil && len(info.Config.Subjects) == 1 && info.Config.Subjects[0] == filter
}

// fillGap reads the messages from..to-1 one by one from the stream's
// leader and applies them: a consumer on a replica still catching up
// (a node just restarted) can pass over messages it does not hold yet.
// Rare and short, so one read per message is kept to it. A message not
// found (none is ever deleted from a record) is passed over.
func fillGap(stream jetstream.Stream, from, to uint64, apply func(Message)) {
	ctx, cancel := context.WithTimeout(context.Background(), RecordWriteTimeout)
	defer cancel()
	for seq := from; seq < to; seq++ {
		var raw *jetstream.RawStreamMsg
		err := Retry(ctx, func(ctx context.Context) (err error) {
			raw, err = stream.GetMsg(ctx, seq)
			return err
		})
		if err != nil {
			continue
		}
		apply(Message{Subject: raw.Subject, Header: raw.Header, Data: raw.Data, Seq: raw.Sequence, At: raw.Time})
	}
}

// scanSettle is how long a scan whose consumer has nothing pending waits
// for messages its replica has not yet stored.
const scanSettle = 100 * time.Millisecond
