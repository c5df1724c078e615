// Package report is the transaction report engine shared by the
// dashboard and `paydash transactions`: a columnar store that holds a
// million rows in little memory and takes incremental refreshes, one
// filter language (the filter bar and the CLI flags), sorting by any
// column, per-currency totals, and one streaming CSV/JSON writer.
//
// It may import api and internal/platform leaves; never ui or a command,
// which both import it.
package report
