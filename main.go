// Command paydash is a terminal dashboard and command-line tool for
// payout-account operations: live balances, the transaction report,
// payouts (one or a crash-safe batch), single payments and VRP mandates,
// and a live view of every webhook.
//
// This file is only the command table: each command parses its flags and
// calls one package.
package main

import (
	"strings"

	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/paydash/paydash/api/sandbox"

	"github.com/spf13/cobra"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/cli/batch"
	"github.com/paydash/paydash/internal/cli/cmdutil"
	"github.com/paydash/paydash/internal/cli/dashboard"
	"github.com/paydash/paydash/internal/cli/demo"
	"github.com/paydash/paydash/internal/cli/headless"
	"github.com/paydash/paydash/internal/cli/serve"
	"github.com/paydash/paydash/termtext"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	os.Exit(run(context.Background(), os.Args[1:], cmdutil.System()))
}

// run executes one command line and returns the exit status.
func run(ctx context.Context, args []string, s *cmdutil.Streams) int {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	s.Done = ctx.Done()
	root := newRoot(s)
	root.SetArgs(args)
	root.SetIn(s.In)
	root.SetOut(s.Out)
	root.SetErr(s.Err)
	err := root.ExecuteContext(ctx)
	if err != nil && !cmdutil.IsSilent(err) {
		// Errors carry the service's texts and file cells: shown escaped.
		fmt.Fprintf(s.Err, "paydash: %s\n", termtext.Lines(err.Error()))
	}
	return cmdutil.ExitCode(err)
}

func newRoot(s *cmdutil.Streams) *cobra.Command {
	g := &cmdutil.Global{}
	root := &cobra.Command{
		Use:   "paydash",
		Short: "Payout-account dashboard: balances, transactions, payouts, payments, mandates and live webhooks",
		Long: `paydash is a terminal dashboard for payout-account operations.

Run it without a command to open the dashboard on your profile, or try
it against a built-in sandbox with nothing to configure:

    paydash demo

Every view is also a headless command for scripts (--json on each).`,
		Version:       version,
		Args:          noArgs,
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return dashboard.Run(cmd.Context(), s, g)
		},
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return cmdutil.Exit(cmdutil.ExitUsage, err)
	})
	g.Bind(root.PersistentFlags())
	root.AddGroup(
		&cobra.Group{ID: "start", Title: "Getting started:"},
		&cobra.Group{ID: "ops", Title: "Operations (headless, --json on each):"},
		&cobra.Group{ID: "dev", Title: "Servers and webhooks:"},
	)
	add := func(group string, cmds ...*cobra.Command) {
		for _, c := range cmds {
			c.GroupID = group
			root.AddCommand(c)
		}
	}
	add("start", demoCmd(s), configCmd(s, g))
	add("ops", balancesCmd(s, g), transactionsCmd(s, g), payoutCmd(s, g), payoutsCmd(s, g), paymentCmd(s, g), mandateCmd(s, g))
	add("dev", sandboxCmd(s), relayCmd(s, g), eventsCmd(s, g))
	return root
}

func demoCmd(s *cmdutil.Streams) *cobra.Command {
	o := &demo.Options{}
	c := &cobra.Command{
		Use:   "demo",
		Short: "Run the dashboard on a built-in sandbox and relay, with history and live activity",
		Example: `  paydash demo
  paydash demo --history 100000 --seed 7
  paydash demo --headless          # sandbox + relay only; attach from another terminal`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return demo.Run(cmd.Context(), s, o) },
	}
	o.Bind(c.Flags())
	return c
}

func configCmd(s *cmdutil.Streams, g *cmdutil.Global) *cobra.Command {
	c := &cobra.Command{Use: "config", Short: "Write, show and check the config file", Args: noArgs}
	c.AddCommand(&cobra.Command{
		Use:     "init",
		Short:   "Write a commented config file with a sandbox profile (0600; never overwrites)",
		Example: "  paydash config init\n  paydash --config ./paydash.toml config init",
		Args:    noArgs,
		RunE:    func(*cobra.Command, []string) error { return headless.ConfigInit(s, g) },
	})
	var showJSON bool
	show := &cobra.Command{
		Use:     "show",
		Short:   "Print the resolved profile with secrets redacted",
		Example: "  paydash config show\n  paydash --profile production config show --json",
		Args:    noArgs,
		RunE:    func(*cobra.Command, []string) error { return headless.ConfigShow(s, g, showJSON) },
	}
	show.Flags().BoolVar(&showJSON, "json", false, "print as JSON")
	var checkJSON bool
	check := &cobra.Command{
		Use:     "check",
		Short:   "Validate the profile and get a token for every scope it needs, saying exactly what failed",
		Example: "  paydash config check\n  paydash --profile production config check --json",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return headless.ConfigCheck(cmd.Context(), s, g, checkJSON)
		},
	}
	check.Flags().BoolVar(&checkJSON, "json", false, "print the checks as JSON")
	c.AddCommand(show, check)
	return c
}

