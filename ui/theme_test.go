package ui

import (
	"reflect"
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/paydash/paydash/config"
)

// Every style can be named in [theme]: a new style without a name fails
// here.
func TestEveryStyleHasAName(t *testing.T) {
	var st styles
	if n, named := reflect.TypeOf(st).NumField(), len(st.byName()); n != named {
		t.Fatalf("styles has %d fields, [theme] names %d", n, named)
	}
}

// Issue 28 item 4: an unknown base theme or style and a colour that is
// none are refused, naming the line.
func TestBadThemeIsRefusedNamingTheLine(t *testing.T) {
	for _, tc := range []struct {
		th   config.Theme
		want string
	}{
		{config.Theme{Base: "solarized", BaseLine: 3}, `config /c.toml: line 3: [theme] base = "solarized": no such theme`},
		{config.Theme{Styles: []config.ThemeStyle{{Style: "headr", FG: "#fff", Line: 4}}}, "line 4: [theme] headr: no such style (did you mean header?)"},
		{config.Theme{Styles: []config.ThemeStyle{{Style: "header", FG: "orange", Line: 5}}}, `line 5: [theme] header fg = "orange" is not a colour`},
		{config.Theme{Styles: []config.ThemeStyle{{Style: "header", BG: "#12345", Line: 6}}}, `line 6: [theme] header bg = "#12345" is not a colour`},
		{config.Theme{Styles: []config.ThemeStyle{{Style: "header", FG: "256", Line: 7}}}, `line 7: [theme] header fg = "256" is not a colour`},
	} {
		err := CheckCustom(config.Custom{File: "/c.toml", Theme: tc.th})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.th, err, tc.want)
		}
	}
	good := config.Theme{Base: "high-contrast", Styles: []config.ThemeStyle{{Style: "header", FG: "#ffaa00", BG: "17", Line: 1}, {Style: "bad", FG: "#f00"}}}
	if err := CheckCustom(config.Custom{Theme: good}); err != nil {
		t.Errorf("a good theme: %v", err)
	}
}

// withColour draws with a true-colour profile for the test (the other
// tests draw plain text).
func withColour(t *testing.T, dark bool) {
	t.Helper()
	lipgloss.SetColorProfile(termenv.TrueColor)
	lipgloss.SetHasDarkBackground(dark)
	t.Cleanup(func() {
		lipgloss.SetColorProfile(termenv.Ascii)
		lipgloss.SetHasDarkBackground(true)
	})
}

// The themes draw what they say, an override applies, and the
// production banner stays loud (bold, and coloured or reversed) in every
// one of them.
func TestThemesAndTheProductionBanner(t *testing.T) {
	withColour(t, true)
	draw := func(th config.Theme, pick func(*styles) lipgloss.Style) string {
		st := themedStyles(th)
		return pick(&st).Render("x")
	}
	header := func(s *styles) lipgloss.Style { return s.header }
	prod := func(s *styles) lipgloss.Style { return s.prod }
	if d, l := draw(config.Theme{Base: "dark"}, header), draw(config.Theme{Base: "light"}, header); d == l {
		t.Errorf("dark and light draw the header alike: %q", d)
	}
	if got := draw(config.Theme{Base: "auto"}, header); got != draw(config.Theme{Base: "dark"}, header) {
		t.Errorf("auto on a dark background is not the dark theme: %q", got)
	}
	if got := draw(config.Theme{Base: "mono"}, header); strings.Contains(got, "38;2") {
		t.Errorf("mono draws a colour: %q", got)
	}
	over := config.Theme{Styles: []config.ThemeStyle{{Style: "header", FG: "#ff8800"}}}
	if got := draw(over, header); !strings.Contains(got, "38;2;255;136;0") {
		t.Errorf("header fg #ff8800 drawn %q", got)
	}
	off := false
	quiet := config.Theme{Base: "mono", Styles: []config.ThemeStyle{{Style: "prod", Bold: &off}}}
	for _, th := range []config.Theme{{}, {Base: "dark"}, {Base: "light"}, {Base: "high-contrast"}, {Base: "mono"}, quiet,
		{Styles: []config.ThemeStyle{{Style: "prod", FG: "#000000", BG: "#ffff00"}}}} {
		got := draw(th, prod)
		loud := strings.Contains(got, "\x1b[1;") || strings.Contains(got, ";1m") || strings.Contains(got, "[1m")
		shown := strings.Contains(got, "48;2") || strings.Contains(got, "7m") || strings.Contains(got, ";7")
		if !loud || !shown {
			t.Errorf("theme %+v: the production banner is drawn %q, want bold with a background or reversed", th, got)
		}
	}
}

// The theme reaches the screen: a dashboard opened with [theme] draws
// its header in the theme's colour.
func TestThemeAppliesToTheDashboard(t *testing.T) {
	withColour(t, true)
	custom := config.Custom{Theme: config.Theme{Styles: []config.ThemeStyle{{Style: "tab_active", FG: "#ff8800"}}}}
	h := newHarness(t, Options{Backend: newFake(5), Custom: custom}, 120, 40)
	if !strings.Contains(h.view(), "38;2;255;136;0") {
		t.Error("the active tab is not drawn in the theme's colour")
	}
}
