package batch

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/payguard"
	"github.com/paydash/paydash/webhookrelay"
	"github.com/paydash/paydash/webhookrelay/relayclient"
	"github.com/paydash/paydash/webhookrelay/relaytest"
)

// TestRejectedEarlierPayoutIsNotADuplicateInABatch: a batch pays a row
// the service then rejects (the relay stores it; the report never lists
// it) while nobody follows the relay, so the audit record says
// "accepted". A corrected file sent as a new batch has the same payout:
// the duplicate check asks the relay, records the rejection and sends the
// row; it is paid once.
func TestRejectedEarlierPayoutIsNotADuplicateInABatch(t *testing.T) {
	x := startSvc(t, nil)
	rl := relaytest.Start(t, webhookrelay.Config{JKUAllow: []string{x.srv.Info().JWKSURL}})
	x.srv.SetWebhookURI(rl.WebhookURL)
	relayURL := rl.WSURL

	first := writeFileIn(t, "name,iban,reference,amount,currency\nAML Test,"+ibanGB+",REJ-1,9.99,GBP\n")
	if r := x.batch(t, context.Background(), first, "", CommandOptions{Yes: true, RelayURL: relayURL}); r.code != 0 {
		t.Fatalf("first batch: exit %d\n%s", r.code, r.all())
	}
	// The rejection reaches the relay.
	deadline := time.Now().Add(10 * time.Second)
	for {
		ids := x.auditIDs(t)
		if len(ids) == 1 {
			if st, _, ok, _ := (relayclient.History{URL: relayURL}).FinalState(context.Background(), ids[0]); ok && st == api.StateRejected {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("the relay never stored the rejection")
		}
		time.Sleep(50 * time.Millisecond)
	}
	// The same payout, now to a payee the AML check passes, from a new file.
	second := writeFileIn(t, "name,iban,reference,amount,currency\nAda Lovelace,"+ibanGB+",REJ-1,9.99,GBP\n")
	r2 := x.batch(t, context.Background(), second, "", CommandOptions{Yes: true, RelayURL: relayURL, Wait: time.Millisecond})
	if r2.code != 0 || strings.Contains(r2.all(), "DUPLICATE") {
		t.Fatalf("re-send of a rejected payout: exit %d\n%s", r2.code, r2.all())
	}
	x.wantPaidOnce(t, "REJ", []string{"REJ-1 9.99 GBP"})
}

// auditIDs returns the transaction ids the profile's audit record holds.
func (x *svc) auditIDs(t *testing.T) []string {
	t.Helper()
	matches, _ := filepath.Glob(filepath.Join(x.env["XDG_STATE_HOME"], "paydash", "audit", "*.jsonl"))
	if len(matches) != 1 {
		return nil
	}
	log, err := payguard.Open(matches[0], "", nil)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := log.Entries()
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, a := range payguard.Attempts(entries) {
		ids = append(ids, a.TransactionID)
	}
	return ids
}