func balancesCmd(s *cmdutil.Streams, g *cmdutil.Global) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:     "balances",
		Short:   "Print every payout account's balances",
		Example: "  paydash balances\n  paydash balances --json | jq '.[] | {currency, available_balance_in_minor}'",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, client, err := cmdutil.Setup(s, g)
			if err != nil {
				return err
			}
			return headless.Balances(cmd.Context(), s, client, asJSON)
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print as JSON")
	return c
}

func transactionsCmd(s *cmdutil.Streams, g *cmdutil.Global) *cobra.Command {
	o := &headless.TransactionsOptions{}
	c := &cobra.Command{
		Use:     "transactions",
		Aliases: []string{"tx", "report"},
		Short:   "Print or export the transaction report, filtered",
		Example: `  paydash transactions --since 7d
  paydash transactions --type payout --currency GBP --status settled --csv --out payouts.csv
  paydash transactions --since 30d --search "Harbour" --json
  paydash transactions --from 2026-11-01 --to 2026-11-30 --status failed
  paydash transactions --amount 50..100 --filter 'status:failed inv-'`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			// A bad flag value is a usage error before any profile is read.
			if err := o.Check(); err != nil {
				return err
			}
			_, client, err := cmdutil.Setup(s, g)
			if err != nil {
				return err
			}
			return headless.Transactions(cmd.Context(), s, client, o)
		},
	}
	o.Bind(c.Flags())
	completeCurrency(c)
	_ = c.RegisterFlagCompletionFunc("type", fixedCompletion(api.TransactionPayout, api.TransactionFunding))
	_ = c.RegisterFlagCompletionFunc("status", fixedCompletion(api.StateAuthorised, api.StateSubmitted, api.StateSettled, api.StateFailed))
	return c
}

