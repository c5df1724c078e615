package headless

import (
	"context"
	"io"

	"github.com/spf13/cobra"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/config"
	"github.com/paydash/paydash/internal/cli/cmdutil"
	"github.com/paydash/paydash/internal/cli/factory"
	"github.com/paydash/paydash/internal/payout"
	"github.com/paydash/paydash/internal/report/cache"
	"github.com/paydash/paydash/webhookrelay/relayclient"
)

// This file holds the cobra wiring of the headless commands: each parses
// its flags and calls one function of this package.

// ConfigCommand is `paydash config` with init, show and check.
func ConfigCommand(s *cmdutil.Streams, g *cmdutil.Global) *cobra.Command {
	c := &cobra.Command{Use: "config", Short: "Write, show and check the config file", Args: cmdutil.NoArgs}
	c.AddCommand(&cobra.Command{
		Use:     "init",
		Short:   "Write a commented config file with a sandbox profile (0600; never overwrites)",
		Example: "  paydash config init\n  paydash --config ./paydash.toml config init",
		Args:    cmdutil.NoArgs,
		RunE:    func(*cobra.Command, []string) error { return ConfigInit(s, g) },
	})
	var showJSON bool
	show := &cobra.Command{
		Use:     "show",
		Short:   "Print the resolved profile with secrets redacted",
		Example: "  paydash config show\n  paydash --profile production config show --json",
		Args:    cmdutil.NoArgs,
		RunE:    func(*cobra.Command, []string) error { return ConfigShow(s, g, showJSON) },
	}
	show.Flags().BoolVar(&showJSON, "json", false, "print as JSON")
	var checkJSON bool
	check := &cobra.Command{
		Use:     "check",
		Short:   "Validate the profile and get a token for every scope it needs, saying exactly what failed",
		Example: "  paydash config check\n  paydash --profile production config check --json",
		Args:    cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return ConfigCheck(cmd.Context(), s, g, checkJSON)
		},
	}
	check.Flags().BoolVar(&checkJSON, "json", false, "print the checks as JSON")
	c.AddCommand(show, check)
	return c
}

// BalancesCommand is `paydash balances`.
func BalancesCommand(s *cmdutil.Streams, g *cmdutil.Global) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:     "balances",
		Short:   "Print every payout account's balances",
		Example: "  paydash balances\n  paydash balances --json | jq '.[] | {currency, available_balance_in_minor}'",
		Args:    cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			r, err := factory.New(s, g).Balances()
			if err != nil {
				return err
			}
			return Balances(cmd.Context(), s, r, asJSON)
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print as JSON")
	return c
}

// TransactionsCommand is `paydash transactions`.
func TransactionsCommand(s *cmdutil.Streams, g *cmdutil.Global) *cobra.Command {
	o := &TransactionsOptions{}
	c := &cobra.Command{
		Use:     "transactions",
		Aliases: []string{"tx", "report"},
		Short:   "Print or export the transaction report, filtered",
		Long: `Print or export the transaction report, filtered.

The table is the dashboard's report: newest first, amounts signed (+ money
in, - money out). --csv and --json stream the rows in the service's order
(memory stays flat whatever the report's size) unless --sort orders them;
--sort orders every format (then the matching rows are held until the last
arrives).`,
		Example: `  paydash transactions --since 7d
  paydash transactions --type payout --currency GBP --status settled --csv --out payouts.csv
  paydash transactions --since 30d --search "Harbour" --json
  paydash transactions --from 2026-11-01 --to 2026-11-30 --status failed
  paydash transactions --amount 50..100 --filter 'status:failed inv-'
  paydash transactions --since 30d --sort amount:desc --csv
  paydash transactions --view failed-gbp --csv`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			// A bad flag value is a usage error before any profile is read.
			if err := o.Check(); err != nil {
				return err
			}
			prof, client, err := cmdutil.Setup(s, g)
			if err != nil {
				return err
			}
			if err := o.UseView(prof); err != nil {
				return err
			}
			if !o.NoCache {
				o.Cache = cache.ForProfile(config.StateDir(s.Env), prof.Name, prof.PayoutsURL, prof.ReportCache)
			}
			return Transactions(cmd.Context(), s, client, o)
		},
	}
	o.Bind(c.Flags())
	cmdutil.CompleteCurrency(c)
	_ = c.RegisterFlagCompletionFunc("type", cmdutil.FixedCompletion(api.TransactionPayout, api.TransactionFunding))
	_ = c.RegisterFlagCompletionFunc("status", cmdutil.FixedCompletion(api.StateAuthorised, api.StateSubmitted, api.StateSettled, api.StateFailed))
	_ = c.RegisterFlagCompletionFunc("view", func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
		p, err := cmdutil.LoadProfile(cmdutil.Quiet(s), g)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		out := make([]cobra.Completion, 0, len(p.Views))
		for _, v := range p.Views {
			out = append(out, cobra.CompletionWithDesc(v.Name, v.Filter))
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	})
	return c
}

