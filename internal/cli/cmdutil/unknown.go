package cmdutil

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Execute runs root on args, its duration flags taking periods as people
// write them (HumanPeriods), first refusing a command line whose command
// or subcommand is unknown at any level. cobra itself prints help and
// exits 0 for `paydash payout creat` (payout runs nothing itself), and
// blames the flag for `paydash transaction --since 7d` (the flag is
// parsed on the root before the word is looked at): a typo then reads as
// success to a script, or points at the wrong word.
func Execute(ctx context.Context, root *cobra.Command, args []string) error {
	HumanPeriods(root)
	if err := UnknownCommand(root, args); err != nil {
		return err
	}
	return root.ExecuteContext(ctx)
}

// UnknownCommand returns a usage error (exit 2) naming the first word of
// args that is neither a command of the command it follows nor a flag's
// value, with "did you mean" when one is close, else the commands there
// are. It returns nil when every word down to a command without
// subcommands is known.
func UnknownCommand(root *cobra.Command, args []string) error {
	if len(args) > 0 && strings.HasPrefix(args[0], "__complete") {
		return nil // the shell asking for completions: cobra's own
	}
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd(args...)
	cmd, rest, err := root.Find(args)
	if err == nil && cmd.Name() == "help" && cmd.Parent() == root && len(rest) > 0 {
		// `paydash help payout creat` asks about a command that is not
		// there: the same answer as running it.
		return UnknownCommand(root, rest)
	}
	if err != nil || !cmd.HasAvailableSubCommands() {
		return nil
	}
	word := firstWord(cmd, rest)
	if word == "" {
		return nil
	}
	return Exit(ExitUsage, unknownCommandError(cmd, word))
}

func unknownCommandError(cmd *cobra.Command, word string) error {
	if cmd.SuggestionsMinimumDistance <= 0 {
		cmd.SuggestionsMinimumDistance = 2
	}
	if s := cmd.SuggestionsFor(word); len(s) > 0 {
		return fmt.Errorf("unknown command %q for %q; did you mean %s?", word, cmd.CommandPath(), quoteOr(s))
	}
	var names []string
	for _, c := range cmd.Commands() {
		if c.IsAvailableCommand() {
			names = append(names, c.Name())
		}
	}
	return fmt.Errorf("unknown command %q for %q; its commands are %s (see %s --help)", word, cmd.CommandPath(), strings.Join(names, ", "), cmd.CommandPath())
}

func quoteOr(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = fmt.Sprintf("%q", x)
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}

// firstWord is the first argument that is not a flag or a flag's value,
// read the way cobra reads them when it looks for a subcommand: an
// unknown --flag or -f without "=" takes the next word as its value.
func firstWord(cmd *cobra.Command, args []string) string {
	flags := pflag.NewFlagSet("", pflag.ContinueOnError)
	flags.AddFlagSet(cmd.Flags())
	flags.AddFlagSet(cmd.InheritedFlags())
	takesValue := func(f *pflag.Flag) bool { return f == nil || f.NoOptDefVal == "" }
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return ""
		case strings.HasPrefix(a, "--"):
			if !strings.Contains(a, "=") && takesValue(flags.Lookup(a[2:])) {
				i++
			}
		case strings.HasPrefix(a, "-") && len(a) > 1:
			if len(a) == 2 && takesValue(flags.ShorthandLookup(a[1:])) {
				i++
			}
		default:
			return a
		}
	}
	return ""
}
