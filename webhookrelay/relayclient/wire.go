package relayclient

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/paydash/paydash/api"
)

// decodeEvent decodes one stream message into e. Every subscriber decodes
// every event, so it takes a fast path for the exact shape the relay
// writes (encoding/json's output with the raw body spliced in) and hands
// anything else (escapes, nulls, unknown or repeated members, odd
// numbers) to json.Unmarshal, so the result is always what json.Unmarshal
// would give; FuzzDecodeEvent checks that.
func decodeEvent(data []byte, e *Event) error {
	if fastDecodeEvent(data, e) == nil {
		return nil
	}
	*e = Event{}
	return json.Unmarshal(data, e)
}

var errSlowPath = errors.New("not the relay's own message shape")

// wireScanner walks a message the fast path understands.
type wireScanner struct {
	data []byte
	pos  int
	// strs and hdrs hold the string members found so far as tokens of
	// data; finish turns them into strings with a single allocation.
	// Arrays, not slices, keep them off the heap: each string member is
	// read at most once, and more headers than the relay ever keeps go
	// the slow path.
	strs    [len(wireMembers)]strSlot
	nstr    int
	hdrs    [8]headerToks
	nhdr    int
	hasHdrs bool
}

// strSlot is a string member waiting for its string.
type strSlot struct {
	dst *string
	tok []byte
}

// headerToks is one headers member waiting for its strings.
type headerToks struct{ name, value []byte }

func (s *wireScanner) skipSpace() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// consume skips whitespace and then expects byte c.
func (s *wireScanner) consume(c byte) bool {
	s.skipSpace()
	if s.pos < len(s.data) && s.data[s.pos] == c {
		s.pos++
		return true
	}
	return false
}

// stringToken returns the contents of the next string if it needs no
// unescaping and is valid UTF-8 without control characters.
func (s *wireScanner) stringToken() ([]byte, error) {
	if !s.consume('"') {
		return nil, errSlowPath
	}
	start := s.pos
	ascii := true
	for s.pos < len(s.data) {
		c := s.data[s.pos]
		switch {
		case c == '"':
			tok := s.data[start:s.pos]
			s.pos++
			// encoding/json would replace invalid UTF-8 in a string.
			if !ascii && !utf8.Valid(tok) {
				return nil, errSlowPath
			}
			return tok, nil
		case c == '\\' || c < 0x20:
			return nil, errSlowPath
		case c >= 0x80:
			ascii = false
		}
		s.pos++
	}
	return nil, errSlowPath
}

// str reads a string member into *dst, at once if it is a value every
// event repeats, else when finish runs.
func (s *wireScanner) str(dst *string) error {
	tok, err := s.stringToken()
	if err != nil {
		return err
	}
	if v, ok := interned(tok); ok {
		*dst = v
	} else {
		s.strs[s.nstr] = strSlot{dst, tok}
		s.nstr++
	}
	return nil
}

// finish gives every pending string member its value. The values that
// are not interned share one backing string: one allocation per event
// instead of one per member, and the strings are as immutable as any.
func (s *wireScanner) finish(e *Event) error {
	strs, hdrs := s.strs[:s.nstr], s.hdrs[:s.nhdr]
	var b strings.Builder
	size := 0
	for _, p := range strs {
		size += len(p.tok)
	}
	for _, h := range hdrs {
		size += len(h.name) + len(h.value)
	}
	b.Grow(size)
	for _, p := range strs {
		b.Write(p.tok)
	}
	for _, h := range hdrs {
		for _, tok := range [2][]byte{h.name, h.value} {
			if _, ok := interned(tok); !ok {
				b.Write(tok)
			}
		}
	}
	blob := b.String()
	next := func(n int) string {
		v := blob[:n]
		blob = blob[n:]
		return v
	}
	for _, p := range strs {
		*p.dst = next(len(p.tok))
	}
	if !s.hasHdrs {
		return nil
	}
	// Non-nil even when empty: json.Unmarshal makes an empty map too.
	e.Headers = make(map[string]string, len(hdrs))
	for _, h := range hdrs {
		name, ok := interned(h.name)
		if !ok {
			name = next(len(h.name))
		}
		value, ok := interned(h.value)
		if !ok {
			value = next(len(h.value))
		}
		if _, dup := e.Headers[name]; dup {
			return errSlowPath // encoding/json keeps the last; leave it to it
		}
		e.Headers[name] = value
	}
	return nil
}

