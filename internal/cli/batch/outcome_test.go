package batch

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/payout"
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
	log, err := payout.Open(matches[0], "", nil)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := log.Entries()
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, a := range payout.Attempts(entries) {
		ids = append(ids, a.TransactionID)
	}
	return ids
}

// TestRejectedRowAdviceIsSafeToFollow: a batch in which the service
// rejects one row prints how to pay it. Followed literally (the corrected
// row alone in a new file) it pays that row once; sending the whole
// corrected file again instead holds the rows already paid as duplicates.
// Nothing is paid twice either way.
func TestRejectedRowAdviceIsSafeToFollow(t *testing.T) {
	x := startSvc(t, nil)
	rl := relaytest.Start(t, webhookrelay.Config{JKUAllow: []string{x.srv.Info().JWKSURL}})
	x.srv.SetWebhookURI(rl.WebhookURL)
	opts := CommandOptions{Yes: true, RelayURL: rl.WSURL, Wait: 20 * time.Second}

	const head = "name,iban,reference,amount,currency\n"
	first := writeFileIn(t, head+
		"Ada Lovelace,"+ibanGB+",ADV-1,1.00,GBP\n"+
		"AML Test,"+ibanGB+",ADV-2,2.00,GBP\n"+
		"Grace Hopper,"+ibanGB+",ADV-3,3.00,GBP\n")
	r := x.batch(t, context.Background(), first, "", opts)
	if r.code == 0 || !strings.Contains(r.out, "rejected: aml_check_failed") {
		t.Fatalf("first batch: exit %d, want the rejection shown\n%s", r.code, r.all())
	}
	if !strings.Contains(r.out, unpaidAdvice) {
		t.Fatalf("no advice for the rejected row:\n%s", r.out)
	}
	x.wantPaidOnce(t, "ADV", []string{"ADV-1 1.00 GBP", "ADV-3 3.00 GBP"})

	// The advice, literally: the corrected row alone, in a new file.
	fixed := writeFileIn(t, head+"Ada Byron,"+ibanGB+",ADV-2,2.00,GBP\n")
	if r := x.batch(t, context.Background(), fixed, "", opts); r.code != 0 {
		t.Fatalf("corrected row: exit %d\n%s", r.code, r.all())
	}
	x.wantPaidOnce(t, "ADV", []string{"ADV-1 1.00 GBP", "ADV-2 2.00 GBP", "ADV-3 3.00 GBP"})

	// Its last clause: the whole file, corrected, sent as a new file.
	whole := writeFileIn(t, head+
		"Ada Lovelace,"+ibanGB+",ADV-1,1.00,GBP\n"+
		"Ada Byron,"+ibanGB+",ADV-2,2.00,GBP\n"+
		"Grace Hopper,"+ibanGB+",ADV-3,3.00,GBP\n")
	r = x.batch(t, context.Background(), whole, "", opts)
	if r.code == 0 || strings.Count(r.out, "DUPLICATE, not sent") != 3 {
		t.Fatalf("whole file again: exit %d, want three rows held as duplicates\n%s", r.code, r.all())
	}
	x.wantPaidOnce(t, "ADV", []string{"ADV-1 1.00 GBP", "ADV-2 2.00 GBP", "ADV-3 3.00 GBP"})

	// The first file edited in place: the stop counts the rejected row
	// as accepted, then rejected, not as paid.
	if err := os.WriteFile(first, []byte(head+"Ada Lovelace,"+ibanGB+",ADV-1,1.00,GBP\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r = x.batch(t, context.Background(), first, "", opts)
	if r.code == 0 || !strings.Contains(r.all(), "3 payout(s) accepted by the service (1 of them since rejected or failed)") {
		t.Fatalf("edited first file: exit %d, want the rejected row told apart\n%s", r.code, r.all())
	}
}

// TestRejectedRowEditedInPlace: the operator corrects a rejected row in
// the same file and runs the same command again. The run stops (the file
// changed under its journal) and says to pass --journal NEWPATH; followed
// literally, the corrected row is sent, as its first payout, not refused
// as CHANGED ("already paid"): the payout it replaces paid nobody. The
// record still says "accepted" when the file is edited, as after a run
// that did not wait; the relay's history tells the rejection.
func TestRejectedRowEditedInPlace(t *testing.T) {
	x := startSvc(t, nil)
	rl := relaytest.Start(t, webhookrelay.Config{JKUAllow: []string{x.srv.Info().JWKSURL}})
	x.srv.SetWebhookURI(rl.WebhookURL)
	opts := CommandOptions{Yes: true, RelayURL: rl.WSURL}
	const head = "name,iban,reference,amount,currency\n"
	file := writeFileIn(t, head+
		"Ada Lovelace,"+ibanGB+",EIP-1,1.00,GBP\n"+
		"AML Test,"+ibanGB+",EIP-2,2.00,GBP\n")
	if r := x.batch(t, context.Background(), file, "", opts); r.code != 0 {
		t.Fatalf("first run: exit %d\n%s", r.code, r.all())
	}
	x.waitRelayRejects(t, rl.WSURL, 1)

	if err := os.WriteFile(file, []byte(head+
		"Ada Lovelace,"+ibanGB+",EIP-1,1.00,GBP\n"+
		"Ada Byron,"+ibanGB+",EIP-2,2.00,GBP\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := x.batch(t, context.Background(), file, "", opts)
	if r.code == 0 || !strings.Contains(r.all(), "pass --journal NEWPATH") {
		t.Fatalf("edited file under the old journal: exit %d, want a stop that says --journal NEWPATH\n%s", r.code, r.all())
	}
	x.wantPaidOnce(t, "EIP", []string{"EIP-1 1.00 GBP"})

	opts.Journal = filepath.Join(t.TempDir(), "NEWPATH.journal")
	r = x.batch(t, context.Background(), file, "", opts)
	if r.code != 0 || strings.Contains(r.all(), "CHANGED") {
		t.Fatalf("--journal NEWPATH: exit %d, want the corrected row sent\n%s", r.code, r.all())
	}
	x.wantPaidOnce(t, "EIP", []string{"EIP-1 1.00 GBP", "EIP-2 2.00 GBP"})
}

// waitRelayRejects waits until the relay has n payouts of the audit record
// as rejected.
func (x *svc) waitRelayRejects(t *testing.T, relayURL string, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := 0
		for _, id := range x.auditIDs(t) {
			if st, _, ok, _ := (relayclient.History{URL: relayURL}).FinalState(context.Background(), id); ok && st == api.StateRejected {
				got++
			}
		}
		if got >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the relay has %d rejection(s), want %d", got, n)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
