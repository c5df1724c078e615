package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"unicode/utf8"
)

// maxErrorBody caps how much of a failed response is kept: enough for any
// problem document, small enough that a misbehaving proxy streaming a huge
// error page cannot exhaust memory.
const maxErrorBody = 64 << 10

// maxSummary caps how much of a raw (non-problem) body Error() shows.
const maxSummary = 200

// Error is a call that reached the service and got a non-2xx answer. It is
// returned (possibly wrapped) by every Client method; use errors.As or
// IsStatus to inspect it. It never holds request headers, so the
// Authorization header and the signature cannot leak through it, and the
// client secret is scrubbed from the body.
type Error struct {
	// StatusCode is the HTTP status of the response.
	StatusCode int
	// Problem is the parsed application/problem+json body, nil when the
	// body was not a problem document.
	Problem *ProblemDetails
	// Body is the raw response body, at most 64 KiB.
	Body []byte
	// TraceID is the X-Trace-Id response header, or the problem's trace_id.
	TraceID string
	// Method and URL name the request that failed.
	Method, URL string

	// hint tells a person what to do, for the few statuses where the
	// client knows (e.g. a rejected client secret).
	hint string
}

// ProblemDetails is an RFC 9457 problem document as the service sends it.
// Errors maps dotted field paths (e.g. "beneficiary_iban") to messages.
type ProblemDetails struct {
	Type    string              `json:"type,omitempty"`
	Title   string              `json:"title,omitempty"`
	Status  int                 `json:"status,omitempty"`
	Detail  string              `json:"detail,omitempty"`
	TraceID string              `json:"trace_id,omitempty"`
	Errors  map[string][]string `json:"errors,omitempty"`
}

