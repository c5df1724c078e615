// Package graceful shuts an HTTP server down without waiting on
// connections that carry no request.
//
// http.Server.Shutdown waits for every connection to go idle, and counts
// one accepted but not yet used (StateNew) as busy for 5 s: Go's own
// transport dials a spare connection ahead and keeps it, so a server
// whose client lives on (in the same process, as the demo's dashboard
// and sandbox do) could not stop for 5 s and then reported "context
// deadline exceeded". Track notes such connections; Shutdown closes them
// while requests in flight finish.
package graceful

import (
	"context"
	"net"
	"net/http"
	"sync"
	"time"
)

// Tracker knows which of a server's connections have sent no request.
type Tracker struct {
	srv   *http.Server
	mu    sync.Mutex
	fresh map[net.Conn]bool
}

// Track installs the tracking on srv (before it serves), keeping any
// ConnState hook srv already had.
func Track(srv *http.Server) *Tracker {
	t := &Tracker{srv: srv, fresh: map[net.Conn]bool{}}
	prev := srv.ConnState
	srv.ConnState = func(c net.Conn, st http.ConnState) {
		t.mu.Lock()
		if st == http.StateNew {
			t.fresh[c] = true
		} else {
			delete(t.fresh, c)
		}
		t.mu.Unlock()
		if prev != nil {
			prev(c, st)
		}
	}
	return t
}

// closeFresh closes the connections that have sent no request.
func (t *Tracker) closeFresh() {
	t.mu.Lock()
	defer t.mu.Unlock()
	for c := range t.fresh {
		_ = c.Close()
	}
}

// Shutdown is srv.Shutdown(ctx), closing meanwhile every connection that
// has sent no request (again every few milliseconds: one accepted just
// before the listener closed says so a moment later).
func (t *Tracker) Shutdown(ctx context.Context) error {
	t.srv.SetKeepAlivesEnabled(false)
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			t.closeFresh()
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	err := t.srv.Shutdown(ctx)
	close(stop)
	<-done
	return err
}
