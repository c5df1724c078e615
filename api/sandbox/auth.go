package sandbox

import (
	"crypto/subtle"
	"fmt"
	"mime"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/platform/bearer"
	"github.com/paydash/paydash/internal/platform/clock"
)

// knownScopes are the scopes the token endpoint issues.
var knownScopes = []string{api.ScopeSweeping, api.ScopeCommercial, api.ScopePayments, api.ScopePayouts}

// grant is what an access token stands for.
type grant struct {
	scopes  []string
	expires time.Time
}

func (g *grant) has(scope string) bool { return slices.Contains(g.scopes, scope) }

// require answers 403 unless the token carries scope.
func (g *grant) require(scope string) error {
	if g.has(scope) {
		return nil
	}
	return errForbidden(fmt.Sprintf("this operation needs an access token with scope %q; the token has %q: request one with scope=%s",
		scope, strings.Join(g.scopes, " "), scope)).
		withHeader("WWW-Authenticate", fmt.Sprintf(`Bearer realm="sandbox", error="insufficient_scope", scope=%q`, scope))
}

// tokenStore holds the issued access tokens. Tokens are opaque random
// strings; expired ones are pruned as new ones are issued.
type tokenStore struct {
	mu     sync.Mutex
	clock  clock.Clock
	ttl    time.Duration
	tokens map[string]*grant
	issued int
}

func newTokenStore(c clock.Clock, ttl time.Duration) *tokenStore {
	return &tokenStore{clock: c, ttl: ttl, tokens: map[string]*grant{}}
}

func (ts *tokenStore) issue(scopes []string) (string, time.Duration) {
	tok := "sbx_at_" + randomToken(32)
	ts.mu.Lock()
	defer ts.mu.Unlock()
	now := ts.clock.Now()
	ts.issued++
	if ts.issued%256 == 0 {
		for k, g := range ts.tokens {
			if !now.Before(g.expires) {
				delete(ts.tokens, k)
			}
		}
	}
	ts.tokens[tok] = &grant{scopes: scopes, expires: now.Add(ts.ttl)}
	return tok, ts.ttl
}

func (ts *tokenStore) lookup(tok string) (*grant, error) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	g, ok := ts.tokens[tok]
	if !ok {
		return nil, errUnauthorized("the access token is not one this sandbox issued (a restarted sandbox forgets its tokens); fetch a new one from POST /connect/token").
			withHeader("WWW-Authenticate", `Bearer realm="sandbox", error="invalid_token"`)
	}
	if now := ts.clock.Now(); !now.Before(g.expires) {
		return nil, errUnauthorized(fmt.Sprintf("the access token expired at %s; fetch a new one from POST /connect/token",
			g.expires.UTC().Format(api.WebhookTimeLayout))).
			withHeader("WWW-Authenticate", `Bearer realm="sandbox", error="invalid_token", error_description="expired"`)
	}
	return g, nil
}

// bearer authenticates the request's access token (401 when missing,
// unknown or expired).
func (s *Sandbox) bearer(r *http.Request) (*grant, error) {
	h := r.Header.Get("Authorization")
	tok, ok := bearer.FromHeader(h) // read as the relay and the hub read theirs
	if h == "" {
		return nil, errUnauthorized("the Authorization header is missing; send Authorization: Bearer <access token> from POST /connect/token").
			withHeader("WWW-Authenticate", `Bearer realm="sandbox"`)
	}
	if !ok || tok == "" {
		return nil, errUnauthorized("the Authorization header is not a bearer token; send Authorization: Bearer <access token>").
			withHeader("WWW-Authenticate", `Bearer realm="sandbox", error="invalid_request"`)
	}
	return s.tokens.lookup(tok)
}

// oauthError is a token-endpoint failure: a problem document that also
// carries the RFC 6749 error and error_description members.
func oauthError(status int, code, detail string) *problem {
	p := newProblem(status, code, "Token request refused", detail)
	p.OAuthError, p.OAuthDescription = code, detail
	return p
}

// handleToken is POST /connect/token: the client-credentials grant. The
// client authenticates with client_id/client_secret form fields or HTTP
// Basic; scope is one or more space-separated scopes.
func (s *Sandbox) handleToken(w http.ResponseWriter, r *http.Request) error {
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != api.ContentTypeFormURLEncode {
		return oauthError(http.StatusBadRequest, "invalid_request",
			"send the token request form-encoded (Content-Type: application/x-www-form-urlencoded)")
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxBody)
	if err := r.ParseForm(); err != nil {
		return oauthError(http.StatusBadRequest, "invalid_request", "the form could not be read: "+err.Error())
	}
	id, secret, basic := r.BasicAuth()
	if !basic {
		id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	}
	switch gt := r.PostForm.Get("grant_type"); gt {
	case "client_credentials":
	case "":
		return oauthError(http.StatusBadRequest, "invalid_request", "grant_type is missing; use client_credentials")
	default:
		return oauthError(http.StatusBadRequest, "unsupported_grant_type", fmt.Sprintf("grant_type %q is not supported; use client_credentials", gt))
	}
	idOK := subtle.ConstantTimeCompare([]byte(id), []byte(s.opts.ClientID)) == 1
	secretOK := subtle.ConstantTimeCompare([]byte(secret), []byte(s.opts.ClientSecret)) == 1
	if !idOK || !secretOK {
		p := oauthError(http.StatusUnauthorized, "invalid_client",
			"client authentication failed: the client_id or client_secret is wrong for this sandbox")
		if basic {
			p = p.withHeader("WWW-Authenticate", `Basic realm="sandbox"`)
		}
		return p
	}
	scopes := strings.Fields(r.PostForm.Get("scope"))
	if len(scopes) == 0 {
		return oauthError(http.StatusBadRequest, "invalid_scope",
			"scope is missing; ask for one or more of "+strings.Join(knownScopes, ", "))
	}
	slices.Sort(scopes)
	scopes = slices.Compact(scopes)
	for _, sc := range scopes {
		if !slices.Contains(knownScopes, sc) {
			return oauthError(http.StatusBadRequest, "invalid_scope",
				fmt.Sprintf("scope %q is unknown; use %s", sc, strings.Join(knownScopes, ", ")))
		}
	}
	tok, ttl := s.tokens.issue(scopes)
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Pragma", "no-cache")
	return writeJSON(w, http.StatusOK, api.TokenResponse{
		AccessToken: tok,
		TokenType:   "Bearer",
		ExpiresIn:   int64(ttl / time.Second),
		Scope:       strings.Join(scopes, " "),
	})
}
