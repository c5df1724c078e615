package api

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/paydash/paydash/internal/platform/backoff"
)

// RetryPolicy says how often and how patiently a call is retried. Only
// calls that are safe to repeat are retried: GETs, POSTs carrying an
// Idempotency-Key or a payout transaction_id (the service deduplicates on
// them), and the token request on network errors and 5xx (issuing a token
// changes nothing on the service). A POST without a key is never retried.
// The zero value means the defaults.
type RetryPolicy struct {
	// MaxAttempts counts the first try; 0 means 4, 1 disables retries.
	MaxAttempts int
	// BaseDelay is the backoff ceiling of the first retry, doubled for
	// each further one; 0 means 200ms.
	BaseDelay time.Duration
	// MaxDelay caps the backoff ceiling; 0 means 5s. The actual wait is
	// drawn uniformly from [0, ceiling] ("full jitter") so that many
	// clients failing together do not retry in lockstep.
	MaxDelay time.Duration
	// MaxRetryAfter is the longest Retry-After the client will wait out;
	// 0 means 30s. A longer one ends the retries and returns the error,
	// since a dashboard frozen for minutes is worse than a clear error.
	MaxRetryAfter time.Duration
}

// Defaults of RetryPolicy.
const (
	DefaultMaxAttempts   = 4
	DefaultBaseDelay     = 200 * time.Millisecond
	DefaultMaxDelay      = 5 * time.Second
	DefaultMaxRetryAfter = 30 * time.Second
)

func (p RetryPolicy) withDefaults() RetryPolicy {
	if p.MaxAttempts <= 0 {
		p.MaxAttempts = DefaultMaxAttempts
	}
	if p.BaseDelay <= 0 {
		p.BaseDelay = DefaultBaseDelay
	}
	if p.MaxDelay <= 0 {
		p.MaxDelay = DefaultMaxDelay
	}
	if p.MaxRetryAfter <= 0 {
		p.MaxRetryAfter = DefaultMaxRetryAfter
	}
	return p
}

// backoff is the wait before retry n (1 = the first retry): a uniform draw
// from [0, min(MaxDelay, BaseDelay·2^(n-1))]. randN(k) returns a value in
// [0, k).
func (p RetryPolicy) backoff(n int, randN func(int64) int64) time.Duration {
	return backoff.Policy{Base: p.BaseDelay, Max: p.MaxDelay, Jitter: backoff.Full, Rand: randN}.Delay(n)
}

// parseRetryAfter reads a Retry-After value: delay-seconds or an HTTP
// date, the latter measured against now (the client's clock). A date in
// the past means "now".
func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs < 0 {
			return 0, false
		}
		// Clamp before converting so an absurd value cannot overflow into
		// a negative Duration; it still exceeds any MaxRetryAfter.
		return time.Duration(min(secs, 1<<30)) * time.Second, true
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	if d := t.Sub(now); d > 0 {
		return d, true
	}
	return 0, true
}

// retryClass says which failures a request may be repeated after.
type retryClass int

const (
	retryNever      retryClass = iota // a POST without an idempotency key
	retryIdempotent                   // GETs and keyed POSTs: network, 5xx, 429
	retryToken                        // the token POST: network and 5xx only
)

func (rc retryClass) retriesStatus(code int) bool {
	switch rc {
	case retryIdempotent:
		return code == http.StatusTooManyRequests || retryable5xx(code)
	case retryToken:
		return retryable5xx(code)
	}
	return false
}

// retryable5xx leaves out the 5xx answers that repeating cannot change.
func retryable5xx(code int) bool {
	return code >= 500 && code != http.StatusNotImplemented && code != http.StatusHTTPVersionNotSupported
}

// call is one logical request, re-sent byte for byte on each attempt.
type call struct {
	method string
	u      *url.URL
	// scope, when not empty, is the access-token scope sent as the bearer
	// token; the token request itself has none.
	scope string
	// header is fixed across attempts, signature included: the signed
	// inputs (path, Idempotency-Key, body) never change between attempts.
	header http.Header
	body   []byte
	retry  retryClass
}

// ErrNotSent is matched (errors.Is) by the error of a call whose request
// never left this process on any attempt: the connection could not be
// made, the context ended first, the token or the signature could not be
// had. The service cannot have acted on it. Any error without it may
// follow a request the service received (a reset after writing, a
// timeout waiting for the answer).
var ErrNotSent = errors.New("the request was not sent")

// notSentError marks an error as ErrNotSent, keeping its text and chain.
type notSentError struct{ err error }

func (e *notSentError) Error() string        { return e.err.Error() }
func (e *notSentError) Unwrap() error        { return e.err }
func (e *notSentError) Is(target error) bool { return target == ErrNotSent }

func notSent(err error) error {
	if err == nil || errors.Is(err, ErrNotSent) {
		return err
	}
	return &notSentError{err: err}
}

