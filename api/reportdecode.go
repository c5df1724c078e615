package api

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"
	"unsafe"
)

// The transaction report can hold a million records, so it is decoded as a
// stream, one record at a time, never as one []byte. Records in the exact
// shape the service writes take a fast path (about 4x faster and 10x fewer
// allocations than encoding/json); anything else falls back to
// json.Unmarshal on that record, so results and errors are exactly what
// encoding/json gives (TestDecodeResultsAgreesWithEncodingJSON, FuzzDecodeResults).

// errStop marks an error that came from the caller's fn.
var errStop = errors.New("stopped by caller")

type stopErr struct{ err error }

func (s stopErr) Error() string        { return s.err.Error() }
func (s stopErr) Unwrap() error        { return s.err }
func (s stopErr) Is(target error) bool { return target == errStop }

// decodeResults walks {"results":[...], ...} from r, handing fn one record
// at a time; other members are skipped. A report runs to a million
// records, and encoding/json's reflection made decoding most of the load
// time, so each record first goes through fastRecord, which reads the
// shape the service writes (plain strings, the report's timestamps,
// integer amounts, exact member names) without reflection. Anything it is
// not sure of (escapes, unknown or differently-cased names, nulls, odd
// numbers or timestamps) is handed whole to json.Unmarshal, so records and
// record errors are exactly what encoding/json gives.
func decodeResults(r io.Reader, fn func(Transaction) error) error {
	var d *reportReader
	d = newReportReader(r, func(rec *Record) error {
		if rec.Tx != nil {
			return fn(*rec.Tx)
		}
		return fn(d.build(&rec.f))
	})
	return d.decode()
}

// decodeRecords is decodeResults handing over records as decoded in
// place, without making their strings (see Record).
func decodeRecords(r io.Reader, fn func(*Record) error) error {
	return newReportReader(r, fn).decode()
}

func newReportReader(r io.Reader, fn func(*Record) error) *reportReader {
	return &reportReader{r: r, buf: make([]byte, reportReadSize), interned: map[string]string{}, fn: fn}
}

func (d *reportReader) decode() error {
	fn := d.fn
	if err := d.expect('{', "at the start of the report"); err != nil {
		return err
	}
	c, err := d.skipSpace()
	if err != nil {
		return err
	}
	found := false
	if c == '}' {
		return errNoResults
	}
	for {
		name, err := d.memberName()
		if err != nil {
			return err
		}
		if name == "results" {
			found = true
			err = d.results(fn)
		} else {
			err = d.skipValue()
		}
		if err != nil {
			return err
		}
		c, err := d.next()
		if err != nil {
			return err
		}
		switch c {
		case ',':
		case '}':
			if !found {
				return errNoResults
			}
			return nil
		default:
			return fmt.Errorf("invalid character %q after a member of the report, want ',' or '}'", c)
		}
	}
}

var errNoResults = errors.New("the response has no \"results\" member")

// Report reading sizes: the read buffer (grown only for a value larger
// than it), the largest record tried on the fast path (a larger one goes
// to json.Unmarshal rather than being rescanned as it arrives), and the
// bounds of the table of repeated strings.
const (
	reportReadSize  = 128 << 10
	maxFastRecord   = 64 << 10
	maxInterned     = 16 << 10
	maxInternedSize = 64
)

// reportReader reads the report from a buffer it refills itself, so a
// record can be parsed in place.
type reportReader struct {
	r        io.Reader
	buf      []byte
	pos, end int   // unread bytes are buf[pos:end]
	err      error // the read error that ended the input, io.EOF included
	// interned holds values that recur across records (type, status,
	// currency, context code, and payees' names and IBANs), so a million
	// records share a few thousand strings instead of holding their own.
	interned map[string]string
	scratch  []byte
	fn       func(*Record) error
	rec      Record
}

// Record is one report record as the decoder read it: on the fast path
// (the shape the service writes) its fields still point into the read
// buffer, so nothing is copied; any other record comes decoded whole in
// Tx. A Record and what Transient returns are valid only during the
// callback that receives them: a streaming consumer (an export) needs no
// more, and skips making a million records' strings.
type Record struct {
	f  fastRecord
	Tx *Transaction
}

