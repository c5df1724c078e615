// Package httptrace is `--debug`: an http.RoundTripper that prints each
// request and its answer (method, URL, status, time taken, headers and
// the start of each body) to a writer, with every secret redacted, as gh
// and the Stripe CLI do. Secrets are redacted by name wherever they can
// appear — headers (Authorization, the signature headers, cookies), form
// fields (client_secret) and JSON members (access_token, resource_token,
// …) — so what a person pastes into a bug report leaks nothing.
//
// Everything printed from the wire passes termtext, so an answer cannot
// drive the terminal it is traced to. It imports nothing of paydash but
// that leaf.
package httptrace

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/paydash/paydash/internal/platform/termtext"
)

// BodyLimit is how much of each body is printed; a transaction report
// can be gigabytes, and the start says what went wrong.
const BodyLimit = 2048

// Redacted stands in for a secret.
const Redacted = "[redacted]"

// secretHeaders are redacted whole.
var secretHeaders = []string{"Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie",
	"Svc-Signature", "X-Svc-Signature", "Tl-Signature", "X-Relay-Token"}

// secretFields are form fields and JSON members redacted wherever they
// appear.
var secretFields = []string{"client_secret", "access_token", "refresh_token", "resource_token", "token", "password", "secret", "signing_key"}

// jsonSecret finds "name": "value" for each secret member, however deep.
var jsonSecret = regexp.MustCompile(`("(?:` + strings.Join(secretFields, "|") + `)"\s*:\s*)"(?:[^"\\]|\\.)*"`)

// Transport prints each exchange through Base (nil: the default
// transport) to W.
type Transport struct {
	Base http.RoundTripper
	W    io.Writer
	Now  func() time.Time // nil: time.Now

	mu sync.Mutex // one exchange's lines together
}

// Wrap is c with its transport traced to w; nil w leaves c as it is. c
// itself is not changed.
func Wrap(c *http.Client, w io.Writer) *http.Client {
	if w == nil {
		return c
	}
	if c == nil {
		c = &http.Client{}
	}
	out := *c
	out.Transport = &Transport{Base: c.Transport, W: w}
	return &out
}

func (t *Transport) now() time.Time {
	if t.Now != nil {
		return t.Now()
	}
	return time.Now()
}

// RoundTrip prints the request, sends it, and prints the answer's status
// and headers; the answer's body is printed when it is closed (up to
// BodyLimit), so a streamed body streams as before.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	base := t.Base
	if base == nil {
		base = http.DefaultTransport
	}
	var reqBody []byte
	if req.Body != nil && req.GetBody != nil {
		// GetBody gives a copy to print; the request keeps its own.
		if rc, err := req.GetBody(); err == nil {
			reqBody, _ = io.ReadAll(io.LimitReader(rc, BodyLimit+1))
			_ = rc.Close()
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "> %s %s\n", req.Method, termtext.Safe(RedactURL(req.URL)))
	writeHeaders(&b, "> ", req.Header)
	if len(reqBody) > 0 {
		fmt.Fprintf(&b, "> %s\n", termtext.Lines(RedactBody(req.Header.Get("Content-Type"), reqBody, BodyLimit)))
	}
	t.print(b.String())

	start := t.now()
	resp, err := base.RoundTrip(req)
	took := t.now().Sub(start).Round(time.Millisecond)
	if err != nil {
		t.print(fmt.Sprintf("< %s %s: %s (%s)\n", req.Method, termtext.Safe(RedactURL(req.URL)), termtext.Safe(err.Error()), took))
		return nil, err
	}
	b.Reset()
	fmt.Fprintf(&b, "< %s (%s)\n", termtext.Safe(resp.Status), took)
	writeHeaders(&b, "< ", resp.Header)
	t.print(b.String())
	if resp.Body != nil {
		resp.Body = &tracedBody{ReadCloser: resp.Body, t: t, contentType: resp.Header.Get("Content-Type")}
	}
	return resp, nil
}

func (t *Transport) print(s string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	_, _ = io.WriteString(t.W, s)
}

// tracedBody keeps the first BodyLimit bytes read and prints them on
// Close.
type tracedBody struct {
	io.ReadCloser
	t           *Transport
	contentType string
	head        bytes.Buffer
	total       int64
	once        sync.Once
}

func (b *tracedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if room := BodyLimit + 1 - b.head.Len(); room > 0 {
		b.head.Write(p[:min(n, room)])
	}
	b.total += int64(n)
	return n, err
}

func (b *tracedBody) Close() error {
	err := b.ReadCloser.Close()
	b.once.Do(func() {
		if b.total == 0 {
			return
		}
		b.t.print(fmt.Sprintf("< %s\n< (%d bytes read)\n", termtext.Lines(RedactBody(b.contentType, b.head.Bytes(), BodyLimit)), b.total))
	})
	return err
}

func writeHeaders(b *strings.Builder, prefix string, h http.Header) {
	names := make([]string, 0, len(h))
	for k := range h {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		v := strings.Join(h[k], ", ")
		if slices.ContainsFunc(secretHeaders, func(s string) bool { return strings.EqualFold(s, k) }) {
			v = Redacted
		}
		fmt.Fprintf(b, "%s%s: %s\n", prefix, termtext.Safe(k), termtext.Safe(v))
	}
}

// RedactURL is u with secret query parameters redacted.
func RedactURL(u *url.URL) string {
	if u == nil {
		return ""
	}
	c := *u
	c.User = nil
	if c.RawQuery != "" {
		q := c.Query()
		for k := range q {
			if isSecretField(k) {
				q[k] = []string{Redacted}
			}
		}
		c.RawQuery = q.Encode()
	}
	return c.String()
}

// RedactBody is the start of body (at most limit bytes, with "…" when
// cut) with secret form fields and JSON members redacted. A secret cut
// by the limit is dropped with the rest.
func RedactBody(contentType string, body []byte, limit int) string {
	cut := len(body) > limit
	if cut {
		body = body[:limit]
	}
	var s string
	if strings.HasPrefix(contentType, "application/x-www-form-urlencoded") {
		if q, err := url.ParseQuery(string(body)); err == nil {
			for k := range q {
				if isSecretField(k) {
					q[k] = []string{Redacted}
				}
			}
			s = q.Encode()
		} else {
			s = "[a form that does not parse]"
		}
	} else {
		s = jsonSecret.ReplaceAllString(string(body), `$1"`+Redacted+`"`)
		if cut {
			// A secret member whose closing quote was cut off.
			if i := lastOpenSecret(s); i >= 0 {
				s = s[:i] + Redacted
			}
		}
	}
	if cut {
		s += "…"
	}
	if !json.Valid([]byte(s)) {
		s = strings.ReplaceAll(s, "\n", "\n  ")
	}
	return s
}

// lastOpenSecret is where an unterminated secret value starts in s, or -1.
func lastOpenSecret(s string) int {
	best := -1
	for _, f := range secretFields {
		i := strings.LastIndex(s, `"`+f+`"`)
		if i < 0 {
			continue
		}
		rest := s[i+len(f)+2:]
		j := strings.Index(rest, `"`)
		if j < 0 || strings.Contains(rest[j:], Redacted) {
			continue
		}
		if strings.Count(rest[j:], `"`) == 1 { // opened, never closed
			best = max(best, i+len(f)+2+j)
		}
	}
	return best
}

func isSecretField(k string) bool {
	return slices.ContainsFunc(secretFields, func(s string) bool { return strings.EqualFold(s, k) })
}
