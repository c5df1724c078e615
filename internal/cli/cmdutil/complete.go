package cmdutil

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/paydash/paydash/config"
)

// This file is shell completion of the values only paydash knows (profile
// names here; event ids in devtools, approval ids in approvals, currencies
// in cobra.go), not only of flags. A completion never prints to the
// terminal it completes in and never waits long: each asks with a short
// timeout and offers nothing when it cannot answer.

// File is the config file a command reads or writes: --config, then
// $PAYDASH_CONFIG, then the default location.
func (g *Global) File(s *Streams) string {
	if g.ConfigPath != "" {
		return g.ConfigPath
	}
	if p := s.Env("PAYDASH_CONFIG"); p != "" {
		return p
	}
	return config.DefaultPath(s.Getenv)
}

// CompleteProfiles makes --profile (a persistent flag of root) complete
// with the config file's profile names.
func (g *Global) CompleteProfiles(root *cobra.Command, s *Streams) {
	_ = root.RegisterFlagCompletionFunc("profile", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return config.ProfileNames(g.File(s)), cobra.ShellCompDirectiveNoFileComp
	})
}

// Quiet is s with nothing written to stderr: config warnings must not
// land in the middle of a shell's completion.
func Quiet(s *Streams) *Streams {
	q := *s
	q.Err = io.Discard
	return &q
}
