package hub

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/gorilla/websocket"

	"github.com/paydash/paydash/internal/platform/wsfan"
	"github.com/paydash/paydash/webhookrelay/hub/hubapi"
	"github.com/paydash/paydash/webhookrelay/hub/store"
	"github.com/paydash/paydash/webhookrelay/hub/users"
)

var watchUpgrader = websocket.Upgrader{
	HandshakeTimeout: 10 * time.Second,
	ReadBufferSize:   1024,
	WriteBufferSize:  4 << 10,
	// The feed needs Authorization: Bearer, which a browser's websocket
	// cannot send; a request with an Origin is a page trying anyway.
	CheckOrigin: func(req *http.Request) bool { return req.Header.Get("Origin") == "" },
}

// startWatch feeds the hub's subscribers from its store: after each
// commit (bbolt), or from the stream every hub of a cluster writes to
// (JetStream), never from both. The feed (hubapi.PathApprovalsWS) sends
// each change as a hubapi.Change.
func (h *Hub) startWatch() {
	h.changes = wsfan.New[hubapi.Change]()
	h.stopWatch = h.cfg.Store.Watch(func(c store.Change) { h.changes.Publish(wireChange(c)) })
}

// stopWatching closes every subscriber's feed.
func (h *Hub) stopWatching() {
	h.stopWatch()
	h.changes.Shutdown()
}

// handleWatch serves the approvals feed. It sends nothing from before the
// connection: the subscriber lists the requests once connected, and since
// it is subscribed before the upgrade is answered, nothing committed
// between its list and its subscription is missed.
func (h *Hub) handleWatch(w http.ResponseWriter, req *http.Request, _ users.User) {
	// Config.FeedQueue bounds the changes waiting for a slow subscriber;
	// past it the subscriber is dropped and told to list again.
	sub, err := h.changes.Subscribe(h.cfg.FeedQueue)
	if err != nil {
		writeProblem(w, http.StatusServiceUnavailable, "shutting_down", "the hub is shutting down; retry later")
		return
	}
	defer h.changes.Unsubscribe(sub)
	ws, err := watchUpgrader.Upgrade(w, req, nil)
	if err != nil {
		return // Upgrade has answered
	}
	defer ws.Close()
	c := wsfan.Serve(ws)
	ping := time.NewTicker(wsfan.PingPeriod)
	defer ping.Stop()
	for {
		select {
		case ch := <-sub.Queue:
			data, err := json.Marshal(ch)
			if err != nil {
				return
			}
			if err := c.WriteText(data); err != nil {
				return
			}
		case <-sub.Overflow:
			c.Close(wsfan.CloseSlowConsumer, hubapi.CloseReasonSlow)
			return
		case <-ping.C:
			if err := c.Ping(); err != nil {
				return
			}
		case <-c.Gone():
			return
		case <-h.changes.Done():
			c.Close(websocket.CloseGoingAway, "hub shutting down")
			return
		}
	}
}
