package ui

import "github.com/charmbracelet/lipgloss"

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

func newStyles() styles {
	s := lipgloss.NewStyle()
	return styles{
		title: s.Bold(true).Foreground(colAccent),
		// The production banner must be impossible to miss, in colour and
		// (through its text) without.
		prod:       s.Bold(true).Foreground(lipgloss.Color("#FFFFFF")).Background(lipgloss.Color("#C00000")),
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
