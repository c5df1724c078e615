package relayclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// StoredEvent is GET /events/{event_id}: the event and its body byte for
// byte. Raw is base64 in JSON because JSON would re-encode Body (drop its
// whitespace, escape <, > and &), and a resend must send the very bytes
// the signature covers.
type StoredEvent struct {
	Event
	Raw []byte `json:"raw"`
}

// AttemptPage is the body of GET /attempts.
type AttemptPage struct {
	Attempts []Attempt `json:"attempts"`
	// NextSince is the since= for the next page.
	NextSince uint64 `json:"next_since"`
	// LastSeq is the newest attempt seq logged.
	LastSeq uint64 `json:"last_seq"`
}

// ErrNoEvent matches (errors.Is) a relay that holds no such event.
var ErrNoEvent = errors.New("the relay holds no such event")

// ErrNoAttempts matches a relay that logs no forward attempts (clustered
// mode, or a relay from before attempts were logged).
var ErrNoAttempts = errors.New("the relay logs no forward attempts")

// Event fetches one stored event by its event_id.
func (h History) Event(ctx context.Context, eventID string) (StoredEvent, error) {
	var out StoredEvent
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	status, err := h.get(ctx, "/events/"+url.PathEscape(eventID), nil, &out)
	if status == http.StatusNotFound {
		return out, fmt.Errorf("event %s: %w (never received, or retention dropped it)", eventID, ErrNoEvent)
	}
	if err == nil && len(out.Raw) == 0 {
		out.Raw = out.Body
	}
	return out, err
}

// Attempts reads the relay's forward attempts after attempt seq since.
func (h History) Attempts(ctx context.Context, since uint64, limit int) (AttemptPage, error) {
	var out AttemptPage
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	q := url.Values{"since": {strconv.FormatUint(since, 10)}}
	if limit > 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	status, err := h.get(ctx, "/attempts", q, &out)
	if status == http.StatusNotFound {
		return out, ErrNoAttempts
	}
	return out, err
}

// get reads one JSON document from the relay's HTTP side; the status is
// returned so callers can tell "not found" from "down".
func (h History) get(ctx context.Context, path string, q url.Values, v any) (int, error) {
	u, err := url.Parse(h.URL)
	if err != nil || u.Host == "" {
		return 0, fmt.Errorf("relay URL %q must look like ws://127.0.0.1:8787/ws", h.URL)
	}
	if u.Scheme == "wss" {
		u.Scheme = "https"
	} else {
		u.Scheme = "http"
	}
	// path is escaped already (an event id may hold any character).
	u.RawPath, u.RawQuery = path, q.Encode()
	if u.Path, err = url.PathUnescape(path); err != nil {
		return 0, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return 0, err
	}
	if h.Token != "" {
		req.Header.Set("Authorization", "Bearer "+h.Token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, fmt.Errorf("relay: %w", err)
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusOK:
	case http.StatusUnauthorized, http.StatusForbidden:
		return resp.StatusCode, fmt.Errorf("relay: %w", handshakeError(resp.StatusCode))
	default:
		return resp.StatusCode, fmt.Errorf("relay %s: %s", path, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		return resp.StatusCode, fmt.Errorf("relay %s: %w", path, err)
	}
	return resp.StatusCode, nil
}

// Scan calls fn with every stored event after seq since, in order, page
// by page (at most maxPages pages of 1000), until fn returns false or the
// store's end. It is for commands that read the history once.
func (h History) Scan(ctx context.Context, since uint64, maxPages int, fn func(Event) bool) error {
	for range maxPages {
		page, err := h.page(ctx, url.Values{"limit": {"1000"}, "since": {strconv.FormatUint(since, 10)}})
		if err != nil {
			return err
		}
		for _, e := range page.Events {
			if !fn(e) {
				return nil
			}
		}
		if page.NextSince <= since || page.NextSince >= page.LastSeq {
			return nil
		}
		since = page.NextSince
	}
	return fmt.Errorf("relay history: more than %d pages; read a shorter window", maxPages)
}

// EventAttempts reads every logged attempt at one event: the relay's
// forwards and the resends clients reported.
func (h History) EventAttempts(ctx context.Context, eventID string) ([]Attempt, error) {
	var out AttemptPage
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	status, err := h.get(ctx, "/attempts", url.Values{"event_id": {eventID}, "limit": {"1000"}}, &out)
	if status == http.StatusNotFound {
		return nil, ErrNoAttempts
	}
	return out.Attempts, err
}

// RecordResend reports a resend's answer to the relay, which keeps it in
// its attempt log with the event's forwards (the relay itself never
// resends). ErrNoAttempts: the relay keeps no attempt log.
func (h History) RecordResend(ctx context.Context, eventID string, ans Answer) error {
	u, err := h.httpURL("/events/" + url.PathEscape(eventID) + "/resends")
	if err != nil {
		return err
	}
	body, err := json.Marshal(ans)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	if h.Token != "" {
		req.Header.Set("Authorization", "Bearer "+h.Token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("relay: %w", err)
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusCreated:
		return nil
	case http.StatusNotFound:
		return ErrNoAttempts
	case http.StatusUnauthorized, http.StatusForbidden:
		return fmt.Errorf("relay: %w", handshakeError(resp.StatusCode))
	}
	return fmt.Errorf("relay: recording the resend: %s", resp.Status)
}

// httpURL is the relay's HTTP URL for an escaped path.
func (h History) httpURL(path string) (string, error) {
	u, err := url.Parse(h.URL)
	if err != nil || u.Host == "" {
		return "", fmt.Errorf("relay URL %q must look like ws://127.0.0.1:8787/ws", h.URL)
	}
	if u.Scheme == "wss" {
		u.Scheme = "https"
	} else {
		u.Scheme = "http"
	}
	u.RawPath, u.RawQuery = path, ""
	if u.Path, err = url.PathUnescape(path); err != nil {
		return "", err
	}
	return u.String(), nil
}
