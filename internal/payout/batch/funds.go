package batch

import (
	"sort"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/payout"
)

// FundsCheck compares what a batch sends in one currency with the
// account's available balance.
type FundsCheck struct {
	Currency string `json:"currency"`
	// ToSendInMinor is the sum of the rows to send.
	ToSendInMinor int64 `json:"to_send_in_minor"`
	// AvailableInMinor is the account's available balance.
	AvailableInMinor int64 `json:"available_in_minor"`
	// Account is false when the profile has no payout account in the
	// currency (or it is disabled).
	Account bool   `json:"account"`
	Status  string `json:"status,omitempty"`
	OK      bool   `json:"ok"`
}

// CheckFunds checks each currency's total against the available balance.
func CheckFunds(toSend map[string]int64, bals []api.Balance) []FundsCheck {
	curs := make([]string, 0, len(toSend))
	for c := range toSend {
		curs = append(curs, c)
	}
	sort.Strings(curs)
	var out []FundsCheck
	for _, c := range curs {
		fc := FundsCheck{Currency: c, ToSendInMinor: toSend[c]}
		// The payout pipeline's funds rule, over the currency's total.
		acct, err := payout.CheckFunds(bals, c, toSend[c])
		if acct != nil {
			fc.Account, fc.AvailableInMinor, fc.Status = true, acct.AvailableBalanceInMinor, acct.Status
		}
		fc.OK = err == nil
		out = append(out, fc)
	}
	return out
}

// Payable reports whether a dry run found the batch payable in full:
// every currency funded, no duplicate or changed rows held back.
func (s *Summary) Payable() bool {
	return s.Funded() && s.Counts.Duplicate == 0 && s.Counts.Changed == 0
}

// Funded reports whether a dry run found every currency's rows to send
// covered by an enabled account's available balance.
func (s *Summary) Funded() bool {
	if s.Unchecked != "" {
		return false
	}
	for _, f := range s.Funds {
		if !f.OK {
			return false
		}
	}
	return true
}