// do runs c with retries and the 401 token refresh. On success the caller
// owns resp.Body; on failure the error is an *Error (non-2xx), a
// transport error, or the context's error, each wrapped with context,
// and marked ErrNotSent when no attempt wrote the request to a
// connection (traced with net/http/httptrace).
func (cl *Client) do(ctx context.Context, c *call) (*http.Response, error) {
	var wrote atomic.Bool
	resp, err := cl.attempts(ctx, c, &wrote)
	var answered *Error
	if err != nil && !wrote.Load() && !errors.As(err, &answered) {
		return nil, notSent(err)
	}
	return resp, err
}

func (cl *Client) attempts(ctx context.Context, c *call, wrote *atomic.Bool) (*http.Response, error) {
	p := cl.retry
	refreshed := false
	var lastErr error
	for attempt := 1; ; {
		if err := ctx.Err(); err != nil {
			return nil, stopped(c, err, lastErr)
		}
		req, err := http.NewRequestWithContext(ctx, c.method, c.u.String(), bytesReader(c.body))
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", c.method, c.u.Redacted(), err)
		}
		req.Header = c.header.Clone()
		if req.Header == nil {
			req.Header = http.Header{}
		}
		req.Header.Set("User-Agent", cl.userAgent)
		var token string
		if c.scope != "" {
			if token, err = cl.Token(ctx, splitScope(c.scope)...); err != nil {
				if ctx.Err() != nil {
					return nil, stopped(c, ctx.Err(), lastErr)
				}
				return nil, err
			}
			req.Header.Set("Authorization", "Bearer "+token)
		}

		// Traced on this request alone, not on ctx: the token request
		// above writes nothing of the payout.
		req = req.WithContext(httptrace.WithClientTrace(req.Context(), &httptrace.ClientTrace{
			WroteHeaders: func() { wrote.Store(true) },
		}))
		resp, err := cl.hc.Do(req)
		var wait time.Duration
		switch {
		case err != nil:
			if ctx.Err() != nil {
				return nil, stopped(c, ctx.Err(), lastErr)
			}
			lastErr = fmt.Errorf("%s %s: cannot reach the service (check the URL and your network): %w", c.method, displayPath(c.u.String()), unwrapURLError(err))
			if c.retry == retryNever || attempt >= p.MaxAttempts {
				return nil, gaveUp(lastErr, attempt)
			}
			attempt++
			wait = p.backoff(attempt-1, cl.randN)

		case resp.StatusCode == http.StatusUnauthorized && c.scope != "" && !refreshed:
			// The token was revoked or expired early: the service did not
			// act on the request, so fetch a new token once and re-send.
			discard(resp)
			cl.tokens.drop(scopeKey(splitScope(c.scope)), token)
			refreshed = true
			continue

		case resp.StatusCode >= 200 && resp.StatusCode < 300:
			return resp, nil

		default:
			e := newError(resp, c.method, c.u, cl.secret, token)
			resp.Body.Close()
			e.hint = hintFor(c, e.StatusCode)
			lastErr = e
			if !c.retry.retriesStatus(e.StatusCode) || attempt >= p.MaxAttempts {
				return nil, gaveUp(e, attempt)
			}
			if d, ok := parseRetryAfter(resp.Header.Get("Retry-After"), cl.clock.Now()); ok {
				if d > p.MaxRetryAfter {
					return nil, fmt.Errorf("%w (the service asks to wait %s before retrying)", e, d.Round(time.Second))
				}
				attempt++
				wait = d
			} else {
				attempt++
				wait = p.backoff(attempt-1, cl.randN)
			}
		}
		if err := cl.sleep(ctx, wait); err != nil {
			return nil, stopped(c, err, lastErr)
		}
	}
}

// sleep waits d on the client's clock, returning at once when ctx ends.
func (cl *Client) sleep(ctx context.Context, d time.Duration) error {
	return backoff.Sleep(ctx, cl.clock, d)
}

func hintFor(c *call, code int) string {
	switch {
	case c.scope == "" && (code == http.StatusUnauthorized || code == http.StatusBadRequest):
		return "check the client id and client secret of this profile"
	case code == http.StatusForbidden:
		return fmt.Sprintf("the credentials may not be allowed the %q scope", c.scope)
	case code == http.StatusTooManyRequests:
		return "rate limited; try again later"
	}
	return ""
}

func stopped(c *call, ctxErr, last error) error {
	if last != nil {
		// Only ctxErr is the cause: the last attempt's failure is context,
		// and wrapping it would make a cancelled call look like (say) a 503.
		return fmt.Errorf("%s %s: stopped: %w (last attempt: %v)", c.method, displayPath(c.u.String()), ctxErr, last) //nolint:errorlint // see above
	}
	return fmt.Errorf("%s %s: %w", c.method, displayPath(c.u.String()), ctxErr)
}

func gaveUp(err error, attempts int) error {
	if attempts <= 1 {
		return err
	}
	return fmt.Errorf("%w (gave up after %d attempts)", err, attempts)
}

// unwrapURLError drops *url.Error's "Post \"http://...\"" prefix, which
// repeats what our own message already says.
func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// discard drains a little of a body we do not read so the connection can
// be reused, then closes it.
func discard(resp *http.Response) {
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxErrorBody))
	resp.Body.Close()
}

func bytesReader(b []byte) io.Reader {
	if b == nil {
		return nil
	}
	return bytes.NewReader(b)
}
