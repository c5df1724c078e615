package config

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"
)

// View is a saved view of the transaction report: a name, a filter in
// the report's filter language, a sort, the columns shown (and their
// order), a time window, and the Payouts tracker's columns. A profile
// holds its views as [[profiles.NAME.views]] tables; the dashboard
// (:view NAME) and `paydash transactions --view NAME` read the same ones,
// so both show the same rows.
type View struct {
	Name   string
	Filter string
	// Sort is a column of ReportColumns, then optionally "asc" or "desc"
	// ("amount desc"); "" keeps the dashboard's default (newest first).
	Sort string
	// Columns are report columns (ReportColumns) in the order shown; a
	// column left out is hidden. Empty shows every column.
	Columns []string
	// TrackerColumns are the Payouts tracker's columns (TrackerColumns),
	// likewise.
	TrackerColumns []string
	// Window is one of Windows ("" for none): the report's date: term.
	Window string
	// Line is the line of the view's [[profiles.NAME.views]] header in
	// the config file (0 when unknown), for messages.
	Line int
}

// Query is the view's filter with its window, in the report's filter
// language: what the dashboard's filter bar shows and the CLI matches.
func (v View) Query() string {
	q := strings.TrimSpace(v.Filter)
	if v.Window != "" {
		q = strings.TrimSpace(q + " date:" + v.Window)
	}
	return q
}

// ReportColumns names the transaction report's columns, in the
// dashboard's default order, as a view writes them.
var ReportColumns = []string{"time", "type", "status", "cur", "amount", "beneficiary", "iban", "reference", "id"}

// TrackerColumns names the Payouts tracker's columns, in its default
// order.
var TrackerColumns = []string{"id", "beneficiary", "amount", "state", "timeline"}

// Windows are the time windows a view may name (the report's date:).
var Windows = []string{"today", "7d", "30d", "all"}

// StartTabs are the tabs a profile may open on (start_tab).
var StartTabs = []string{"balances", "transactions", "payouts", "events", "payout", "payment", "mandate", "approvals"}

// viewKeys are the keys a view's table may hold.
var viewKeys = []string{"name", "filter", "sort", "columns", "tracker_columns", "window"}

// FilterChecker reports why a filter cannot be read (nil when it can).
// The report's parser lives above config, so the caller supplies it
// (LoadOptions.CheckFilter); without one, a view's filter is checked
// only when it is used.
type FilterChecker func(filter string) error

// fileOnlyKey is whether key is one of the profile keys only the file
// can set (views and where the dashboard starts), which applyViews reads.
func fileOnlyKey(key string) bool {
	return key == "views" || key == "start_view" || key == "start_tab"
}

// viewSettings are what applyViews read, until build makes the profile.
type viewSettings struct {
	views               []View
	startView, startTab string
}

