package webhookrelay

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"
)

// Websocket timing: a client must answer pings within pongWait; every
// write must complete within writeWait or the client is dropped (it
// resumes later from the store).
const (
	writeWait  = 10 * time.Second
	pongWait   = 60 * time.Second
	pingPeriod = pongWait * 9 / 10
	closeGrace = 2 * time.Second
	// backlogPage bounds one store read while sending a backlog.
	backlogPage      = 256
	backlogPageBytes = 4 << 20
)

// Close codes the relay sends.
const (
	// CloseSlowConsumer: the client's queue filled; the reason says which
	// since= to resume with.
	CloseSlowConsumer = 4000
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

// typeFilter returns a filter for a comma-separated type list, or nil.
func typeFilter(list []string) func(*Event) bool {
	set := map[string]bool{}
	for _, item := range list {
		for _, t := range strings.Split(item, ",") {
			if t = strings.TrimSpace(t); t != "" {
				set[t] = true
			}
		}
	}
	if len(set) == 0 {
		return nil
	}
	return func(e *Event) bool { return set[e.Type] }
}

func (r *Relay) handleWS(w http.ResponseWriter, req *http.Request) {
	if !r.allowRead(w, req) {
		return
	}
	q := req.URL.Query()
	since, err := parseSeq(q.Get("since"))
	if err != nil {
		writeProblem(w, http.StatusBadRequest, "bad_since", err.Error())
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
	conn, err := r.upgrader.Upgrade(w, req, nil)
	if err != nil {
		return // Upgrade has answered (403 for a refused Origin, 400 otherwise)
	}
	defer conn.Close()
	closing, _ := req.Context().Value(closingKey{}).(<-chan struct{})
	c := &wsClient{relay: r, conn: conn, keep: typeFilter(q["type"]), closing: closing, lastPing: time.Now()}
	c.serve(since)
}

// closingKey carries, in a request's context, the channel Serve closes on
// shutdown; hijacked websocket connections are not closed by
// http.Server.Shutdown, so they watch it themselves.
type closingKey struct{}

// wsClient is one websocket connection being served.
type wsClient struct {
	relay      *Relay
	conn       *websocket.Conn
	keep       func(*Event) bool
	closing    <-chan struct{}
	readerDone chan struct{}
	lastPing   time.Time
	// last is the highest seq this connection has dealt with (sent or
	// filtered out); it is what the client resumes from.
	last uint64
}

func (c *wsClient) serve(since uint64) {
	c.last = since
	c.readerDone = make(chan struct{})
	c.conn.SetReadLimit(512) // clients send only control frames
	_ = c.conn.SetReadDeadline(time.Now().Add(pongWait))
	c.conn.SetPongHandler(func(string) error {
		return c.conn.SetReadDeadline(time.Now().Add(pongWait))
	})
	go func() {
		defer close(c.readerDone)
		for {
			if _, _, err := c.conn.NextReader(); err != nil {
				return
			}
		}
	}()

	hub := c.relay.hub
	var sub *hubClient
	for {
		// Subscribe before reading the backlog: anything committed after
		// the backlog's last read is then in the queue, so there is no gap;
		// queued events the backlog already sent are skipped by seq.
		var err error
		if sub, err = hub.subscribe(c.relay.cfg.ClientQueue); err != nil {
			c.close(websocket.CloseGoingAway, "relay shutting down")
			return
		}
		if err := c.sendBacklog(); err != nil {
			hub.unsubscribe(sub)
			return
		}
		select {
		case <-sub.overflow:
			// The queue filled while the backlog was sent: the store has
			// everything it dropped, so go round again from there.
			continue
		default:
		}
		break
	}
	defer hub.unsubscribe(sub)

	ping := time.NewTicker(pingPeriod)
	defer ping.Stop()
	for {
		select {
		case m := <-sub.queue:
			if err := c.sendLive(m); err != nil {
				return
			}
		case <-sub.overflow:
			for drained := false; !drained; {
				select {
				case m := <-sub.queue:
					if err := c.sendLive(m); err != nil {
						return
					}
				default:
					drained = true
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
		case <-hub.done:
			c.close(websocket.CloseGoingAway, "relay shutting down")
			return
		}
	}
}

func (c *wsClient) sendLive(m hubMsg) error {
	if m.seq <= c.last {
		return nil
	}
	c.last = m.seq
	if c.keep != nil && !c.keep(&Event{Type: m.typ}) {
		return nil
	}
	_ = c.conn.SetWriteDeadline(time.Now().Add(writeWait))
	return c.conn.WritePreparedMessage(m.pm)
}

// sendBacklog sends every stored event after c.last, page by page, until
// it has caught up with the store.
func (c *wsClient) sendBacklog() error {
	for {
		var page [][]byte
		lastSeen, err := c.relay.store.scan(c.last, backlogPage, backlogPageBytes, c.keep, func(e Event) bool {
			data, err := json.Marshal(e)
			if err == nil {
				page = append(page, data)
			}
			return err == nil
		})
		if err != nil {
			c.relay.cfg.Logger.Error("relay cannot read the store for a backlog", "err", err)
			c.close(websocket.CloseInternalServerErr, "relay store unavailable, retry later")
			return err
		}
		for _, data := range page {
			_ = c.conn.SetWriteDeadline(time.Now().Add(writeWait))
			if err := c.conn.WriteMessage(websocket.TextMessage, data); err != nil {
				return err
			}
		}
		if lastSeen == c.last {
			return nil
		}
		c.last = lastSeen
		// A long backlog must not starve the keepalive.
		if time.Since(c.lastPing) > pingPeriod {
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

var errClientGone = fmt.Errorf("websocket client went away")

func (c *wsClient) ping() error {
	c.lastPing = time.Now()
	return c.conn.WriteControl(websocket.PingMessage, nil, time.Now().Add(writeWait))
}

// close sends a close frame and waits briefly for the client's answer, so
// the events written before it are not cut off by a TCP reset.
func (c *wsClient) close(code int, reason string) {
	msg := websocket.FormatCloseMessage(code, reason)
	if err := c.conn.WriteControl(websocket.CloseMessage, msg, time.Now().Add(writeWait)); err != nil {
		return
	}
	t := time.NewTimer(closeGrace)
	defer t.Stop()
	select {
	case <-c.readerDone:
	case <-t.C:
	}
}
