package webhookrelay

import "github.com/paydash/paydash/internal/platform/wsfan"

// hubMsg is one committed event ready to fan out: its websocket frame is
// encoded once and shared, read-only, by every client.
type hubMsg struct {
	seq   uint64
	typ   string
	frame []byte
}

// hub fans committed events out to websocket clients without ever
// blocking the writer (wsfan.Fanout): a slow client loses its place in the
// hub, never the writer's time; the store has what it dropped.
type hub = wsfan.Fanout[hubMsg]

// hubClient is one websocket connection's bounded queue.
type hubClient = wsfan.Sub[hubMsg]

func newHub() *hub { return wsfan.New[hubMsg]() }
