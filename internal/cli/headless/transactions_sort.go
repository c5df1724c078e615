package headless

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/report"
)

// The table of `paydash transactions` is newest first, as the
// dashboard's report opens; --sort orders any format by a column. CSV
// and JSON without --sort keep streaming in the service's order (memory
// stays flat whatever the report's size); a sorted output holds the
// matching rows until the last has arrived.

// txSort is a parsed --sort: a column and a direction; none keeps the
// service's order.
type txSort struct {
	none bool
	col  report.Column
	desc bool
}

// sortColumns are the names --sort takes, the dashboard's columns.
var sortColumns = map[string]report.Column{
	"time": report.ColTime, "date": report.ColTime,
	"type": report.ColType, "status": report.ColStatus,
	"cur": report.ColCurrency, "currency": report.ColCurrency,
	"amount":      report.ColAmount,
	"beneficiary": report.ColName, "name": report.ColName,
	"iban": report.ColIBAN, "reference": report.ColReference, "ref": report.ColReference,
	"id": report.ColID, "transaction_id": report.ColID,
}

// sortHelp is --sort's help, naming what it takes.
const sortHelp = "order by a column: time, type, status, currency, amount, beneficiary, iban, reference or id, " +
	"then :asc or :desc (time defaults to newest first, the others ascending); none keeps the service's order " +
	"(default: time for the table, none for --csv and --json, which then stream)"

// parseSort reads --sort; "" is the format's default (newest first for
// the table, the service's order for CSV and JSON).
func parseSort(s, format string) (txSort, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" {
		if format == "table" {
			return txSort{col: report.ColTime, desc: true}, nil
		}
		return txSort{none: true}, nil
	}
	if s == "none" {
		return txSort{none: true}, nil
	}
	name, dir, hasDir := strings.Cut(s, ":")
	col, ok := sortColumns[name]
	if !ok {
		return txSort{}, fmt.Errorf("--sort %q: no such column; sort by time, type, status, currency, amount, beneficiary, iban, reference or id (or none)", name)
	}
	k := txSort{col: col, desc: col == report.ColTime}
	if hasDir {
		switch dir {
		case "asc":
			k.desc = false
		case "desc":
			k.desc = true
		default:
			return txSort{}, fmt.Errorf("--sort %q: the direction is asc or desc, e.g. --sort amount:desc", s)
		}
	}
	return k, nil
}

// compare orders two rows by the column as the dashboard's report does
// (report.Store.Sorted: amounts by size, names case-folded); the caller's
// stable sort keeps the service's order between equal rows, whatever the
// direction.
func (k txSort) compare(a, b *api.Transaction) int {
	var c int
	switch k.col {
	case report.ColTime:
		c = report.RowTime(a).Compare(report.RowTime(b))
	case report.ColType:
		c = strings.Compare(a.Type, b.Type)
	case report.ColStatus:
		c = strings.Compare(a.Status, b.Status)
	case report.ColCurrency:
		c = strings.Compare(a.Currency, b.Currency)
	case report.ColAmount:
		// By size, as the dashboard's report sorts it.
		c = cmp.Compare(a.AmountInMinor, b.AmountInMinor)
	case report.ColName:
		c = strings.Compare(report.Fold(a.BeneficiaryName), report.Fold(b.BeneficiaryName))
	case report.ColIBAN:
		c = strings.Compare(a.BeneficiaryIBAN, b.BeneficiaryIBAN)
	case report.ColReference:
		c = strings.Compare(a.BeneficiaryReference, b.BeneficiaryReference)
	case report.ColID:
		c = strings.Compare(a.TransactionID, b.TransactionID)
	}
	if k.desc {
		return -c
	}
	return c
}

// sortingWriter holds the rows until the stream ends, then writes them
// in order to the format's writer.
type sortingWriter struct {
	k    txSort
	next rowWriter
	rows []api.Transaction
}

func (s *sortingWriter) write(t *api.Transaction) error {
	s.rows = append(s.rows, *t)
	return nil
}

func (s *sortingWriter) close() error {
	slices.SortStableFunc(s.rows, func(a, b api.Transaction) int { return s.k.compare(&a, &b) })
	for i := range s.rows {
		if err := s.next.write(&s.rows[i]); err != nil {
			return err
		}
	}
	s.rows = nil
	return s.next.close()
}
