package webhookrelay

import (
	"errors"
	"sync"
	"sync/atomic"
)

// hubMsg is one committed event ready to fan out: its websocket frame is
// encoded once and shared, read-only, by every client.
type hubMsg struct {
	seq   uint64
	typ   string
	frame []byte
}

// hubClient is one websocket connection's bounded queue. When a publish
// finds the queue full the client is dropped from the hub and overflow is
// closed; everything already queued is still in order and complete up to
// that point, and the store has the rest.
type hubClient struct {
	queue    chan hubMsg
	overflow chan struct{}
}

// hub fans committed events out to clients without ever blocking the
// writer: a slow client loses its place in the hub, never the writer's time.
type hub struct {
	mu      sync.Mutex
	clients map[*hubClient]struct{}
	closed  bool
	done    chan struct{}
	// overflows counts clients dropped for a full queue.
	overflows atomic.Int64
}

var errHubClosed = errors.New("relay is shutting down")

func newHub() *hub {
	return &hub{clients: make(map[*hubClient]struct{}), done: make(chan struct{})}
}

func (h *hub) subscribe(queueLen int) (*hubClient, error) {
	c := &hubClient{queue: make(chan hubMsg, queueLen), overflow: make(chan struct{})}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil, errHubClosed
	}
	h.clients[c] = struct{}{}
	return c, nil
}

func (h *hub) unsubscribe(c *hubClient) {
	h.mu.Lock()
	delete(h.clients, c)
	h.mu.Unlock()
}

// publish queues msgs (in seq order) to every client.
func (h *hub) publish(msgs []hubMsg) {
	if len(msgs) == 0 {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for c := range h.clients {
	send:
		for _, m := range msgs {
			select {
			case c.queue <- m:
			default:
				close(c.overflow)
				delete(h.clients, c)
				h.overflows.Add(1)
				break send
			}
		}
	}
}

// lag reports the longest client queue and the sum of all of them.
func (h *hub) lag() (max, total int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for c := range h.clients {
		n := len(c.queue)
		total += n
		if n > max {
			max = n
		}
	}
	return max, total
}

// shutdown tells every client to close and refuses new ones.
func (h *hub) shutdown() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.closed {
		h.closed = true
		close(h.done)
	}
}
