package relayclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/paydash/paydash/api"
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
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	pages := h.MaxPages
	if pages <= 0 {
		pages = 20
	}
	var since uint64
	for range pages {
		page, err := h.page(ctx, url.Values{"payout_id": {id}, "limit": {"1000"}, "since": {strconv.FormatUint(since, 10)}})
		if err != nil {
			return "", "", false, err
		}
		for _, e := range page.Events {
			if api.IsFinalState(e.State) {
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

// Recent returns the relay's newest events, at most n, oldest first: what
// shell completion offers for an event id.
func (h History) Recent(ctx context.Context, n uint64) ([]Event, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	head, err := h.page(ctx, url.Values{"limit": {"1"}})
	if err != nil {
		return nil, err
	}
	since := uint64(0)
	if head.LastSeq > n {
		since = head.LastSeq - n
	}
	page, err := h.page(ctx, url.Values{"limit": {strconv.FormatUint(n, 10)}, "since": {strconv.FormatUint(since, 10)}})
	if err != nil {
		return nil, err
	}
	return page.Events, nil
}

// CheckReadable reads one page of the relay's history with the token, as
// the dashboard and commands will: a relay that is up but refuses the
// token is an error naming it (GET /healthz answers without a token).
func (h History) CheckReadable(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	_, err := h.page(ctx, url.Values{"limit": {"1"}})
	return err
}

// ErrRefused matches (errors.Is) the relay refusing the token (401) or
// the request's origin (403): a setting to fix, not a relay that is down.
var ErrRefused = errors.New("refused by the relay")

// refused is such an answer, worded for the person who must fix it.
type refused string

func (r refused) Error() string        { return string(r) }
func (r refused) Is(target error) bool { return target == ErrRefused }

// ErrNotARelay matches (errors.Is) an answer in another protocol than
// the relay's: the URL names another server or path, or the wrong scheme
// (ws:// to TLS, wss:// to plain HTTP). Like a refusal, retrying will not
// fix it; the relay URL must be corrected.
var ErrNotARelay = errors.New("not a paydash relay")

// notARelay is such an answer, worded for the person who must fix it.
type notARelay string

func (n notARelay) Error() string        { return string(n) }
func (n notARelay) Is(target error) bool { return target == ErrNotARelay }

type historyPage struct {
	Events    []Event `json:"events"`
	NextSince uint64  `json:"next_since"`
	LastSeq   uint64  `json:"last_seq"`
}

func (h History) page(ctx context.Context, q url.Values) (*historyPage, error) {
	u, err := url.Parse(h.URL)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("relay URL %q must look like ws://127.0.0.1:8787/ws", h.URL)
	}
	if u.Scheme == "wss" {
		u.Scheme = "https"
	} else {
		u.Scheme = "http"
	}
	u.Path, u.RawQuery = "/events", q.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	if h.Token != "" {
		req.Header.Set("Authorization", "Bearer "+h.Token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("relay history: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden {
			return nil, fmt.Errorf("relay history: %w", handshakeError(resp.StatusCode))
		}
		if resp.StatusCode < 500 && resp.StatusCode != http.StatusTooManyRequests {
			return nil, fmt.Errorf("relay history: %w", notARelay(fmt.Sprintf("the relay URL answered HTTP %d where a paydash relay serves its event history: it is not a paydash relay (check the relay URL)", resp.StatusCode)))
		}
		return nil, fmt.Errorf("relay history: %s", resp.Status)
	}
	var page historyPage
	if err := json.NewDecoder(io.LimitReader(resp.Body, 64<<20)).Decode(&page); err != nil {
		return nil, fmt.Errorf("relay history: %w", notARelay("the relay URL answered something that is not a paydash relay's event history ("+err.Error()+"); check the relay URL"))
	}
	return &page, nil
}
