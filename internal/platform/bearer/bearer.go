// Package bearer reads the token of an "Authorization: Bearer <token>"
// header and checks it against a configured one without telling by its
// timing how much of it matched. The relay and the hub read their callers'
// tokens through it. It imports nothing of paydash.
package bearer

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"strings"
)

// FromHeader returns the token of an Authorization header value: what
// follows "Bearer " (the scheme in any case), spaces trimmed. ok is false
// when the value is not a bearer credential at all; a bearer credential
// of spaces only is ok with an empty token (a caller falling back to
// another source of tokens does not for that one).
func FromHeader(v string) (token string, ok bool) {
	const scheme = "bearer "
	if len(v) > len(scheme) && strings.EqualFold(v[:len(scheme)], scheme) {
		return strings.TrimSpace(v[len(scheme):]), true
	}
	return "", false
}

// FromRequest is FromHeader of req's Authorization header.
func FromRequest(req *http.Request) (token string, ok bool) {
	return FromHeader(req.Header.Get("Authorization"))
}

// Sum is what a configured token is kept as: its SHA-256, so comparing
// takes the same time whatever the lengths.
func Sum(token string) [32]byte { return sha256.Sum256([]byte(token)) }

// Matches reports whether got is the token whose Sum is want, in
// constant time.
func Matches(got string, want [32]byte) bool {
	sum := Sum(got)
	return subtle.ConstantTimeCompare(sum[:], want[:]) == 1
}
