package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"
)

// Injected is the answer of POST /sandbox/events.
type Injected struct {
	EventID   string `json:"event_id"`
	EventType string `json:"event_type"`
	PayoutID  string `json:"payout_id,omitempty"`
	// Moved says the payout named is one the sandbox holds, and its
	// state moved as the event says.
	Moved bool `json:"moved,omitempty"`
}

// TriggerError is the sandbox refusing a trigger: Status is its HTTP
// status (400 for a wrong request, 409 for a payout's state, 404 when
// the server is not a sandbox).
type TriggerError struct {
	Status int
	Msg    string
}

func (e *TriggerError) Error() string { return e.Msg }

// SendTrigger asks the sandbox at base (its base URL) for the event t
// describes, over POST /sandbox/events, as `paydash sandbox trigger` and
// the demo's Events view do.
func SendTrigger(ctx context.Context, base string, t Trigger) (Injected, error) {
	var res Injected
	u, err := url.Parse(strings.TrimSpace(base))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return res, &TriggerError{Status: http.StatusBadRequest, Msg: fmt.Sprintf("sandbox URL %q must be an absolute http(s) URL, e.g. http://127.0.0.1:8080", base)}
	}
	body, _ := json.Marshal(t)
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(u.String(), "/")+"/sandbox/events", bytes.NewReader(body))
	if err != nil {
		return res, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return res, fmt.Errorf("cannot reach the sandbox at %s: %w (is `paydash sandbox` or `paydash demo` running?)", u.Host, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	switch resp.StatusCode {
	case http.StatusAccepted:
		if err := json.Unmarshal(data, &res); err != nil {
			return res, fmt.Errorf("sandbox answer: %w", err)
		}
		return res, nil
	case http.StatusNotFound:
		return res, &TriggerError{Status: resp.StatusCode, Msg: "no /sandbox/events at " + u.Host + ": triggers work against the built-in sandbox only, not the real service"}
	}
	var p problem
	_ = json.Unmarshal(data, &p)
	msg := strings.TrimSpace(p.Title + ": " + p.Detail)
	fields := make([]string, 0, len(p.Errors))
	for f := range p.Errors {
		fields = append(fields, f)
	}
	sort.Strings(fields)
	for _, f := range fields {
		msg += fmt.Sprintf("; %s %s", f, strings.Join(p.Errors[f], ", "))
	}
	return res, &TriggerError{Status: resp.StatusCode, Msg: fmt.Sprintf("sandbox refused the trigger (HTTP %d): %s", resp.StatusCode, msg)}
}
