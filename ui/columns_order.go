package ui

import (
	"github.com/charmbracelet/lipgloss"
)

// colOrder is the columns a list shows and their order, as indexes into
// the list's full column set; nil shows every column in the default
// order. A saved view and :columns set it; a column left out is hidden,
// and the widths of those shown adapt to the terminal (layoutCols).
type colOrder []int

// specs is the shown columns' specs, in order.
func (o colOrder) specs(all []colSpec) []colSpec {
	if o == nil {
		return all
	}
	out := make([]colSpec, len(o))
	for i, c := range o {
		out[i] = all[c]
	}
	return out
}

// cells puts a row's cells (by full column) in the shown order, into dst.
func (o colOrder) cells(dst, all []string) []string {
	if o == nil {
		return all
	}
	dst = dst[:0]
	for _, c := range o {
		dst = append(dst, all[c])
	}
	return dst
}

// styles is cells for the cells' styles.
func (o colOrder) styles(dst, all []*lipgloss.Style) []*lipgloss.Style {
	if o == nil {
		return all
	}
	dst = dst[:0]
	for _, c := range o {
		if c < len(all) {
			dst = append(dst, all[c])
		} else {
			dst = append(dst, nil)
		}
	}
	return dst
}

// orderOf reads column names (a view's columns, :columns) against the
// list's names; ok is false, with the name, for one it does not have.
// No names is nil: every column.
func orderOf(names, known []string) (o colOrder, bad string, ok bool) {
	if len(names) == 0 {
		return nil, "", true
	}
	seen := map[int]bool{}
	for _, n := range names {
		i := indexOf(known, n)
		if i < 0 {
			return nil, n, false
		}
		if !seen[i] {
			o = append(o, i)
			seen[i] = true
		}
	}
	return o, "", true
}

// namesOf is the inverse of orderOf (nil for every column).
func (o colOrder) names(known []string) []string {
	if o == nil {
		return nil
	}
	out := make([]string, len(o))
	for i, c := range o {
		out[i] = known[c]
	}
	return out
}

func indexOf(xs []string, x string) int {
	for i, y := range xs {
		if y == x {
			return i
		}
	}
	return -1
}
