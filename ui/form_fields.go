package ui

import (
	"errors"
	"reflect"
	"slices"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/huh"

	"github.com/paydash/paydash/api"
)

// check returns a huh validator showing, at the field with this path, the
// api's problems that belong to it.
func (fv *formView) check(c *viewContext, path string) func(string) error {
	return func(string) error {
		err := problemsAt(fv.spec.problems(c, fv.key), path, fv.spec.paths())
		if err == nil {
			return nil
		}
		// Named after the field: the error line shows below the whole
		// page, not under the field it is about.
		return errors.New(fv.name(path) + ": " + fv.human(err.Error()))
	}
}

// name is what the operator calls the field with this request path: its
// title on the form, else the path itself.
func (fv *formView) name(path string) string {
	if l, ok := fv.labels[owner(path, fv.spec.paths())]; ok && l != "" {
		return l
	}
	return path
}

// human rewrites request paths in a message (the api's rules say "must be
// after constraints.valid_from") into the fields' titles.
func (fv *formView) human(msg string) string {
	paths := make([]string, 0, len(fv.labels))
	for p := range fv.labels {
		paths = append(paths, p)
	}
	// Longest first, so a.b.c is not rewritten as a's title + ".b.c".
	slices.SortFunc(paths, func(a, b string) int { return len(b) - len(a) })
	for _, p := range paths {
		if strings.Contains(msg, p) {
			msg = strings.ReplaceAll(msg, p, fv.labels[p])
		}
	}
	return msg
}

// described lists problems as "Field title: message".
func (fv *formView) described(ps api.Problems) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = fv.name(p.Field) + ": " + fv.human(p.Message)
	}
	return out
}

// owner is the field path a problem belongs to: the longest field path
// equal to or a dotted prefix of the problem's; "" when none is.
func owner(field string, paths []string) string {
	best := ""
	for _, p := range paths {
		if (field == p || strings.HasPrefix(field, p+".") || strings.HasPrefix(field, p+"[")) && len(p) > len(best) {
			best = p
		}
	}
	return best
}

func problemsAt(ps api.Problems, path string, paths []string) error {
	var msgs []string
	for _, p := range ps {
		if owner(p.Field, paths) == path {
			msgs = append(msgs, p.Message)
		}
	}
	if len(msgs) == 0 {
		return nil
	}
	return errors.New(strings.Join(msgs, "; "))
}

// unowned lists problems no field shows (cross-field rules), for the
// summary.
func unowned(ps api.Problems, paths []string) []string {
	var out []string
	for _, p := range ps {
		if owner(p.Field, paths) == "" {
			out = append(out, p.String())
		}
	}
	return out
}

// field records a field's title and key for its request path.
func (fv *formView) field(key, title, path string) {
	if fv.labels == nil {
		fv.labels, fv.fieldKeys = map[string]string{}, map[string]string{}
	}
	fv.labels[path] = strings.TrimSpace(title)
	fv.fieldKeys[path] = key
}

// fieldSelect is a select recorded as the field for path.
func (fv *formView) fieldSelect(key, title, path string) *huh.Select[string] {
	fv.field(key, title, path)
	return huh.NewSelect[string]().Key(key).Title(title)
}

func (fv *formView) input(c *viewContext, key, title, path string, val *string, placeholder string) *huh.Input {
	fv.field(key, title, path)
	return huh.NewInput().Key(key).Title(title).Placeholder(placeholder).Value(val).Inline(true).
		Validate(fv.check(c, path))
}

func (fv *formView) choice(c *viewContext, key, title, path string, val *string, opts ...huh.Option[string]) *huh.Select[string] {
	fv.field(key, title, path)
	return huh.NewSelect[string]().Key(key).Title(title).Options(opts...).Value(val).Inline(true).
		Validate(fv.check(c, path))
}

// splitList reads "GB, IE ,FR" as [GB IE FR].
func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// parseMetadata reads key=value lines; problems name the line.
func parseMetadata(s string, path string) (map[string]string, api.Problems) {
	var ps api.Problems
	var md map[string]string
	for i, line := range strings.Split(s, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			ps = append(ps, api.Problem{Field: path, Message: "line " + itoa(i+1) + ": write key=value"})
			continue
		}
		if md == nil {
			md = map[string]string{}
		}
		md[k] = strings.TrimSpace(v)
	}
	return md, ps
}

// errorField is the huh key of the field the last failure names (the
// first problem, or the service's first field error); the confirmation
// when it names none.
func (fv *formView) errorField() string {
	var fields []string
	var ps api.Problems
	var ae *api.Error
	switch {
	case errors.As(fv.err, &ps):
		for _, p := range ps {
			fields = append(fields, p.Field)
		}
	case errors.As(fv.err, &ae) && ae.Problem != nil && len(ae.Problem.Errors) > 0:
		for f := range ae.Problem.Errors {
			fields = append(fields, f)
		}
		slices.Sort(fields)
	case errorPath(fv.err) != "":
		// The payout pipeline names the field at fault (the amount for
		// funds, the source account for a disabled one).
		fields = append(fields, errorPath(fv.err))
	}
	for _, f := range fields {
		if k, ok := fv.fieldKeys[owner(f, fv.spec.paths())]; ok {
			return k
		}
	}
	return confirmKey
}

// advanceTo moves the rebuilt form forward to the field with this key,
// so e after a failure lands on the field to fix rather than on page 1
// of 6. It stops early at a field whose value does not validate, which
// is then the one to fix.
func (fv *formView) advanceTo(c *viewContext, fieldKey string) tea.Cmd {
	if fv.form == nil {
		return nil
	}
	var rest []tea.Cmd
	for range 200 {
		f := fv.form.GetFocusedField()
		if f == nil || f.GetKey() == fieldKey || fv.form.State != huh.StateNormal {
			break
		}
		before := f
		rest = append(rest, runFormCmd(fv.form, fv.form.NextField())...)
		if fv.form.GetFocusedField() == before {
			break // held by validation
		}
	}
	tagged := make([]tea.Cmd, len(rest))
	for i, cmd := range rest {
		tagged[i] = tagCmd(fv.tab, cmd)
	}
	return tea.Batch(append(tagged, fv.resize(c))...)
}

// runFormCmd runs a huh command synchronously and feeds its messages to
// the form, returning the commands it cannot run here (timers).
func runFormCmd(f *huh.Form, cmd tea.Cmd) []tea.Cmd {
	if cmd == nil || isCursorBlink(cmd) {
		return nil
	}
	msg := cmd()
	switch msg := msg.(type) {
	case nil:
		return nil
	case tea.BatchMsg:
		var out []tea.Cmd
		for _, c := range msg {
			out = append(out, runFormCmd(f, c)...)
		}
		return out
	}
	if v := reflect.ValueOf(msg); v.Kind() == reflect.Slice && v.Type().Elem() == cmdType {
		var out []tea.Cmd
		for i := range v.Len() {
			c, _ := v.Index(i).Interface().(tea.Cmd)
			out = append(out, runFormCmd(f, c)...)
		}
		return out
	}
	_, next := f.Update(msg)
	return runFormCmd(f, next)
}
