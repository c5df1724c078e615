package cmdutil

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/paydash/paydash/internal/platform/suggest"
)

// unknownFlag matches pflag's messages for a flag that is not there:
// "unknown flag: --jsn" and "unknown shorthand flag: 'x' in -x".
var (
	unknownFlag      = regexp.MustCompile(`^unknown flag: --([^\s=]+)`)
	unknownShorthand = regexp.MustCompile(`^unknown shorthand flag: '(.)' in -`)
)

// FlagError is every command's flag error (root.SetFlagErrorFunc): a
// usage error (exit 2) and, for a flag that is not there, the closest
// flag the command has, as an unknown command gets ("did you mean").
// The message is new; the error is pflag's, so --json still names the
// flag in its "field".
func FlagError(cmd *cobra.Command, err error) error {
	if err == nil {
		return nil
	}
	if m := unknownFlag.FindStringSubmatch(err.Error()); m != nil {
		if s := suggestFlags(cmd, m[1]); len(s) > 0 {
			return Exit(ExitUsage, WithMessage(fmt.Sprintf("unknown flag --%s for %q; did you mean %s?", m[1], cmd.CommandPath(), quoteOr(s)), err))
		}
		return Exit(ExitUsage, WithMessage(fmt.Sprintf("unknown flag --%s for %q (see %s --help)", m[1], cmd.CommandPath(), cmd.CommandPath()), err))
	}
	if m := unknownShorthand.FindStringSubmatch(err.Error()); m != nil {
		return Exit(ExitUsage, WithMessage(fmt.Sprintf("unknown flag -%s for %q (see %s --help)", m[1], cmd.CommandPath(), cmd.CommandPath()), err))
	}
	return Exit(ExitUsage, err)
}

// suggestFlags are the command's flags (its own and inherited, hidden
// ones left out) within two edits of name, or that name begins, closest
// first, written --flag.
func suggestFlags(cmd *cobra.Command, name string) []string {
	type cand struct {
		name string
		d    int
	}
	var found []cand
	seen := map[string]bool{}
	visit := func(f *pflag.Flag) {
		if f.Hidden || seen[f.Name] {
			return
		}
		seen[f.Name] = true
		d := suggest.Distance(strings.ToLower(name), f.Name)
		if d <= 2 || (len(name) >= 3 && strings.HasPrefix(f.Name, name)) {
			found = append(found, cand{f.Name, d})
		}
	}
	cmd.Flags().VisitAll(visit)
	cmd.InheritedFlags().VisitAll(visit)
	best := -1
	for _, c := range found {
		if best < 0 || c.d < best {
			best = c.d
		}
	}
	var out []string
	for _, c := range found {
		if c.d == best {
			out = append(out, "--"+c.name)
		}
	}
	return out
}
