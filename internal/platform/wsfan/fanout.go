package wsfan

import (
	"errors"
	"sync"
	"sync/atomic"
)

// Sub is one subscriber's bounded queue. When a publish finds the queue
// full the subscriber is dropped and Overflow is closed; everything
// already queued is still in order and complete up to that point.
type Sub[T any] struct {
	Queue    chan T
	Overflow chan struct{}
}

// Fanout queues published messages to every subscriber: a slow
// subscriber loses its place, never the publisher's time.
type Fanout[T any] struct {
	mu     sync.Mutex
	subs   map[*Sub[T]]struct{}
	closed bool
	done   chan struct{}
	// overflows counts subscribers dropped for a full queue.
	overflows atomic.Int64
}

// ErrClosed is Subscribe's answer once Shutdown has run.
var ErrClosed = errors.New("shutting down")

// New makes an empty Fanout.
func New[T any]() *Fanout[T] {
	return &Fanout[T]{subs: make(map[*Sub[T]]struct{}), done: make(chan struct{})}
}

// Subscribe adds a subscriber with room for queueLen messages.
func (f *Fanout[T]) Subscribe(queueLen int) (*Sub[T], error) {
	s := &Sub[T]{Queue: make(chan T, queueLen), Overflow: make(chan struct{})}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return nil, ErrClosed
	}
	f.subs[s] = struct{}{}
	return s, nil
}

// Unsubscribe removes s.
func (f *Fanout[T]) Unsubscribe(s *Sub[T]) {
	f.mu.Lock()
	delete(f.subs, s)
	f.mu.Unlock()
}

// Publish queues msgs, in order, to every subscriber.
func (f *Fanout[T]) Publish(msgs ...T) {
	if len(msgs) == 0 {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for s := range f.subs {
	send:
		for _, m := range msgs {
			select {
			case s.Queue <- m:
			default:
				close(s.Overflow)
				delete(f.subs, s)
				f.overflows.Add(1)
				break send
			}
		}
	}
}

// Overflows counts the subscribers dropped for a full queue.
func (f *Fanout[T]) Overflows() int64 { return f.overflows.Load() }

// Lag reports the longest subscriber queue and the sum of all of them.
func (f *Fanout[T]) Lag() (longest, total int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for s := range f.subs {
		n := len(s.Queue)
		total += n
		if n > longest {
			longest = n
		}
	}
	return longest, total
}

// Shutdown closes Done, telling every subscriber to close, and refuses
// new ones.
func (f *Fanout[T]) Shutdown() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.closed {
		f.closed = true
		close(f.done)
	}
}

// Done is closed by Shutdown.
func (f *Fanout[T]) Done() <-chan struct{} { return f.done }