// PayoutCommand is `paydash payout` with `create`; main adds `batch`
// (package batch) beside it.
func PayoutCommand(s *cmdutil.Streams, g *cmdutil.Global) *cobra.Command {
	c := &cobra.Command{Use: "payout", Short: "Send payouts: one, or a checked, crash-safe batch from CSV", Args: cmdutil.NoArgs}
	o := &PayoutOptions{}
	create := &cobra.Command{
		Use:   "create",
		Short: "Send one payout; prints its transaction_id; exit 0 when the service accepted it (with --wait: when it settled)",
		Long: `Send one payout and print its transaction_id.

Before sending, paydash refuses (exit 3, nothing sent) a payout that
matches one already made within --duplicate-window (same IBAN, amount,
currency and reference, in this profile's audit record or the service's
report) unless --allow-duplicate is given, a --transaction-id already used
for a different payout (exit 2), and an amount the account cannot fund.
Without a terminal, --yes is required. Every attempt and its outcome is
appended to the profile's audit record (paydash payouts log).

Exit status: 0 accepted (with --wait: settled); 2 usage; 3 refused,
rejected or failed; 4 cancelled; 5 awaiting approval on the team's hub
(a payouts_via_relay profile; see paydash approvals); 6 read-only
profile; 1 anything else, including --wait running out before a final
state was seen.

` + factory.ReadOnlyHelp,
		Example: `  paydash payout create --name "Ada Lovelace" --iban GB33BUKB20201555555555 \
      --reference INV-1001 --amount 125.50 --currency GBP
  paydash payout create ... --yes --json --wait 1m`,
		Args: cmdutil.NoArgs,
		RunE: createRunE(s, g, func() error { return cmdutil.CheckDuplicateWindow(o.DuplicateWindow) },
			(*factory.Factory).PayoutSender,
			func(ctx context.Context, _ *config.Profile, ps factory.PayoutSender) error {
				return ps.Send(payoutRoutes{ctx: ctx, s: s, o: o})
			}),
	}
	o.Bind(create.Flags())
	cmdutil.CompleteCurrency(create)
	c.AddCommand(create)
	return c
}

// PayoutsCommand is `paydash payouts` with `log`.
func PayoutsCommand(s *cmdutil.Streams, g *cmdutil.Global) *cobra.Command {
	c := &cobra.Command{Use: "payouts", Short: "The local audit record of payouts this profile sent", Args: cmdutil.NoArgs}
	o := &PayoutsLogOptions{}
	logCmd := &cobra.Command{
		Use:   "log",
		Short: "Print every payout this profile sent (form, payout create, batch), one line per attempt with its outcome",
		Long: `Print the profile's audit record: every attempt to send a payout, from the
dashboard's form, payout create or a batch, with time, profile, source,
transaction_id, payee, IBAN, amount, reference and the last outcome known
(accepted, refused, settled, rejected, failed, returned; "no answer
recorded" when the process stopped before hearing back). A payout still
open in the record is first looked up in the relay's history, else the
service's report, and its final state is appended to the record
(--offline skips this). The record is append-only, fsynced and 0600,
under the state directory; the duplicate check reads it first.`,
		Example: "  paydash payouts log\n  paydash payouts log --since 7d --json",
		Args:    cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			f := factory.New(s, g)
			rec, err := f.AuditRecord(cmd.Context())
			if err != nil {
				return err
			}
			// The profile's own record learns here what became of its
			// open payouts; a hub keeps its record itself.
			if log, ok := rec.(*payout.Log); ok && !o.Offline {
				p, _ := f.Profile() // loaded by AuditRecord
				var report payout.ReportReader
				if c, err := f.Client(); err == nil {
					report = c
				}
				var states payout.FinalStates
				if p.RelayURL != "" {
					states = relayclient.History{URL: p.RelayURL, Token: p.RelayToken.Reveal()}
				}
				LearnOutcomes(cmd.Context(), s, log, report, states)
			}
			return PayoutsLog(s, rec, o)
		},
	}
	o.Bind(logCmd.Flags())
	c.AddCommand(logCmd)
	return c
}

