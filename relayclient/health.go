package relayclient

import (
	"context"
	"encoding/json"
	"fmt"
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
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("relay health: HTTP %d", resp.StatusCode)
	}
	var h HealthInfo
	if err := json.NewDecoder(resp.Body).Decode(&h); err != nil {
		return nil, fmt.Errorf("relay health: %w", err)
	}
	return &h, nil
}
