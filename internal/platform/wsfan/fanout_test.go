package wsfan

import (
	"errors"
	"testing"
)

// A subscriber whose queue is full is dropped and told (Overflow closed)
// with what was queued before intact; the publisher never waits for it,
// and the other subscribers get every message.
func TestAFullSubscriberIsDroppedWithoutHoldingThePublisher(t *testing.T) {
	f := New[int]()
	slow, err := f.Subscribe(2)
	if err != nil {
		t.Fatal(err)
	}
	fast, err := f.Subscribe(100)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		f.Publish(i) // returns although slow reads nothing
	}
	select {
	case <-slow.Overflow:
	default:
		t.Fatal("the full subscriber was not told it was dropped")
	}
	if got := []int{<-slow.Queue, <-slow.Queue}; got[0] != 0 || got[1] != 1 || len(slow.Queue) != 0 {
		t.Fatalf("the dropped subscriber's queue: %v then %d more", got, len(slow.Queue))
	}
	if len(fast.Queue) != 5 {
		t.Fatalf("the other subscriber got %d of 5", len(fast.Queue))
	}
	if f.Overflows() != 1 {
		t.Fatalf("%d overflows counted, want 1", f.Overflows())
	}
	f.Shutdown()
	if _, err := f.Subscribe(1); !errors.Is(err, ErrClosed) {
		t.Fatalf("subscribe after shutdown: %v", err)
	}
	select {
	case <-f.Done():
	default:
		t.Fatal("Done not closed by Shutdown")
	}
}
