package demo

import (
	"github.com/spf13/cobra"

	"github.com/paydash/paydash/internal/cli/cmdutil"
)

// Command is `paydash demo`. Of the global flags it takes --readonly and
// --config (whose [keys] and [theme] the dashboard uses).
func Command(s *cmdutil.Streams, g *cmdutil.Global) *cobra.Command {
	o := &Options{}
	c := &cobra.Command{
		Use:   "demo",
		Short: "Run the dashboard on a built-in sandbox and relay, with history and live activity",
		Example: `  paydash demo
  paydash demo --history 100000 --seed 7
  paydash demo --headless          # sandbox + relay only; attach from another terminal`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.ReadOnly, o.ConfigPath = g.ReadOnly, g.ConfigPath
			return Run(cmd.Context(), s, o)
		},
	}
	o.Bind(c.Flags())
	return c
}
