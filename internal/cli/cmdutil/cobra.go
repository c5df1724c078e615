package cmdutil

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/paydash/paydash/api"
)

// NoArgs and ExactArgs are cobra's argument checks with exit status 2, so
// scripts can tell a wrong command line from a failed operation.
func NoArgs(cmd *cobra.Command, args []string) error {
	return Usage(cobra.NoArgs(cmd, args))
}

// ExactArgs is cobra.ExactArgs with exit status 2.
func ExactArgs(n int) cobra.PositionalArgs {
	check := cobra.ExactArgs(n)
	return func(cmd *cobra.Command, args []string) error { return Usage(check(cmd, args)) }
}

// Usage marks err (when not nil) as a wrong command line: exit status 2.
func Usage(err error) error {
	if err == nil {
		return nil
	}
	return Exit(ExitUsage, err)
}

// CompleteCurrency offers the known currency codes for --currency.
func CompleteCurrency(c *cobra.Command) {
	_ = c.RegisterFlagCompletionFunc("currency", FixedCompletion(api.KnownCurrencies()...))
}

// FixedCompletion offers a fixed list of values for a flag.
func FixedCompletion(values ...string) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return values, cobra.ShellCompDirectiveNoFileComp
	}
}

// CheckDuplicateWindow refuses a window that would switch the duplicate
// check off (zero) or make no sense (negative): the check is the
// operator's protection, and turning it off is what --allow-duplicate is
// for, said explicitly.
func CheckDuplicateWindow(d time.Duration) error {
	if d <= 0 {
		return Exit(ExitUsage, fmt.Errorf("--duplicate-window %s: want a positive period such as 7d (the default), 24h or \"30 days\"; "+
			"to send a payout that matches an earlier one, pass --allow-duplicate instead", HumanDuration(d)))
	}
	return nil
}
