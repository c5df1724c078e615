package ui

import (
	"errors"
	"strings"
	"testing"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/platform/termtext"
	"github.com/paydash/paydash/webhookrelay/relayclient"
)

// Text from outside paydash, as a hostile payee, a forged webhook or a
// compromised service would send it: an OSC 52 clipboard write, a screen
// clear, a bidi override that makes an IBAN read backwards, a carriage
// return that overwrites a line.
const (
	hostileName = "Evil\x1b]52;c;ZXZpbA==\aCorp"
	hostileRef  = "INV\u202e4321\x1b[2J"
	hostileText = "ok\rPAID \u2067x\u2069 \u0085\u009b31m"
)

// rawUnsafe returns the first character of s that would drive the
// terminal (what termtext escapes), or "" when there is none.
func rawUnsafe(s string) string {
	for _, r := range s {
		if r != '\n' && termtext.Unsafe(r) {
			return strings.TrimPrefix(termtext.Safe(string(r)), "")
		}
	}
	return ""
}

func mustBeSafe(t *testing.T, where, view string) {
	t.Helper()
	if c := rawUnsafe(view); c != "" {
		t.Errorf("%s prints %s raw:\n%s", where, c, termtext.Lines(view))
	}
}

// TestNoViewPrintsOutsideTextRaw: hostile payee names and references in
// the report, a hostile event (type, reason, headers, body), and a
// service error text reach every view (balances, report and its detail,
// payouts tracker and its detail, events and the inspector, the status
// line) only escaped, and visibly so.
func TestNoViewPrintsOutsideTextRaw(t *testing.T) {
	fb := newFake(10)
	base := fb.txs
	fb.txs = func(i int) api.Transaction {
		tx := base(i)
		tx.BeneficiaryName, tx.BeneficiaryReference, tx.ContextCode = hostileName, hostileRef, hostileText
		return tx
	}
	id := testUUID(0)
	evs := []relayclient.Event{{Seq: 1, EventID: "ev-\x1b[1m", Family: relayclient.FamilyPayout, Type: api.EventPayoutRejected + "\u202e",
		PayoutID: id, State: api.StateRejected, Reason: hostileText, OccurredAt: fixedNow, ReceivedAt: fixedNow,
		Headers: map[string]string{"X-Evil\x1b[2J": hostileText},
		Body:    []byte(`{"event_type":"payout_rejected","event_id":"x","event_body":{"transaction_id":"` + id + `","note":"\u001b]52;c;ZXZpbA==\u0007 \u202e"}}`)}}
	h := newHarness(t, Options{Backend: fb, Events: closedEvents(evs), States: liveState()}, 120, 40)
	views := map[string]func(){
		"balances":        func() { h.key("1") },
		"report":          func() { h.key("2") },
		"report detail":   func() { h.key("2"); h.key("enter") },
		"payouts":         func() { h.key("esc"); h.key("3") },
		"payout detail":   func() { h.key("3"); h.key("enter") },
		"events":          func() { h.key("esc"); h.key("4") },
		"event inspector": func() { h.key("4"); h.key("enter") },
	}
	for _, name := range []string{"balances", "report", "report detail", "payouts", "payout detail", "events", "event inspector"} {
		views[name]()
		v := h.view()
		mustBeSafe(t, name, v)
		h.key("esc")
	}
	h.key("2")
	if v := h.view(); !strings.Contains(v, `\x1b`) {
		t.Errorf("the report does not show the escaped name:\n%s", v)
	}
	h.key("4")
	h.key("enter")
	if v := h.view(); !strings.Contains(v, `\u202e`) && !strings.Contains(v, `\x1b`) {
		t.Errorf("the inspector does not show the hostile body escaped:\n%s", v)
	}
	h.key("esc")

	// A service error text, in the balances view and the status line.
	fb.mu.Lock()
	fb.streamErr = errors.New("upstream said \x1b[2J\x1b]0;pwned\a" + hostileText)
	fb.mu.Unlock()
	h.key("1")
	h.key("r")
	mustBeSafe(t, "balances error", h.view())
	h.key("2")
	h.key("r")
	mustBeSafe(t, "report error", h.view())
}
