package report

import (
	"strings"
	"time"
)

// ColumnKeys are the columns' names in a saved view (config.View's
// columns and sort), in the dashboard's order; ColumnNames are their
// titles on screen.
var ColumnKeys = [NumColumns]string{"time", "type", "status", "cur", "amount", "beneficiary", "iban", "reference", "id"}

// ColumnByKey is the column a view names ("amount"), or false.
func ColumnByKey(k string) (Column, bool) {
	for i, n := range ColumnKeys {
		if strings.EqualFold(n, k) {
			return Column(i), true
		}
	}
	return 0, false
}

// CheckFilter reports a filter that cannot be read as the CLI would
// refuse it: a token not understood, or an unknown type, currency or
// status. Saved views are checked with it when the config is loaded.
func CheckFilter(filter string) error {
	q := Parse(filter, time.Now())
	return q.Check()
}
