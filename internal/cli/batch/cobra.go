package batch

import (
	"github.com/spf13/cobra"

	"github.com/paydash/paydash/internal/cli/cmdutil"
	"github.com/paydash/paydash/internal/cli/factory"
)

// PayoutBatchCommand is `paydash payout batch`; main adds it under the
// `payout` command of package headless.
func PayoutBatchCommand(s *cmdutil.Streams, g *cmdutil.Global) *cobra.Command {
	bo := &CommandOptions{}
	c := &cobra.Command{
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
its available balance, and exits 3 if the batch could not be paid in full.

` + factory.ReadOnlyHelp + ` A dry run sends nothing, so it
still checks the file on a read-only profile.`,
		Example: `  paydash payout batch payroll.csv --dry-run
  paydash payout batch payroll.csv
  paydash payout batch payroll.csv --yes --json --wait 2m`,
		Args: cmdutil.ExactArgs(1),
		ValidArgsFunction: func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return []string{"csv"}, cobra.ShellCompDirectiveFilterFileExt
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := cmdutil.CheckDuplicateWindow(bo.DuplicateWindow); err != nil {
				return err
			}
			return Command(cmd.Context(), s, g, args[0], bo)
		},
	}
	bo.Bind(c.Flags())
	return c
}
