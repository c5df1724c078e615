package ui

import (
	"strconv"

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

func newStyles() styles {
	s := lipgloss.NewStyle()
	prof := lipgloss.ColorProfile()
	var (
		colAccent = onPalette(prof, colAccent)
		colMuted  = onPalette(prof, colMuted)
		colGood   = onPalette(prof, colGood)
		colWarn   = onPalette(prof, colWarn)
		colBad    = onPalette(prof, colBad)
		colSelBG  = onPalette(prof, colSelBG)
		colHiBG   = onPalette(prof, colHiBG)
		colKey    = onPalette(prof, colKey)
		colString = onPalette(prof, colString)
		colNumber = onPalette(prof, colNumber)
		white     = onPalette(prof, lipgloss.AdaptiveColor{Light: "#FFFFFF", Dark: "#FFFFFF"})
		red       = onPalette(prof, lipgloss.AdaptiveColor{Light: "#C00000", Dark: "#C00000"})
	)
	return styles{
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
}
