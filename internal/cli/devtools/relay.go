package devtools

import (
	"errors"

	"github.com/spf13/pflag"

	"github.com/paydash/paydash/config"
	"github.com/paydash/paydash/internal/cli/cmdutil"
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