// applyViews reads the profile's views, start_view and start_tab from
// the file, checking each; problems name the line they are on.
func (l *loader) applyViews(doc *configFile, table map[string]toml.Primitive, check FilterChecker) {
	lines := viewLines(doc.path, l.profile)
	at := func(i int, key string) string {
		if i >= len(lines) {
			return ""
		}
		if n := lines[i].keys[key]; n > 0 {
			return fmt.Sprintf("line %d: ", n)
		}
		if lines[i].header > 0 {
			return fmt.Sprintf("line %d: ", lines[i].header)
		}
		return ""
	}
	s := setting{layer: layerFile}
	if prim, ok := table["views"]; ok {
		var raw []map[string]toml.Primitive
		if err := doc.md.PrimitiveDecode(prim, &raw); err != nil {
			l.fail("views", s, "must be tables [[profiles.%s.views]] with name, filter, sort, columns, tracker_columns and window, got %s",
				l.profile, tomlType(doc.md, "profiles", l.profile, "views"))
		}
		seen := map[string]int{}
		for i, t := range raw {
			v := View{}
			if i < len(lines) {
				v.Line = lines[i].header
			}
			key := func(k string) string { return fmt.Sprintf("views[%d].%s", i+1, k) }
			fail := func(k, format string, args ...any) {
				l.fail(key(k), s, at(i, k)+format, args...)
			}
			for _, k := range sortedKeys(t) {
				if !slices.Contains(viewKeys, k) {
					if hint := suggestKey(k, viewKeys); hint != "" {
						fail(k, "unknown key (did you mean %s?)", hint)
					} else {
						fail(k, "unknown key; a view may hold: %s", strings.Join(viewKeys, ", "))
					}
				}
			}
			str := func(k string, into *string) {
				if p, ok := t[k]; ok {
					if err := doc.md.PrimitiveDecode(p, into); err != nil {
						fail(k, "must be a string in quotes")
					}
				}
			}
			list := func(k string, into *[]string, known []string) {
				p, ok := t[k]
				if !ok {
					return
				}
				if err := doc.md.PrimitiveDecode(p, into); err != nil {
					fail(k, `must be a list of column names in quotes, e.g. ["%s", "%s"]`, known[0], known[1])
					return
				}
				checkColumns(fail, k, *into, known)
			}
			str("name", &v.Name)
			str("filter", &v.Filter)
			str("sort", &v.Sort)
			str("window", &v.Window)
			list("columns", &v.Columns, ReportColumns)
			list("tracker_columns", &v.TrackerColumns, TrackerColumns)
			v.Name = strings.TrimSpace(v.Name)
			switch {
			case v.Name == "":
				fail("name", `every view needs a name, e.g. name = "failed-gbp"`)
			case strings.ContainsAny(v.Name, " \t"):
				fail("name", "view name %q has a space; use - or _ (it is typed as :view NAME and --view NAME)", v.Name)
			case seen[v.Name] > 0:
				fail("name", "a second view named %q (the first is view %d)", v.Name, seen[v.Name])
			default:
				seen[v.Name] = i + 1
			}
			if v.Window != "" && !slices.Contains(Windows, v.Window) {
				fail("window", "window %q: use one of %s", v.Window, strings.Join(Windows, ", "))
			}
			if v.Sort != "" {
				if err := checkSort(v.Sort); err != nil {
					fail("sort", "%v", err)
				}
			}
			if check != nil && v.Filter != "" {
				if err := check(v.Filter); err != nil {
					fail("filter", "filter %q: %v", v.Filter, err)
				}
			}
			l.viewSet.views = append(l.viewSet.views, v)
		}
	}
	str := func(k string, into *string) {
		if p, ok := table[k]; ok {
			if err := doc.md.PrimitiveDecode(p, into); err != nil {
				l.fail(k, s, "must be a string in quotes, got %s", tomlType(doc.md, "profiles", l.profile, k))
			}
		}
	}
	str("start_view", &l.viewSet.startView)
	str("start_tab", &l.viewSet.startTab)
	if sv := l.viewSet.startView; sv != "" && !slices.ContainsFunc(l.viewSet.views, func(v View) bool { return v.Name == sv }) {
		var names []string
		for _, v := range l.viewSet.views {
			names = append(names, v.Name)
		}
		if len(names) == 0 {
			l.fail("start_view", s, "names view %q but the profile has no [[profiles.%s.views]]", sv, l.profile)
		} else {
			l.fail("start_view", s, "names view %q, which the profile does not have (its views: %s)", sv, strings.Join(names, ", "))
		}
	}
	if st := l.viewSet.startTab; st != "" && !slices.Contains(StartTabs, st) {
		problem := "start_tab %q: use one of " + strings.Join(StartTabs, ", ")
		if hint := suggestKey(st, StartTabs); hint != "" {
			problem = "start_tab %q (did you mean " + hint + "?)"
		}
		l.fail("start_tab", s, problem, st)
	}
}

// checkColumns refuses an unknown or repeated column.
func checkColumns(fail func(k, format string, args ...any), k string, cols, known []string) {
	dup := map[string]bool{}
	for _, c := range cols {
		switch {
		case !slices.Contains(known, c):
			if hint := suggestKey(c, known); hint != "" {
				fail(k, "unknown column %q (did you mean %s?)", c, hint)
			} else {
				fail(k, "unknown column %q; the columns are %s", c, strings.Join(known, ", "))
			}
		case dup[c]:
			fail(k, "column %q is listed twice", c)
		}
		dup[c] = true
	}
}

// checkSort reads "column", "column asc" or "column desc".
func checkSort(s string) error {
	f := strings.Fields(s)
	if len(f) == 0 || len(f) > 2 {
		return fmt.Errorf("sort %q: write a column, then asc or desc, e.g. \"amount desc\"", s)
	}
	if !slices.Contains(ReportColumns, f[0]) {
		if hint := suggestKey(f[0], ReportColumns); hint != "" {
			return fmt.Errorf("sort %q: unknown column %q (did you mean %s?)", s, f[0], hint)
		}
		return fmt.Errorf("sort %q: unknown column %q; the columns are %s", s, f[0], strings.Join(ReportColumns, ", "))
	}
	if len(f) == 2 && f[1] != "asc" && f[1] != "desc" {
		return fmt.Errorf("sort %q: %q is neither asc nor desc", s, f[1])
	}
	return nil
}

// SortOf splits a view's sort into its column and direction (desc).
// An empty sort is ("", false).
func SortOf(s string) (col string, desc bool) {
	f := strings.Fields(s)
	if len(f) == 0 {
		return "", false
	}
	return f[0], len(f) == 2 && f[1] == "desc"
}

// ViewByName is the profile's view of that name.
func (p *Profile) ViewByName(name string) (View, bool) {
	for _, v := range p.Views {
		if v.Name == name {
			return v, true
		}
	}
	return View{}, false
}

// ViewNames lists the profile's views, in the file's order.
func (p *Profile) ViewNames() []string {
	names := make([]string, 0, len(p.Views))
	for _, v := range p.Views {
		names = append(names, v.Name)
	}
	return names
}

// viewLine is where one [[profiles.NAME.views]] table and its keys are.
type viewLine struct {
	header int
	keys   map[string]int
}

var tableHeader = regexp.MustCompile(`^\s*\[\[?\s*([^\]]*?)\s*\]\]?\s*(#.*)?$`)