func payoutCmd(s *cmdutil.Streams, g *cmdutil.Global) *cobra.Command {
	c := &cobra.Command{Use: "payout", Short: "Send payouts: one, or a checked, crash-safe batch from CSV", Args: noArgs}
	o := &headless.PayoutOptions{}
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
rejected or failed; 4 cancelled; 1 anything else, including --wait
running out before a final state was seen.`,
		Example: `  paydash payout create --name "Ada Lovelace" --iban GB33BUKB20201555555555 \
      --reference INV-1001 --amount 125.50 --currency GBP
  paydash payout create ... --yes --json --wait 1m`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkDuplicateWindow(o.DuplicateWindow); err != nil {
				return err
			}
			p, client, err := cmdutil.Setup(s, g)
			if err != nil {
				return err
			}
			audit, err := cmdutil.AuditLog(s, p)
			if err != nil {
				return err
			}
			return headless.CreatePayout(cmd.Context(), s, client, headless.Target{Profile: p.Name, Production: p.Production,
				Audit: audit, RelayURL: p.RelayURL, RelayToken: p.RelayToken.Reveal()}, o)
		},
	}
	o.Bind(create.Flags())
	completeCurrency(create)

	bo := &batch.CommandOptions{}
	batchCmd := &cobra.Command{
		Use:   "batch FILE.csv",
		Short: "Send a CSV of payouts: all rows checked first, never a row paid twice, resumable",
		Long: `Send every row of a CSV file as a payout.

The header names the columns: name,iban,reference,amount,currency, and
optionally context_code and transaction_id (any order). amount is in major
units (12.50). Every row is checked before anything is sent; if any row is
bad, every bad line is listed and nothing is sent.

A journal (FILE.csv.journal, 0600, locked for the run, appended only)
fixes each row's transaction_id before the first payout is sent and records
each outcome as it goes. If the run is interrupted (ctrl+c, a crash, a lost
connection), run the same command again: accepted rows are skipped and the
others are re-sent with the same transaction_id, which the service never
pays twice. A lost or damaged journal is rebuilt from the profile's audit
record (paydash payouts log) and the service's report: rows already sent
are not sent again.

Before anything is sent, every row is checked against payouts already made
(same IBAN, amount, currency and reference within --duplicate-window, in
the audit record or the report); matches are listed and not sent unless
--allow-duplicate is given, and so are rows repeated inside the file and
CHANGED rows: a row edited after it was paid (same line, or same IBAN and
reference, another amount or payee) would pay that payee twice. The
rows to send are listed before the confirmation; without a terminal --yes
is required. --dry-run lists them too, with each currency's total against
its available balance, and exits 3 if the batch could not be paid in full.`,
		Example: `  paydash payout batch payroll.csv --dry-run
  paydash payout batch payroll.csv
  paydash payout batch payroll.csv --yes --json --wait 2m`,
		Args: exactArgs(1),
		ValidArgsFunction: func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return []string{"csv"}, cobra.ShellCompDirectiveFilterFileExt
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkDuplicateWindow(bo.DuplicateWindow); err != nil {
				return err
			}
			return batch.Command(cmd.Context(), s, g, args[0], bo)
		},
	}
	bo.Bind(batchCmd.Flags())
	c.AddCommand(create, batchCmd)
	return c
}

// checkDuplicateWindow refuses a window that would switch the duplicate
// check off (zero) or make no sense (negative): the check is the
// operator's protection, and turning it off is what --allow-duplicate is
// for, said explicitly.
func checkDuplicateWindow(d time.Duration) error {
	if d <= 0 {
		return cmdutil.Exit(cmdutil.ExitUsage, fmt.Errorf("--duplicate-window %s: want a positive duration such as 168h (the default) or 24h; "+
			"to send a payout that matches an earlier one, pass --allow-duplicate instead", d))
	}
	return nil
}

func payoutsCmd(s *cmdutil.Streams, g *cmdutil.Global) *cobra.Command {
	c := &cobra.Command{Use: "payouts", Short: "The local audit record of payouts this profile sent", Args: noArgs}
	o := &headless.PayoutsLogOptions{}
	logCmd := &cobra.Command{
		Use:   "log",
		Short: "Print every payout this profile sent (form, payout create, batch), one line per attempt with its outcome",
		Long: `Print the profile's audit record: every attempt to send a payout, from the
dashboard's form, payout create or a batch, with time, profile, source,
transaction_id, payee, IBAN, amount, reference and the last outcome known
(accepted, refused, settled, rejected, failed; "no answer recorded" when the
process stopped before hearing back). The record is append-only, fsynced
and 0600, under the state directory; the duplicate check reads it first.`,
		Example: "  paydash payouts log\n  paydash payouts log --since 7d --json",
		Args:    noArgs,
		RunE: func(*cobra.Command, []string) error {
			p, err := cmdutil.LoadProfile(s, g)
			if err != nil {
				return err
			}
			log, err := cmdutil.AuditLog(s, p)
			if err != nil {
				return err
			}
			return headless.PayoutsLog(s, log, o)
		},
	}
	o.Bind(logCmd.Flags())
	c.AddCommand(logCmd)
	return c
}

func paymentCmd(s *cmdutil.Streams, g *cmdutil.Global) *cobra.Command {
	c := &cobra.Command{Use: "payment", Short: "Create single payments", Args: noArgs}
	o := &headless.PaymentOptions{}
	create := &cobra.Command{
		Use:   "create",
		Short: "Create a single payment; prints id, user id, status and the resource token",
		Example: `  paydash payment create --amount 25.00 --currency GBP \
      --merchant-account-id 6f2f3c2e-0b9d-4c47-9b1e-5a1f00000826 --reference ORDER-42 \
      --user-name "Ada Lovelace" --user-email ada@example.com
  paydash payment create --amount 10 --currency EUR --iban DE89370400440532013000 \
      --account-holder-name "Müller GmbH" --reference R-7 --provider-id ob-bank --scheme instant_only \
      --user-name "Jo Bloggs" --user-phone +447700900123 --metadata order=42 --json`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			p, client, err := cmdutil.Setup(s, g)
			if err != nil {
				return err
			}
			return headless.CreatePayment(cmd.Context(), s, client, cmdutil.Validation(p), o)
		},
	}
	o.Bind(create.Flags())
	completeCurrency(create)
	c.AddCommand(create)
	return c
}

func mandateCmd(s *cmdutil.Streams, g *cmdutil.Global) *cobra.Command {
	c := &cobra.Command{Use: "mandate", Short: "Create VRP mandates", Args: noArgs}
	o := &headless.MandateOptions{}
	create := &cobra.Command{
		Use:   "create",
		Short: "Create a sweeping or commercial VRP mandate; prints id, user id and the resource token",
		Example: `  paydash mandate create --type sweeping --currency GBP \
      --merchant-account-id 6f2f3c2e-0b9d-4c47-9b1e-5a1f00000826 \
      --user-name "Ada Lovelace" --user-email ada@example.com \
      --valid-from 2026-12-01 --valid-to 2029-12-01 --max-individual 250.00 \
      --limit month=5000.00:calendar --limit year=20000.00`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			p, client, err := cmdutil.Setup(s, g)
			if err != nil {
				return err
			}
			return headless.CreateMandate(cmd.Context(), s, client, cmdutil.Validation(p), o)
		},
	}
	o.Bind(create.Flags())
	completeCurrency(create)
	_ = create.RegisterFlagCompletionFunc("type", fixedCompletion(api.MandateSweeping, api.MandateCommercial))
	c.AddCommand(create)
	return c
}

func sandboxCmd(s *cmdutil.Streams) *cobra.Command {
	o := &serve.SandboxOptions{}
	c := &cobra.Command{
		Use:   "sandbox",
		Short: "Run the built-in implementation of the service for your own code to talk to",
		Long: "Run the built-in implementation of the service for your own code to talk to.\n\n" +
			"What happens to a payout is chosen by its details:\n  " + strings.Join(sandbox.ScriptedOutcomes, "\n  ") +
			"\n\nFund an account: POST /sandbox/fund {currency, amount_in_minor, payer_name}.\n" +
			"GET /sandbox lists these, every control endpoint and the merchant accounts.",
		Example: `  paydash sandbox
  paydash sandbox --listen 127.0.0.1:0 --json
  paydash sandbox --merchant-key merchant-pub.pem --webhook-uri http://127.0.0.1:8787/webhooks --history 5000`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return serve.Sandbox(cmd.Context(), s, o) },
	}
	o.Bind(c.Flags())
	return c
}

