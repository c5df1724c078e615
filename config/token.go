package config

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MinTokenLength is the shortest relay token paydash accepts. A token
// guards the relay's event stream beyond loopback; 16 characters of a
// random token (`openssl rand -base64 24` gives 32) cannot be guessed
// over the network.
const MinTokenLength = 16

// ErrWeakToken is wrapped by every CheckToken error.
var ErrWeakToken = errors.New("unusable token")

// CheckToken is the one rule for bearer tokens (the relay's, whether from
// the profile, --token or its environment variable): at least
// MinTokenLength characters and no whitespace or control characters, which
// would not survive a header or a query string intact (a token of spaces
// reads as `?token=%20`). The error never contains the token.
func CheckToken(token string) error {
	if n := utf8.RuneCountInString(token); n < MinTokenLength {
		return fmt.Errorf("%w: it has %d characters, fewer than %d; make one with: openssl rand -base64 24",
			ErrWeakToken, n, MinTokenLength)
	}
	if i := strings.IndexFunc(token, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }); i >= 0 {
		return fmt.Errorf("%w: it contains whitespace or a control character (at character %d); use letters, digits and punctuation only",
			ErrWeakToken, utf8.RuneCountInString(token[:i])+1)
	}
	if !utf8.ValidString(token) {
		return fmt.Errorf("%w: it is not valid UTF-8", ErrWeakToken)
	}
	return nil
}