// viewLines finds, in the file's text, the line of each of profile's
// [[profiles.NAME.views]] headers and of the keys under it, in order
// (the TOML library keeps no positions). A view written inline is not
// found; its messages then name no line.
func viewLines(path, profile string) []viewLine {
	raw, err := os.ReadFile(path) //nolint:gosec // the config file already read
	if err != nil {
		return nil
	}
	want := map[string]bool{
		"profiles." + profile + ".views":         true,
		`profiles."` + profile + `".views`:       true,
		"profiles.'" + profile + "'.views":       true,
		`"profiles"."` + profile + `"."views"`:   true,
		"profiles . " + profile + " . views":     true,
		"profiles." + profile + `."views"`:       true,
		`profiles."` + profile + `"."views"`:     true,
		"profiles.'" + profile + "'.'views'":     true,
		"profiles . '" + profile + "' . 'views'": true,
	}
	var out []viewLine
	in := false
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if m := tableHeader.FindStringSubmatch(line); m != nil && strings.HasPrefix(strings.TrimSpace(line), "[") {
			in = strings.HasPrefix(strings.TrimSpace(line), "[[") && want[m[1]]
			if in {
				out = append(out, viewLine{header: n, keys: map[string]int{}})
			}
			continue
		}
		if !in {
			continue
		}
		if k, _, ok := strings.Cut(line, "="); ok {
			k = strings.Trim(strings.TrimSpace(k), `"'`)
			if _, dup := out[len(out)-1].keys[k]; !dup {
				out[len(out)-1].keys[k] = n
			}
		}
	}
	return out
}

// AppendView saves v as a new [[profiles.PROFILE.views]] table at the end
// of the config file at path. The file's own text (comments, order, other
// profiles) is kept byte for byte: the table is appended as text, the
// result is parsed and its views checked before anything is written, and
// the file is replaced atomically with its mode kept (0600 stays 0600).
// A name the profile already uses is refused.
func AppendView(path, profile string, v View, check FilterChecker) error {
	if strings.TrimSpace(v.Name) == "" || strings.ContainsAny(v.Name, " \t") {
		return fmt.Errorf("view name %q: one word, e.g. failed-gbp", v.Name)
	}
	raw, err := os.ReadFile(path) //nolint:gosec // the profile's own config file
	if err != nil {
		return fmt.Errorf("save view %s: %w", v.Name, err)
	}
	st, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("save view %s: %w", v.Name, err)
	}
	var b strings.Builder
	b.Write(raw)
	if len(raw) > 0 && !bytes.HasSuffix(raw, []byte("\n")) {
		b.WriteByte('\n')
	}
	b.WriteString("\n[[profiles." + tomlKey(profile) + ".views]]\n")
	b.WriteString("name = " + tomlString(v.Name) + "\n")
	if v.Filter != "" {
		b.WriteString("filter = " + tomlString(v.Filter) + "\n")
	}
	if v.Sort != "" {
		b.WriteString("sort = " + tomlString(v.Sort) + "\n")
	}
	if len(v.Columns) > 0 {
		b.WriteString("columns = " + tomlList(v.Columns) + "\n")
	}
	if len(v.TrackerColumns) > 0 {
		b.WriteString("tracker_columns = " + tomlList(v.TrackerColumns) + "\n")
	}
	if v.Window != "" {
		b.WriteString("window = " + tomlString(v.Window) + "\n")
	}
	text := b.String()
	// Check the result as Load would, from a scratch copy.
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("save view %s: %w", v.Name, err)
	}
	defer func() { _ = os.Remove(tmp.Name()) }()
	if _, err := tmp.WriteString(text); err != nil {
		_ = tmp.Close()
		return fmt.Errorf("save view %s: %w", v.Name, err)
	}
	if err := tmp.Chmod(st.Mode().Perm()); err != nil {
		_ = tmp.Close()
		return fmt.Errorf("save view %s: %w", v.Name, err)
	}
	if err := tmp.Sync(); err != nil {
		_ = tmp.Close()
		return fmt.Errorf("save view %s: %w", v.Name, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("save view %s: %w", v.Name, err)
	}
	if err := checkViewsIn(tmp.Name(), path, profile, check); err != nil {
		return fmt.Errorf("save view %s: not saved: %w", v.Name, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("save view %s: %w", v.Name, err)
	}
	return nil
}

// checkViewsIn parses the file at scratch (to become path) and checks
// profile's views there, as Load would.
func checkViewsIn(scratch, path, profile string, check FilterChecker) error {
	doc, err := readFile(scratch)
	if err != nil {
		return err
	}
	doc.path = scratch
	l := &loader{file: path, profile: profile, values: map[string]setting{}}
	l.applyViews(doc, doc.profiles[profile], check)
	if len(l.errs) > 0 {
		return errors.Join(l.errs...)
	}
	return nil
}

// tomlString is s as a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func tomlList(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = tomlString(x)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// tomlKey is a profile name as a TOML key: bare when it can be.
func tomlKey(k string) string {
	if k != "" && strings.Trim(k, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") == "" {
		return k
	}
	return tomlString(k)
}
