package headless

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/api/sandbox"
	"github.com/paydash/paydash/internal/payout"
	"github.com/paydash/paydash/webhookrelay"
	"github.com/paydash/paydash/webhookrelay/relayclient"
	"github.com/paydash/paydash/webhookrelay/relaytest"
)

// sentPayouts sends one payout per reference to a fresh sandbox and
// records each in an audit record as `payout create` does without
// --wait (attempt, then "accepted"). It returns the record, the client
// and each reference's transaction id.
func sentPayouts(t *testing.T, relayWebhookURL func(jwks string) string, refs ...string) (*payout.Log, *api.Client, map[string]string) {
	t.Helper()
	srv, key := startSandbox(t, sandbox.Options{MerchantKeyID: "k1", History: 0})
	if relayWebhookURL != nil {
		srv.SetWebhookURI(relayWebhookURL(srv.Info().JWKSURL))
	}
	info := srv.Info()
	client, err := api.NewClient(api.Config{AuthURL: info.AuthURL, BaseURL: info.BaseURL, PayoutsURL: info.PayoutsURL,
		ClientID: info.ClientID, ClientSecret: info.ClientSecret, SigningKeyID: "k1", SigningKey: key})
	if err != nil {
		t.Fatal(err)
	}
	log, err := payout.Open(filepath.Join(t.TempDir(), "audit.jsonl"), "test", nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ids := map[string]string{}
	for _, ref := range refs {
		req := api.PayoutRequest{TransactionID: uuid.NewString(), BeneficiaryName: "Ada Lovelace", BeneficiaryIBAN: "GB33BUKB20201555555555",
			BeneficiaryReference: ref, Currency: "GBP", AmountInMinor: 1234, ContextCode: api.ContextCodeWithdrawal}
		if strings.HasPrefix(ref, "AML") {
			req.BeneficiaryName = "AML Test"
		}
		if _, err := log.Reserve(ctx, payout.Entry{Source: payout.SourceCreate, TransactionID: req.TransactionID, Name: req.BeneficiaryName,
			IBAN: req.BeneficiaryIBAN, Reference: ref, AmountInMinor: req.AmountInMinor, Currency: req.Currency}, payout.DefaultWindow, true); err != nil {
			t.Fatal(err)
		}
		if err := client.CreatePayout(ctx, &req); err != nil {
			t.Fatalf("%s: %v", ref, err)
		}
		if err := log.Outcome(req.TransactionID, payout.OutcomeAccepted, ""); err != nil {
			t.Fatal(err)
		}
		ids[ref] = req.TransactionID
	}
	return log, client, ids
}

// logLines runs LearnOutcomes then PayoutsLog until every wanted word is
// on its payout's line (the sandbox moves payouts on in the background),
// and returns the lines by reference.
func logLines(t *testing.T, log *payout.Log, report payout.ReportReader, states payout.FinalStates, want map[string]string) map[string]string {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		s, out, _ := testStreams("")
		LearnOutcomes(context.Background(), s, log, report, states)
		if err := PayoutsLog(s, log, &PayoutsLogOptions{}); err != nil {
			t.Fatal(err)
		}
		lines := map[string]string{}
		done := true
		for _, l := range strings.Split(out.String(), "\n") {
			for ref, word := range want {
				if strings.Contains(l, " "+ref+" ") {
					lines[ref] = l
					if !strings.HasSuffix(strings.TrimSpace(l), " "+word) {
						done = false
					}
				}
			}
		}
		if done && len(lines) == len(want) {
			return lines
		}
		if time.Now().After(deadline) {
			t.Fatalf("payouts log never showed %v:\n%s", want, out)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestPayoutsLogLearnsFinalStates: `payouts log` after `payout create`
// without --wait shows what became of each payout, not "accepted" for
// good: from the relay when there is one (a rejection is only there),
// else from the report; a payout returned after it was submitted reads
// "returned", the word `payout create --wait` uses, not "failed".
func TestPayoutsLogLearnsFinalStates(t *testing.T) {
	t.Run("relay", func(t *testing.T) {
		var relay *relaytest.Relay
		log, client, _ := sentPayouts(t, func(jwks string) string {
			relay = relaytest.Start(t, webhookrelay.Config{JKUAllow: []string{jwks}})
			return relay.WebhookURL
		}, "PAID-1", "RETURN", "FAIL:beneficiary_account_closed", "AML-1")
		logLines(t, log, client, relayclient.History{URL: relay.WSURL}, map[string]string{
			"PAID-1": "settled", "RETURN": "returned", "FAIL:beneficiary_account_closed": "failed", "AML-1": "rejected",
		})
	})
	t.Run("report only", func(t *testing.T) {
		log, client, _ := sentPayouts(t, nil, "PAID-1", "RETURN")
		logLines(t, log, client, nil, map[string]string{"PAID-1": "settled", "RETURN": "returned"})
		// What was learnt is in the record: offline, the words stay.
		s, out, _ := testStreams("")
		if err := PayoutsLog(s, log, &PayoutsLogOptions{Offline: true}); err != nil || !strings.Contains(out.String(), "returned") {
			t.Errorf("offline: %v\n%s", err, out)
		}
	})
}
