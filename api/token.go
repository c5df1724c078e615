package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"
	"time"
)

// tokenEarly is how long before expires_in a cached token is replaced, so
// a token never expires between being handed out and reaching the service.
const tokenEarly = 60 * time.Second

// maxTokenBody caps the token response we read.
const maxTokenBody = 1 << 20

// tokenCache holds one access token per scope set and the fetches in
// flight, so concurrent callers for the same scopes share one request.
type tokenCache struct {
	mu      sync.Mutex
	tokens  map[string]cachedToken
	flights map[string]*tokenFlight
}

type cachedToken struct {
	token string
	// refreshAt is when the token stops being handed out; zero means
	// "until the service rejects it" (the token response had no
	// expires_in).
	refreshAt time.Time
}

// tokenFlight is one token request shared by every caller waiting on it.
// It runs detached from any single caller's context and is cancelled only
// when every waiter has given up, so one impatient caller cannot fail the
// others.
type tokenFlight struct {
	done    chan struct{}
	token   string
	err     error
	waiters int
	cancel  context.CancelFunc
}

func newTokenCache() *tokenCache {
	return &tokenCache{tokens: map[string]cachedToken{}, flights: map[string]*tokenFlight{}}
}

// drop forgets key's token if it is still bad, so of many calls that got a
// 401 with the same token only the first causes a new fetch.
func (tc *tokenCache) drop(key, bad string) {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	if t, ok := tc.tokens[key]; ok && t.token == bad {
		delete(tc.tokens, key)
	}
}

// waiting reports how many callers wait on key's fetch (for tests).
func (tc *tokenCache) waiting(key string) int {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	if f := tc.flights[key]; f != nil {
		return f.waiters
	}
	return 0
}

// scopeKey normalises a scope set: sorted, deduplicated, space-separated,
// which is also the form-encoded "scope" value.
func scopeKey(scopes []string) string {
	s := make([]string, 0, len(scopes))
	for _, sc := range scopes {
		s = append(s, strings.Fields(sc)...)
	}
	sort.Strings(s)
	out := s[:0]
	for i, sc := range s {
		if i == 0 || sc != s[i-1] {
			out = append(out, sc)
		}
	}
	return strings.Join(out, " ")
}

func splitScope(key string) []string { return strings.Fields(key) }

// Token returns an access token for the scopes, from the cache when one is
// still good (until 60 s before its expiry on the client's clock), else
// from POST {auth_url}/connect/token. Concurrent callers for the same
// scope set share one request. Scope order does not matter.
func (c *Client) Token(ctx context.Context, scopes ...string) (string, error) {
	key := scopeKey(scopes)
	tc := c.tokens
	tc.mu.Lock()
	if t, ok := tc.tokens[key]; ok && (t.refreshAt.IsZero() || c.clock.Now().Before(t.refreshAt)) {
		tc.mu.Unlock()
		return t.token, nil
	}
	f := tc.flights[key]
	if f == nil {
		fctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		f = &tokenFlight{done: make(chan struct{}), cancel: cancel}
		tc.flights[key] = f
		go c.runFlight(fctx, key, f)
	}
	f.waiters++
	tc.mu.Unlock()

	select {
	case <-f.done:
		return f.token, f.err
	case <-ctx.Done():
		tc.mu.Lock()
		f.waiters--
		if f.waiters == 0 {
			// Nobody wants this fetch any more: stop it, and let the next
			// caller start afresh rather than join a cancelled one.
			f.cancel()
			if tc.flights[key] == f {
				delete(tc.flights, key)
			}
		}
		tc.mu.Unlock()
		return "", ctx.Err()
	}
}

func (c *Client) runFlight(ctx context.Context, key string, f *tokenFlight) {
	defer f.cancel()
	tok, err := c.fetchToken(ctx, key)
	tc := c.tokens
	tc.mu.Lock()
	defer tc.mu.Unlock()
	if err == nil {
		tc.tokens[key] = tok
		f.token = tok.token
	} else {
		f.err = fmt.Errorf("access token for scope %q: %w", key, err)
	}
	if tc.flights[key] == f {
		delete(tc.flights, key)
	}
	close(f.done)
}

// fetchToken performs the client-credentials grant. The form carries the
// secret, so nothing here puts the request body into an error.
func (c *Client) fetchToken(ctx context.Context, key string) (cachedToken, error) {
	form := url.Values{
		"grant_type":    {"client_credentials"},
		"client_id":     {c.clientID},
		"client_secret": {c.secret},
	}
	if key != "" {
		form.Set("scope", key)
	}
	h := http.Header{}
	h.Set("Content-Type", ContentTypeFormURLEncode)
	h.Set("Accept", ContentTypeJSON)
	resp, err := c.do(ctx, &call{
		method: http.MethodPost,
		u:      c.tokenURL,
		header: h,
		body:   []byte(form.Encode()),
		retry:  retryToken,
	})
	if err != nil {
		return cachedToken{}, err
	}
	defer resp.Body.Close()
	var tr TokenResponse
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxTokenBody)).Decode(&tr); err != nil {
		return cachedToken{}, fmt.Errorf("POST %s: reading the token response: %w", c.tokenURL.Path, err)
	}
	if tr.AccessToken == "" {
		return cachedToken{}, errors.New("POST " + c.tokenURL.Path + ": the token response has no access_token")
	}
	if tr.TokenType != "" && !strings.EqualFold(tr.TokenType, "bearer") {
		return cachedToken{}, fmt.Errorf("POST %s: token_type is %q, want Bearer", c.tokenURL.Path, tr.TokenType)
	}
	return cachedToken{token: tr.AccessToken, refreshAt: refreshTime(c.clock.Now(), tr.ExpiresIn)}, nil
}

// refreshTime is when a token issued at now with the given lifetime stops
// being reused: 60 s before expiry; half-way for lifetimes of a minute or
// less, where "60 s early" would mean "never"; and never (zero) when the
// service gave no lifetime, leaving a 401 to trigger the refresh.
func refreshTime(now time.Time, expiresIn int64) time.Time {
	if expiresIn <= 0 {
		return time.Time{}
	}
	life := time.Duration(min(expiresIn, 1<<31)) * time.Second
	if life <= tokenEarly {
		return now.Add(life / 2)
	}
	return now.Add(life - tokenEarly)
}
