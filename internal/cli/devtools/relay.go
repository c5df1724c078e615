package devtools

import (
	"errors"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/paydash/paydash/config"
	"github.com/paydash/paydash/internal/cli/cmdutil"
	"github.com/paydash/paydash/internal/platform/termtext"
	"github.com/paydash/paydash/webhookrelay/relayclient"
)

// relayFlags are how a command finds the relay: --relay, else the
// profile's relay_url (and relay_token).
type relayFlags struct{ URL string }

func (f *relayFlags) bind(fs *pflag.FlagSet) {
	fs.StringVar(&f.URL, "relay", "", "relay websocket URL (default: the profile's relay_url)")
}

// history resolves the relay to read from. A profile is optional when
// --relay names the relay.
func (f *relayFlags) history(s *cmdutil.Streams, g *cmdutil.Global) (relayclient.History, *config.Profile, error) {
	h := relayclient.History{URL: f.URL}
	p, err := cmdutil.LoadProfileIfAny(s, g)
	if err != nil && h.URL == "" {
		return h, nil, err
	}
	if p != nil {
		if h.URL == "" {
			h.URL = p.RelayURL
		}
		h.Token = p.RelayToken.Reveal()
	}
	if h.URL == "" {
		return h, p, cmdutil.Exit(cmdutil.ExitUsage, errors.New("no relay to read: pass --relay ws://127.0.0.1:8787/ws or set relay_url in the profile"))
	}
	return h, p, nil
}

// stateDir is where the client keeps its history of resends.
func stateDir(s *cmdutil.Streams) string { return config.StateDir(s.Getenv) }

// completeEventIDs completes an event id with the relay's newest events,
// each described by its type and payout.
func (f *relayFlags) completeEventIDs(s *cmdutil.Streams, g *cmdutil.Global) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		h, _, err := f.history(cmdutil.Quiet(s), g)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		evs, err := h.Recent(cmd.Context(), 100)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		out := make([]cobra.Completion, 0, len(evs))
		for i := len(evs) - 1; i >= 0; i-- { // newest first
			e := evs[i]
			out = append(out, cobra.CompletionWithDesc(e.EventID, termtext.Safe(strings.TrimSpace(e.Type+" "+e.PayoutID))))
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}
