package headless

import (
	"strings"
	"testing"

	"github.com/paydash/paydash/internal/cli/cmdutil"
)

// TestCreateRefusesAnIBANTheRailCannotReach: `payout create` refuses,
// before sending and with exit 2, a GBP payout to an account Faster
// Payments does not reach and an EUR payout to one SEPA does not reach.
func TestCreateRefusesAnIBANTheRailCannotReach(t *testing.T) {
	e := startCreateEnv(t, 100_000, nil)
	for i, tc := range []struct{ currency, iban, rail string }{
		{"GBP", "DE89370400440532013000", "Faster Payments"},
		{"GBP", "IE29AIBK93115212345678", "Faster Payments"},
		{"EUR", "GB33BUKB20201555555555", "SEPA"},
		{"EUR", "SA0380000000608010167519", "SEPA"},
	} {
		o := newPayout("RAIL-"+string(rune('A'+i)), "1.00")
		o.Currency, o.IBAN = tc.currency, tc.iban
		_, _, code, err := e.create(t, o)
		if code != cmdutil.ExitUsage || err == nil || !strings.Contains(err.Error(), tc.rail) || !strings.Contains(err.Error(), "beneficiary_iban") {
			t.Errorf("%s payout to %s: exit %d (%v), want %d naming %s", tc.currency, tc.iban, code, err, cmdutil.ExitUsage, tc.rail)
		}
		if n := e.reportCount(t, o.Reference); n != 0 {
			t.Errorf("%s payout to %s: %d sent", tc.currency, tc.iban, n)
		}
	}
}