// UnmarshalJSON accepts each errors member as a list of messages or as a
// single string, since services differ on that, and a problem we cannot
// read is worse than one we read leniently.
func (p *ProblemDetails) UnmarshalJSON(b []byte) error {
	type plain ProblemDetails
	var raw struct {
		plain
		Errors map[string]json.RawMessage `json:"errors"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	*p = ProblemDetails(raw.plain)
	p.Errors = nil
	if len(raw.Errors) > 0 {
		p.Errors = make(map[string][]string, len(raw.Errors))
		for field, v := range raw.Errors {
			var list []string
			if err := json.Unmarshal(v, &list); err != nil {
				var one string
				if err := json.Unmarshal(v, &one); err != nil {
					return fmt.Errorf("problem errors[%q]: want a string or a list of strings", field)
				}
				list = []string{one}
			}
			p.Errors[field] = list
		}
	}
	return nil
}

// Error reads as one line a person can act on, e.g.
//
//	POST /v1/payouts: 400 Bad Request: Validation failed (trace 3f2a9c): beneficiary_iban: checksum does not match
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Method)
	b.WriteByte(' ')
	b.WriteString(displayPath(e.URL))
	fmt.Fprintf(&b, ": %d", e.StatusCode)
	if text := http.StatusText(e.StatusCode); text != "" {
		b.WriteByte(' ')
		b.WriteString(text)
	}
	var msg string
	if p := e.Problem; p != nil {
		msg = p.Title
		if p.Detail != "" && p.Detail != p.Title {
			if msg != "" {
				msg += ": "
			}
			msg += p.Detail
		}
	} else {
		msg = summarizeBody(e.Body)
	}
	if msg != "" {
		b.WriteString(": ")
		b.WriteString(msg)
	}
	if e.TraceID != "" {
		b.WriteString(" (trace ")
		b.WriteString(e.TraceID)
		b.WriteByte(')')
	}
	if e.Problem != nil && len(e.Problem.Errors) > 0 {
		fields := make([]string, 0, len(e.Problem.Errors))
		for f := range e.Problem.Errors {
			fields = append(fields, f)
		}
		sort.Strings(fields)
		for i, f := range fields {
			if i == 0 {
				b.WriteString(": ")
			} else {
				b.WriteString("; ")
			}
			b.WriteString(f)
			b.WriteString(": ")
			b.WriteString(strings.Join(e.Problem.Errors[f], ", "))
		}
	}
	if e.hint != "" {
		b.WriteString(" — ")
		b.WriteString(e.hint)
	}
	return b.String()
}

// IsIdempotencyKeyReused reports whether err is (or wraps) the service's
// 422 answer to an Idempotency-Key that was first used with a different
// request (problem type .../idempotency_key_reused, title "Idempotency-Key
// reused"). Sending that key again can never succeed: a new request needs
// a new key, so callers must not advise retrying with it.
func IsIdempotencyKeyReused(err error) bool {
	var e *Error
	if !errors.As(err, &e) || e.StatusCode != http.StatusUnprocessableEntity || e.Problem == nil {
		return false
	}
	return strings.HasSuffix(e.Problem.Type, "/idempotency_key_reused") ||
		strings.EqualFold(strings.TrimSpace(e.Problem.Title), "Idempotency-Key reused")
}

// IsStatus reports whether err is (or wraps) an *Error with the given HTTP
// status code.
func IsStatus(err error, code int) bool {
	var e *Error
	return errors.As(err, &e) && e.StatusCode == code
}

// newError reads a failed response into an *Error. Credentials are
// removed from the body (see redactBody: credential fields, and every word
// holding the client secret or the bearer token), so a service echoing the
// request cannot put a credential into a message.
func newError(resp *http.Response, method string, u *url.URL, secrets ...string) *Error {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	body = redactBody(body, secrets...)
	e := &Error{
		StatusCode: resp.StatusCode,
		Body:       body,
		TraceID:    resp.Header.Get(HeaderTraceID),
		Method:     method,
		URL:        u.Redacted(),
	}
	e.Problem = parseProblem(resp.Header.Get("Content-Type"), body)
	if e.TraceID == "" && e.Problem != nil {
		e.TraceID = e.Problem.TraceID
	}
	return e
}

// parseProblem decodes a problem document. application/problem+json is
// always one; a plain application/json body is taken as one only when it
// has a problem's members, because some services send problems with the
// generic type.
func parseProblem(contentType string, body []byte) *ProblemDetails {
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil || len(body) == 0 {
		return nil
	}
	if mt != ContentTypeProblemJSON && mt != ContentTypeJSON {
		return nil
	}
	var p ProblemDetails
	if err := json.Unmarshal(body, &p); err != nil {
		return nil
	}
	if mt == ContentTypeJSON && p.Title == "" && p.Detail == "" && p.Type == "" && len(p.Errors) == 0 {
		return nil
	}
	return &p
}

// summarizeBody turns a non-problem body into a short phrase: the OAuth
// error of a token endpoint, the text of a plain answer, or a note that
// the body was HTML or binary (a proxy's error page is noise on a screen).
func summarizeBody(body []byte) string {
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return ""
	}
	var oauth struct {
		Error       string `json:"error"`
		Description string `json:"error_description"`
	}
	if body[0] == '{' && json.Unmarshal(body, &oauth) == nil && oauth.Error != "" {
		if oauth.Description != "" {
			return oauth.Error + ": " + oauth.Description
		}
		return oauth.Error
	}
	if !utf8.Valid(body) {
		return fmt.Sprintf("(%d bytes of non-text body)", len(body))
	}
	if body[0] == '<' {
		return fmt.Sprintf("(HTML page, %d bytes)", len(body))
	}
	s := strings.Join(strings.Fields(string(body)), " ")
	if utf8.RuneCountInString(s) > maxSummary {
		r := []rune(s)
		s = string(r[:maxSummary]) + "…"
	}
	return s
}

// displayPath shows a URL by its path, which is what a person recognises
// from the interface document.
func displayPath(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Path == "" {
		return raw
	}
	return u.Path
}
