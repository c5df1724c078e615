package hubclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gorilla/websocket"

	"github.com/paydash/paydash/internal/platform/backoff"
	"github.com/paydash/paydash/webhookrelay/hub/hubapi"
)

// Feed states Watch reports.
type FeedState struct {
	// Up is true once the feed is connected: the caller lists the
	// requests then (it was subscribed first, so nothing is missed).
	Up bool
	// Err says why the feed is down (nil while up).
	Err error
}

// Watch backoff: a hub restarting is back within seconds; one without a
// feed (an older hub, answering 404) is asked again seldom.
const (
	watchFirstRetry = 500 * time.Millisecond
	watchMaxRetry   = 30 * time.Second
	// watchReadWait is longer than the hub's ping period: a feed silent
	// past it is dead.
	watchReadWait = 75 * time.Second
)

// ErrNoFeed says the hub has no approvals feed (an older paydash relay).
var ErrNoFeed = errors.New("the hub has no live approvals feed (an older paydash relay?)")

// Watch follows the hub's approvals feed until ctx is done, calling
// onChange with each change of a request's status and onState each time
// the feed comes up or goes down; it reconnects with backoff. Both
// callbacks run on Watch's goroutine. It returns ctx's error.
func (c *Client) Watch(ctx context.Context, onChange func(hubapi.Change), onState func(FeedState)) error {
	retry := backoff.New(backoff.Policy{Base: watchFirstRetry, Max: watchMaxRetry}, nil)
	for {
		err := c.watchOnce(ctx, onChange, onState)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if errors.Is(err, errWasUp) {
			retry.Reset()
			err = errors.Unwrap(err)
		}
		onState(FeedState{Err: err})
		if err := retry.Wait(ctx); err != nil {
			return err
		}
	}
}

// errWasUp wraps the error that ended a feed which had been up.
var errWasUp = errors.New("feed was up")

type wasUp struct{ err error }

func (w wasUp) Error() string        { return w.err.Error() }
func (w wasUp) Unwrap() error        { return w.err }
func (w wasUp) Is(target error) bool { return target == errWasUp }

func (c *Client) watchURL() (string, error) {
	base := strings.TrimRight(c.BaseURL, "/")
	switch {
	case strings.HasPrefix(base, "http://"):
		return "ws://" + strings.TrimPrefix(base, "http://") + hubapi.PathApprovalsWS, nil
	case strings.HasPrefix(base, "https://"):
		return "wss://" + strings.TrimPrefix(base, "https://") + hubapi.PathApprovalsWS, nil
	}
	return "", fmt.Errorf("hub address %q is not http(s)://", c.BaseURL)
}

func (c *Client) watchOnce(ctx context.Context, onChange func(hubapi.Change), onState func(FeedState)) error {
	u, err := c.watchURL()
	if err != nil {
		return err
	}
	h := http.Header{}
	if c.Token != "" {
		h.Set("Authorization", "Bearer "+c.Token)
	}
	d := websocket.Dialer{HandshakeTimeout: 10 * time.Second, Proxy: http.ProxyFromEnvironment}
	// The feed goes the way the client's other requests go: its proxy
	// and TLS settings, when it has its own transport.
	if c.HTTP != nil {
		if tr, ok := c.HTTP.Transport.(*http.Transport); ok {
			d.Proxy, d.TLSClientConfig = tr.Proxy, tr.TLSClientConfig
		}
	}
	conn, resp, err := d.DialContext(ctx, u, h)
	if err != nil {
		return refusal(resp, err, c.BaseURL)
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { _ = conn.Close() })
	defer stop()
	conn.SetReadLimit(64 << 10)
	ping := conn.PingHandler()
	conn.SetPingHandler(func(data string) error {
		_ = conn.SetReadDeadline(time.Now().Add(watchReadWait))
		return ping(data)
	})
	onState(FeedState{Up: true})
	for {
		_ = conn.SetReadDeadline(time.Now().Add(watchReadWait))
		_, data, err := conn.ReadMessage()
		if err != nil {
			return wasUp{fmt.Errorf("the hub's live feed closed: %w", err)}
		}
		var ch hubapi.Change
		if json.Unmarshal(data, &ch) == nil {
			onChange(ch)
		}
	}
}

// refusal says why the hub did not open the feed: its Problem when it
// answered with one, ErrNoFeed for a 404 without one.
func refusal(resp *http.Response, err error, base string) error {
	if resp == nil {
		return fmt.Errorf("hub at %s did not answer: %w", base, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	var p hubapi.Problem
	if json.Unmarshal(data, &p) == nil && p.Detail != "" && p.Reason != "not_found" {
		return &Error{Problem: p}
	}
	if resp.StatusCode == http.StatusNotFound {
		return ErrNoFeed
	}
	return &Error{Problem: hubapi.Problem{Status: resp.StatusCode, Reason: "http_" + strconv.Itoa(resp.StatusCode), Detail: http.StatusText(resp.StatusCode)}}
}
