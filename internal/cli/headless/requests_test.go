package headless

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/cli/cmdutil"
)

func parse(t *testing.T, bind func(*pflag.FlagSet), args ...string) {
	t.Helper()
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	bind(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
}

func TestMandateFlagsBuildEveryField(t *testing.T) {
	o := &MandateOptions{}
	parse(t, o.Bind, "--type", "sweeping", "--currency", "gbp",
		"--sort-code", "04-00-75", "--account-number", "00000826", "--account-holder-name", "Ada Lovelace",
		"--provider-id", "ob-natwest", "--remitter", `{"account_holder_name":"Ada"}`,
		"--user-id", "7b0d2e3c-2a55-4a1f-9d7e-0a6c7f3b9a10", "--user-name", "Ada Lovelace", "--user-email", "ada@example.com",
		"--valid-from", "2030-02-01", "--valid-to", "2031-02-01T00:00:00Z", "--max-individual", "250.00",
		"--limit", "month=5000.00:calendar", "--limit", "half-year=12,000", "--metadata", "team=payroll", "--metadata", "run=7",
		"--related-products", `{"signup_plus":{}}`)
	req, usage := o.Request()
	if len(usage) > 0 {
		t.Fatalf("usage problems: %v", usage)
	}
	m := req.Mandate
	if m.Type != "sweeping" || req.Currency != "GBP" || m.ProviderSelection.Type != api.ProviderPreselected ||
		m.ProviderSelection.ProviderID != "ob-natwest" || string(m.ProviderSelection.Remitter) != `{"account_holder_name":"Ada"}` {
		t.Errorf("mandate = %+v", m)
	}
	id := m.Beneficiary.AccountIdentifier
	if m.Beneficiary.Type != api.BeneficiaryExternalAccount || id == nil || id.Type != api.AccountIdentifierSortCode || id.SortCode != "040075" || id.AccountNumber != "00000826" {
		t.Errorf("beneficiary = %+v / %+v", m.Beneficiary, id)
	}
	c := req.Constraints
	if c.ValidFrom != "2030-02-01T00:00:00.000Z" || c.ValidTo != "2031-02-01T00:00:00.000Z" || c.MaximumIndividualAmount != 25000 {
		t.Errorf("constraints = %+v", c)
	}
	pl := c.PeriodicLimits
	if pl.Month == nil || *pl.Month != (api.PeriodicLimit{MaximumAmount: 500000, PeriodAlignment: "calendar"}) ||
		pl.HalfYear == nil || *pl.HalfYear != (api.PeriodicLimit{MaximumAmount: 1200000, PeriodAlignment: "consent"}) ||
		pl.Day != nil || pl.Year != nil {
		t.Errorf("limits = %+v", pl)
	}
	if req.Metadata["team"] != "payroll" || req.Metadata["run"] != "7" || len(req.RelatedProducts) != 1 {
		t.Errorf("metadata %v related %v", req.Metadata, req.RelatedProducts)
	}
	if req.User == nil || req.User.Email != "ada@example.com" {
		t.Errorf("user = %+v", req.User)
	}
	if ps := api.ValidateMandate(req, api.ValidateOptions{}); len(ps) > 0 {
		t.Errorf("a mandate built from valid flags fails validation: %v", ps)
	}
}

func TestPaymentFlagsInferChoices(t *testing.T) {
	tests := []struct {
		name  string
		args  []string
		check func(t *testing.T, r *api.PaymentRequest)
	}{
		{"merchant account, user selected", []string{"--amount", "25", "--currency", "GBP", "--merchant-account-id", "acc-1", "--countries", "gb,ie", "--release-channel", "general_availability"},
			func(t *testing.T, r *api.PaymentRequest) {
				ps := r.PaymentMethod.ProviderSelection
				if r.PaymentMethod.Beneficiary.Type != api.BeneficiaryMerchantAccount || ps.Type != api.ProviderUserSelected ||
					ps.Filter == nil || strings.Join(ps.Filter.Countries, ",") != "GB,IE" || r.AmountInMinor != 2500 {
					t.Errorf("%+v %+v", r.PaymentMethod, ps)
				}
			}},
		{"iban, scheme", []string{"--amount", "1,000.01", "--currency", "EUR", "--iban", "de89 3704 0044 0532 0130 00", "--scheme", "instant_only", "--allow-remitter-fee=false"},
			func(t *testing.T, r *api.PaymentRequest) {
				ss := r.PaymentMethod.ProviderSelection.SchemeSelection
				id := r.PaymentMethod.Beneficiary.AccountIdentifier
				if id.Type != api.AccountIdentifierIBAN || id.IBAN != "DE89370400440532013000" || ss == nil || ss.AllowRemitterFee == nil || *ss.AllowRemitterFee || r.AmountInMinor != 100001 {
					t.Errorf("%+v %+v", id, ss)
				}
			}},
		{"no scheme flags, no scheme selection", []string{"--amount", "1", "--currency", "GBP", "--nrb", "61109010140000071219812874"},
			func(t *testing.T, r *api.PaymentRequest) {
				if r.PaymentMethod.ProviderSelection.SchemeSelection != nil || r.PaymentMethod.Beneficiary.AccountIdentifier.Type != api.AccountIdentifierNRB {
					t.Errorf("%+v", r.PaymentMethod)
				}
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := &PaymentOptions{}
			parse(t, o.Bind, tc.args...)
			req, usage := o.Request()
			if len(usage) > 0 {
				t.Fatal(usage)
			}
			tc.check(t, req)
		})
	}
}

type countingCreator struct {
	payouts  []api.PayoutRequest
	payments int
	err      error
}

func (c *countingCreator) CreatePayout(_ context.Context, r *api.PayoutRequest) error {
	c.payouts = append(c.payouts, *r)
	return c.err
}

func (c *countingCreator) CreatePayment(context.Context, *api.PaymentRequest, string) (*api.PaymentResponse, error) {
	c.payments++
	return &api.PaymentResponse{ID: "p1", Status: api.PaymentStatusAuthorizationRequired}, nil
}

func TestInvalidRequestsSendNothingAndNameTheFlag(t *testing.T) {
	c := &countingCreator{}
	s, _, _ := testStreams("")
	err := CreatePayment(context.Background(), s, c, api.ValidateOptions{}, &PaymentOptions{Amount: "12.345", Currency: "GBP"})
	if cmdutil.ExitCode(err) != cmdutil.ExitUsage || c.payments != 0 {
		t.Fatalf("err = %v, payments sent %d", err, c.payments)
	}
	msg := err.Error()
	for _, want := range []string{"--amount", "nothing was sent", "(--account-holder-name)", "(--user-name/--user-email/--user-phone)"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "amount_in_minor") {
		t.Errorf("an unparsable amount is reported twice:\n%s", msg)
	}

	err = CreatePayout(context.Background(), s, c, Target{Profile: "p"}, &PayoutOptions{Name: "Ada", IBAN: "GB00BAD", Amount: "5", Currency: "GBP", ContextCode: "withdrawal"})
	if cmdutil.ExitCode(err) != cmdutil.ExitUsage || len(c.payouts) != 0 || !strings.Contains(err.Error(), "(--iban)") || !strings.Contains(err.Error(), "(--reference)") {
		t.Fatalf("err = %v, sent %d", err, len(c.payouts))
	}
}

func TestPayoutConfirmation(t *testing.T) {
	valid := PayoutOptions{Name: "Ada Lovelace", IBAN: "GB33BUKB20201555555555", Reference: "R1", Amount: "12.50", Currency: "GBP", ContextCode: "withdrawal"}
	tests := []struct {
		name        string
		interactive bool
		input       string
		production  bool
		yes         bool
		wantSent    bool
		wantCode    int
	}{
		{"script, sandbox, no --yes: refused", false, "n\n", false, false, false, cmdutil.ExitUsage},
		{"script, sandbox with --yes: sends", false, "", false, true, true, 0},
		{"script, production without --yes: refused", false, "", true, false, false, cmdutil.ExitUsage},
		{"script, production with --yes: sends", false, "", true, true, true, 0},
		{"terminal, answer y", true, "y\n", false, false, true, 0},
		{"terminal, empty answer declines", true, "\n", false, false, false, cmdutil.ExitCancelled},
		{"terminal, production, amount retyped", true, "12.50\n", true, false, true, 0},
		{"terminal, production, y is not enough", true, "y\n", true, false, false, cmdutil.ExitCancelled},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := &countingCreator{}
			s, out, errb := testStreams(tc.input)
			s.InTerminal, s.ErrTerminal = tc.interactive, tc.interactive
			o := valid
			o.Yes = tc.yes
			err := CreatePayout(context.Background(), s, c, Target{Profile: "live", Production: tc.production}, &o)
			if got := cmdutil.ExitCode(err); got != tc.wantCode {
				t.Fatalf("exit code %d (%v), want %d", got, err, tc.wantCode)
			}
			if sent := len(c.payouts) == 1; sent != tc.wantSent {
				t.Fatalf("sent = %v, want %v", sent, tc.wantSent)
			}
			if tc.wantSent && strings.TrimSpace(out.String()) != c.payouts[0].TransactionID {
				t.Errorf("stdout %q, want the transaction id %s", out, c.payouts[0].TransactionID)
			}
			if tc.interactive && !strings.Contains(errb.String(), "£12.50") {
				t.Errorf("the summary does not show the amount:\n%s", errb)
			}
			if tc.production && tc.interactive && !strings.Contains(errb.String(), "PRODUCTION") {
				t.Errorf("no production warning:\n%s", errb)
			}
		})
	}
}

