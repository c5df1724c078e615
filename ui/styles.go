package ui

import (
	"strconv"

	"github.com/paydash/paydash/config"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
)

// Colours are adaptive (light/dark terminal) and go through lipgloss's
// default renderer, which honours NO_COLOR and non-terminal output by
// degrading to plain text; nothing here forces a colour profile.
var (
	colAccent = lipgloss.AdaptiveColor{Light: "#5A3FC0", Dark: "#A98BFF"}
	colMuted  = lipgloss.AdaptiveColor{Light: "#6B6B6B", Dark: "#8A8A8A"}
	colGood   = lipgloss.AdaptiveColor{Light: "#1A7F37", Dark: "#3FB950"}
	colWarn   = lipgloss.AdaptiveColor{Light: "#9A6700", Dark: "#D29922"}
	colBad    = lipgloss.AdaptiveColor{Light: "#CF222E", Dark: "#F85149"}
	colSelBG  = lipgloss.AdaptiveColor{Light: "#DDD6FE", Dark: "#3B2F6B"}
	colHiBG   = lipgloss.AdaptiveColor{Light: "#FFF1B8", Dark: "#4A3F00"}
	colKey    = lipgloss.AdaptiveColor{Light: "#0550AE", Dark: "#79C0FF"}
	// Strings green, as jq prints them: a blue near the keys' blue made
	// keys and values hard to tell apart on 256-colour terminals.
	colString = lipgloss.AdaptiveColor{Light: "#116329", Dark: "#7EE787"}
	colNumber = lipgloss.AdaptiveColor{Light: "#953800", Dark: "#FFA657"}
)

// styles is built once per model (lipgloss styles are values; building
// them per frame would cost allocations in View).
type styles struct {
	title      lipgloss.Style
	prod       lipgloss.Style
	tabActive  lipgloss.Style
	tabIdle    lipgloss.Style
	muted      lipgloss.Style
	good       lipgloss.Style
	warn       lipgloss.Style
	bad        lipgloss.Style
	bold       lipgloss.Style
	header     lipgloss.Style
	selected   lipgloss.Style
	highlight  lipgloss.Style
	warnRow    lipgloss.Style
	alert      lipgloss.Style
	box        lipgloss.Style
	jsonKey    lipgloss.Style
	jsonString lipgloss.Style
	jsonNumber lipgloss.Style
	jsonLit    lipgloss.Style
	credit     lipgloss.Style // money in
	debit      lipgloss.Style // money out
}

// onPalette is c as the terminal's colour profile shows it, worked out
// once: lipgloss converts a hex colour to a 256- or 16-colour
// terminal's nearest on every Render (a search of the palette), which
// was a tenth of the dashboard's CPU at a busy hour. The colour drawn is
// the same.
func onPalette(p termenv.Profile, c lipgloss.AdaptiveColor) lipgloss.AdaptiveColor {
	one := func(hex string) string {
		switch v := p.Color(hex).(type) {
		case termenv.ANSI256Color:
			return strconv.Itoa(int(v))
		case termenv.ANSIColor:
			return strconv.Itoa(int(v))
		}
		return hex // true colour, or none
	}
	if p != termenv.ANSI256 && p != termenv.ANSI {
		return c
	}
	return lipgloss.AdaptiveColor{Light: one(c.Light), Dark: one(c.Dark)}
}

// palette is the colours one theme draws with.
type palette struct {
	accent, muted, good, warn, bad, selBG, hiBG, key, str, num lipgloss.AdaptiveColor
	// plain draws no colour at all (the mono theme): what colour said,
	// bold, underline and reverse say.
	plain bool
}

// basePalette is the palette of a base theme: auto (the adaptive
// colours, light or dark from the terminal's background), dark or light
// (one side of them whatever the background), high-contrast (the 16
// basic colours' brightest, which every terminal draws and its user has
// tuned), or mono.
func basePalette(base string) palette {
	p := palette{accent: colAccent, muted: colMuted, good: colGood, warn: colWarn, bad: colBad,
		selBG: colSelBG, hiBG: colHiBG, key: colKey, str: colString, num: colNumber}
	side := func(dark bool) {
		for _, c := range []*lipgloss.AdaptiveColor{&p.accent, &p.muted, &p.good, &p.warn, &p.bad, &p.selBG, &p.hiBG, &p.key, &p.str, &p.num} {
			if dark {
				c.Light = c.Dark
			} else {
				c.Dark = c.Light
			}
		}
	}
	ansi := func(light, dark string) lipgloss.AdaptiveColor {
		return lipgloss.AdaptiveColor{Light: light, Dark: dark}
	}
	switch base {
	case "dark":
		side(true)
	case "light":
		side(false)
	case "high-contrast":
		// Bright on dark, the basic dark shades on light; muted text is
		// not dimmed: it must be read too.
		p = palette{accent: ansi("5", "13"), muted: ansi("0", "15"), good: ansi("2", "10"), warn: ansi("3", "11"), bad: ansi("1", "9"),
			selBG: ansi("14", "4"), hiBG: ansi("11", "3"), key: ansi("4", "14"), str: ansi("2", "10"), num: ansi("5", "11")}
	case "mono":
		p.plain = true
	}
	return p
}

