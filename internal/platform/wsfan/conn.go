package wsfan

import (
	"errors"
	"time"

	"github.com/gorilla/websocket"
)

// Websocket timing: a client must answer pings within PongWait; every
// write must complete within WriteWait or the client is dropped.
const (
	WriteWait  = 10 * time.Second
	PongWait   = 60 * time.Second
	PingPeriod = PongWait * 9 / 10
	CloseGrace = 2 * time.Second
)

// CloseSlowConsumer is the close code sent to a subscriber dropped for a
// full queue; the close reason says how to catch up.
const CloseSlowConsumer = 4000

// Conn is the server's side of one websocket whose client sends only
// control frames: a reader answers pings and pongs, and Gone is closed
// when the client goes away or stops answering.
type Conn struct {
	WS       *websocket.Conn
	gone     chan struct{}
	lastPing time.Time
}

// Serve starts reading ws's control frames.
func Serve(ws *websocket.Conn) *Conn {
	c := &Conn{WS: ws, gone: make(chan struct{}), lastPing: time.Now()}
	ws.SetReadLimit(512) // clients send only control frames
	_ = ws.SetReadDeadline(time.Now().Add(PongWait))
	ws.SetPongHandler(func(string) error {
		return ws.SetReadDeadline(time.Now().Add(PongWait))
	})
	ws.SetPingHandler(func(data string) error {
		err := ws.WriteControl(websocket.PongMessage, []byte(data), time.Now().Add(WriteWait))
		if errors.Is(err, websocket.ErrCloseSent) {
			return nil
		}
		return err
	})
	go func() {
		defer close(c.gone)
		for {
			if _, _, err := ws.NextReader(); err != nil {
				return
			}
		}
	}()
	return c
}

// Gone is closed when the client has gone away.
func (c *Conn) Gone() <-chan struct{} { return c.gone }

// Ping sends a keepalive ping.
func (c *Conn) Ping() error {
	c.lastPing = time.Now()
	return c.WS.WriteControl(websocket.PingMessage, nil, time.Now().Add(WriteWait))
}

// PingDue says whether a ping is due: a long write loop must not starve
// the keepalive.
func (c *Conn) PingDue() bool { return time.Since(c.lastPing) > PingPeriod }

// WriteText writes one text message within WriteWait.
func (c *Conn) WriteText(data []byte) error {
	_ = c.WS.SetWriteDeadline(time.Now().Add(WriteWait))
	return c.WS.WriteMessage(websocket.TextMessage, data)
}

// Close sends a close frame and waits briefly for the client's answer, so
// the messages written before it are not cut off by a TCP reset.
func (c *Conn) Close(code int, reason string) {
	msg := websocket.FormatCloseMessage(code, reason)
	if err := c.WS.WriteControl(websocket.CloseMessage, msg, time.Now().Add(WriteWait)); err != nil {
		return
	}
	t := time.NewTimer(CloseGrace)
	defer t.Stop()
	select {
	case <-c.gone:
	case <-t.C:
	}
}
