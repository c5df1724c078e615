package devtools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/api/sandbox"
	"github.com/paydash/paydash/internal/cli/cmdutil"
	"github.com/paydash/paydash/termtext"
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
type TriggerResult struct {
	EventID   string `json:"event_id"`
	EventType string `json:"event_type"`
	PayoutID  string `json:"payout_id,omitempty"`
	// Moved: the payout is one the sandbox holds and its state moved.
	Moved bool `json:"moved,omitempty"`
}

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
		ValidArgs: sandbox.TriggerEvents,
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.List {
				for _, t := range sandbox.TriggerEvents {
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
	t := sandbox.Trigger{Event: eventType, Family: o.Family, PayoutID: o.PayoutID, Reason: o.Reason, Beneficiary: o.Beneficiary, Currency: strings.ToUpper(o.Currency)}
	if o.Amount != "" {
		cur := t.Currency
		if cur == "" {
			cur = "GBP"
		}
		if t.AmountInMinor, err = api.ParseAmount(o.Amount, cur, false); err != nil {
			return res, cmdutil.Exit(cmdutil.ExitUsage, fmt.Errorf("--amount: %w", err))
		}
	}
	body, _ := json.Marshal(t)
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(u.String(), "/")+"/sandbox/events", bytes.NewReader(body))
	if err != nil {
		return res, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return res, fmt.Errorf("cannot reach the sandbox at %s: %w (is `paydash sandbox` or `paydash demo` running?)", u.Host, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	switch {
	case resp.StatusCode == http.StatusAccepted:
		if err := json.Unmarshal(data, &res); err != nil {
			return res, fmt.Errorf("sandbox answer: %w", err)
		}
		return res, nil
	case resp.StatusCode == http.StatusNotFound:
		return res, errors.New("no /sandbox/events at " + u.Host + ": triggers work against the built-in sandbox only, not the real service")
	}
	var p struct {
		Title  string              `json:"title"`
		Detail string              `json:"detail"`
		Errors map[string][]string `json:"errors"`
	}
	_ = json.Unmarshal(data, &p)
	msg := strings.TrimSpace(p.Title + ": " + p.Detail)
	for f, es := range p.Errors {
		msg += fmt.Sprintf("; %s %s", f, strings.Join(es, ", "))
	}
	code := cmdutil.ExitFailure
	if resp.StatusCode == http.StatusBadRequest {
		code = cmdutil.ExitUsage
	}
	return res, cmdutil.Exit(code, fmt.Errorf("sandbox refused the trigger (HTTP %d): %s", resp.StatusCode, termtext.Safe(msg)))
}
