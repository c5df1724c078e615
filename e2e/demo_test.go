package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dustin/go-humanize"

	"github.com/paydash/paydash/api"
)

// balancesVia reads the demo's balances through the headless command,
// the ground truth the screen is checked against.
func balancesVia(t *testing.T, env []string, cfg string) map[string]api.Balance {
	t.Helper()
	out, errOut, code := runCLI(t, env, 20*time.Second, "--config", cfg, "balances", "--json")
	if code != 0 {
		t.Fatalf("paydash balances exit %d: %s", code, errOut)
	}
	var rows []api.Balance
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatalf("balances --json: %v\n%s", err, out)
	}
	m := map[string]api.Balance{}
	for _, b := range rows {
		m[b.Currency] = b
	}
	return m
}

// fillPayoutForm fills the dashboard's New payout form from the GBP
// account and confirms it.
// fillPayoutFields fills the payout form up to its confirmation.
func fillPayoutFields(s *screen, name, iban, reference, amount string) {
	s.t.Helper()
	s.waitText(10*time.Second, "Source account")
	for i := 0; ; i++ {
		if _, ok := line(s.text(), "> GBP"); ok {
			break
		}
		if i == 3 {
			s.t.Fatalf("the GBP account is not in the source list:\n%s", s.text())
		}
		s.press(keyDown)
	}
	s.press(keyEnter)
	enterField(s, "Beneficiary name", name)
	enterField(s, "Beneficiary IBAN", iban)
	enterField(s, "Reference", reference)
	enterField(s, "Amount", amount)
	enterField(s, "Context code", "") // keeps its default, withdrawal
	s.waitText(5*time.Second, "Send this payout?", reference)
}

// fillPayoutForm fills the payout form, sends it and waits for the
// service to accept it.
func fillPayoutForm(s *screen, name, iban, reference, amount string) {
	s.t.Helper()
	fillPayoutFields(s, name, iban, reference, amount)
	s.press("y")
	s.waitText(10*time.Second, "Payout accepted")
}

// enterField waits until the form shows the field titled title focused
// (huh marks it with ┃), types text, waits for it to echo, and moves on
// with Enter. A person looks before typing; doing the same keeps keys from
// landing in the previous field when a loaded machine is slow to move the
// focus.
func enterField(s *screen, title, text string) {
	s.t.Helper()
	s.waitFor("the form's focus on "+title, 10*time.Second, func(txt string) bool {
		_, ok := line(txt, "┃", title)
		return ok
	})
	if text != "" {
		s.typeText(text)
		s.waitFor(fmt.Sprintf("%q typed into %s", text, title), 10*time.Second, func(txt string) bool {
			_, ok := line(txt, "┃", title, text)
			return ok
		})
	}
	s.press(keyEnter)
}

func TestDemoInATerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("walks the whole demo in a real terminal, several seconds: left to the full run")
	}
	env := isolatedEnv(t)
	portsFile := filepath.Join(t.TempDir(), "ports.json")
	s := startScreen(t, env, "demo", "--activity=false", "--step-delay", "300ms", "--ports-file", portsFile)
	cfg := filepath.Join(envValue(env, "XDG_STATE_HOME"), "paydash", "demo", "config.toml")
	const iban = "GB33BUKB20201555555555"

	// 1. The balances and the report appear.
	s.waitText(30*time.Second, "Balances", "Faster Payments", "SEPA", "relay: live")
	before := balancesVia(t, env, cfg)
	gbp := before["GBP"]
	s.waitFor("the GBP balance", 10*time.Second, func(txt string) bool {
		_, ok := line(txt, "GBP", "Faster Payments", api.FormatAmount(gbp.AvailableBalanceInMinor, "GBP"))
		return ok
	})
	csvOut, errOut, code := runCLI(t, env, 30*time.Second, "--config", cfg, "transactions", "--csv")
	if code != 0 {
		t.Fatalf("paydash transactions: exit %d: %s", code, errOut)
	}
	total := int64(strings.Count(csvOut, "\n") - 1)
	if total < 5000 {
		t.Fatalf("the demo's report has %d records, want the 5,000 seeded and the opening fundings", total)
	}
	s.press("2")
	count := humanize.Comma(total)
	s.waitText(20*time.Second, count+" of "+count+" transactions", "payout", "settled")

	// 2. A payout from the form reaches settled in the tracker, and the
	// available balance drops by exactly its amount.
	const amount = int64(4321) // £43.21
	s.press("5")
	fillPayoutForm(s, "E2E Settle Test", iban, "E2E-SETTLE", api.FormatAmountPlain(amount, "GBP"))
	s.press("3")
	s.waitFor("the payout settled in the tracker", 20*time.Second, func(txt string) bool {
		_, ok := line(txt, "E2E Settle Test", "settled")
		return ok
	})
	s.press("1")
	wantAvail := gbp.AvailableBalanceInMinor - amount
	s.waitFor("the GBP balance down by £43.21", 15*time.Second, func(txt string) bool {
		_, ok := line(txt, "GBP", "Faster Payments", api.FormatAmount(wantAvail, "GBP"))
		return ok
	})
	afterSettle := balancesVia(t, env, cfg)
	if got := afterSettle["GBP"]; got.AvailableBalanceInMinor != wantAvail || got.CurrentBalanceInMinor != gbp.CurrentBalanceInMinor-amount {
		t.Fatalf("GBP after the payout: available %d current %d; want %d and %d", got.AvailableBalanceInMinor, got.CurrentBalanceInMinor, wantAvail, gbp.CurrentBalanceInMinor-amount)
	}
	if afterSettle["EUR"] != before["EUR"] {
		t.Errorf("EUR changed: %+v -> %+v", before["EUR"], afterSettle["EUR"])
	}

	// 3. A payout larger than the balance is refused before anything is
	// sent, by the payout pipeline's funds check, as payout create and the
	// batch refuse it: the confirmation warns, the form says nothing was
	// sent. A payout the service rejects (its AML check) is shown
	// rejected with its reason. Neither moves the balance.
	s.press("5")
	s.waitText(5*time.Second, "Payout accepted")
	s.press("n")
	tooMuch := api.FormatAmountPlain(wantAvail+100, "GBP")
	fillPayoutFields(s, "E2E Too Much", iban, "E2E-REJECT", tooMuch)
	s.waitText(5*time.Second, "more than the available")
	s.press("y")
	s.waitText(10*time.Second, "Payout not sent", "insufficient funds", "Nothing was sent")
	s.press("n")
	fillPayoutForm(s, "AML Test", iban, "E2E-AML", "1.00")
	s.press("3")
	s.waitFor("the payout rejected by the AML check", 20*time.Second, func(txt string) bool {
		_, ok := line(txt, "AML Test", "rejected")
		return ok && strings.Contains(txt, "aml_check_failed")
	})
	if after := balancesVia(t, env, cfg); after["GBP"] != afterSettle["GBP"] {
		t.Errorf("a refused or rejected payout moved the balance: %+v -> %+v", afterSettle["GBP"], after["GBP"])
	}

	// 4. q quits: exit status 0 and no port left listening.
	portsJSON, err := os.ReadFile(portsFile)
	if err != nil {
		t.Fatal(err)
	}
	var ports struct{ Sandbox, Relay string }
	if err := json.Unmarshal(portsJSON, &ports); err != nil || ports.Sandbox == "" || ports.Relay == "" {
		t.Fatalf("ports file %q: %v", portsJSON, err)
	}
	s.press("q")
	if code := s.wait(20 * time.Second); code != 0 {
		t.Fatalf("paydash demo exit status %d, want 0; screen:\n%s", code, s.text())
	}
	for _, addr := range []string{ports.Sandbox, ports.Relay} {
		notListening(t, addr)
	}
}

