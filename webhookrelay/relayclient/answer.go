package relayclient

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/paydash/paydash/internal/platform/clock"
	"github.com/paydash/paydash/internal/platform/termtext"
)

// AnswerBodyMax is how much of a handler's response body is kept: enough
// for an error message or a stack trace's first lines.
const AnswerBodyMax = 2 << 10

// Answer is what a webhook handler answered to one POST of an event, by
// the relay's forwarder or by a client's resend.
type Answer struct {
	URL string `json:"url"`
	// Status is the HTTP status; 0 when no answer came (Error says why).
	Status int `json:"status,omitempty"`
	// LatencyMS is from sending the request to the end of the kept body.
	LatencyMS float64 `json:"latency_ms"`
	// Headers are the response headers.
	Headers http.Header `json:"headers,omitempty"`
	// Body is the first AnswerBodyMax bytes of the response body.
	Body          string    `json:"body,omitempty"`
	BodyTruncated bool      `json:"body_truncated,omitempty"`
	Error         string    `json:"error,omitempty"`
	At            time.Time `json:"at"`
}

// OK reports whether the handler took the event (2xx).
func (a *Answer) OK() bool { return a != nil && a.Status >= 200 && a.Status < 300 }

// Attempt kinds.
const (
	AttemptForward = "forward"
	AttemptResend  = "resend"
)

// Attempt is one POST of an event to a handler and its answer: the relay
// logs its forwards (GET /attempts), a client its resends.
type Attempt struct {
	// Seq orders the relay's attempt log (since= pages on it); 0 for a
	// client's resend.
	Seq      uint64 `json:"seq,omitempty"`
	Kind     string `json:"kind"`
	EventSeq uint64 `json:"event_seq,omitempty"`
	EventID  string `json:"event_id"`
	Type     string `json:"type"`
	// N counts the attempts at this event on this route (1 = first).
	N int `json:"attempt,omitempty"`
	// Final is set on the attempt that settled the event's forwarding
	// (taken, or refused with a 4xx); a failing attempt is retried.
	Final bool `json:"final,omitempty"`
	Answer
}

// AttemptLine is the one-line summary `events tail` prints for an
// attempt, indented under the events:
//
//	-> forward #2 ev_123 http://127.0.0.1:3000/hook: 500 in 12ms: {"error":"boom"}
func AttemptLine(a Attempt) string {
	var b strings.Builder
	b.WriteString("  -> ")
	b.WriteString(termtext.Safe(a.Kind))
	if a.N > 0 {
		b.WriteString(" #" + strconv.Itoa(a.N))
	}
	b.WriteString(" " + termtext.Safe(a.EventID) + " " + termtext.Safe(a.URL) + ": ")
	if a.Status > 0 {
		b.WriteString(strconv.Itoa(a.Status))
	} else {
		b.WriteString("no answer")
	}
	fmt.Fprintf(&b, " in %s", FormatLatency(a.LatencyMS))
	if a.Error != "" && a.Status == 0 {
		b.WriteString(": " + termtext.Safe(a.Error))
	}
	if body := strings.TrimSpace(a.Body); body != "" {
		const max = 80
		r := []rune(body)
		if len(r) > max {
			body = string(r[:max]) + "…"
		}
		b.WriteString(": " + termtext.Safe(body))
	}
	return b.String()
}

// FormatLatency prints milliseconds compactly: 0.4ms, 12ms, 1.5s.
func FormatLatency(ms float64) string {
	switch {
	case ms < 10:
		return strconv.FormatFloat(ms, 'f', 1, 64) + "ms"
	case ms < 1000:
		return strconv.FormatFloat(ms, 'f', 0, 64) + "ms"
	}
	return strconv.FormatFloat(ms/1000, 'f', 1, 64) + "s"
}

// PostEvent posts body with headers to target, as the relay forwards and a
// client resends, and returns the answer. The body is sent byte for byte;
// Content-Type defaults to application/json.
func PostEvent(ctx context.Context, client *http.Client, target string, headers map[string]string, body []byte, clk clock.Clock) Answer {
	ans := Answer{URL: target}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(body))
	if err != nil {
		ans.Error, ans.At = err.Error(), clk.Now()
		return ans
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	if req.Header.Get("Content-Type") == "" {
		req.Header.Set("Content-Type", "application/json")
	}
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		// The URL is on the answer already; the error need not repeat it.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		ans.Error, ans.At = err.Error(), clk.Now()
		ans.LatencyMS = float64(time.Since(start).Microseconds()) / 1000
		return ans
	}
	kept, _ := io.ReadAll(io.LimitReader(resp.Body, AnswerBodyMax+1))
	ans.LatencyMS = float64(time.Since(start).Microseconds()) / 1000
	// The rest is drained (bounded) so the connection is reused.
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	if len(kept) > AnswerBodyMax {
		kept, ans.BodyTruncated = kept[:AnswerBodyMax], true
	}
	ans.Status, ans.Headers, ans.Body, ans.At = resp.StatusCode, resp.Header, string(kept), clk.Now()
	return ans
}