func TestPayoutNotAcceptedExitsNonZeroWithRetryHint(t *testing.T) {
	c := &countingCreator{err: &api.Error{StatusCode: 409, Method: "POST", URL: "http://x/v1/payouts", Problem: &api.ProblemDetails{Title: "Account disabled"}}}
	s, out, _ := testStreams("")
	o := PayoutOptions{Name: "Ada", IBAN: "GB33BUKB20201555555555", Reference: "R", Amount: "1", Currency: "GBP", ContextCode: "withdrawal", TransactionID: "3b241101-e2bb-4255-8caf-4136c566a962", JSON: true, Yes: true}
	err := CreatePayout(context.Background(), s, c, Target{}, &o)
	if cmdutil.ExitCode(err) != cmdutil.ExitNotAccepted || !strings.Contains(err.Error(), "re-run the same command") {
		t.Fatalf("err = %v", err)
	}
	var res PayoutResult
	if jerr := json.Unmarshal(out.Bytes(), &res); jerr != nil || res.Accepted || res.HTTPStatus != 409 || res.TransactionID != o.TransactionID {
		t.Errorf("json = %s (%v)", out, jerr)
	}
	var ae *api.Error
	if !errors.As(err, &ae) {
		t.Error("the service error is not wrapped")
	}
}