// Transient returns the record as a Transaction whose strings share the
// read buffer (no copies): valid only until the callback returns; keep
// nothing of it. Use Transaction() for a lasting copy.
func (r *Record) Transient() Transaction {
	if r.Tx != nil {
		return *r.Tx
	}
	f := &r.f
	return Transaction{
		TransactionID: view(f.id), Type: view(f.typ), AuthorisedAt: f.authorised, SubmittedAt: f.submitted,
		SettledAt: f.settled, BeneficiaryName: view(f.name), BeneficiaryIBAN: view(f.iban),
		BeneficiaryReference: view(f.ref), AmountInMinor: f.amount, Currency: view(f.currency),
		ContextCode: view(f.context), Status: view(f.status),
	}
}

// Transaction returns the record as a Transaction of its own.
func (r *Record) Transaction() Transaction {
	t := r.Transient()
	for _, p := range []*string{&t.TransactionID, &t.Type, &t.BeneficiaryName, &t.BeneficiaryIBAN,
		&t.BeneficiaryReference, &t.Currency, &t.ContextCode, &t.Status} {
		*p = strings.Clone(*p)
	}
	return t
}

// view is b as a string without a copy; the caller keeps b unchanged
// while the string is in use (Record's contract).
func view(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(unsafe.SliceData(b), len(b)) //nolint:gosec // G103: the zero-copy view is the point; Record documents that its strings live only until the next record
}

// fill reads more input after the unread bytes, moving them to the front
// of the buffer first; it reports whether any bytes arrived.
func (d *reportReader) fill() bool {
	if d.err != nil {
		return false
	}
	if d.pos > 0 {
		d.end = copy(d.buf, d.buf[d.pos:d.end])
		d.pos = 0
	}
	if d.end == len(d.buf) {
		d.buf = append(d.buf, make([]byte, len(d.buf))...)
	}
	for range 100 { // as bufio does, give up on a reader that returns nothing
		n, err := d.r.Read(d.buf[d.end:])
		d.end += n
		if err != nil {
			d.err = err
		}
		if n > 0 {
			return true
		}
		if err != nil {
			return false
		}
	}
	d.err = io.ErrNoProgress
	return false
}