// PaymentCommand is `paydash payment` with `create`.
func PaymentCommand(s *cmdutil.Streams, g *cmdutil.Global) *cobra.Command {
	c := &cobra.Command{Use: "payment", Short: "Create single payments", Args: cmdutil.NoArgs}
	o := &PaymentOptions{}
	create := &cobra.Command{
		Use:   "create",
		Short: "Create a single payment; prints id, user id, status and the resource token",
		Long: `Create a single payment and print its id, user id, status and the
resource token that authorises the payer's flow.

The request is checked by the same rules as the dashboard's form before
anything is sent (exit 2 with every problem). At a terminal the payment is
shown and only y creates it; without a terminal --yes is required (exit 2,
nothing sent), as for payout create.

Exit status: 0 created; 2 usage or an invalid request; 3 refused or not
known to be created (the idempotency key to retry with is printed); 4
cancelled; 6 read-only profile; 1 anything else.

` + factory.ReadOnlyHelp,
		Example: `  paydash payment create --amount 25.00 --currency GBP \
      --merchant-account-id 6f2f3c2e-0b9d-4c47-9b1e-5a1f00000826 --reference ORDER-42 \
      --user-name "Ada Lovelace" --user-email ada@example.com
  paydash payment create --amount 10 --currency EUR --iban DE89370400440532013000 \
      --account-holder-name "Müller GmbH" --reference R-7 --provider-id ob-bank --scheme instant_only \
      --user-name "Jo Bloggs" --user-phone +447700900123 --metadata order=42 --yes --json`,
		Args: cmdutil.NoArgs,
		RunE: createRunE(s, g, nil, (*factory.Factory).PaymentCreator,
			func(ctx context.Context, p *config.Profile, c factory.PaymentCreator) error {
				o.SetProfile(p.Name, p.Production)
				return CreatePayment(ctx, s, c, cmdutil.Validation(p), o)
			}),
	}
	o.Bind(create.Flags())
	cmdutil.CompleteCurrency(create)
	c.AddCommand(create)
	return c
}

// MandateCommand is `paydash mandate` with `create`.
func MandateCommand(s *cmdutil.Streams, g *cmdutil.Global) *cobra.Command {
	c := &cobra.Command{Use: "mandate", Short: "Create VRP mandates", Args: cmdutil.NoArgs}
	o := &MandateOptions{}
	create := &cobra.Command{
		Use:   "create",
		Short: "Create a sweeping or commercial VRP mandate; prints id, user id and the resource token",
		Long: `Create a sweeping or commercial VRP mandate and print its id, user id
and the resource token that authorises the payer's flow.

The request is checked by the same rules as the dashboard's form before
anything is sent (exit 2 with every problem). At a terminal the mandate is
shown and only y creates it; without a terminal --yes is required (exit 2,
nothing sent), as for payout create.

Exit status: 0 created; 2 usage or an invalid request; 3 refused or not
known to be created (the idempotency key to retry with is printed); 4
cancelled; 6 read-only profile; 1 anything else.

` + factory.ReadOnlyHelp,
		Example: `  paydash mandate create --type sweeping --currency GBP \
      --merchant-account-id 6f2f3c2e-0b9d-4c47-9b1e-5a1f00000826 \
      --user-name "Ada Lovelace" --user-email ada@example.com \
      --valid-from 2026-12-01 --valid-to 2029-12-01 --max-individual 250.00 \
      --limit month=5000.00:calendar --limit year=20000.00`,
		Args: cmdutil.NoArgs,
		RunE: createRunE(s, g, nil, (*factory.Factory).MandateCreator,
			func(ctx context.Context, p *config.Profile, c factory.MandateCreator) error {
				o.SetProfile(p.Name, p.Production)
				return CreateMandate(ctx, s, c, cmdutil.Validation(p), o)
			}),
	}
	o.Bind(create.Flags())
	cmdutil.CompleteCurrency(create)
	_ = create.RegisterFlagCompletionFunc("type", cmdutil.FixedCompletion(api.MandateSweeping, api.MandateCommercial))
	c.AddCommand(create)
	return c
}

// EventsCommand is `paydash events` with `tail`.
func EventsCommand(s *cmdutil.Streams, g *cmdutil.Global) *cobra.Command {
	c := &cobra.Command{Use: "events", Short: "Watch webhooks through the relay", Args: cmdutil.NoArgs}
	o := &TailOptions{}
	tail := &cobra.Command{
		Use:   "tail",
		Short: "Print webhooks live, one line each (time, type, event id, payout id, state)",
		Example: `  paydash events tail
  paydash events tail --type payout_settled,payout_failed --since 0
  paydash events tail --relay ws://127.0.0.1:8787/ws --json | jq .type`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			url, token := o.RelayURL, ""
			if p, err := cmdutil.LoadProfile(quietProfile(s, url), g); err == nil {
				if url == "" {
					url = p.RelayURL
				}
				token = p.RelayToken.Reveal()
			} else if url == "" {
				return err
			}
			return Tail(cmd.Context(), s, url, token, o)
		},
	}
	o.Bind(tail.Flags())
	c.AddCommand(tail)
	return c
}

// quietProfile keeps the "no profile" message away when --relay makes a
// profile unnecessary.
func quietProfile(s *cmdutil.Streams, relayURL string) *cmdutil.Streams {
	if relayURL == "" {
		return s
	}
	q := *s
	q.Err = io.Discard
	return &q
}
