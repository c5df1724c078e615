package termtext

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Unsafe reports whether r must not reach a terminal as it is: C0 and C1
// controls, DEL, format characters (bidi embeddings, overrides and
// isolates, zero-width characters), line and paragraph separators, and
// the replacement for invalid UTF-8.
func Unsafe(r rune) bool {
	switch {
	case r < 0x20, r == 0x7f, r >= 0x80 && r < 0xa0:
		return true
	case r == utf8.RuneError:
		return true
	case r == '\u2028', r == '\u2029':
		return true
	}
	return unicode.Is(unicode.Cf, r)
}

// Safe returns s with every unsafe rune (see Unsafe), and every byte that
// is not valid UTF-8, written as a visible Go-style escape. Newlines and
// tabs are escaped too: the result is one line. Text that is already safe
// is returned as it is, without allocating.
func Safe(s string) string {
	return escape(s, false)
}

// Lines is Safe for text shown over several lines (a pretty-printed body
// in the inspector): it keeps '\n' and turns '\t' into four spaces, and
// escapes everything else Safe escapes, '\r' included.
func Lines(s string) string {
	return escape(s, true)
}

func escape(s string, multiline bool) string {
	i := firstUnsafe(s, multiline)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			b.WriteString(`\x`)
			b.WriteString(hexPad(rune(s[i]), 2))
		case multiline && r == '\n':
			b.WriteByte('\n')
		case multiline && r == '\t':
			b.WriteString("    ")
		case Unsafe(r):
			b.WriteString(quoteRune(r))
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// firstUnsafe is the byte index of the first rune that escape would change,
// or -1 when s can be printed as it is.
func firstUnsafe(s string, multiline bool) int {
	for i, r := range s {
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(s[i:]); size <= 1 {
				return i
			}
		}
		if multiline && (r == '\n') {
			continue
		}
		if multiline && r == '\t' {
			return i
		}
		if Unsafe(r) {
			return i
		}
	}
	return -1
}

func quoteRune(r rune) string {
	switch {
	case r < 0x100:
		return `\x` + hexPad(r, 2)
	case r <= 0xffff:
		return `\u` + hexPad(r, 4)
	default:
		return `\U` + hexPad(r, 8)
	}
}

// hexPad is r in lower-case hex, zero-padded to n digits.
func hexPad(r rune, n int) string {
	q := strconv.FormatInt(int64(r), 16)
	if len(q) < n {
		q = strings.Repeat("0", n-len(q)) + q
	}
	return q
}
