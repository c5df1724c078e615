package sandbox

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/paydash/paydash/api"
)

// TestJSONInAnotherCharsetIsRefused: JSON is UTF-8. A body declared in
// another charset would be read as other text than its sender meant (a
// payee name in Latin-1 is not the same name in UTF-8), so the sandbox
// refuses it with 415, on the payout interface and its own endpoints
// alike, and changes nothing; UTF-8, in any spelling, or no charset, is
// taken.
func TestJSONInAnotherCharsetIsRefused(t *testing.T) {
	e := newEnv(t, nil)
	tok := e.token(api.ScopePayouts)
	post := func(ct string, p *api.PayoutRequest) rawResponse {
		body, _ := json.Marshal(p)
		sig, err := api.Sign(e.key, testKeyID, http.MethodPost, "/v1/payouts", nil, body)
		if err != nil {
			t.Fatal(err)
		}
		h := http.Header{"Authorization": {"Bearer " + tok}, api.HeaderPayoutSignature: {sig}, "Content-Type": {ct}}
		return e.do(http.MethodPost, "/v1/payouts", h, body)
	}
	before := e.balance("GBP")
	for _, cs := range []string{"iso-8859-1", "latin1", "windows-1252", "utf-16", "UTF-16LE", "us-ascii", "utf-7", `"utf-8 "`, "x"} {
		ct := "application/json; charset=" + cs
		if r := post(ct, payout("GBP", 100)); r.status != http.StatusUnsupportedMediaType || r.problem == nil || !strings.HasSuffix(r.problem.Type, "/unsupported_media_type") {
			t.Errorf("payout declared %q: %d %s, want 415", ct, r.status, r.body)
		}
		r := e.do(http.MethodPost, "/sandbox/fund", http.Header{"Content-Type": {ct}}, []byte(`{"currency":"GBP","amount_in_minor":100,"payer_name":"x"}`))
		if r.status != http.StatusUnsupportedMediaType {
			t.Errorf("fund declared %q: %d %s, want 415", ct, r.status, r.body)
		}
	}
	if after := e.balance("GBP"); after != before {
		t.Errorf("refused requests changed the account: %+v -> %+v", before, after)
	}
	for _, ct := range []string{"application/json", "application/json; charset=utf-8", "application/json; charset=UTF-8", "application/json;charset=\"utf-8\"", "application/json; charset=utf8"} {
		if r := post(ct, payout("GBP", 100)); r.status != http.StatusAccepted {
			t.Errorf("payout declared %q: %d %s, want 202", ct, r.status, r.body)
		}
	}
}
