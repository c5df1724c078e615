package headless

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/google/uuid"
	"github.com/spf13/pflag"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/cli/cmdutil"
)

// PayoutOptions are the flags of `paydash payout create`.
type PayoutOptions struct {
	Name          string
	IBAN          string
	Reference     string
	Amount        string
	Currency      string
	ContextCode   string
	TransactionID string
	Yes           bool
	JSON          bool
}

// Bind registers the flags.
func (o *PayoutOptions) Bind(fs *pflag.FlagSet) {
	fs.StringVar(&o.Name, "name", "", "beneficiary name (required)")
	fs.StringVar(&o.IBAN, "iban", "", "beneficiary IBAN (required)")
	fs.StringVar(&o.Reference, "reference", "", "reference the beneficiary sees (required)")
	fs.StringVar(&o.Amount, "amount", "", "amount in major units, e.g. 12.50 (required)")
	fs.StringVar(&o.Currency, "currency", "", "currency of the payout account to pay from, e.g. GBP (required)")
	fs.StringVar(&o.ContextCode, "context-code", api.ContextCodeWithdrawal, "purpose code")
	fs.StringVar(&o.TransactionID, "transaction-id", "", "payout id (default: a new UUID; reuse it to retry safely, the service never pays one id twice)")
	fs.BoolVarP(&o.Yes, "yes", "y", false, "send without asking for confirmation")
	fs.BoolVar(&o.JSON, "json", false, "print the result as JSON")
}

// Request builds the payout request from the flags.
func (o *PayoutOptions) Request() (*api.PayoutRequest, []string) {
	var usage []string
	cur := strings.ToUpper(strings.TrimSpace(o.Currency))
	req := &api.PayoutRequest{
		TransactionID:        strings.TrimSpace(o.TransactionID),
		BeneficiaryName:      strings.TrimSpace(o.Name),
		BeneficiaryIBAN:      api.NormalizeIBAN(o.IBAN),
		BeneficiaryReference: strings.TrimSpace(o.Reference),
		Currency:             cur,
		ContextCode:          strings.TrimSpace(o.ContextCode),
	}
	if req.TransactionID == "" {
		req.TransactionID = uuid.NewString()
	}
	if o.Amount == "" {
		usage = append(usage, "--amount is required, e.g. --amount 12.50")
	} else if minor, err := api.ParseAmount(o.Amount, cur, false); err != nil {
		usage = append(usage, fmt.Sprintf("--amount: %v", err))
	} else {
		req.AmountInMinor = minor
	}
	return req, usage
}

// PayoutCreator is the part of the api client `payout create` uses.
type PayoutCreator interface {
	CreatePayout(ctx context.Context, req *api.PayoutRequest) error
}

// PayoutResult is what `payout create --json` prints.
type PayoutResult struct {
	TransactionID string `json:"transaction_id"`
	Accepted      bool   `json:"accepted"`
	HTTPStatus    int    `json:"http_status,omitempty"`
	Error         string `json:"error,omitempty"`
}

// Target says where money would go, for the confirmation.
type Target struct {
	Profile    string
	Production bool
}

// CreatePayout validates, confirms and sends one payout. Exit status 0
// means the service accepted it (202); its outcome then arrives by
// webhook.
func CreatePayout(ctx context.Context, s *cmdutil.Streams, c PayoutCreator, t Target, o *PayoutOptions) error {
	req, usage := o.Request()
	probs := api.ValidatePayout(req)
	if len(usage) > 0 {
		probs = dropFields(probs, "amount_in_minor")
	}
	if len(usage) > 0 || len(probs) > 0 {
		return cmdutil.Exit(cmdutil.ExitUsage, &ProblemsError{What: "payout", Usage: usage, Problems: probs})
	}
	if err := confirmPayout(s, t, req, o.Yes); err != nil {
		return err
	}
	err := c.CreatePayout(ctx, req)
	res := PayoutResult{TransactionID: req.TransactionID, Accepted: err == nil}
	if err == nil {
		res.HTTPStatus = 202
		if o.JSON {
			return cmdutil.WriteJSON(s.Out, res)
		}
		fmt.Fprintln(s.Out, req.TransactionID)
		if s.ErrTerminal {
			fmt.Fprintf(s.Err, "accepted: %s to %s; its outcome arrives by webhook (paydash events tail)\n",
				api.FormatAmount(req.AmountInMinor, req.Currency), req.BeneficiaryName)
		}
		return nil
	}
	var ae *api.Error
	if errors.As(err, &ae) {
		res.HTTPStatus = ae.StatusCode
	}
	res.Error = err.Error()
	if o.JSON {
		if werr := cmdutil.WriteJSON(s.Out, res); werr != nil {
			return werr
		}
	}
	return cmdutil.Exit(cmdutil.ExitNotAccepted, fmt.Errorf("payout %s not accepted: %w\n(to retry without any risk of paying twice, re-run with --transaction-id %s)", req.TransactionID, err, req.TransactionID))
}

// confirmPayout shows the summary and asks, as the profile requires: a
// production profile needs --yes or the amount typed again; elsewhere a
// person at a terminal answers y; a script (no terminal) goes ahead.
func confirmPayout(s *cmdutil.Streams, t Target, req *api.PayoutRequest, yes bool) error {
	if yes {
		return nil
	}
	if !s.Interactive() {
		if t.Production {
			return cmdutil.Exit(cmdutil.ExitUsage, fmt.Errorf("profile %q is production: pass --yes to send without a terminal to confirm on", t.Profile))
		}
		return nil
	}
	printPayoutSummary(s, t, req)
	if t.Production {
		want := api.FormatAmountPlain(req.AmountInMinor, req.Currency)
		ok, err := cmdutil.ConfirmTyped(s, fmt.Sprintf("PRODUCTION: type the amount (%s) to send, anything else cancels:", want), want)
		if err != nil {
			return err
		}
		if !ok {
			return cmdutil.ErrCancelled
		}
		return nil
	}
	ok, err := cmdutil.Confirm(s, "Send this payout?")
	if err != nil {
		return err
	}
	if !ok {
		return cmdutil.ErrCancelled
	}
	return nil
}

func printPayoutSummary(s *cmdutil.Streams, t Target, req *api.PayoutRequest) {
	if t.Production {
		fmt.Fprintf(s.Err, "*** PRODUCTION profile %q: this moves real money ***\n", t.Profile)
	}
	fmt.Fprintln(s.Err, "Payout:")
	_ = cmdutil.KeyValues(s.Err, [][2]string{
		{"profile", t.Profile},
		{"amount", api.FormatAmount(req.AmountInMinor, req.Currency)},
		{"from account", req.Currency},
		{"beneficiary", req.BeneficiaryName},
		{"IBAN", req.BeneficiaryIBAN},
		{"reference", req.BeneficiaryReference},
		{"context code", req.ContextCode},
		{"transaction id", req.TransactionID},
	})
}
