// Command paydash is a terminal dashboard and command-line tool for
// payout-account operations: live balances, the transaction report,
// payouts (one or a crash-safe batch), single payments and VRP mandates,
// and a live view of every webhook.
//
// This file only assembles the command tree: each command package under
// internal/cli exports its own cobra command.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/paydash/paydash/internal/cli/approvals"
	"github.com/paydash/paydash/internal/cli/batch"
	"github.com/paydash/paydash/internal/cli/cmdutil"
	"github.com/paydash/paydash/internal/cli/dashboard"
	"github.com/paydash/paydash/internal/cli/demo"
	"github.com/paydash/paydash/internal/cli/devtools"
	"github.com/paydash/paydash/internal/cli/docgen"
	"github.com/paydash/paydash/internal/cli/headless"
	"github.com/paydash/paydash/internal/cli/reportcache"
	"github.com/paydash/paydash/internal/cli/serve"
	"github.com/paydash/paydash/internal/cli/version"
)

// linkedVersion is set by a release build with -ldflags
// "-X main.linkedVersion=v1.2.3"; any other build is named by the module
// version and VCS revision the toolchain embeds (internal/cli/version).
var linkedVersion = "dev"

func main() {
	os.Exit(run(context.Background(), os.Args[1:], cmdutil.System()))
}

// run executes one command line and returns the exit status.
func run(ctx context.Context, args []string, s *cmdutil.Streams) int {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	s.Done = ctx.Done()
	out := cmdutil.WatchOutput(s)
	root := newRoot(s)
	filtered := cmdutil.AddJSONFilters(root, s) // --jq, --json=FIELD,…
	root.SetArgs(args)
	root.SetIn(s.In)
	root.SetOut(s.Out)
	root.SetErr(s.Err)
	err := cmdutil.Execute(ctx, root, args)
	if ferr := filtered(); ferr != nil {
		err = ferr // the cause of any write error the command met
	}
	return cmdutil.Report(s, out, args, err)
}

// newTree is the whole command tree as a person meets it, --jq and
// --json=FIELD,… included: what the reference documents.
func newTree(s *cmdutil.Streams) *cobra.Command {
	root := newRoot(s)
	cmdutil.AddJSONFilters(root, s)
	root.InitDefaultCompletionCmd()
	return root
}

func newRoot(s *cmdutil.Streams) *cobra.Command {
	g := &cmdutil.Global{}
	build := version.Read(linkedVersion)
	root := &cobra.Command{
		Use:   "paydash",
		Short: "Payout-account dashboard: balances, transactions, payouts, payments, mandates and live webhooks",
		Long: `paydash is a terminal dashboard for payout-account operations.

Run it without a command to open the dashboard on your profile, or try
it against a built-in sandbox with nothing to configure:

    paydash demo

Every view is also a headless command for scripts (--json on each).`,
		Version:       build.String(),
		Args:          cmdutil.NoArgs,
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return dashboard.Run(cmd.Context(), s, g)
		},
		// --debug and PAYDASH_DEBUG=api, once the flags are read.
		PersistentPreRun: func(*cobra.Command, []string) { g.StartTrace(s) },
	}
	root.SetFlagErrorFunc(cmdutil.FlagError) // exit 2, "did you mean" for a flag not there
	// --version prints the same line as `paydash version`.
	root.SetVersionTemplate("{{.Version}}\n")
	g.Bind(root.PersistentFlags())
	g.CompleteProfiles(root, s)
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
	payout := headless.PayoutCommand(s, g)
	payout.AddCommand(batch.PayoutBatchCommand(s, g))
	add("start", demo.Command(s, g), headless.ConfigCommand(s, g), version.Command(s, build))
	add("ops", headless.BalancesCommand(s, g), headless.TransactionsCommand(s, g), payout,
		headless.PayoutsCommand(s, g), headless.PaymentCommand(s, g), headless.MandateCommand(s, g), reportcache.Command(s, g))
	// The webhook workbench (devtools) adds to the sandbox and events commands.
	sandbox := serve.SandboxCommand(s)
	sandbox.AddCommand(devtools.TriggerCommand(s, g))
	events := headless.EventsCommand(s, g)
	events.AddCommand(devtools.ResendCommand(s, g), devtools.ShowCommand(s, g), devtools.MissingCommand(s, g))
	// Team mode: the relay's users, and the approvers' side.
	relay := serve.RelayCommand(s, g)
	relay.AddCommand(serve.UserCommand(s))
	add("ops", approvals.Command(s, g))
	add("dev", sandbox, relay, events)
	// Hidden: the command reference and man pages, from this same tree.
	root.AddCommand(docgen.Command(s, func() *cobra.Command { return newTree(s) }))
	return root
}
