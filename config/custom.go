package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"
)

// The config file's top-level [keys] and [theme] tables make the
// dashboard the person's own (issue 28): every profile of the file gets
// them. Here they are read and their TOML shapes checked, each entry
// keeping its line; what the names mean (which actions and styles exist,
// which keys, which colours, which keys conflict) is the dashboard's to
// say (ui.CheckCustom), and it says it naming the same line.

// KeyBinding is one line of [keys]: `action = "key"` or
// `action = ["key", "key"]`.
type KeyBinding struct {
	Action string
	Keys   []string
	Line   int
	// Table is where it was written: "keys", or "profiles.NAME.keys"
	// for a profile's own.
	Table string
}

// ThemeStyle is one style of [theme]: `style = "#ff8800"` (its
// foreground) or `style = { fg = "…", bg = "…", bold = true, underline = false }`.
type ThemeStyle struct {
	Style     string
	FG, BG    string
	Bold      *bool
	Underline *bool
	Line      int
	// Table is where it was written: "theme", or "profiles.NAME.theme".
	Table string
}

// Theme is the [theme] table: a base theme and the styles it overrides.
type Theme struct {
	// Base is "auto" (dark or light from the terminal's background, the
	// default), "dark", "light", "high-contrast" or "mono"; Line is
	// where it was set (0 when not).
	Base     string
	BaseLine int
	// BaseTable is where base was written ("theme" or
	// "profiles.NAME.theme").
	BaseTable string
	Styles    []ThemeStyle
}

// Custom is what [keys] and [theme] hold, and the file they came from.
type Custom struct {
	File  string
	Keys  []KeyBinding
	Theme Theme
}

// IsZero reports that the file customises nothing.
func (c Custom) IsZero() bool {
	return len(c.Keys) == 0 && len(c.Theme.Styles) == 0 && c.Theme.Base == ""
}

// linePeek is decoded into to learn a value's line: BurntSushi/toml
// reports a decoding error with the position of the key being decoded.
type linePeek struct{}

var errPeek = errors.New("line peek")

func (*linePeek) UnmarshalText([]byte) error { return errPeek }

// lineOf is the line the value prim was written on (0 if unknown).
func lineOf(md toml.MetaData, prim toml.Primitive) int {
	var one linePeek
	var pe toml.ParseError
	if errors.As(md.PrimitiveDecode(prim, &one), &pe) {
		return pe.Position.Line
	}
	var many []linePeek
	if errors.As(md.PrimitiveDecode(prim, &many), &pe) {
		return pe.Position.Line
	}
	var table map[string]linePeek
	if errors.As(md.PrimitiveDecode(prim, &table), &pe) {
		return pe.Position.Line
	}
	return 0
}

// lineError is a problem of the file at a line.
func lineError(path string, line int, format string, args ...any) error {
	where := ""
	if line > 0 {
		where = fmt.Sprintf("line %d: ", line)
	}
	return &Error{File: path, Problem: where + fmt.Sprintf(format, args...)}
}

// readKeys reads a keys table (at is its path: keys, or profiles NAME
// keys): action = "key" or ["key", …].
func readKeys(path string, md toml.MetaData, prim toml.Primitive, at ...string) ([]KeyBinding, []error) {
	label := strings.Join(at, ".")
	var table map[string]toml.Primitive
	if err := decodeTable(md, prim, &table); err != nil {
		return nil, []error{lineError(path, lineOf(md, prim), "%s must be a table: [%s] then lines like quit = \"Q\", got %s", label, label, tomlType(md, at...))}
	}
	var out []KeyBinding
	var errs []error
	for _, action := range sortedKeys(table) {
		line := lineOf(md, table[action])
		var one string
		var many []string
		switch {
		case md.PrimitiveDecode(table[action], &one) == nil:
			many = []string{one}
		case md.PrimitiveDecode(table[action], &many) == nil && len(many) > 0:
		default:
			errs = append(errs, lineError(path, line, "[%s] %s: want a key in quotes (%s = \"Q\") or a list of keys (%s = [\"Q\", \"ctrl+q\"]), got %s",
				label, action, action, action, tomlType(md, append(at, action)...)))
			continue
		}
		out = append(out, KeyBinding{Action: action, Keys: many, Line: line, Table: label})
	}
	return out, errs
}

