package cmdutil

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// Issue 28 item 8: a flag that is not there gets the closest the command
// has, its own or inherited, as an unknown command does; exit 2.
func TestUnknownFlagSuggestsTheClosest(t *testing.T) {
	root := &cobra.Command{Use: "paydash"}
	root.PersistentFlags().String("profile", "", "")
	child := &cobra.Command{Use: "transactions", RunE: func(*cobra.Command, []string) error { return nil }}
	child.Flags().Bool("json", false, "")
	child.Flags().Bool("csv", false, "")
	child.Flags().String("since", "", "")
	root.AddCommand(child)
	root.SetFlagErrorFunc(FlagError)
	root.SilenceErrors, root.SilenceUsage = true, true
	for _, tc := range []struct{ args, want string }{
		{"transactions --jsn", `unknown flag --jsn for "paydash transactions"; did you mean "--json"?`},
		{"transactions --sinse 7d", `did you mean "--since"?`},
		{"transactions --profle x", `did you mean "--profile"?`},
		{"transactions --nothing-like-it", `unknown flag --nothing-like-it for "paydash transactions" (see paydash transactions --help)`},
		{"transactions -z", `unknown flag -z for "paydash transactions"`},
	} {
		root.SetArgs(strings.Fields(tc.args))
		err := root.Execute()
		if ExitCode(err) != ExitUsage || err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: exit %d, %v; want exit 2 and %q", tc.args, ExitCode(err), err, tc.want)
		}
	}
}