// TestNoProfileIsFriendly: a fresh machine running plain `paydash` is told
// what to do, not shown an error dump.
func TestNoProfileIsFriendly(t *testing.T) {
	env := isolatedEnv(t)
	s := startScreen(t, env)
	s.waitText(10*time.Second, "paydash demo", "paydash config init")
	if code := s.wait(10 * time.Second); code == 0 || code == 1 {
		// 2 marks "nothing configured" as a usage problem, not a crash.
		t.Errorf("exit status %d, want 2", code)
	}
	if txt := s.text(); strings.Contains(txt, "Error") || strings.Contains(txt, "panic") {
		t.Errorf("unfriendly output:\n%s", txt)
	}
}

// TestDashboardAttachesToAProfile is the path a real service takes: plain
// `paydash --config FILE` opens the dashboard from a profile (here the
// headless demo's), subscribes to its relay, and shows a payout sent from
// another terminal move to settled live.
func TestDashboardAttachesToAProfile(t *testing.T) {
	env := isolatedEnv(t)
	demo := startHeadlessDemo(t, env)
	s := startScreen(t, env, "--config", demo.cfg)
	s.waitText(30*time.Second, "profile demo", "Faster Payments", "SEPA", "relay: live")

	out, errOut, code := runCLI(t, env, 30*time.Second, "--config", demo.cfg, "payout", "create",
		"--name", "Other Terminal", "--iban", "GB33BUKB20201555555555", "--reference", "E2E-ATTACH",
		"--amount", "7.00", "--currency", "GBP", "--yes")
	if code != 0 {
		t.Fatalf("payout create: exit %d\n%s\n%s", code, out, errOut)
	}
	id := strings.TrimSpace(out)
	s.press("3")
	s.waitFor("the other terminal's payout settled in the tracker", 20*time.Second, func(txt string) bool {
		_, ok := line(txt, id[:8], "settled")
		return ok
	})
	s.press("4")
	s.waitFor("its payout_settled event", 10*time.Second, func(txt string) bool {
		_, ok := line(txt, "payout_settled", id)
		return ok
	})
	s.press("q")
	if code := s.wait(20 * time.Second); code != 0 {
		t.Fatalf("paydash exit status %d, want 0; screen:\n%s", code, s.text())
	}
	demo.stop(t)
}

// `paydash --readonly --config FILE demo`: the demo's dashboard takes the
// global --readonly (no form on offer, the status line says why) and the
// config file's [keys] (quit remapped to Q), in a real terminal.
func TestDemoTakesReadOnlyAndYourKeys(t *testing.T) {
	env := isolatedEnv(t)
	cfg := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(cfg, []byte("[keys]\nquit = \"Q\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := startScreen(t, env, "--readonly", "--config", cfg, "demo", "--activity=false", "--history", "200")
	txt := s.waitText(30*time.Second, "Balances", "read-only")
	top := strings.Join(strings.SplitN(txt, "\n", 4)[:3], "\n")
	if strings.Contains(top, "Payout+") {
		t.Fatalf("a read-only demo offers the payout form:\n%s", top)
	}
	s.press("5") // the payout form's number on a profile that may send
	s.waitText(5*time.Second, "is read-only (read_only, or --readonly): it sends nothing")
	s.press("q") // not quit any more: Q is
	time.Sleep(300 * time.Millisecond)
	select {
	case <-s.done:
		t.Fatalf("q quit the demo though [keys] moved quit to Q:\n%s", s.text())
	default:
	}
	s.press("Q")
	if code := s.wait(20 * time.Second); code != 0 {
		t.Fatalf("exit %d after Q; screen:\n%s", code, s.text())
	}
}
