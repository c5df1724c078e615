package webhookrelay

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"
	"github.com/paydash/paydash/internal/platform/wsfan"
	"github.com/paydash/paydash/webhookrelay/relayclient"
)

// Websocket timing (wsfan's): every write must complete within writeWait
// or the client is dropped (it resumes later from the store).
const (
	writeWait = wsfan.WriteWait
	// backlogPage bounds one store read while sending a backlog.
	backlogPage      = 256
	backlogPageBytes = 4 << 20
)

// Close codes the relay sends.
const (
	// CloseSlowConsumer: the client's queue filled; the reason says which
	// since= to resume with.
	CloseSlowConsumer = wsfan.CloseSlowConsumer
)

func (r *Relay) newUpgrader() websocket.Upgrader {
	return websocket.Upgrader{
		HandshakeTimeout: 10 * time.Second,
		ReadBufferSize:   1024,
		WriteBufferSize:  16 << 10,
		WriteBufferPool:  &sync.Pool{},
		CheckOrigin:      r.checkOrigin,
	}
}

// checkOrigin allows non-browser clients (no Origin), origins listed in
// AllowedOrigins, and a page served from the relay's own loopback host.
// A same-origin request on a non-loopback name is refused because that is
// what a DNS-rebinding page looks like.
func (r *Relay) checkOrigin(req *http.Request) bool {
	origin := req.Header.Get("Origin")
	if origin == "" {
		return true
	}
	for _, a := range r.cfg.AllowedOrigins {
		if a == "*" || strings.EqualFold(strings.TrimRight(a, "/"), origin) {
			return true
		}
	}
	u, err := url.Parse(origin)
	if err != nil {
		return false
	}
	return strings.EqualFold(u.Host, req.Host) && isLoopbackHost(u.Hostname())
}

func (r *Relay) handleWS(w http.ResponseWriter, req *http.Request) {
	q, since, ok := r.readQuery(w, req)
	if !ok {
		return
	}
	if want := q.Get("store"); want != "" && want != r.be.storeID() {
		// The subscriber's seqs came from another store, however far
		// this one has got: from 0 it misses nothing.
		writeProblem(w, http.StatusConflict, "store_replaced",
			fmt.Sprintf("this relay's store (%s) is not the one since=%d came from (%s): it was replaced; resume with since=0", r.be.storeID(), since, want))
		return
	}
	last, _ := r.be.lastSeq(req.Context(), false)
	if since > last {
		// Another clustered instance may have stored more than this one
		// has seen yet: ask the backend before calling the store replaced.
		last, _ = r.be.lastSeq(req.Context(), true)
	}
	if since > last {
		// The client saw seqs this store never assigned: the store was
		// replaced or deleted. Say so, so it can start again from 0
		// instead of silently skipping everything up to its old seq.
		writeProblem(w, http.StatusConflict, "since_ahead",
			fmt.Sprintf("since=%d is ahead of this relay's last seq %d: its store was replaced; resume with since=0", since, last))
		return
	}
	if n := r.clients.Add(1); n > int64(r.cfg.MaxClients) {
		r.clients.Add(-1)
		w.Header().Set("Retry-After", "5")
		writeProblem(w, http.StatusServiceUnavailable, "too_many_clients",
			fmt.Sprintf("the relay already serves %d websocket clients (its maximum); retry later", r.cfg.MaxClients))
		return
	}
	defer r.clients.Add(-1)
	conn, err := r.upgrader.Upgrade(w, req, http.Header{relayclient.HeaderStore: {r.be.storeID()}})
	if err != nil {
		return // Upgrade has answered (403 for a refused Origin, 400 otherwise)
	}
	defer conn.Close()
	closing, _ := req.Context().Value(closingKey{}).(<-chan struct{})
	c := &wsClient{relay: r, conn: conn, keep: relayclient.TypeFilter(q["type"]), closing: closing}
	c.serve(since)
}

// closingKey carries, in a request's context, the channel Serve closes on
// shutdown; hijacked websocket connections are not closed by
// http.Server.Shutdown, so they watch it themselves.
type closingKey struct{}

// wsClient is one websocket connection being served.
type wsClient struct {
	relay   *Relay
	conn    *websocket.Conn
	keep    func(*Event) bool
	closing <-chan struct{}
	// ws serves the keepalive and the close; readerDone is its Gone.
	ws         *wsfan.Conn
	readerDone <-chan struct{}
	// frames is sendQueued's reused list of frames to write.
	frames net.Buffers
	// last is the highest seq this connection has dealt with (sent or
	// filtered out); it is what the client resumes from.
	last uint64
}

