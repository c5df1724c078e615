package ui

import (
	tea "github.com/charmbracelet/bubbletea"

	"github.com/paydash/paydash/internal/report"
)

// spareMsg brings a result array made ready, while the operator starts
// typing, for the store it was sized for.
type spareMsg struct {
	store *report.Store
	arr   []int32
}

// prepareSpare returns, when the filter bar opens over a big report with
// no result array to reuse, a command that makes one and touches every
// page of it. The first key of a query keeps nearly every row, and its
// result is otherwise a fresh array the kernel faults in page by page as
// it is written: about 10 ms of a million-row first keystroke, spent
// instead in the moment between "/" and the first key.
func (v *txView) prepareSpare() tea.Cmd {
	if v.store == nil || v.store.Len() < bigReport || v.results.hasFree(v.store.Len()) {
		return nil
	}
	st, n := v.store, v.store.Len()
	return func() tea.Msg {
		arr := make([]int32, n)
		for i := 0; i < n; i += pageInts {
			arr[i] = 0 // a write faults the page in; a fresh array is not yet backed
		}
		return spareMsg{store: st, arr: arr}
	}
}

// pageInts is how many int32 fit in a 4 KiB page.
const pageInts = 4096 / 4

// spare takes a prepared array into the pool, unless the report changed
// meanwhile (then it is sized for another store).
func (v *txView) spare(msg spareMsg) {
	if msg.store == v.store {
		v.results.give(msg.arr)
	}
}
