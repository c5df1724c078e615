package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 28 items 3 and 4: [keys] and [theme] are read for every profile
// of the file, each entry with its line, so the dashboard can name the
// line of a problem; a wrong TOML shape is refused here, naming it.
func TestKeysAndThemeAreReadWithTheirLines(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config.toml")
	src := `default_profile = "sandbox"

[keys]
quit = "Q"
help = ["h", "?"]

[theme]
base = "high-contrast"
header = "#ffaa00"
bad = { fg = "9", bold = true }

[profiles.sandbox]
base_url = "https://api.example"
`
	if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	p, _, err := Load(LoadOptions{Path: path, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	c := p.Custom
	if c.File != path || len(c.Keys) != 2 {
		t.Fatalf("custom %+v", c)
	}
	if k := c.Keys[0]; k.Action != "help" || strings.Join(k.Keys, ",") != "h,?" || k.Line != 5 {
		t.Errorf("help: %+v, want h,? on line 5", k)
	}
	if k := c.Keys[1]; k.Action != "quit" || strings.Join(k.Keys, ",") != "Q" || k.Line != 4 {
		t.Errorf("quit: %+v, want Q on line 4", k)
	}
	th := c.Theme
	if th.Base != "high-contrast" || th.BaseLine != 8 || len(th.Styles) != 2 {
		t.Fatalf("theme %+v", th)
	}
	if s := th.Styles[0]; s.Style != "bad" || s.FG != "9" || s.Bold == nil || !*s.Bold || s.Line != 10 {
		t.Errorf("bad: %+v", s)
	}
	if s := th.Styles[1]; s.Style != "header" || s.FG != "#ffaa00" || s.Line != 9 {
		t.Errorf("header: %+v", s)
	}
}

func TestKeysAndThemeOfTheWrongShapeNameTheirLine(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"[keys]\nquit = 7\n", "line 2: [keys] quit: want a key in quotes"},
		{"[keys]\nquit = []\n", "[keys] quit: want a key in quotes"}, // an empty list has no position to name
		{"keys = \"q\"\n", "keys must be a table"},
		{"[theme]\n\nheader = { fg = 3 }\n", "line 3: [theme] header.fg: want a colour in quotes"},
		{"[theme]\nheader = { colour = \"#fff\" }\n", "line 2: [theme] header: unknown attribute \"colour\""},
		{"[theme]\nbase = 1\n", "line 2: [theme] base: want a theme name"},
		{"[keyz]\nquit = \"Q\"\n", "did you mean keys?"},
	} {
		path := filepath.Join(t.TempDir(), "config.toml")
		if err := os.WriteFile(path, []byte(tc.src+"[profiles.p]\nbase_url = \"https://api.example\"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		_, _, err := Load(LoadOptions{Path: path, Getenv: func(string) string { return "" }})
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path) {
			t.Errorf("%q: %v, want %q and the file", tc.src, err, tc.want)
		}
	}
}

// A profile's own [profiles.NAME.keys] and [profiles.NAME.theme] lay
// over the file's, action by action and style by style; another
// profile keeps the file's.
func TestAProfilesOwnKeysAndThemeWin(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.toml")
	src := `[keys]
quit = "Q"
help = "H"

[theme]
base = "dark"
header = "#111111"
bad = "9"

[profiles.ops]
base_url = "https://api.example"
[profiles.ops.keys]
quit = "X"
[profiles.ops.theme]
base = "high-contrast"
header = "#222222"

[profiles.plain]
base_url = "https://api.example"
`
	if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	load := func(name string) Custom {
		p, _, err := Load(LoadOptions{Path: path, Profile: name, Getenv: func(string) string { return "" }})
		if err != nil {
			t.Fatal(err)
		}
		return p.Custom
	}
	keys := func(c Custom) map[string]string {
		m := map[string]string{}
		for _, k := range c.Keys {
			m[k.Action] = strings.Join(k.Keys, ",") + "@" + k.Table
		}
		return m
	}
	styles := func(c Custom) map[string]string {
		m := map[string]string{}
		for _, s := range c.Theme.Styles {
			m[s.Style] = s.FG + "@" + s.Table
		}
		return m
	}
	ops := load("ops")
	if got := keys(ops); got["quit"] != "X@profiles.ops.keys" || got["help"] != "H@keys" || len(got) != 2 {
		t.Errorf("ops keys %v", got)
	}
	if ops.Theme.Base != "high-contrast" || ops.Theme.BaseTable != "profiles.ops.theme" || ops.Theme.BaseLine != 15 {
		t.Errorf("ops base %+v", ops.Theme)
	}
	if got := styles(ops); got["header"] != "#222222@profiles.ops.theme" || got["bad"] != "9@theme" {
		t.Errorf("ops styles %v", got)
	}
	plain := load("plain")
	if got := keys(plain); got["quit"] != "Q@keys" || plain.Theme.Base != "dark" {
		t.Errorf("plain keys %v, base %q", got, plain.Theme.Base)
	}
}