type mandateCounter struct{ sent int }

func (m *mandateCounter) CreateMandate(context.Context, *api.MandateRequest, string) (*api.MandateResponse, error) {
	m.sent++
	return &api.MandateResponse{ID: "m1"}, nil
}

// TestMandateWhoseValidityEndedIsRefused: `mandate create` with the
// README's old dates (valid until 2026-02-01, which has passed) is refused
// before anything is sent, naming --valid-to; a validity still to come is
// sent.
func TestMandateWhoseValidityEndedIsRefused(t *testing.T) {
	args := func(from, to string) []string {
		return []string{"--type", "sweeping", "--currency", "GBP", "--merchant-account-id", "6f2f3c2e-0b9d-4c47-9b1e-5a1f00000826",
			"--user-name", "Ada Lovelace", "--user-email", "ada@example.com", "--valid-from", from, "--valid-to", to, "--max-individual", "250.00"}
	}
	now := time.Now().UTC()
	tests := []struct {
		name     string
		from, to string
		wantSent bool
	}{
		{"ended", "2025-02-01", "2026-02-01", false},
		{"ended a minute ago", now.Add(-48 * time.Hour).Format(time.RFC3339), now.Add(-time.Minute).Format(time.RFC3339), false},
		{"ends in the future", now.Add(-24 * time.Hour).Format(time.DateOnly), now.AddDate(1, 0, 0).Format(time.DateOnly), true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := &MandateOptions{}
			parse(t, o.Bind, append(args(tc.from, tc.to), "--yes")...)
			m := &mandateCounter{}
			s, _, _ := testStreams("")
			err := CreateMandate(context.Background(), s, m, api.ValidateOptions{}, o)
			if tc.wantSent {
				if err != nil || m.sent != 1 {
					t.Fatalf("err = %v, sent %d; want it sent", err, m.sent)
				}
				return
			}
			if cmdutil.ExitCode(err) != cmdutil.ExitUsage || m.sent != 0 {
				t.Fatalf("err = %v (exit %d), sent %d; want a usage error and nothing sent", err, cmdutil.ExitCode(err), m.sent)
			}
			if msg := err.Error(); !strings.Contains(msg, "(--valid-to)") || !strings.Contains(msg, "has already passed") {
				t.Errorf("message does not name --valid-to as passed:\n%s", msg)
			}
		})
	}
}
