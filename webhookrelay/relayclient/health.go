package relayclient

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"
)

// HealthInfo is the body of a relay's GET /healthz.
type HealthInfo struct {
	Status   string `json:"status"`
	FirstSeq uint64 `json:"first_seq"`
	LastSeq  uint64 `json:"last_seq"`
}

// Health reads a relay's /healthz (no token needed), given its websocket
// URL: whether it is up, and the seq a subscriber starts from to see only
// what comes next.
func Health(ctx context.Context, wsURL string) (*HealthInfo, error) {
	u, err := url.Parse(wsURL)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("relay URL %q must look like ws://127.0.0.1:8787/ws", wsURL)
	}
	switch u.Scheme {
	case "wss":
		u.Scheme = "https"
	default:
		u.Scheme = "http"
	}
	u.Path, u.RawQuery = "/healthz", ""
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("relay not reachable: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 500 {
		return nil, fmt.Errorf("relay health: HTTP %d", resp.StatusCode)
	}
	var h HealthInfo
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&h); resp.StatusCode != http.StatusOK || err != nil || h.Status != "ok" {
		// Something answers, but not as a relay: another service, another
		// port, or a page. Waiting will not change that.
		return nil, fmt.Errorf("relay health: %w (HTTP %d at %s)", ErrNotARelay, resp.StatusCode, u.String())
	}
	return &h, nil
}
