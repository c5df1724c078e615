package ui

import (
	"strings"

	"github.com/paydash/paydash/internal/report"
)

// setToken replaces the key:value token of key in the filter text (value
// "" removes it), keeping the free text as typed.
func setToken(text, key, value string, alsoRemove ...string) string {
	var toks, words []string
	drop := append([]string{key}, alsoRemove...)
	for _, tok := range strings.Fields(text) {
		k, _, ok := strings.Cut(tok, ":")
		if ok && containsFold(drop, k) {
			continue
		}
		if ok && isFilterKey(k) {
			toks = append(toks, tok)
		} else {
			words = append(words, tok)
		}
	}
	if value != "" {
		toks = append(toks, key+":"+value)
	}
	return strings.Join(append(toks, words...), " ")
}

func isFilterKey(k string) bool { return report.IsKey(k) }

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

func tokenValue(text, key string) string {
	for _, tok := range strings.Fields(text) {
		if k, val, ok := strings.Cut(tok, ":"); ok && strings.EqualFold(k, key) {
			return val
		}
	}
	return ""
}

// cycle moves a filter token to its next value ("" = no filter).
func cycle(values []string, cur string) string {
	all := append([]string{""}, values...)
	for i, v := range all {
		if strings.EqualFold(v, cur) {
			return all[(i+1)%len(all)]
		}
	}
	return all[1%len(all)]
}

// filterSyntax is what the filter bar accepts, for the help screen.
func (v *txView) filterSyntax() string { return v.filter.syntax() }
