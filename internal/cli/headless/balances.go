package headless

import (
	"context"
	"fmt"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/cli/cmdutil"
)

// BalanceReader is the part of the api client `balances` uses.
type BalanceReader interface {
	Balances(ctx context.Context) ([]api.Balance, error)
}

// BalanceRow is one element of `balances --json`: the service's fields
// plus the reserved amount (current − available) and the rail.
type BalanceRow struct {
	api.Balance
	ReservedInMinor int64  `json:"reserved_in_minor"`
	Rail            string `json:"rail"`
}

// Rail names the payment rail of a payout account's currency.
func Rail(currency string) string {
	switch currency {
	case "GBP":
		return "Faster Payments"
	case "EUR":
		return "SEPA"
	}
	return ""
}

// Balances prints every payout account.
func Balances(ctx context.Context, s *cmdutil.Streams, c BalanceReader, asJSON bool) error {
	bs, err := c.Balances(ctx)
	if err != nil {
		return fmt.Errorf("read balances: %w", err)
	}
	rows := make([]BalanceRow, len(bs))
	for i, b := range bs {
		rows[i] = BalanceRow{Balance: b, ReservedInMinor: b.CurrentBalanceInMinor - b.AvailableBalanceInMinor, Rail: Rail(b.Currency)}
	}
	if asJSON {
		return cmdutil.WriteJSON(s.Out, rows)
	}
	table := make([][]string, len(rows))
	for i, r := range rows {
		table[i] = []string{r.Currency, r.Rail, r.IBAN, r.Status,
			api.FormatAmount(r.CurrentBalanceInMinor, r.Currency),
			api.FormatAmount(r.AvailableBalanceInMinor, r.Currency),
			api.FormatAmount(r.ReservedInMinor, r.Currency)}
	}
	return cmdutil.WriteTable(s.Out, []string{"CURRENCY", "RAIL", "IBAN", "STATUS", "CURRENT", "AVAILABLE", "RESERVED"}, table, 4, 5, 6)
}
