package natsstream

import (
	"context"
	"errors"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/paydash/paydash/internal/platform/backoff"
	"github.com/paydash/paydash/internal/platform/clock"
)

// Attempt bounds one request to the cluster: a stream whose leader died
// answers nothing until another is elected, so requests are retried
// within the caller's deadline rather than waited on.
const Attempt = 3 * time.Second

// readPause is the fixed wait between two tries of a read.
const readPause = 100 * time.Millisecond

// PublishBackoff is the wait between two tries of a publish through a
// leader election: 50ms doubling up to 500ms, on the real clock (an
// election takes real time). The relay's own publishes retry with it
// too.
func PublishBackoff() *backoff.Backoff {
	return backoff.New(backoff.Policy{Base: 50 * time.Millisecond, Max: 500 * time.Millisecond}, clock.Real())
}

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
	// On the real clock: the retries wait out a real cluster's election.
	retry := backoff.New(backoff.Policy{Base: readPause, Max: readPause}, clock.Real())
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
		if retry.Wait(ctx) != nil {
			return err
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
	retry := PublishBackoff()
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
		if retry.Wait(ctx) != nil {
			return 0, err
		}
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
