package payout

import (
	"fmt"
	"strings"
)

// DuplicateError stops a payout that matches payouts already made; the
// operator must confirm a second time to send it.
type DuplicateError struct {
	Matches []Payment
}

func (e *DuplicateError) Error() string {
	parts := make([]string, len(e.Matches))
	for i, m := range e.Matches {
		parts[i] = m.String()
	}
	return fmt.Sprintf("possible duplicate: the same IBAN, amount, currency and reference were paid as %s; nothing was sent", strings.Join(parts, "; "))
}
