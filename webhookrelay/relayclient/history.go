package relayclient

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// History reads a relay's stored events over GET /events: what became of
// a payout after the service accepted it, when nothing was listening at
// the time (a rejection never enters the service's report; the relay
// alone keeps it).
type History struct {
	// URL is the relay's websocket URL (ws://host:port/ws), as profiles
	// name it; the history endpoint is derived from it.
	URL   string
	Token string
	// MaxPages bounds the pages read per question (each scans at most the
	// relay's own cap); 0 means 20.
	MaxPages int
}

// FinalState returns the last final state (settled, executed, rejected,
// failed) the relay stored for payout id, and its reason. ok is false
// when the relay holds none (yet).
func (h History) FinalState(ctx context.Context, id string) (state, reason string, ok bool, err error) {
	u, err := url.Parse(h.URL)
	if err != nil || u.Host == "" {
		return "", "", false, fmt.Errorf("relay URL %q must look like ws://127.0.0.1:8787/ws", h.URL)
	}
	if u.Scheme == "wss" {
		u.Scheme = "https"
	} else {
		u.Scheme = "http"
	}
	u.Path = "/events"
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	pages := h.MaxPages
	if pages <= 0 {
		pages = 20
	}
	var since uint64
	for range pages {
		q := url.Values{"payout_id": {id}, "limit": {"1000"}, "since": {strconv.FormatUint(since, 10)}}
		u.RawQuery = q.Encode()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
		if err != nil {
			return "", "", false, err
		}
		if h.Token != "" {
			req.Header.Set("Authorization", "Bearer "+h.Token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return "", "", false, fmt.Errorf("relay history: %w", err)
		}
		var page struct {
			Events    []Event `json:"events"`
			NextSince uint64  `json:"next_since"`
			LastSeq   uint64  `json:"last_seq"`
		}
		err = json.NewDecoder(resp.Body).Decode(&page)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return "", "", false, fmt.Errorf("relay history: %s", resp.Status)
		}
		if err != nil {
			return "", "", false, fmt.Errorf("relay history: %w", err)
		}
		for _, e := range page.Events {
			switch e.State {
			case "settled", "executed", "rejected", "failed":
				state, reason, ok = e.State, e.Reason, true
			}
		}
		if page.NextSince <= since || page.NextSince >= page.LastSeq {
			return state, reason, ok, nil
		}
		since = page.NextSince
	}
	return state, reason, ok, nil
}
