package sandbox

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/paydash/paydash/api"
)

// TestSandboxRefusesNamesThatDriveATerminal: the sandbox applies the same
// character rule as paydash's forms and commands (api validation): a
// payout or funding whose name or reference holds a control, format or
// bidi character is 400 on that field and creates nothing; names in any
// script are taken.
func TestSandboxRefusesNamesThatDriveATerminal(t *testing.T) {
	e := newEnv(t, nil)
	tok := e.token(api.ScopePayouts)
	send := func(edit func(*api.PayoutRequest)) rawResponse {
		p := payout("GBP", 100)
		edit(p)
		body, _ := json.Marshal(p)
		return e.signedPost("/v1/payouts", api.HeaderPayoutSignature, tok, "", body, e.key)
	}
	before := e.balance("GBP")
	for _, v := range []string{"Evil\x1b[2J", "GB29\u202e4321", "A\u200bB", "Paid\rRefund", "A\u0085B"} {
		if r := send(func(p *api.PayoutRequest) { p.BeneficiaryName = v }); r.status != http.StatusBadRequest || !strings.Contains(string(r.body), "beneficiary_name") {
			t.Errorf("payout to %q: %d %s, want 400 on beneficiary_name", v, r.status, r.body)
		}
		if r := send(func(p *api.PayoutRequest) { p.BeneficiaryReference = v }); r.status != http.StatusBadRequest || !strings.Contains(string(r.body), "beneficiary_reference") {
			t.Errorf("payout referenced %q: %d %s, want 400 on beneficiary_reference", v, r.status, r.body)
		}
		r := e.control(http.MethodPost, "/sandbox/fund", map[string]any{"currency": "GBP", "amount_in_minor": 100, "payer_name": v})
		if r.status != http.StatusBadRequest || !strings.Contains(string(r.body), "payer_name") {
			t.Errorf("funding from %q: %d %s, want 400 on payer_name", v, r.status, r.body)
		}
	}
	if after := e.balance("GBP"); after != before {
		t.Errorf("refused requests moved money: %+v -> %+v", before, after)
	}
	for _, v := range []string{"Müller GmbH", "O'Brien & Co.", "Zoë", "山田太郎"} {
		if r := send(func(p *api.PayoutRequest) { p.BeneficiaryName = v }); r.status != http.StatusAccepted {
			t.Errorf("payout to %q: %d %s, want 202", v, r.status, r.body)
		}
	}
}
