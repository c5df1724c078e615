package devtools

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/spf13/cobra"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/api/sandbox/sandboxapi"
	"github.com/paydash/paydash/internal/cli/cmdutil"
	"github.com/paydash/paydash/internal/platform/termtext"
)

// TriggerOptions are the flags of `paydash sandbox trigger`.
type TriggerOptions struct {
	URL         string
	PayoutID    string
	Reason      string
	Amount      string
	Currency    string
	Family      string
	Beneficiary string
	List        bool
	JSON        bool
}

// TriggerResult is what the sandbox answers, and --json prints.
type TriggerResult = sandboxapi.Injected

// TriggerCommand is `paydash sandbox trigger EVENT_TYPE`.
func TriggerCommand(s *cmdutil.Streams, g *cmdutil.Global) *cobra.Command {
	o := &TriggerOptions{}
	c := &cobra.Command{
		Use:   "trigger EVENT_TYPE",
		Short: "Make the sandbox send a webhook now, signed as the service signs",
		Long: `Make the sandbox send a webhook now, signed as the service signs, to
its webhook_uri (the relay). With --payout naming a payout the sandbox
holds, its state moves as the event says (payout_settled settles it,
payout_failed fails it and releases its funds); otherwise only the event
is made, for --payout's id or a new one. The sandbox is found through the
profile's base_url; --url overrides it.`,
		Example: `  paydash sandbox trigger --list
  paydash sandbox trigger payout_failed --reason account_closed
  paydash sandbox trigger payout_settled --payout 3f2a9c1e-0000-4000-8000-000000000000
  paydash sandbox trigger external_payment_received --amount 125.00 --currency EUR --json`,
		Args: func(cmd *cobra.Command, args []string) error {
			if o.List {
				return usage(cobra.NoArgs(cmd, args))
			}
			return usage(cobra.ExactArgs(1)(cmd, args))
		},
		ValidArgs: sandboxapi.TriggerEvents,
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.List {
				for _, t := range sandboxapi.TriggerEvents {
					fmt.Fprintln(s.Out, t)
				}
				return nil
			}
			base := o.URL
			if base == "" {
				p, err := cmdutil.LoadProfile(s, g)
				if err != nil {
					return err
				}
				base = p.BaseURL
			}
			res, err := Trigger(cmd.Context(), base, args[0], o)
			if err != nil {
				return err
			}
			if o.JSON {
				return cmdutil.WriteJSON(s.Out, res)
			}
			fmt.Fprintln(s.Out, DescribeTrigger(res))
			return nil
		},
	}
	fs := c.Flags()
	fs.StringVar(&o.URL, "url", "", "the sandbox's base URL (default: the profile's base_url)")
	fs.StringVar(&o.PayoutID, "payout", "", "the payout the event is about; one the sandbox holds moves to the event's state")
	fs.StringVar(&o.Reason, "reason", "", "rejection or failure reason (defaults: insufficient_funds, scheme_error)")
	fs.StringVar(&o.Amount, "amount", "", "amount of external_payment_received, e.g. 125.00")
	fs.StringVar(&o.Currency, "currency", "", "currency, picking the merchant account (default GBP)")
	fs.StringVar(&o.Family, "family", "", "payout_failed's interface: payments (default) or payout")
	fs.StringVar(&o.Beneficiary, "beneficiary", "", "payments-interface variant: external_account (default), payment_source or business_account")
	fs.BoolVar(&o.List, "list", false, "list the event types that can be triggered")
	fs.BoolVar(&o.JSON, "json", false, "print the sandbox's answer as JSON")
	return c
}

// DescribeTrigger is the one line a trigger prints.
func DescribeTrigger(r TriggerResult) string {
	line := fmt.Sprintf("sent %s %s", termtext.Safe(r.EventType), termtext.Safe(r.EventID))
	switch {
	case r.Moved:
		line += fmt.Sprintf(" (payout %s moved)", termtext.Safe(r.PayoutID))
	case r.PayoutID != "":
		line += fmt.Sprintf(" (payout %s; event only)", termtext.Safe(r.PayoutID))
	}
	return line
}

// Trigger asks the sandbox at base for the event over POST /sandbox/events.
func Trigger(ctx context.Context, base, eventType string, o *TriggerOptions) (TriggerResult, error) {
	var res TriggerResult
	u, err := url.Parse(strings.TrimSpace(base))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return res, cmdutil.Exit(cmdutil.ExitUsage, fmt.Errorf("sandbox URL %q must be an absolute http(s) URL, e.g. http://127.0.0.1:8080 (--url, or the profile's base_url)", base))
	}
	t := sandboxapi.Trigger{Event: eventType, Family: o.Family, PayoutID: o.PayoutID, Reason: o.Reason, Beneficiary: o.Beneficiary, Currency: strings.ToUpper(o.Currency)}
	if o.Amount != "" {
		cur := t.Currency
		if cur == "" {
			cur = "GBP"
		}
		if t.AmountInMinor, err = api.ParseAmount(o.Amount, cur, false); err != nil {
			return res, cmdutil.Exit(cmdutil.ExitUsage, fmt.Errorf("--amount: %w", err))
		}
	}
	res, err = sandboxapi.SendTrigger(ctx, u.String(), t)
	var te *sandboxapi.TriggerError
	if errors.As(err, &te) {
		code := cmdutil.ExitFailure
		if te.Status == http.StatusBadRequest {
			code = cmdutil.ExitUsage
		}
		return res, cmdutil.Exit(code, errors.New(termtext.Safe(te.Msg)))
	}
	return res, err
}
