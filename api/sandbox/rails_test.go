package sandbox

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/paydash/paydash/api"
)

// TestSandboxRefusesPayoutsTheRailCannotCarry: sent straight to the
// payout interface (no client-side check), a payout whose IBAN its
// currency's rail does not reach is refused with 400 naming
// beneficiary_iban, as the service would, and moves no money; one the rail
// reaches is accepted.
func TestSandboxRefusesPayoutsTheRailCannotCarry(t *testing.T) {
	e := newEnv(t, nil)
	tok := e.token(api.ScopePayouts)
	send := func(currency, iban string) rawResponse {
		p := payout(currency, 100)
		p.BeneficiaryIBAN = iban
		body, _ := json.Marshal(p)
		return e.signedPost("/v1/payouts", api.HeaderPayoutSignature, tok, "", body, e.key)
	}
	gbp, eur := e.balance("GBP"), e.balance("EUR")
	for _, tc := range []struct{ currency, iban string }{
		{"GBP", "DE89370400440532013000"}, {"GBP", "FR1420041010050500013M02606"}, {"GBP", "CH9300762011623852957"},
		{"EUR", "GB33BUKB20201555555555"}, {"EUR", "SA0380000000608010167519"}, {"EUR", "TR330006100519786457841326"},
	} {
		r := send(tc.currency, tc.iban)
		if r.status != http.StatusBadRequest || r.problem == nil || !strings.Contains(string(r.body), "beneficiary_iban") {
			t.Errorf("%s payout to %s: %d %s, want 400 on beneficiary_iban", tc.currency, tc.iban, r.status, r.body)
		}
	}
	if g, e2 := e.balance("GBP"), e.balance("EUR"); g != gbp || e2 != eur {
		t.Errorf("refused payouts moved money: %+v %+v -> %+v %+v", gbp, eur, g, e2)
	}
	for _, tc := range []struct{ currency, iban string }{
		{"GBP", "GB33BUKB20201555555555"}, {"EUR", "DE89370400440532013000"}, {"EUR", "CH9300762011623852957"}, {"EUR", "NL91ABNA0417164300"},
	} {
		if r := send(tc.currency, tc.iban); r.status != http.StatusAccepted {
			t.Errorf("%s payout to %s: %d %s, want 202", tc.currency, tc.iban, r.status, r.body)
		}
	}
}
