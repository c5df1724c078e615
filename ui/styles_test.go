package ui

import (
	"io"
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
)

// Colours worked out once for the terminal's profile draw exactly what
// lipgloss draws converting them on every Render, on dark and light
// backgrounds alike.
func TestPaletteColoursDrawTheSame(t *testing.T) {
	cols := []lipgloss.AdaptiveColor{colAccent, colMuted, colGood, colWarn, colBad, colSelBG, colHiBG, colKey, colString, colNumber,
		{Light: "#FFFFFF", Dark: "#C00000"}}
	for _, p := range []termenv.Profile{termenv.TrueColor, termenv.ANSI256, termenv.ANSI, termenv.Ascii} {
		for _, dark := range []bool{true, false} {
			r := lipgloss.NewRenderer(io.Discard)
			r.SetColorProfile(p)
			r.SetHasDarkBackground(dark)
			for _, c := range cols {
				want := r.NewStyle().Foreground(c).Background(c).Render("x")
				got := r.NewStyle().Foreground(onPalette(p, c)).Background(onPalette(p, c)).Render("x")
				if p == termenv.ANSI256 && !strings.Contains(want, "38;5;") {
					t.Fatalf("no 256-colour sequence drawn: %q", want)
				}
				if got != want {
					t.Errorf("profile %v dark %v colour %v: drawn %q, lipgloss draws %q", p, dark, c, got, want)
				}
			}
		}
	}
}
