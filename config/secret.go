package config

import (
	"encoding/json"
	"fmt"
	"log/slog"
)

// redacted is what every printed form of a non-empty Secret shows.
const redacted = "[redacted]"

// Secret holds a credential (client secret, relay token). Every way Go
// prints or encodes a value — fmt with any verb, JSON, text/TOML encoding,
// log/slog — shows "[redacted]" (or "" when empty), so a secret can travel
// inside structs that get logged or shown without leaking. Reveal is the
// one deliberate way to read it.
type Secret string

// Reveal returns the secret itself, for the one place that must send it
// (the token request).
func (s Secret) Reveal() string { return string(s) }

// display is the printed stand-in: empty stays empty so a person can tell
// "not set" from "set".
func (s Secret) display() string {
	if s == "" {
		return ""
	}
	return redacted
}

// String implements fmt.Stringer.
func (s Secret) String() string { return s.display() }

// GoString implements fmt.GoStringer (%#v).
func (s Secret) GoString() string { return fmt.Sprintf("%q", s.display()) }

// Format implements fmt.Formatter so that no verb (%x, %d, %q ...) reaches
// the underlying bytes; flags and width apply to the stand-in.
func (s Secret) Format(f fmt.State, verb rune) {
	switch verb {
	case 'q':
		fmt.Fprintf(f, fmt.FormatString(f, verb), s.display())
	case 'v':
		if f.Flag('#') {
			fmt.Fprint(f, s.GoString())
			return
		}
		fmt.Fprintf(f, fmt.FormatString(f, 's'), s.display())
	default:
		fmt.Fprintf(f, fmt.FormatString(f, 's'), s.display())
	}
}

// MarshalJSON implements json.Marshaler.
func (s Secret) MarshalJSON() ([]byte, error) { return json.Marshal(s.display()) }

// MarshalText implements encoding.TextMarshaler (also used by the TOML
// encoder and slog's text handler).
func (s Secret) MarshalText() ([]byte, error) { return []byte(s.display()), nil }

// LogValue implements slog.LogValuer.
func (s Secret) LogValue() slog.Value { return slog.StringValue(s.display()) }
