package api

import (
	"fmt"
	"unicode"
	"unicode/utf8"
)

// The interface states no character set for names and references, and a
// terminal obeys control characters and escape sequences, so paydash
// chooses one and applies it here, in the one walk every validator
// (ValidatePayout, ValidatePayment, ValidateMandate) and the sandbox's
// control endpoints run (ValidateLengths):
//
//   - names and references (beneficiary_name, account_holder_name,
//     user.name, payer_name, beneficiary_reference, reference) take
//     letters of any script with their accents (combining marks), digits,
//     spaces, punctuation and currency, maths and modifier symbols:
//     "Müller GmbH", "O'Brien & Co.", "Zoë", "Łódź", "山田太郎", "INV-2025/001 #4";
//   - every string field refuses control characters (C0, DEL, C1: ESC
//     starts a terminal escape sequence), format characters (bidi
//     embeddings, overrides and isolates, zero-width characters), line
//     and paragraph separators, private-use and unassigned code points,
//     and bytes that are not UTF-8.
//
// Anything else in a name or reference (emoji and other pictographs, box
// drawing) is refused too: banks' payment schemes carry none of it.

// textProblem says what is wrong with s as a string field, or "".
// nameLike applies the narrower set of names and references.
func textProblem(s string, nameLike bool) string {
	for i, r := range s {
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
				return fmt.Sprintf("is not valid UTF-8 (byte %d)", i+1)
			}
		}
		if why := refusedRune(r, nameLike); why != "" {
			return fmt.Sprintf("contains %s (U+%04X) at character %d; %s", why, r, utf8.RuneCountInString(s[:i])+1, textAdvice(nameLike))
		}
	}
	return ""
}

func textAdvice(nameLike bool) string {
	if nameLike {
		return "names and references take letters of any script with accents, digits, spaces and punctuation"
	}
	return "remove it"
}

// refusedRune names the class of a rune a field must not hold, or "".
func refusedRune(r rune, nameLike bool) string {
	switch {
	case unicode.Is(unicode.Cc, r):
		return "a control character"
	case unicode.In(r, unicode.Bidi_Control, unicode.Join_Control):
		return "a bidi or joining control character"
	case unicode.Is(unicode.Cf, r):
		return "an invisible format character"
	case unicode.In(r, unicode.Zl, unicode.Zp):
		return "a line or paragraph separator"
	case unicode.Is(unicode.Co, r), unicode.Is(unicode.Cs, r):
		return "a private-use character"
	case !unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.Z, unicode.P, unicode.S):
		return "an unassigned character"
	}
	if nameLike && !unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.Zs, unicode.P, unicode.Sc, unicode.Sm, unicode.Sk) {
		return "a symbol that is not a letter, digit, space or punctuation"
	}
	return ""
}

// nameLikeField reports whether a field (its JSON name) holds a name or
// a reference.
func nameLikeField(leaf string) bool {
	switch leaf {
	case "beneficiary_name", "account_holder_name", "name", "payer_name", "beneficiary_reference", "reference":
		return true
	}
	return false
}
