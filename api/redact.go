package api

import (
	"bytes"
	"regexp"
)

// redactedText stands in for a credential in an error body.
const redactedText = "[redacted]"

// minSubstringRedact is the shortest secret also looked for inside longer
// words. A shorter one is replaced only where it stands as a whole word:
// hunting a one-character secret inside words would mangle every message
// ("sandbo[redacted]") and show where, and so what, the secret is.
const minSubstringRedact = 8

// credentialFields are members and form fields whose value is a
// credential whatever it is; a service echoing a request shows them.
var credentialFields = regexp.MustCompile(
	`(?i)("(?:client_secret|access_token|refresh_token|id_token|password|authorization|token)"\s*:\s*)"(?:[^"\\]|\\.)*"` +
		`|((?:^|[?&\s])(?:client_secret|access_token|refresh_token|password|token)=)[^&\s"]*`)

// redactBody removes credentials from a response body before it is kept
// or shown. Whole values are replaced, never a part of a word: the value
// of a credential field (client_secret, access_token, ...), any word that
// is one of the secrets, and any word that contains a secret of at least
// minSubstringRedact characters. What is left tells nothing about a
// secret's length or where in a word it was.
func redactBody(body []byte, secrets ...string) []byte {
	body = credentialFields.ReplaceAll(body, []byte(`$1$2"`+redactedText+`"`))
	// A form field's value has no quotes: drop the pair added above.
	body = bytes.ReplaceAll(body, []byte(`="`+redactedText+`"`), []byte("="+redactedText))
	for _, s := range secrets {
		if s != "" {
			body = redactWords(body, []byte(s))
		}
	}
	return body
}

// redactWords replaces each word holding secret with redactedText; see
// redactBody.
func redactWords(body, secret []byte) []byte {
	out := make([]byte, 0, len(body))
	i := 0
	for {
		j := bytes.Index(body[i:], secret)
		if j < 0 {
			break
		}
		start, end := i+j, i+j+len(secret)
		aligned := (start == 0 || isWordBreak(body[start-1])) && (end == len(body) || isWordBreak(body[end]))
		if !aligned && len(secret) < minSubstringRedact {
			out = append(out, body[i:start+1]...)
			i = start + 1
			continue
		}
		for start > i && !isWordBreak(body[start-1]) {
			start--
		}
		for end < len(body) && !isWordBreak(body[end]) {
			end++
		}
		out = append(out, body[i:start]...)
		out = append(out, redactedText...)
		i = end
	}
	return append(out, body[i:]...)
}

// isWordBreak reports whether c separates words in JSON, forms, headers
// and prose.
func isWordBreak(c byte) bool {
	switch c {
	case ' ', '\t', '\r', '\n', '"', '\'', '`', ',', ';', '&', '=', ':', '<', '>', '(', ')', '{', '}', '[', ']', '\\':
		return true
	}
	return false
}