// readTheme reads [theme]: base = "…", and style = "colour" or
// style = { fg, bg, bold, underline }.
func readTheme(path string, md toml.MetaData, prim toml.Primitive, at ...string) (Theme, []error) {
	label := strings.Join(at, ".")
	var th Theme
	var table map[string]toml.Primitive
	if err := decodeTable(md, prim, &table); err != nil {
		return th, []error{lineError(path, lineOf(md, prim), "%s must be a table: [%s] then lines like base = \"high-contrast\" or header = { fg = \"#ffaa00\", bold = true }, got %s", label, label, tomlType(md, at...))}
	}
	var errs []error
	for _, name := range sortedKeys(table) {
		line := lineOf(md, table[name])
		if name == "base" {
			if md.PrimitiveDecode(table[name], &th.Base) != nil {
				errs = append(errs, lineError(path, line, "[%s] base: want a theme name in quotes (auto, dark, light, high-contrast or mono), got %s", label, tomlType(md, append(at, name)...)))
			}
			th.BaseLine, th.BaseTable = line, label
			continue
		}
		st := ThemeStyle{Style: name, Line: line, Table: label}
		if md.PrimitiveDecode(table[name], &st.FG) == nil {
			th.Styles = append(th.Styles, st)
			continue
		}
		var parts map[string]toml.Primitive
		if err := decodeTable(md, table[name], &parts); err != nil {
			errs = append(errs, lineError(path, line, "[%s] %s: want a colour in quotes (%s = \"#ff8800\") or a table (%s = { fg = \"#ff8800\", bold = true }), got %s",
				label, name, name, name, tomlType(md, append(at, name)...)))
			continue
		}
		ok := true
		for _, p := range sortedKeys(parts) {
			var err error
			switch p {
			case "fg":
				err = md.PrimitiveDecode(parts[p], &st.FG)
			case "bg":
				err = md.PrimitiveDecode(parts[p], &st.BG)
			case "bold":
				st.Bold = new(bool)
				err = md.PrimitiveDecode(parts[p], st.Bold)
			case "underline":
				st.Underline = new(bool)
				err = md.PrimitiveDecode(parts[p], st.Underline)
			default:
				errs = append(errs, lineError(path, line, "[%s] %s: unknown attribute %q; a style holds fg, bg, bold and underline", label, name, p))
				ok = false
				continue
			}
			if err != nil {
				want := "a colour in quotes"
				if p == "bold" || p == "underline" {
					want = "true or false (without quotes)"
				}
				errs = append(errs, lineError(path, line, "[%s] %s.%s: want %s, got %s", label, name, p, want, tomlType(md, append(at, name, p)...)))
				ok = false
			}
		}
		if ok {
			th.Styles = append(th.Styles, st)
		}
	}
	return th, errs
}

// over is c with a profile's own keys and theme laid over it: an action
// or style the profile names replaces the file's, its base replaces the
// file's base.
func (c Custom) over(own Custom) Custom {
	out := Custom{File: c.File, Theme: c.Theme}
	for _, k := range c.Keys {
		if !slices.ContainsFunc(own.Keys, func(o KeyBinding) bool { return o.Action == k.Action }) {
			out.Keys = append(out.Keys, k)
		}
	}
	out.Keys = append(out.Keys, own.Keys...)
	if own.Theme.Base != "" {
		out.Theme.Base, out.Theme.BaseLine, out.Theme.BaseTable = own.Theme.Base, own.Theme.BaseLine, own.Theme.BaseTable
	}
	out.Theme.Styles = nil
	for _, st := range c.Theme.Styles {
		if !slices.ContainsFunc(own.Theme.Styles, func(o ThemeStyle) bool { return o.Style == st.Style }) {
			out.Theme.Styles = append(out.Theme.Styles, st)
		}
	}
	out.Theme.Styles = append(out.Theme.Styles, own.Theme.Styles...)
	return out
}

// FileCustom is the [keys] and [theme] of the config file at path (""
// means PAYDASH_CONFIG, else DefaultPath), as every profile of it starts
// from: for a dashboard that runs on no profile of the file (the demo).
// A file that does not exist has none.
func FileCustom(path string, getenv func(string) string) (Custom, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	file, _ := filePath(path, getenv)
	doc, err := readFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return Custom{}, nil
	}
	if err != nil {
		return Custom{}, err
	}
	return doc.custom, nil
}
