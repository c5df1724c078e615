package ui

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/paydash/paydash/config"
	"github.com/paydash/paydash/internal/platform/suggest"
)

// The config file's [keys] table remaps any action of the one keymap:
// `action = "key"` or `action = ["key", "key"]`. The keymap drives
// dispatch, the help bar, the `?` overlay and the actions menu, so a
// remapped key is what every one of them shows and does. An action is a
// keyMap field's name in snake case (CopyIBAN is copy_iban); a conflict
// is two actions that act in one place answering the same key, which the
// defaults never do there.

// fixedActions cannot be remapped: the view numbers are what the tab
// bar shows, and search is the filter key where an event is open.
var fixedActions = map[string]string{
	"tabs":     "the views are their numbers, as the tab bar shows them",
	"alt_tabs": "the views are their numbers, as the tab bar shows them",
	"search":   "it is the filter key inside an open event: remap filter",
}

// Where the actions act: two actions conflict only when they share one.
// The five lists take the frame's and the lists' keys.
var viewScopes = []string{"balances", "report", "payouts", "events", "approvals"}

// inViews is the five lists, and extra places.
func inViews(extra ...string) []string { return append(slices.Clone(viewScopes), extra...) }

var actionScopes = map[string][]string{
	"view_next": inViews(), "view_prev": inViews(), "command": inViews(), "views": inViews(), "filter": inViews(),
	"help": inViews(), "refresh": inViews(), "quit": inViews(),
	"force_quit": inViews("form", "confirm", "result"),
	"yes":        {"question"}, "no": {"question"},
	"complete": {"command line"}, "run_command": {"command line"}, "close_line": {"command line"},
	"accept": {"filter bar"}, "clear": {"filter bar"},
	"up": inViews("menu", "help overlay"), "down": inViews("menu", "help overlay"),
	"pg_up": inViews(), "pg_down": inViews("help overlay"), "half_up": inViews(), "half_down": inViews(),
	"top": inViews(), "bottom": inViews(), "enter": inViews(), "back": inViews(), "actions": inViews(),
	"menu_run": {"menu"}, "menu_close": {"menu"},
	"close_help": {"help overlay"},
	"quit_yes":   {"quit question"}, "quit_no": {"quit question"},
	"switch_yes": {"switch question"}, "switch_no": {"switch question"},
	"open_account": {"balances"}, "copy_iban": {"balances"}, "range": {"balances"},
	"reload": {"report"}, "sort": {"report"}, "reverse": {"report"}, "date": {"report"}, "type": {"report"},
	"currency": {"report"}, "status": {"report"}, "detail": {"report"}, "export": {"report"},
	"copy_row": {"report"}, "copy_id": {"report"}, "track": {"report"},
	"csv": {"export"}, "json": {"export"},
	"copy_payout": {"payouts"}, "copy_reason": {"payouts"},
	"follow": {"events"}, "event_type": {"events"}, "open_event": {"events"}, "copy_body": {"events"},
	"failed_only": {"events"}, "resend": {"events"}, "trigger": {"events"}, "copy_headers": {"events"},
	"next_match": {"events"},
	"next":       {"form"}, "prev": {"form"}, "leave_form": {"form"}, "clear_form": {"form"},
	"confirm_send": {"confirm"}, "confirm_back": {"confirm"}, "confirm_choose": {"confirm"}, "confirm_enter": {"confirm"},
	"send_anyway": {"confirm"}, "edit": {"confirm", "result"},
	"retry": {"result"}, "correct": {"payouts", "result"}, "new_form": {"result"},
	"copy_res_id": {"result"}, "copy_token": {"result"},
	"approve": {"approvals"}, "reject": {"approvals"},
	"send_decision": {"decision"}, "cancel_decision": {"decision"},
}

