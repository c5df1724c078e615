package ui

import (
	"strings"
	"time"

	"github.com/charmbracelet/lipgloss"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/report"
)

var txCols = [numColumns]colSpec{
	colTime:      {title: "Time", w: 19},
	colType:      {title: "Type", w: 7, drop: 2}, // kept at 80 columns; the amount's sign says it too
	colStatus:    {title: "Status", w: 10},
	colCurrency:  {title: "Cur", w: 3},
	colAmount:    {title: "Amount", w: 14, right: true},
	colName:      {title: "Beneficiary", w: 14, flex: 2, max: 32},
	colIBAN:      {title: "IBAN", w: 27, drop: 3, flex: 1, max: 34},
	colReference: {title: "Reference", w: 12, drop: 4, flex: 2, max: 36},
	colID:        {title: "ID", w: 36, drop: 5},
}

// detailHeight is the detail pane's height: a rule and five lines of
// two fields side by side, or ten lines of one field on narrow screens.
func detailHeight(w int) int {
	if w < 100 {
		return 11
	}
	return 6
}

func (v *txView) detailView(c *viewContext, w int) string {
	var b strings.Builder
	b.WriteString(c.st.muted.Render(strings.Repeat("─", w)) + "\n")
	if v.nav.cursor >= len(v.idx) {
		return b.String() + c.st.muted.Render("No row selected.")
	}
	t := v.store.Tx(v.idx[v.nav.cursor])
	loc := c.now().Location()
	ts := func(rt api.ReportTime) string {
		if rt.IsZero() {
			return "—"
		}
		return stamp(rt.Time, loc)
	}
	half := w / 2
	field := func(k, val string, fw int) string {
		return c.st.muted.Render(fit(k, 12)) + fit(clean(val), fw-12)
	}
	pair := func(k1, v1, k2, v2 string) string {
		if w < 100 {
			return field(k1, v1, w) + "\n" + field(k2, v2, w)
		}
		return field(k1, v1, half) + field(k2, v2, w-half)
	}
	typ := t.Type
	if t.ContextCode != "" { // fundings carry none
		typ += " · " + t.ContextCode
	}
	lines := []string{
		pair("id", t.TransactionID, "type", typ),
		pair("amount", api.FormatAmount(t.AmountInMinor, t.Currency)+" "+t.Currency, "status", t.Status),
		pair("beneficiary", t.BeneficiaryName, "iban", t.BeneficiaryIBAN),
		pair("reference", t.BeneficiaryReference, "authorised", ts(t.AuthorisedAt)),
		pair("submitted", ts(t.SubmittedAt), "settled", ts(t.SettledAt)),
	}
	b.WriteString(strings.Join(lines, "\n"))
	return b.String()
}

// The report's columns, by their short names in this view.
const (
	colTime      = report.ColTime
	colType      = report.ColType
	colStatus    = report.ColStatus
	colCurrency  = report.ColCurrency
	colAmount    = report.ColAmount
	colName      = report.ColName
	colIBAN      = report.ColIBAN
	colReference = report.ColReference
	colID        = report.ColID
	numColumns   = report.NumColumns
)

// txRow draws one transaction of the report as a line of cells; its
// buffers are reused from row to row of one frame.
type txRow struct {
	specs      []colSpec
	ws         []int
	cells      []string
	cellStyles []*lipgloss.Style
	line       strings.Builder
	// order is the columns shown (nil: all); shown and shownStyles hold
	// a row's cells in that order.
	order       colOrder
	shown       []string
	shownStyles []*lipgloss.Style
}

func newTxRow(specs []colSpec, ws []int, order colOrder) *txRow {
	return &txRow{specs: specs, ws: ws, cells: make([]string, numColumns), cellStyles: make([]*lipgloss.Style, numColumns), order: order}
}

// render is row i of the store, highlighted when selected.
func (r *txRow) render(c *viewContext, st *report.Store, i int32, selected bool, loc *time.Location, w int) string {
	cells := r.cells
	cells[colTime] = stamp(st.Time(i), loc)
	cells[colType] = st.Type(i)
	cells[colStatus] = st.Status(i)
	cells[colCurrency] = st.Currency(i)
	cells[colAmount] = signedAmount(st.Amount(i), cells[colCurrency], cells[colType])
	cells[colName] = st.Name(i)
	cells[colIBAN] = st.IBAN(i)
	cells[colReference] = string(st.Reference(i))
	cells[colID] = string(st.ID(i))
	r.line.Reset()
	r.line.WriteString(gutter(selected, false))
	if selected {
		renderCells(&r.line, r.specs, r.ws, r.order.cells(r.shown, cells))
		return c.st.selected.Render(fit(r.line.String(), w))
	}
	r.cellStyles[colStatus] = c.stateStyle(cells[colStatus])
	r.cellStyles[colAmount] = &c.st.debit
	if api.Credit(cells[colType]) {
		r.cellStyles[colAmount] = &c.st.credit
	}
	r.shown = r.order.cells(r.shown, cells)
	r.shownStyles = r.order.styles(r.shownStyles, r.cellStyles)
	renderCells(&r.line, r.specs, r.ws, r.shown, r.shownStyles...)
	return r.line.String()
}