// interned returns the shared copy of values every event repeats
// (families, types, states, header names), sparing an allocation per
// field and event.
func interned(tok []byte) (string, bool) {
	switch string(tok) {
	case FamilyPayout:
		return FamilyPayout, true
	case FamilyPayments:
		return FamilyPayments, true
	case FamilyUnknown:
		return FamilyUnknown, true
	case api.EventPayoutAuthorised:
		return api.EventPayoutAuthorised, true
	case api.EventPayoutSubmitted:
		return api.EventPayoutSubmitted, true
	case api.EventPayoutSettled:
		return api.EventPayoutSettled, true
	case api.EventPayoutRejected:
		return api.EventPayoutRejected, true
	case api.EventPayoutFailed:
		return api.EventPayoutFailed, true
	case api.EventPayoutExecuted:
		return api.EventPayoutExecuted, true
	case api.StateAuthorised:
		return api.StateAuthorised, true
	case api.StateSubmitted:
		return api.StateSubmitted, true
	case api.StateSettled:
		return api.StateSettled, true
	case api.StateRejected:
		return api.StateRejected, true
	case api.StateFailed:
		return api.StateFailed, true
	case api.StateExecuted:
		return api.StateExecuted, true
	case "Content-Type":
		return "Content-Type", true
	case "User-Agent":
		return "User-Agent", true
	case api.HeaderWebhookTimestamp:
		return api.HeaderWebhookTimestamp, true
	case api.HeaderPayoutSignature:
		return api.HeaderPayoutSignature, true
	case api.ContentTypeJSON:
		return api.ContentTypeJSON, true
	}
	return "", false
}

func (s *wireScanner) time() (time.Time, error) {
	s.skipSpace()
	start := s.pos
	if _, err := s.stringToken(); err != nil {
		return time.Time{}, err
	}
	var t time.Time
	if err := t.UnmarshalJSON(s.data[start:s.pos]); err != nil {
		return time.Time{}, errSlowPath
	}
	return t, nil
}

func (s *wireScanner) uint() (uint64, error) {
	s.skipSpace()
	start := s.pos
	for s.pos < len(s.data) && s.data[s.pos] >= '0' && s.data[s.pos] <= '9' {
		s.pos++
	}
	tok := s.data[start:s.pos]
	if len(tok) == 0 || (len(tok) > 1 && tok[0] == '0') {
		return 0, errSlowPath
	}
	if s.pos < len(s.data) {
		switch s.data[s.pos] {
		case '.', 'e', 'E':
			return 0, errSlowPath
		}
	}
	return strconv.ParseUint(string(tok), 10, 64)
}

// rawValue returns the next value's bytes if it is an object or array
// that is valid JSON, checked in the same single pass that finds its end.
func (s *wireScanner) rawValue() ([]byte, error) {
	s.skipSpace()
	start := s.pos
	if s.pos >= len(s.data) || (s.data[s.pos] != '{' && s.data[s.pos] != '[') {
		return nil, errSlowPath
	}
	if !s.value(0) {
		return nil, errSlowPath
	}
	return s.data[start:s.pos], nil
}

// maxWireDepth bounds nesting on the fast path; deeper values take the
// slow path, which applies encoding/json's own limit.
const maxWireDepth = 512

// value consumes one JSON value (RFC 8259 grammar, as encoding/json
// accepts it) and reports whether it was well formed.
func (s *wireScanner) value(depth int) bool {
	s.skipSpace()
	if s.pos >= len(s.data) || depth > maxWireDepth {
		return false
	}
	switch c := s.data[s.pos]; {
	case c == '{':
		s.pos++
		if s.consume('}') {
			return true
		}
		for {
			s.skipSpace()
			if !s.skipString() || !s.consume(':') || !s.value(depth+1) {
				return false
			}
			if s.consume('}') {
				return true
			}
			if !s.consume(',') {
				return false
			}
		}
	case c == '[':
		s.pos++
		if s.consume(']') {
			return true
		}
		for {
			if !s.value(depth + 1) {
				return false
			}
			if s.consume(']') {
				return true
			}
			if !s.consume(',') {
				return false
			}
		}
	case c == '"':
		return s.skipString()
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	default:
		return s.number()
	}
}

func (s *wireScanner) literal(lit string) bool {
	if len(s.data)-s.pos >= len(lit) && string(s.data[s.pos:s.pos+len(lit)]) == lit {
		s.pos += len(lit)
		return true
	}
	return false
}