// actionName is a keyMap field's name as [keys] writes it: CopyIBAN is
// copy_iban, PgUp pg_up.
func actionName(field string) string {
	var b strings.Builder
	rs := []rune(field)
	for i, r := range rs {
		if unicode.IsUpper(r) && i > 0 && (unicode.IsLower(rs[i-1]) || (i+1 < len(rs) && unicode.IsLower(rs[i+1]))) {
			b.WriteByte('_')
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// actions lists the keymap's bindings by action name, in the keymap's
// order.
func (k *keyMap) actions() (names []string, byName map[string]*key.Binding) {
	v := reflect.ValueOf(k).Elem()
	byName = map[string]*key.Binding{}
	for i := range v.NumField() {
		f := v.Type().Field(i)
		b, ok := v.Field(i).Addr().Interface().(*key.Binding)
		if !ok {
			continue
		}
		n := actionName(f.Name)
		names = append(names, n)
		byName[n] = b
	}
	return names, byName
}

// keyNamesKnown are Bubble Tea's names of the keys that are not a
// character ("enter", "ctrl+a", "f1", …).
var keyNamesKnown = func() map[string]bool {
	m := map[string]bool{}
	for t := -200; t <= 200; t++ {
		if s := tea.KeyType(t).String(); s != "" && utf8.RuneCountInString(s) > 1 {
			m[s] = true
		}
	}
	return m
}()

// normaliseKey is a key as written in [keys] as Bubble Tea names it
// ("space" is " "), and whether it is a key at all: one printable
// character, or a named key, either after "alt+".
func normaliseKey(s string) (string, bool) {
	if s == "space" {
		return " ", true
	}
	if s == " " {
		return s, true
	}
	base := s
	if rest, ok := strings.CutPrefix(s, "alt+"); ok && rest != "" {
		base = rest
		if base == "space" {
			return "alt+ ", true
		}
	}
	if utf8.RuneCountInString(base) == 1 {
		r, _ := utf8.DecodeRuneInString(base)
		return s, unicode.IsPrint(r) && !unicode.IsSpace(r)
	}
	return s, keyNamesKnown[base]
}

// keyHelp is how help writes a key.
func keyHelp(k string) string {
	switch k {
	case " ":
		return "space"
	case "up":
		return "↑"
	case "down":
		return "↓"
	case "left":
		return "←"
	case "right":
		return "→"
	case "pgdown":
		return "pgdn"
	}
	return k
}

// CheckKeys checks the [keys] table of c: every action exists and may be
// remapped, every key is one, and no two actions that act in one place
// answer the same key. Each problem names the file's line; all are
// reported at once.
func CheckKeys(c config.Custom) error {
	_, errs := customKeys(c)
	return errors.Join(errs...)
}

// customKeyMap is the keymap with c's [keys] applied (what was wrong with them
// was refused when the profile loaded; here it is left out).
func customKeyMap(c config.Custom) *keyMap {
	k, _ := customKeys(c)
	return k
}

// customKeys is the default keymap with c's [keys] applied, and what was
// wrong with them (the keymap then keeps what was right).
func customKeys(c config.Custom) (*keyMap, []error) {
	k := newKeyMap()
	if len(c.Keys) == 0 {
		return k, nil
	}
	names, byName := k.actions()
	defaults := map[string][]string{}
	for _, n := range names {
		defaults[n] = byName[n].Keys()
	}
	var errs []error
	fail := func(line int, format string, args ...any) {
		errs = append(errs, keysError(c.File, line, fmt.Sprintf(format, args...)))
	}
	set := map[string]int{}      // action -> line it was remapped on
	setIn := map[string]string{} // action -> the table it was remapped in
	for _, want := range c.Keys {
		kb := want
		b, ok := byName[kb.Action]
		switch {
		case !ok:
			if hint := nearest(kb.Action, names); hint != "" {
				fail(kb.Line, "[%s] %s: no such action (did you mean %s?)", tableOf(kb.Table, "keys"), kb.Action, hint)
			} else {
				fail(kb.Line, "[%s] %s: no such action; the actions are listed in paydash's ? help and the README's Key bindings", tableOf(kb.Table, "keys"), kb.Action)
			}
			continue
		case fixedActions[kb.Action] != "":
			fail(kb.Line, "[%s] %s cannot be remapped: %s", tableOf(kb.Table, "keys"), kb.Action, fixedActions[kb.Action])
			continue
		}
		var keys []string
		bad := false
		for _, raw := range kb.Keys {
			n, ok := normaliseKey(raw)
			if !ok {
				fail(kb.Line, "[%s] %s = %q: %q is not a key; write one character (\"Q\", \"?\"), or a name such as enter, esc, tab, space, up, pgdown, f5, ctrl+q or alt+x", tableOf(kb.Table, "keys"), kb.Action, raw, raw)
				bad = true
				continue
			}
			keys = append(keys, n)
		}
		if bad {
			continue
		}
		help := make([]string, len(keys))
		for i, key := range keys {
			help[i] = keyHelp(key)
		}
		*b = key.NewBinding(key.WithKeys(keys...), key.WithHelp(strings.Join(help, "/"), b.Help().Desc))
		set[kb.Action], setIn[kb.Action] = kb.Line, tableOf(kb.Table, "keys")
	}
	// Conflicts: two actions sharing a scope and a key they did not
	// share by default.
	for _, a := range names {
		line, remapped := set[a]
		if !remapped {
			continue
		}
		for _, other := range names {
			if other == a || !shareScope(a, other) {
				continue
			}
			if _, both := set[other]; both && other < a {
				continue // reported once, from the first
			}
			for _, key := range byName[a].Keys() {
				if slices.Contains(byName[other].Keys(), key) && (!slices.Contains(defaults[a], key) || !slices.Contains(defaults[other], key)) {
					fail(line, "[%s] %s = %q conflicts with %s, which %s already answers in the same place; choose another key, or remap %s too",
						setIn[a], a, keyHelp(key), other, keyHelp(key), other)
				}
			}
		}
	}
	k.Search = kb(k.Filter.Help().Key, "search", k.Filter.Keys()...)
	if _, closeSet := set["close_help"]; !closeSet {
		if _, helpSet := set["help"]; helpSet {
			// The key that opens help closes it, as ? does by default.
			keys := append(slices.Clone(k.Help.Keys()), "esc", "q", "enter")
			k.CloseHelp = kb(k.Help.Help().Key+"/esc", k.CloseHelp.Help().Desc, keys...)
		}
	}
	return k, errs
}

// shareScope reports whether actions a and b act in one place.
func shareScope(a, b string) bool {
	for _, s := range actionScopes[a] {
		if slices.Contains(actionScopes[b], s) {
			return true
		}
	}
	return false
}

// nearest is the name within two edits of s, or "".
func nearest(s string, names []string) string { return suggest.Nearest(s, names, 2) }

// tableOf is the table an entry was written in, def when not said.
func tableOf(table, def string) string {
	if table == "" {
		return def
	}
	return table
}

// keysError is a problem of the config file's [keys] or [theme] at line.
func keysError(file string, line int, problem string) error {
	where := "config"
	if file != "" {
		where += " " + file
	}
	if line > 0 {
		where += fmt.Sprintf(": line %d", line)
	}
	return errors.New(where + ": " + problem)
}