// readErr is the error for input that ended too early.
func (d *reportReader) readErr() error {
	if errors.Is(d.err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return d.err
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// skipSpace moves past white space and returns the next byte, unread.
func (d *reportReader) skipSpace() (byte, error) {
	for {
		for ; d.pos < d.end; d.pos++ {
			if c := d.buf[d.pos]; !isSpace(c) {
				return c, nil
			}
		}
		if !d.fill() {
			return 0, d.readErr()
		}
	}
}

// next reads the next byte after white space.
func (d *reportReader) next() (byte, error) {
	c, err := d.skipSpace()
	if err == nil {
		d.pos++
	}
	return c, err
}

func (d *reportReader) expect(want byte, where string) error {
	c, err := d.next()
	if err != nil {
		return err
	}
	if c != want {
		return fmt.Errorf("invalid character %q %s, want %q", c, where, want)
	}
	return nil
}

// memberName reads `"name":`.
func (d *reportReader) memberName() (string, error) {
	c, err := d.skipSpace()
	if err != nil {
		return "", err
	}
	if c != '"' {
		return "", fmt.Errorf("invalid character %q looking for a member name", c)
	}
	raw, err := d.value()
	if err != nil {
		return "", err
	}
	var name string
	if err := json.Unmarshal(raw, &name); err != nil {
		return "", err
	}
	return name, d.expect(':', "after a member name")
}

// skipValue moves past one value, checking its syntax as a json.Decoder
// would.
func (d *reportReader) skipValue() error {
	raw, err := d.value()
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, new(json.RawMessage))
}

// results reads the "results" value: null (an empty report) or an array
// of records.
func (d *reportReader) results(fn func(*Record) error) error {
	c, err := d.skipSpace()
	if err != nil {
		return err
	}
	if c != '[' {
		raw, err := d.value()
		if err != nil {
			return err
		}
		if string(raw) == "null" {
			return nil
		}
		return fmt.Errorf("\"results\" is %.40s, want an array", raw)
	}
	d.pos++
	if c, err = d.skipSpace(); err != nil {
		return err
	}
	if c == ']' {
		d.pos++
		return nil
	}
	for {
		rec, err := d.record()
		if err != nil {
			return err
		}
		if err := fn(rec); err != nil {
			return stopErr{err}
		}
		c, err := d.next()
		if err != nil {
			return err
		}
		switch c {
		case ',':
		case ']':
			return nil
		default:
			return fmt.Errorf("invalid character %q after a record, want ',' or ']'", c)
		}
	}
}

// record decodes the next record: in place when fastRecord can, else with
// json.Unmarshal (into Tx).
func (d *reportReader) record() (*Record, error) {
	c, err := d.skipSpace()
	if err != nil {
		return nil, err
	}
	rec := &d.rec
	rec.Tx = nil
	for c == '{' {
		rec.f = fastRecord{}
		n, st := rec.f.parse(d.buf[d.pos:d.end])
		if st == fastOK {
			d.pos += n
			return rec, nil
		}
		// The record runs past the buffer: read on and parse it again,
		// unless it is big enough that rescanning would cost more.
		if st != fastMore || d.end-d.pos > maxFastRecord || !d.fill() {
			break
		}
	}
	raw, err := d.value()
	if err != nil {
		return nil, err
	}
	var t Transaction
	if err := json.Unmarshal(raw, &t); err != nil {
		return nil, err
	}
	rec.Tx = &t
	return rec, nil
}

// value returns the raw bytes of the next value and moves past them. It
// only finds where the value ends (brackets matched outside strings);
// json.Unmarshal checks the syntax. The bytes are valid until the next
// read.
func (d *reportReader) value() ([]byte, error) {
	if _, err := d.skipSpace(); err != nil {
		return nil, err
	}
	n := 0 // bytes of the value scanned so far, from d.pos
	depth, inString, escaped := 0, false, false
	for {
		for ; d.pos+n < d.end; n++ {
			c := d.buf[d.pos+n]
			switch {
			case inString:
				switch {
				case escaped:
					escaped = false
				case c == '\\':
					escaped = true
				case c == '"':
					inString = false
					if depth == 0 {
						return d.take(n + 1), nil
					}
				}
			case c == '"':
				inString = true
			case c == '{' || c == '[':
				depth++
			case c == '}' || c == ']':
				if depth == 0 {
					return d.literal(n, c)
				}
				if depth--; depth == 0 {
					return d.take(n + 1), nil
				}
			case depth == 0 && (c == ',' || c == ':' || isSpace(c)):
				return d.literal(n, c)
			}
		}
		if !d.fill() {
			if errors.Is(d.err, io.EOF) && depth == 0 && !inString && n > 0 {
				return d.take(n), nil // a literal at the very end
			}
			return nil, d.readErr()
		}
	}
}

func (d *reportReader) take(n int) []byte {
	v := d.buf[d.pos : d.pos+n]
	d.pos += n
	return v
}

// literal takes the n bytes of a bare literal (number, true, false,
// null) that c ends.
func (d *reportReader) literal(n int, c byte) ([]byte, error) {
	if n == 0 {
		return nil, fmt.Errorf("invalid character %q looking for the beginning of a value", c)
	}
	return d.take(n), nil
}

// build makes the record's strings: recurring values from the table, and
// the two that are unique per record (id and reference) in one
// allocation.
func (d *reportReader) build(f *fastRecord) Transaction {
	t := Transaction{
		Type:            d.intern(f.typ),
		AuthorisedAt:    f.authorised,
		SubmittedAt:     f.submitted,
		SettledAt:       f.settled,
		BeneficiaryName: d.intern(f.name),
		BeneficiaryIBAN: d.intern(f.iban),
		AmountInMinor:   f.amount,
		Currency:        d.intern(f.currency),
		ContextCode:     d.intern(f.context),
		Status:          d.intern(f.status),
	}
	d.scratch = append(append(d.scratch[:0], f.id...), f.ref...)
	both := string(d.scratch)
	t.TransactionID, t.BeneficiaryReference = both[:len(f.id)], both[len(f.id):]
	return t
}

func (d *reportReader) intern(b []byte) string {
	if s, ok := d.interned[string(b)]; ok {
		return s
	}
	s := string(b)
	if len(d.interned) < maxInterned && len(b) <= maxInternedSize {
		d.interned[s] = s
	}
	return s
}

// fastRecord is one record as parsed in place: strings still point into
// the read buffer.
type fastRecord struct {
	id, typ, name, iban, ref, currency, context, status []byte
	authorised, submitted, settled                      ReportTime
	amount                                              int64
}

type fastStatus int

const (
	fastOK   fastStatus = iota
	fastMore            // the record continues past the bytes given
	fastSlow            // something only json.Unmarshal should judge
)

func skipSpaceAt(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// parse reads the object starting at b[0] == '{' and returns its length.
func (f *fastRecord) parse(b []byte) (int, fastStatus) {
	i := skipSpaceAt(b, 1)
	if i >= len(b) {
		return 0, fastMore
	}
	if b[i] == '}' {
		return i + 1, fastOK
	}
	for {
		key, j, st := keyAt(b, i)
		if st != fastOK {
			return 0, st
		}
		if i = skipSpaceAt(b, j); i >= len(b) {
			return 0, fastMore
		}
		if b[i] != ':' {
			return 0, fastSlow
		}
		if i = skipSpaceAt(b, i+1); i >= len(b) {
			return 0, fastMore
		}
		var str *[]byte // the field a plain string goes to
		switch string(key) {
		case "transaction_id":
			str = &f.id
		case "type":
			str = &f.typ
		case "beneficiary_name":
			str = &f.name
		case "beneficiary_iban":
			str = &f.iban
		case "beneficiary_reference":
			str = &f.ref
		case "currency":
			str = &f.currency
		case "context_code":
			str = &f.context
		case "status":
			str = &f.status
		case "authorised_at":
			i, st = reportTimeAt(b, i, &f.authorised)
		case "submitted_at":
			i, st = reportTimeAt(b, i, &f.submitted)
		case "settled_at":
			i, st = reportTimeAt(b, i, &f.settled)
		case "amount_in_minor":
			f.amount, i, st = int64At(b, i)
		default:
			return 0, fastSlow
		}
		if str != nil {
			*str, i, st = plainString(b, i)
		}
		if st != fastOK {
			return 0, st
		}
		if i = skipSpaceAt(b, i); i >= len(b) {
			return 0, fastMore
		}
		switch b[i] {
		case ',':
			if i = skipSpaceAt(b, i+1); i >= len(b) {
				return 0, fastMore
			}
		case '}':
			return i + 1, fastOK
		default:
			return 0, fastSlow
		}
	}
}

// keyAt reads an object key at b[i] up to its closing quote with a plain
// loop: keys are a dozen short strings a record, for which plainString's
// vector search and word checks cost more than the key. A key with an
// escape or another oddity matches none of the record's keys, so the
// caller leaves the record to json.Unmarshal.
func keyAt(b []byte, i int) ([]byte, int, fastStatus) {
	if b[i] != '"' {
		return nil, 0, fastSlow
	}
	for k := i + 1; k < len(b); k++ {
		if b[k] == '"' {
			return b[i+1 : k], k + 1, fastOK
		}
	}
	return nil, 0, fastMore
}

// plainString reads a string at b[i] that has no escapes and is valid
// UTF-8, so its bytes are its value; it returns them and the index after
// the closing quote. Strings are most of a report's bytes, so the closing
// quote is found with bytes.IndexByte and the bytes before it checked
// eight at a time.
func plainString(b []byte, i int) ([]byte, int, fastStatus) {
	if b[i] != '"' {
		return nil, 0, fastSlow
	}
	n := bytes.IndexByte(b[i+1:], '"')
	if n < 0 {
		return nil, 0, fastMore
	}
	s := b[i+1 : i+1+n]
	switch plainBytes(s) {
	case plainASCII:
	case plainUTF8:
		if !utf8.Valid(s) {
			return nil, 0, fastSlow
		}
	default:
		return nil, 0, fastSlow
	}
	return s, i + n + 2, fastOK
}

type plainKind int

const (
	plainASCII plainKind = iota
	plainUTF8            // has bytes >= 0x80, to be checked as UTF-8
	plainNot             // has a backslash or a control character
)

// plainBytes classifies the bytes of a string body (no quote in it).
func plainBytes(s []byte) plainKind {
	const (
		ones  = 0x0101010101010101
		highs = 0x8080808080808080
	)
	var high uint64
	for len(s) >= 8 {
		w := binary.LittleEndian.Uint64(s)
		// The word tests of "Bit Twiddling Hacks": a byte below 0x20, or a
		// backslash (a zero byte of x), leaves a high bit set below. Bytes
		// of 0x80 and up are only noted, for the UTF-8 check.
		x := w ^ (ones * '\\')
		if ((w-ones*0x20)|(x-ones))&^w&highs != 0 {
			return plainNot
		}
		high |= w
		s = s[8:]
	}
	for _, c := range s {
		if c < 0x20 || c == '\\' {
			return plainNot
		}
		high |= uint64(c)
	}
	if high&highs != 0 {
		return plainUTF8
	}
	return plainASCII
}

// int64At reads an integer of at most 18 digits (so it cannot overflow)
// at b[i]; a fraction or exponent stops at the caller's delimiter check.
func int64At(b []byte, i int) (int64, int, fastStatus) {
	neg := b[i] == '-'
	if neg {
		i++
	}
	start := i
	var v int64
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		v = v*10 + int64(b[i]-'0')
	}
	if i >= len(b) {
		return 0, 0, fastMore
	}
	if n := i - start; n == 0 || n > 18 || (n > 1 && b[start] == '0') {
		return 0, 0, fastSlow
	}
	if neg {
		v = -v
	}
	return v, i, fastOK
}

// reportTimeAt reads a timestamp in ReportTimeLayout at b[i], giving the
// time.Time that ParseReportTime would; a value outside the layout or its
// ranges is left to it.
func reportTimeAt(b []byte, i int, out *ReportTime) (int, fastStatus) {
	s, j, st := plainString(b, i)
	if st != fastOK {
		return 0, st
	}
	if len(s) != len(ReportTimeLayout) || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' ||
		s[16] != ':' || s[19] != '.' || s[27] != 'Z' {
		return 0, fastSlow
	}
	digits := func(from, to int) int {
		v := 0
		for k := from; k < to; k++ {
			c := s[k]
			if c < '0' || c > '9' {
				return -1
			}
			v = v*10 + int(c-'0')
		}
		return v
	}
	year, month, day := digits(0, 4), digits(5, 7), digits(8, 10)
	hour, minute, sec, frac := digits(11, 13), digits(14, 16), digits(17, 19), digits(20, 27)
	if year < 0 || month < 1 || month > 12 || day < 1 || day > daysIn(month, year) ||
		hour < 0 || hour > 23 || minute < 0 || minute > 59 || sec < 0 || sec > 59 || frac < 0 {
		return 0, fastSlow
	}
	// What time.Date gives, from the civil date directly (three a record).
	unix := daysFromCivil(year, month, day)*86400 + int64(hour*3600+minute*60+sec)
	*out = ReportTime{time.Unix(unix, int64(frac)*100).UTC()}
	return j, fastOK
}

// daysFromCivil is the number of days from 1970-01-01 to a date (Howard
// Hinnant's algorithm).
func daysFromCivil(y, m, d int) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 && y%400 != 0 {
		era = (y - 399) / 400
	}
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return int64(era)*146097 + int64(doe) - 719468
}

func daysIn(month, year int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// get sends a retried GET to {payouts_url} with a payouts token.
