package api

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"unicode/utf8"
)

// Length caps of string fields. The interface states caps for metadata
// only (MaxMetadataKeyLen, MaxMetadataValueLen) and says providers cap the
// beneficiary name, remitter name and reference without giving values;
// these are paydash's stated caps, generous enough for any real name or
// reference (SEPA allows 140 characters of remittance information) and
// small enough that no request carries a megabyte in one field.
const (
	// MaxNameLen caps names: beneficiary_name, account_holder_name,
	// user.name, payer_name.
	MaxNameLen = 140
	// MaxReferenceLen caps references: beneficiary_reference, reference.
	MaxReferenceLen = 140
	// MaxEmailLen is the longest address SMTP carries (RFC 5321).
	MaxEmailLen = 254
	// MaxURILen caps URIs (webhook_uri); browsers and proxies agree on
	// 2,048.
	MaxURILen = 2048
	// MaxStringLen caps every other string field (ids, codes, reasons).
	MaxStringLen = 255
)

// maxLenFor is the cap of a field by its JSON name.
func maxLenFor(name string) int {
	// The names and references here are also those nameLikeField knows.
	switch name {
	case "beneficiary_name", "account_holder_name", "name", "payer_name":
		return MaxNameLen
	case "beneficiary_reference", "reference":
		return MaxReferenceLen
	case "email":
		return MaxEmailLen
	case "webhook_uri":
		return MaxURILen
	}
	return MaxStringLen
}

// maxShownKey bounds how much of an over-long map key appears in a field
// path, so a hostile key cannot fill the answer.
const maxShownKey = 48

// ValidateLengths reports every string field of v holding characters no
// field may hold, or a name or reference holding others than text (see
// text.go), and every string field of v (a request struct or a
// pointer to one, walked through nested structs, pointers and slices by
// their JSON names) longer than its cap. Metadata maps follow the
// interface's Limits table. The validators run it first and report only
// these problems when there are any, since other messages may quote the
// value; the sandbox runs it on its control requests too.
func ValidateLengths(v any) Problems {
	var p problems
	walkLengths(&p, "", reflect.ValueOf(v), true)
	return p.list
}

// stringLengths is ValidateLengths without the maps, for the validators,
// whose checkMetadata reports metadata in field order with the rest.
func stringLengths(v any) Problems {
	var p problems
	walkLengths(&p, "", reflect.ValueOf(v), false)
	return p.list
}

func walkLengths(p *problems, path string, v reflect.Value, maps bool) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			walkLengths(p, path, v.Elem(), maps)
		}
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" {
				continue
			}
			if name == "" {
				name = f.Name
			}
			child := name
			if f.Anonymous && f.Tag.Get("json") == "" {
				child = "" // embedded: its fields are the parent's
			}
			walkLengths(p, joinPath(path, child), v.Field(i), maps)
		}
	case reflect.Slice, reflect.Array:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return // raw JSON: bounded by the body limit
		}
		for i := range v.Len() {
			walkLengths(p, fmt.Sprintf("%s[%d]", path, i), v.Index(i), maps)
		}
	case reflect.Map:
		if !maps || v.Type().Key().Kind() != reflect.String || v.Type().Elem().Kind() != reflect.String {
			return
		}
		keys := v.MapKeys()
		sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
		for _, k := range keys {
			key, val := k.String(), v.MapIndex(k).String()
			if n := utf8.RuneCountInString(key); n > MaxMetadataKeyLen {
				p.addf(joinPath(path, shorten(key)), "has a key of %d characters; keep keys to at most %d", n, MaxMetadataKeyLen)
			} else if n := utf8.RuneCountInString(val); n > MaxMetadataValueLen {
				p.addf(joinPath(path, key), "has a value of %d characters; keep values to at most %d", n, MaxMetadataValueLen)
			}
		}
	case reflect.String:
		leaf := path
		if i := strings.LastIndexByte(leaf, '.'); i >= 0 {
			leaf = leaf[i+1:]
		}
		if limit, n := maxLenFor(leaf), utf8.RuneCountInString(v.String()); n > limit {
			p.addf(path, "is %d characters long; keep it to at most %d", n, limit)
		} else if why := textProblem(v.String(), nameLikeField(leaf)); why != "" {
			p.addf(path, "%s", why)
		}
	}
}

func joinPath(parent, child string) string {
	switch {
	case child == "":
		return parent
	case parent == "":
		return child
	}
	return parent + "." + child
}

// shorten cuts s to maxShownKey characters for a field path.
func shorten(s string) string {
	if utf8.RuneCountInString(s) <= maxShownKey {
		return s
	}
	return string([]rune(s)[:maxShownKey]) + "…"
}