// themedStyles are the styles of theme th: its base palette, then each
// style it overrides. th was checked (CheckTheme); what is wrong in it
// is left out here.
func themedStyles(th config.Theme) styles {
	s := lipgloss.NewStyle()
	prof := lipgloss.ColorProfile()
	p := basePalette(th.Base)
	var (
		colAccent = onPalette(prof, p.accent)
		colMuted  = onPalette(prof, p.muted)
		colGood   = onPalette(prof, p.good)
		colWarn   = onPalette(prof, p.warn)
		colBad    = onPalette(prof, p.bad)
		colSelBG  = onPalette(prof, p.selBG)
		colHiBG   = onPalette(prof, p.hiBG)
		colKey    = onPalette(prof, p.key)
		colString = onPalette(prof, p.str)
		colNumber = onPalette(prof, p.num)
		white     = onPalette(prof, lipgloss.AdaptiveColor{Light: "#FFFFFF", Dark: "#FFFFFF"})
		red       = onPalette(prof, lipgloss.AdaptiveColor{Light: "#C00000", Dark: "#C00000"})
	)
	st := styles{
		title: s.Bold(true).Foreground(colAccent),
		// The production banner must be impossible to miss, in colour and
		// (through its text) without.
		prod:       s.Bold(true).Foreground(white).Background(red),
		tabActive:  s.Bold(true).Foreground(colAccent).Underline(true),
		tabIdle:    s.Foreground(colMuted),
		muted:      s.Foreground(colMuted),
		good:       s.Foreground(colGood),
		warn:       s.Foreground(colWarn).Bold(true),
		bad:        s.Foreground(colBad).Bold(true),
		bold:       s.Bold(true),
		header:     s.Bold(true).Foreground(colAccent),
		selected:   s.Background(colSelBG).Bold(true),
		highlight:  s.Background(colHiBG),
		warnRow:    s.Foreground(colWarn).Bold(true),
		alert:      s.Foreground(colBad).Bold(true),
		box:        s.Border(lipgloss.RoundedBorder()).BorderForeground(colMuted).Padding(0, 1),
		jsonKey:    s.Foreground(colKey),
		jsonString: s.Foreground(colString),
		jsonNumber: s.Foreground(colNumber),
		jsonLit:    s.Foreground(colAccent),
		credit:     s.Foreground(colGood),
		debit:      s.Foreground(colBad),
	}
	if p.plain {
		st = monoStyles(st)
	}
	if th.Base == "high-contrast" {
		st.selected = st.selected.Reverse(true).UnsetBackground()
	}
	byName := st.byName()
	for _, o := range th.Styles {
		one, ok := byName[o.Style]
		if !ok {
			continue
		}
		if c, ok := themeColour(o.FG); ok && o.FG != "" {
			*one = one.Foreground(c)
		}
		if c, ok := themeColour(o.BG); ok && o.BG != "" {
			*one = one.Background(c)
		}
		if o.Bold != nil {
			*one = one.Bold(*o.Bold)
		}
		if o.Underline != nil {
			*one = one.Underline(*o.Underline)
		}
	}
	// Whatever the theme says, the production banner stays loud: bold,
	// and reversed when it has no background colour of its own.
	st.prod = st.prod.Bold(true)
	if _, none := st.prod.GetBackground().(lipgloss.NoColor); none {
		st.prod = st.prod.Reverse(true)
	}
	return st
}

// monoStyles are st without a colour: selection reversed, warnings and
// errors bold, the production banner reversed.
func monoStyles(st styles) styles {
	s := lipgloss.NewStyle()
	return styles{
		title: s.Bold(true), prod: s.Bold(true).Reverse(true), tabActive: s.Bold(true).Underline(true), tabIdle: s,
		muted: s, good: s, warn: s.Bold(true), bad: s.Bold(true), bold: s.Bold(true), header: s.Bold(true),
		selected: s.Reverse(true), highlight: s.Underline(true), warnRow: s.Bold(true), alert: s.Bold(true).Reverse(true),
		box: st.box.UnsetBorderForeground(), jsonKey: s.Bold(true), jsonString: s, jsonNumber: s, jsonLit: s,
		credit: s, debit: s,
	}
}
