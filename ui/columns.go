package ui

import (
	"strings"

	"github.com/charmbracelet/lipgloss"
)

// colSpec describes one table column. Columns with the highest drop
// priority disappear first when the terminal is narrow; flex columns share
// what is left once everything fits.
type colSpec struct {
	title string
	w     int // minimum width
	right bool
	drop  int // 0 = never dropped
	flex  int // share of spare width (0 = fixed)
	max   int // 0 = unbounded
}

// layoutCols returns each column's width for a table width (0 = hidden),
// with one space between shown columns.
func layoutCols(specs []colSpec, width int) []int {
	ws := make([]int, len(specs))
	shown := make([]bool, len(specs))
	for i := range specs {
		shown[i] = true
	}
	need := func() int {
		n, cols := 0, 0
		for i, s := range specs {
			if shown[i] {
				n += s.w
				cols++
			}
		}
		return n + max(cols-1, 0)
	}
	for need() > width {
		worst, wi := 0, -1
		for i, s := range specs {
			if shown[i] && s.drop > worst {
				worst, wi = s.drop, i
			}
		}
		if wi < 0 {
			break
		}
		shown[wi] = false
	}
	spare := width - need()
	flexTotal := 0
	for i, s := range specs {
		if shown[i] {
			ws[i] = s.w
			flexTotal += s.flex
		}
	}
	// Hand out spare width by flex share, respecting maxima; repeat so
	// width a capped column cannot use goes to the others.
	for spare > 0 && flexTotal > 0 {
		given := 0
		nextFlex := 0
		for i, s := range specs {
			if !shown[i] || s.flex == 0 || (s.max > 0 && ws[i] >= s.max) {
				continue
			}
			add := max(spare*s.flex/flexTotal, 1)
			if s.max > 0 {
				add = min(add, s.max-ws[i])
			}
			add = min(add, spare-given)
			ws[i] += add
			given += add
			if s.max == 0 || ws[i] < s.max {
				nextFlex += s.flex
			}
		}
		if given == 0 {
			break
		}
		spare -= given
		flexTotal = nextFlex
	}
	return ws
}

// renderCells joins cells fitted to their widths; hidden columns vanish.
// A non-nil style for a cell colours it after fitting, so widths stay
// exact.
func renderCells(b *strings.Builder, specs []colSpec, ws []int, cells []string, cellStyles ...*lipgloss.Style) {
	first := true
	for i, w := range ws {
		if w == 0 {
			continue
		}
		if !first {
			b.WriteByte(' ')
		}
		first = false
		// Cells are plain text, much of it from outside: clean it.
		var c string
		if specs[i].right {
			c = fitRight(clean(cells[i]), w)
		} else {
			c = fit(clean(cells[i]), w)
		}
		if i < len(cellStyles) && cellStyles[i] != nil {
			c = cellStyles[i].Render(c)
		}
		b.WriteString(c)
	}
}

// headerCells renders the column titles.
func headerCells(specs []colSpec, ws []int) string {
	var b strings.Builder
	titles := make([]string, len(specs))
	for i, s := range specs {
		titles[i] = s.title
	}
	renderCells(&b, specs, ws, titles)
	return b.String()
}

// gutter is the first column of a list row: ">" marks the cursor and "*"
// a row that just changed, so both show without colour (NO_COLOR).
func gutter(cursor, changed bool) string {
	switch {
	case cursor:
		return ">"
	case changed:
		return "*"
	}
	return " "
}
