package webhookrelay

import "github.com/paydash/paydash/internal/platform/wsfan"

// fanoutMsg is one committed event ready to fan out: its websocket frame
// is encoded once and shared, read-only, by every subscriber.
type fanoutMsg struct {
	seq   uint64
	typ   string
	frame []byte
}

// fanout hands committed events to the websocket clients without ever
// blocking the writer (wsfan.Fanout): a slow client loses its place in
// the fan-out, never the writer's time; the store has what it dropped.
// (It is not the team hub, webhookrelay/hub, which the relay mounts.)
type fanout = wsfan.Fanout[fanoutMsg]

// fanoutSub is one subscriber's bounded queue.
type fanoutSub = wsfan.Sub[fanoutMsg]

func newFanout() *fanout { return wsfan.New[fanoutMsg]() }
