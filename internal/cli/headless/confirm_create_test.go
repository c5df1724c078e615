package headless

import (
	"context"
	"strings"
	"testing"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/cli/cmdutil"
)

// Issue 28 item 8: payment create and mandate create confirm as payout
// create does: without a terminal they need --yes (exit 2, nothing
// sent); at a terminal the request is shown and only y sends it.
func TestPaymentAndMandateCreateConfirm(t *testing.T) {
	payment := []string{"--amount", "25.00", "--currency", "GBP", "--merchant-account-id", sandboxGBPMerchant,
		"--reference", "ORDER-42", "--user-name", "Ada Lovelace", "--user-email", "ada@example.com"}
	mandate := []string{"--type", "sweeping", "--currency", "GBP", "--merchant-account-id", sandboxGBPMerchant,
		"--user-name", "Ada Lovelace", "--user-email", "ada@example.com", "--valid-from", "2030-02-01", "--valid-to", "2031-02-01", "--max-individual", "250.00"}
	type result struct {
		code int
		sent int
		err  string
	}
	production := false
	create := func(what string, terminal bool, answer string, extra ...string) result {
		s, _, errb := testStreams(answer)
		s.InTerminal, s.ErrTerminal = terminal, terminal
		var err error
		var sent int
		if what == "payment" {
			o := &PaymentOptions{}
			parse(t, o.Bind, append(append([]string{}, payment...), extra...)...)
			o.SetProfile("ops", production)
			c := &countingCreator{}
			err = CreatePayment(context.Background(), s, c, api.ValidateOptions{}, o)
			sent = c.payments
		} else {
			o := &MandateOptions{}
			parse(t, o.Bind, append(append([]string{}, mandate...), extra...)...)
			o.SetProfile("ops", production)
			m := &mandateCounter{}
			err = CreateMandate(context.Background(), s, m, api.ValidateOptions{}, o)
			sent = m.sent
		}
		msg := errb.String()
		if err != nil {
			msg += err.Error()
		}
		return result{cmdutil.ExitCode(err), sent, msg}
	}
	for _, what := range []string{"payment", "mandate"} {
		if r := create(what, false, ""); r.code != cmdutil.ExitUsage || r.sent != 0 || !strings.Contains(r.err, "Pass --yes to create this "+what) {
			t.Errorf("%s without a terminal or --yes: %+v, want exit 2 and nothing sent", what, r)
		}
		if r := create(what, false, "", "--yes"); r.code != 0 || r.sent != 1 {
			t.Errorf("%s --yes without a terminal: %+v, want it sent", what, r)
		}
		if r := create(what, true, "n\n"); r.code != cmdutil.ExitCancelled || r.sent != 0 || !strings.Contains(r.err, "Create this "+what+"?") || !strings.Contains(r.err, "ops") {
			t.Errorf("%s answered n: %+v, want the question, exit 4 and nothing sent", what, r)
		}
		if r := create(what, true, "y\n"); r.code != 0 || r.sent != 1 {
			t.Errorf("%s answered y: %+v, want it sent", what, r)
		}
	}
	// On a production profile y is not enough: the amount is typed (a
	// payment's, a mandate's largest single payment), as for a payout.
	production = true
	for what, amount := range map[string]string{"payment": "25.00", "mandate": "250.00"} {
		if r := create(what, true, "y\n"); r.code != cmdutil.ExitCancelled || r.sent != 0 || !strings.Contains(r.err, "PRODUCTION: type the amount ("+amount+")") {
			t.Errorf("production %s answered y: %+v, want the amount asked for, exit 4 and nothing sent", what, r)
		}
		if r := create(what, true, amount+"\n"); r.code != 0 || r.sent != 1 {
			t.Errorf("production %s with %s typed: %+v, want it sent once", what, amount, r)
		}
		if r := create(what, false, "", "--yes"); r.code != 0 || r.sent != 1 {
			t.Errorf("production %s --yes in a script: %+v, want it sent", what, r)
		}
	}
	production = false
	// An invalid request is refused with its problems first, --yes or not.
	if r := create("payment", false, "", "--amount", "abc"); r.code != cmdutil.ExitUsage || strings.Contains(r.err, "--yes") {
		t.Errorf("invalid payment: %+v, want its problems, not the confirmation", r)
	}
}