// skipString consumes a string with any valid escapes. Like encoding/json
// it accepts bytes that are not UTF-8 (a RawMessage keeps them as they are).
func (s *wireScanner) skipString() bool {
	if s.pos >= len(s.data) || s.data[s.pos] != '"' {
		return false
	}
	for s.pos++; s.pos < len(s.data); s.pos++ {
		switch c := s.data[s.pos]; {
		case c == '"':
			s.pos++
			return true
		case c < 0x20:
			return false
		case c == '\\':
			s.pos++
			if s.pos >= len(s.data) {
				return false
			}
			switch s.data[s.pos] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if len(s.data)-s.pos < 5 {
					return false
				}
				for _, h := range s.data[s.pos+1 : s.pos+5] {
					if !isHex(h) {
						return false
					}
				}
				s.pos += 4
			default:
				return false
			}
		}
	}
	return false
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// number consumes -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *wireScanner) number() bool {
	if s.pos < len(s.data) && s.data[s.pos] == '-' {
		s.pos++
	}
	switch {
	case s.pos < len(s.data) && s.data[s.pos] == '0':
		s.pos++
	case s.digits() == 0:
		return false
	}
	if s.pos < len(s.data) && s.data[s.pos] == '.' {
		s.pos++
		if s.digits() == 0 {
			return false
		}
	}
	if s.pos < len(s.data) && (s.data[s.pos] == 'e' || s.data[s.pos] == 'E') {
		s.pos++
		if s.pos < len(s.data) && (s.data[s.pos] == '+' || s.data[s.pos] == '-') {
			s.pos++
		}
		if s.digits() == 0 {
			return false
		}
	}
	return true
}

func (s *wireScanner) digits() int {
	start := s.pos
	for s.pos < len(s.data) && s.data[s.pos] >= '0' && s.data[s.pos] <= '9' {
		s.pos++
	}
	return s.pos - start
}

// headers reads the headers object into s.hdrs; finish builds the map.
func (s *wireScanner) headers() error {
	if !s.consume('{') {
		return errSlowPath
	}
	s.hasHdrs = true
	if s.consume('}') {
		return nil
	}
	for {
		name, err := s.stringToken()
		if err != nil || !s.consume(':') {
			return errSlowPath
		}
		value, err := s.stringToken()
		if err != nil {
			return errSlowPath
		}
		if s.nhdr == len(s.hdrs) {
			return errSlowPath
		}
		s.hdrs[s.nhdr] = headerToks{name, value}
		s.nhdr++
		if s.consume('}') {
			return nil
		}
		if !s.consume(',') {
			return errSlowPath
		}
	}
}

func fastDecodeEvent(data []byte, e *Event) error {
	*e = Event{}
	s := wireScanner{data: data}
	if !s.consume('{') {
		return errSlowPath
	}
	var seen uint32 // members already read: a repeat goes the slow way
	if !s.consume('}') {
		for {
			key, err := s.stringToken()
			if err != nil || !s.consume(':') {
				return errSlowPath
			}
			bit := uint32(1) << wireMember(key)
			if seen&bit != 0 {
				return errSlowPath
			}
			seen |= bit
			switch string(key) {
			case "seq":
				e.Seq, err = s.uint()
			case "event_id":
				err = s.str(&e.EventID)
			case "family":
				err = s.str(&e.Family)
			case "type":
				err = s.str(&e.Type)
			case "payout_id":
				err = s.str(&e.PayoutID)
			case "state":
				err = s.str(&e.State)
			case "reason":
				err = s.str(&e.Reason)
			case "occurred_at":
				e.OccurredAt, err = s.time()
			case "received_at":
				e.ReceivedAt, err = s.time()
			case "headers":
				err = s.headers()
			case "body":
				var raw []byte
				if raw, err = s.rawValue(); err == nil {
					e.Body = append(json.RawMessage(nil), raw...)
				}
			case "forward":
				var raw []byte
				if raw, err = s.rawValue(); err == nil {
					e.Forward = new(ForwardResult)
					if json.Unmarshal(raw, e.Forward) != nil {
						err = errSlowPath
					}
				}
			default:
				return errSlowPath
			}
			if err != nil {
				return errSlowPath
			}
			if s.consume('}') {
				break
			}
			if !s.consume(',') {
				return errSlowPath
			}
		}
	}
	s.skipSpace()
	if s.pos != len(data) {
		return errSlowPath
	}
	return s.finish(e)
}

// wireMembers are the members the fast path reads, in Event order.
var wireMembers = [...]string{"seq", "event_id", "family", "type", "payout_id", "state",
	"occurred_at", "reason", "received_at", "headers", "body", "forward"}

// wireMember numbers a member name (len(wireMembers) for unknown ones).
func wireMember(key []byte) int {
	for i, m := range wireMembers {
		if string(key) == m {
			return i
		}
	}
	return len(wireMembers)
}
