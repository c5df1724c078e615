package ui

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"

	"github.com/charmbracelet/lipgloss"

	"github.com/paydash/paydash/config"
)

// The config file's [theme] table (k9s's skins are the model): a base
// theme, and any style overridden by name, its colours and bold and
// underline. NO_COLOR and a terminal that is not one draw no colour in
// any theme (lipgloss's default renderer); the production banner stays
// loud in every theme (themedStyles).

// baseThemes are the base themes [theme] base may name.
var baseThemes = []string{"auto", "dark", "light", "high-contrast", "mono"}

// byName is every style by the name [theme] gives it.
func (s *styles) byName() map[string]*lipgloss.Style {
	return map[string]*lipgloss.Style{
		"title": &s.title, "prod": &s.prod, "tab_active": &s.tabActive, "tab_idle": &s.tabIdle,
		"muted": &s.muted, "good": &s.good, "warn": &s.warn, "bad": &s.bad, "bold": &s.bold,
		"header": &s.header, "selected": &s.selected, "highlight": &s.highlight, "warn_row": &s.warnRow,
		"alert": &s.alert, "box": &s.box, "json_key": &s.jsonKey, "json_string": &s.jsonString,
		"json_number": &s.jsonNumber, "json_lit": &s.jsonLit, "credit": &s.credit, "debit": &s.debit,
	}
}

var hexColour = regexp.MustCompile(`^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$`)

// themeColour reads a colour of [theme]: "#rgb", "#rrggbb", or an ANSI
// colour number 0-255.
func themeColour(s string) (lipgloss.Color, bool) {
	if hexColour.MatchString(s) {
		return lipgloss.Color(s), true
	}
	if n, err := strconv.Atoi(s); err == nil && n >= 0 && n <= 255 {
		return lipgloss.Color(s), true
	}
	return "", false
}

// CheckTheme checks the [theme] table of c: a known base theme, known
// style names and colours that are colours. Each problem names the
// file's line; all are reported at once.
func CheckTheme(c config.Custom) error {
	var errs []error
	th := c.Theme
	if th.Base != "" && !slices.Contains(baseThemes, th.Base) {
		errs = append(errs, keysError(c.File, th.BaseLine, fmt.Sprintf("[%s] base = %q: no such theme; the themes are auto, dark, light, high-contrast and mono", tableOf(th.BaseTable, "theme"), th.Base)))
	}
	var st styles
	names := st.byName()
	known := make([]string, 0, len(names))
	for n := range names {
		known = append(known, n)
	}
	for _, o := range th.Styles {
		if _, ok := names[o.Style]; !ok {
			hint := ""
			if n := nearest(o.Style, known); n != "" {
				hint = fmt.Sprintf(" (did you mean %s?)", n)
			}
			errs = append(errs, keysError(c.File, o.Line, fmt.Sprintf("[%s] %s: no such style%s; the styles are listed in the README's Your keys and colours", tableOf(o.Table, "theme"), o.Style, hint)))
			continue
		}
		for _, col := range []struct{ what, v string }{{"fg", o.FG}, {"bg", o.BG}} {
			if col.v == "" {
				continue
			}
			if _, ok := themeColour(col.v); !ok {
				errs = append(errs, keysError(c.File, o.Line, fmt.Sprintf("[%s] %s %s = %q is not a colour; write \"#ff8800\", \"#f80\" or an ANSI colour number 0-255", tableOf(o.Table, "theme"), o.Style, col.what, col.v)))
			}
		}
	}
	return errors.Join(errs...)
}

// CheckCustom checks the config file's [keys] and [theme] for the
// dashboard: what a profile load refuses (the dashboard and `paydash
// config check`), each problem naming its line.
func CheckCustom(c config.Custom) error {
	return errors.Join(CheckKeys(c), CheckTheme(c))
}
