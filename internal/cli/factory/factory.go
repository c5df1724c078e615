// Package factory builds, once per command run, what paydash's commands
// and its dashboard send and read with, having decided once whether the
// profile sends directly (its own client credentials and signing key) or
// through its team's hub (payouts_via_relay = true). In the spirit of
// gh's cmdutil.Factory: a command asks for a payout sender, a payment or
// mandate creator, a balances or audit reader, and never looks at the
// profile's mode itself, so the next mode (a read-only profile, say) is
// one change here rather than one in every command.
//
// It may import cmdutil, config, api, the payout pipeline and the hub's
// client (hubclient); never a command package, ui or the hub's server.
package factory

import (
	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/config"
	"github.com/paydash/paydash/internal/cli/cmdutil"
)

// Factory hands out one command run's senders and readers. It loads the
// profile at most once (config warnings are printed once) and builds the
// service's client at most once.
type Factory struct {
	streams *cmdutil.Streams
	global  *cmdutil.Global

	loaded     bool
	profile    *config.Profile
	profileErr error

	built     bool
	client    *api.Client
	clientErr error
}

// New is the factory of a command run on the streams s with the global
// flags g (--config, --profile, --set).
func New(s *cmdutil.Streams, g *cmdutil.Global) *Factory {
	return &Factory{streams: s, global: g}
}

// ForProfile is the factory of a profile already loaded, for a caller
// that reads it its own way (the dashboard's profile switcher).
func ForProfile(s *cmdutil.Streams, p *config.Profile) *Factory {
	return &Factory{streams: s, loaded: true, profile: p}
}

// Profile is the run's profile, loaded on first use as
// cmdutil.LoadProfile loads it (nothing configured: the pointer to
// `paydash demo` and cmdutil.ErrNoProfile).
func (f *Factory) Profile() (*config.Profile, error) {
	if !f.loaded {
		f.loaded = true
		f.profile, f.profileErr = cmdutil.LoadProfile(f.streams, f.global)
	}
	return f.profile, f.profileErr
}

// Client is the service's client of the profile, built on first use.
// A team profile has one too: it reads balances and the report with its
// own credentials; only what it sends goes through the hub.
func (f *Factory) Client() (*api.Client, error) {
	if !f.built {
		p, err := f.Profile()
		if err != nil {
			return nil, err
		}
		f.built = true
		f.client, f.clientErr = cmdutil.Client(p, f.streams.Trace)
	}
	return f.client, f.clientErr
}

// Setup is the profile and its client, what most commands need first.
func (f *Factory) Setup() (*config.Profile, *api.Client, error) {
	p, err := f.Profile()
	if err != nil {
		return nil, nil, err
	}
	c, err := f.Client()
	if err != nil {
		return nil, nil, err
	}
	return p, c, nil
}

// SendsDirectly says whether profile p sends with its own key (true), or
// through its team's hub, which holds the key, checks each payout and
// applies the team's policy (false). It is the one place outside config
// that reads payouts_via_relay.
func SendsDirectly(p *config.Profile) bool {
	return !p.PayoutsViaRelay
}
