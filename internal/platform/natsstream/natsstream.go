package natsstream

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Attempt bounds one request to the cluster: a stream whose leader died
// answers nothing until another is elected, so requests are retried
// within the caller's deadline rather than waited on.
const Attempt = 3 * time.Second

// pause is the wait between two tries of a read.
const pause = 100 * time.Millisecond

// stop marks an error no retry can mend.
type stop struct{ err error }

func (s stop) Error() string { return s.err.Error() }
func (s stop) Unwrap() error { return s.err }

// Stop marks err as final: Retry returns it at once.
func Stop(err error) error { return stop{err} }

// Retry runs op, each try bounded by Attempt, until it succeeds, answers
// jetstream.ErrMsgNotFound (an answer, not a failure), returns an error
// marked with Stop, or ctx ends; then it returns op's last error.
func Retry(ctx context.Context, op func(context.Context) error) error {
	for {
		actx, cancel := context.WithTimeout(ctx, Attempt)
		err := op(actx)
		cancel()
		var s stop
		if errors.As(err, &s) {
			return s.err
		}
		if err == nil || errors.Is(err, jetstream.ErrMsgNotFound) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(pause):
		}
	}
}

// ErrMoved is an append refused because the stream was appended to after
// the sequence it expected: read again and decide again.
var ErrMoved = errors.New("appended to meanwhile")

// wrongLastSeq reports a publish refused by its expected last sequence.
func wrongLastSeq(err error) bool {
	var je jetstream.JetStreamError
	if errors.As(err, &je) && je.APIError() != nil {
		c := je.APIError().ErrorCode
		return c == jetstream.JSErrCodeStreamWrongLastSequence || c == jetstream.JSErrCodeStreamWrongLastSequenceConstant
	}
	return false
}

// PublishIf publishes msg when the stream's last sequence is still last
// (the compare-and-swap every change is), retrying through elections and
// lost answers until ctx ends. msg must carry a Nats-Msg-Id unique to this
// write: a retry of a publish that landed is answered as a duplicate
// within the stream's window, or refused for the sequence it moved,
// after which the subject's last message is found to be this very one.
// It returns the message's sequence, ErrMoved when another write came
// first, or the last error when ctx ends.
func PublishIf(ctx context.Context, js jetstream.JetStream, stream jetstream.Stream, msg *nats.Msg, last uint64) (uint64, error) {
	id := msg.Header.Get(jetstream.MsgIDHeader)
	if id == "" {
		return 0, errors.New("natsstream: a compare-and-swap publish needs a Nats-Msg-Id")
	}
	tried := false
	delay := 50 * time.Millisecond
	for {
		actx, cancel := context.WithTimeout(ctx, Attempt)
		ack, err := js.PublishMsg(actx, msg, jetstream.WithExpectLastSequence(last))
		cancel()
		if err == nil {
			return ack.Sequence, nil
		}
		if wrongLastSeq(err) {
			if tried {
				if got, gerr := stream.GetLastMsgForSubject(ctx, msg.Subject); gerr == nil && got.Header.Get(jetstream.MsgIDHeader) == id {
					return got.Sequence, nil // it landed before its answer was lost
				}
			}
			return 0, ErrMoved
		}
		tried = true
		select {
		case <-ctx.Done():
			return 0, err
		case <-time.After(delay):
		}
		delay = min(2*delay, 500*time.Millisecond)
	}
}

// Publish publishes msg without a compare-and-swap, retrying until ctx
// ends; its Nats-Msg-Id keeps a retry that landed from being written
// twice.
func Publish(ctx context.Context, js jetstream.JetStream, msg *nats.Msg) (uint64, error) {
	var seq uint64
	err := Retry(ctx, func(ctx context.Context) error {
		ack, err := js.PublishMsg(ctx, msg)
		if err == nil {
			seq = ack.Sequence
		}
		return err
	})
	return seq, err
}

// Wait runs a set-up step until it succeeds, saying what it waits for
// (the relay's backoff with its log); nil runs it once.
type Wait func(ctx context.Context, what string, step func(context.Context) error) error

// Create creates the stream (or updates it to sc) and writes its first
// message on firstSubject once: every compare-and-swap then expects a
// sequence of at least 1, because a clustered nats-server before 2.10
// checks an expected 0 only when applying, not in order
// (nats-io/nats-server#5794). The first message's fixed Nats-Msg-Id
// makes two hubs starting at once write it once. what names the stream
// for the operator while it waits.
func Create(ctx context.Context, js jetstream.JetStream, sc jetstream.StreamConfig, wait Wait, what, firstSubject string) (jetstream.Stream, error) {
	if wait == nil {
		wait = func(ctx context.Context, _ string, step func(context.Context) error) error { return step(ctx) }
	}
	var stream jetstream.Stream
	if err := wait(ctx, fmt.Sprintf("JetStream stream %s (%d replicas) for %s", sc.Name, sc.Replicas, what), func(ctx context.Context) error {
		var err error
		stream, err = js.CreateOrUpdateStream(ctx, sc)
		return err
	}); err != nil {
		return nil, err
	}
	if err := wait(ctx, "the first message of "+sc.Name, func(ctx context.Context) error {
		info, err := stream.Info(ctx)
		if err != nil || info.State.LastSeq > 0 {
			return err
		}
		msg := nats.NewMsg(firstSubject)
		msg.Data = []byte("{}")
		msg.Header.Set(jetstream.MsgIDHeader, "paydash-init-"+sc.Name)
		_, err = js.PublishMsg(ctx, msg)
		return err
	}); err != nil {
		return nil, err
	}
	return stream, nil
}