func relayCmd(s *cmdutil.Streams, g *cmdutil.Global) *cobra.Command {
	o := &serve.RelayOptions{}
	c := &cobra.Command{
		Use:   "relay",
		Short: "Receive, verify and store webhooks, and stream them live to dashboards",
		Long: `Receive, verify and store webhooks, and stream them live to dashboards.

The relay listens on the profile's relay_listen and requires its
relay_token (or relay_token_env, or PAYDASH_RELAY_TOKEN) from readers of
/ws, /events and /metrics (a Prometheus scrape sends it as a bearer token:
authorization.credentials_file); --listen, --token and --token-env
override them. A token
has at least 16 characters and no whitespace. With no profile configured
the flags alone apply.

Signatures are verified with --verify-key, or with the JWKS each
signature names in its jku when that URL is allowed by --jku-allow. With
--nats, any number of relays share one NATS JetStream stream (clustered
mode) instead of the --store file.`,
		Example: `  paydash relay --jku-allow http://127.0.0.1:8080/.well-known/jwks -v
  paydash --profile staging relay    # relay_listen and relay_token from the profile
  paydash relay --listen 0.0.0.0:8787 --token-env PAYDASH_RELAY_TOKEN --verify-key service-pub.pem \
      --forward-to http://127.0.0.1:3000/webhooks
  paydash relay --listen 0.0.0.0:8787 --allowed-host relay.example.com --jku-allow https://svc.example/.well-known/jwks \
      --nats nats://n1:4222,nats://n2:4222,nats://n3:4222 --nats-creds relay.creds --nats-replicas 3`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return serve.Relay(cmd.Context(), s, g, o) },
	}
	o.Bind(c.Flags())
	return c
}

func eventsCmd(s *cmdutil.Streams, g *cmdutil.Global) *cobra.Command {
	c := &cobra.Command{Use: "events", Short: "Watch webhooks through the relay", Args: noArgs}
	o := &headless.TailOptions{}
	tail := &cobra.Command{
		Use:   "tail",
		Short: "Print webhooks live, one line each (time, type, event id, payout id, state)",
		Example: `  paydash events tail
  paydash events tail --type payout_settled,payout_failed --since 0
  paydash events tail --relay ws://127.0.0.1:8787/ws --json | jq .type`,
		Args: noArgs,
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
			return headless.Tail(cmd.Context(), s, url, token, o)
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
	q.Err = discard{}
	return &q
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

func completeCurrency(c *cobra.Command) {
	_ = c.RegisterFlagCompletionFunc("currency", fixedCompletion(api.KnownCurrencies()...))
}

func fixedCompletion(values ...string) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return values, cobra.ShellCompDirectiveNoFileComp
	}
}

// noArgs and exactArgs are cobra's argument checks with exit status 2, so
// scripts can tell a wrong command line from a failed operation.
func noArgs(cmd *cobra.Command, args []string) error {
	return usage(cobra.NoArgs(cmd, args))
}

func exactArgs(n int) cobra.PositionalArgs {
	check := cobra.ExactArgs(n)
	return func(cmd *cobra.Command, args []string) error { return usage(check(cmd, args)) }
}

func usage(err error) error {
	if err == nil {
		return nil
	}
	return cmdutil.Exit(cmdutil.ExitUsage, err)
}
