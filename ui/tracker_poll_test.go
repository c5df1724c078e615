package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/webhookrelay/relayclient"
)

func reconnectingState() <-chan relayclient.ConnState {
	ch := make(chan relayclient.ConnState, 1)
	ch <- relayclient.ConnState{Status: relayclient.StateReconnecting, RetryIn: 30e9}
	close(ch) // the harness needs closed channels; the state stays reconnecting
	return ch
}

// TestRelayDownOutcomeComesFromTheReport: with the relay reconnecting, a
// payout sent from the form does not stay "sent" for good: the tracker
// polls the report, the payout settles on screen, and both the result and
// the tracker say the state came from the report.
func TestRelayDownOutcomeComesFromTheReport(t *testing.T) {
	fb := newFake(10)
	h := newHarness(t, Options{Backend: fb, States: reconnectingState()}, 120, 40)
	fillPayout(h, "Ada Lovelace", "DE75512108001245126199", "INV-9", "10.00")
	h.key("y")
	if len(fb.payouts) != 1 {
		t.Fatalf("sent %d", len(fb.payouts))
	}
	screen := ansi.Strip(h.view())
	if !strings.Contains(screen, "the relay is not live, so paydash polls the transaction report") {
		t.Errorf("the result still promises a webhook while the relay is down:\n%s", screen)
	}
	if strings.Contains(screen, "arrives by webhook") {
		t.Errorf("the result promises a webhook:\n%s", screen)
	}

	// The service settles it; the report shows it.
	req := fb.payouts[0]
	fb.mu.Lock()
	old, n := fb.txs, fb.nTxs
	fb.txs = func(i int) api.Transaction {
		if i == n {
			return api.Transaction{TransactionID: req.TransactionID, Type: api.TransactionPayout, Status: api.StateSettled,
				AuthorisedAt: api.NewReportTime(fixedNow), SettledAt: api.NewReportTime(fixedNow.Add(2e9)),
				BeneficiaryName: req.BeneficiaryName, BeneficiaryIBAN: req.BeneficiaryIBAN, BeneficiaryReference: req.BeneficiaryReference,
				AmountInMinor: req.AmountInMinor, Currency: req.Currency}
		}
		return old(i)
	}
	fb.nTxs = n + 1
	fb.mu.Unlock()
	h.advance(pollEvery)

	screen = ansi.Strip(h.view())
	for _, want := range []string{"✓ Payout accepted (202) and settled", "state from the transaction report (relay not live)"} {
		if !strings.Contains(screen, want) {
			t.Errorf("result lacks %q:\n%s", want, screen)
		}
	}
	h.key("3")
	screen = ansi.Strip(h.view())
	if !strings.Contains(screen, "settled") || !strings.Contains(screen, "state from the transaction report") {
		t.Errorf("the tracker does not show the settled state and where it came from:\n%s", screen)
	}
}

// TestRelayDownPayoutMissingFromTheReportIsFlagged: an accepted payout
// the report never shows (a rejection, which only the relay reports) is
// flagged instead of staying "sent" silently.
func TestRelayDownPayoutMissingFromTheReportIsFlagged(t *testing.T) {
	fb := newFake(10)
	h := newHarness(t, Options{Backend: fb, States: reconnectingState()}, 120, 40)
	fillPayout(h, "Ada Lovelace", "DE75512108001245126199", "INV-10", "10.00")
	h.key("y")
	h.advance(pollEvery)
	if screen := ansi.Strip(h.view()); !strings.Contains(screen, "not in the report: if it was rejected, only the relay can say why") {
		t.Errorf("no flag for a payout the report lacks:\n%s", screen)
	}
}