func (c *wsClient) serve(since uint64) {
	c.last = since
	c.ws = wsfan.Serve(c.conn)
	c.readerDone = c.ws.Gone()

	fan := c.relay.fan
	var sub *fanoutSub
	for {
		// Subscribe before reading the backlog: anything committed after
		// the backlog's last read is then in the queue, so there is no gap;
		// queued events the backlog already sent are skipped by seq.
		var err error
		if sub, err = fan.Subscribe(c.relay.cfg.ClientQueue); err != nil {
			c.close(websocket.CloseGoingAway, "relay shutting down")
			return
		}
		if err := c.sendBacklog(); err != nil {
			fan.Unsubscribe(sub)
			return
		}
		select {
		case <-sub.Overflow:
			// The queue filled while the backlog was sent: the store has
			// everything it dropped, so go round again from there.
			continue
		default:
		}
		break
	}
	defer fan.Unsubscribe(sub)

	ping := time.NewTicker(wsfan.PingPeriod)
	defer ping.Stop()
	for {
		select {
		case m := <-sub.Queue:
			if err := c.sendQueued(m, sub.Queue); err != nil {
				return
			}
		case <-sub.Overflow:
			// Everything queued before the overflow is complete and in
			// order: send it, then say where to resume.
			for len(sub.Queue) > 0 {
				if err := c.sendQueued(<-sub.Queue, sub.Queue); err != nil {
					return
				}
			}
			c.close(CloseSlowConsumer, fmt.Sprintf("slow consumer: queue full, resume with since=%d", c.last))
			return
		case <-ping.C:
			if err := c.ping(); err != nil {
				return
			}
		case <-c.readerDone:
			return
		case <-c.closing:
			c.close(websocket.CloseGoingAway, "relay shutting down")
			return
		case <-fan.Done():
			c.close(websocket.CloseGoingAway, "relay shutting down")
			return
		}
	}
}

// maxWriteBatch bounds the frames gathered into one write.
const maxWriteBatch = 256

// sendQueued sends first and whatever else is already queued, in one
// write: the writer publishes a whole group commit at once, so batching
// here turns dozens of syscalls per client into one.
func (c *wsClient) sendQueued(first fanoutMsg, queue <-chan fanoutMsg) error {
	frames := c.add(c.frames[:0], first)
gather:
	for len(frames) < maxWriteBatch {
		select {
		case m := <-queue:
			frames = c.add(frames, m)
		default:
			break gather
		}
	}
	err := c.writeFrames(frames)
	// Keep the slice for the next write, not the frames it pointed to.
	clear(frames)
	c.frames = frames[:0]
	return err
}

// add appends m's frame unless this connection sent it from the backlog
// already or filters its type out.
func (c *wsClient) add(frames net.Buffers, m fanoutMsg) net.Buffers {
	if m.seq <= c.last {
		return frames
	}
	c.last = m.seq
	if c.keep != nil && !c.keep(&Event{Type: m.typ}) {
		return frames
	}
	return append(frames, m.frame)
}

// writeFrames writes complete, pre-encoded data frames with one writev.
// Frames go to the connection directly, past gorilla's writer: this
// goroutine is the only one writing data, and gorilla's control frames
// (pongs, close replies) are single atomic writes on the same socket, so
// frames never interleave.
func (c *wsClient) writeFrames(frames net.Buffers) error {
	if len(frames) == 0 {
		return nil
	}
	nc := c.conn.NetConn()
	_ = nc.SetWriteDeadline(time.Now().Add(writeWait))
	_, err := frames.WriteTo(nc)
	return err
}

// maxFrameHeader is the longest header appendTextFrameHeader writes.
const maxFrameHeader = 10

// appendTextFrameHeader appends the header of one unmasked, final
// websocket text frame (RFC 6455 section 5.2; a server never masks) whose
// payload is n bytes long.
func appendTextFrameHeader(dst []byte, n int) []byte {
	const finText = 0x80 | websocket.TextMessage
	switch {
	case n <= 125:
		return append(dst, finText, byte(n)) //nolint:gosec // n <= 125
	case n <= 0xFFFF:
		return binary.BigEndian.AppendUint16(append(dst, finText, 126), uint16(n))
	default:
		return binary.BigEndian.AppendUint64(append(dst, finText, 127), uint64(n))
	}
}

// sendBacklog sends every stored event after c.last, page by page, until
// it has caught up with the store.
func (c *wsClient) sendBacklog() error {
	for {
		var frames net.Buffers
		size := 0
		lastSeen, err := c.relay.be.scanRaw(c.last, func(seq uint64, rec []byte) (bool, error) {
			if c.keep != nil {
				meta, _, err := splitRecord(rec)
				if err != nil {
					return false, err
				}
				var e Event
				if err := json.Unmarshal(meta, &e); err != nil {
					return false, err
				}
				if !c.keep(&e) {
					return true, nil
				}
			}
			frame, err := appendEventFrame(nil, seq, rec)
			if err != nil {
				return false, err
			}
			frames = append(frames, frame)
			size += len(frame)
			return len(frames) < backlogPage && size < backlogPageBytes, nil
		})
		if err != nil {
			c.relay.cfg.Logger.Error("relay cannot read the store for a backlog", "err", err)
			c.close(websocket.CloseInternalServerErr, "relay store unavailable, retry later")
			return err
		}
		if err := c.writeFrames(frames); err != nil {
			return err
		}
		if lastSeen == c.last {
			return nil
		}
		c.last = lastSeen
		// A long backlog must not starve the keepalive.
		if c.ws.PingDue() {
			if err := c.ping(); err != nil {
				return err
			}
		}
		select {
		case <-c.readerDone:
			return errClientGone
		default:
		}
	}
}

var errClientGone = errors.New("websocket client went away")

func (c *wsClient) ping() error { return c.ws.Ping() }

// close sends a close frame and waits briefly for the client's answer.
func (c *wsClient) close(code int, reason string) { c.ws.Close(code, reason) }
