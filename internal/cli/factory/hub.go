package factory

import (
	"errors"
	"fmt"
	"io"

	"github.com/paydash/paydash/config"
	"github.com/paydash/paydash/internal/cli/cmdutil"
	"github.com/paydash/paydash/webhookrelay/hub/hubclient"
)

// HubClient is the hub client of profile p: the hub at hubURL when given
// (approvals --hub), else at p's relay_url (ws://host:port/ws ->
// http://host:port), with p's relay_token, the person's own token. What
// the profile lacks is a usage error saying what to add.
func HubClient(p *config.Profile, hubURL string) (*hubclient.Client, error) {
	base := hubURL
	if base == "" {
		if p.RelayURL == "" {
			return nil, cmdutil.Exit(cmdutil.ExitUsage, fmt.Errorf("profile %q has no relay_url: team mode reaches the hub there (or pass --hub http://host:port)", p.Name))
		}
		var err error
		if base, err = hubclient.BaseFromRelayURL(p.RelayURL); err != nil {
			return nil, cmdutil.Exit(cmdutil.ExitUsage, err)
		}
	}
	tok := p.RelayToken.Reveal()
	if tok == "" {
		return nil, cmdutil.Exit(cmdutil.ExitUsage, fmt.Errorf("profile %q has no relay_token: team mode needs your own token (an administrator makes it with paydash relay user add)", p.Name))
	}
	return &hubclient.Client{BaseURL: base, Token: tok}, nil
}

// HubError turns a hub refusal into the exit code scripts read: refused
// for a rule (own request, lapsed, not pending, funds, duplicate) 3, a
// token or role problem 2, the hub unreachable 1.
func HubError(err error) error {
	var he *hubclient.Error
	if !errors.As(err, &he) {
		return err
	}
	switch he.Status {
	case 400, 401, 403, 404, 415, 422:
		return cmdutil.Exit(cmdutil.ExitUsage, err)
	case 409:
		return cmdutil.Exit(cmdutil.ExitNotAccepted, err)
	}
	return err
}

// HeldBalances are svc's balances less what the hub of profile p holds
// back for payouts awaiting approval; warn hears when the hub does not
// answer (the service's balances are shown as they are, and it says so).
func HeldBalances(p *config.Profile, svc hubclient.BalanceReader, warn io.Writer) (*hubclient.HeldBalances, error) {
	hc, err := HubClient(p, "")
	if err != nil {
		return nil, err
	}
	return &hubclient.HeldBalances{Service: svc, Hub: hc, Warn: warn}, nil
}

// NewTeamBackend is the dashboard's service on profile p when it sends
// through its hub: reading with svc, payments and mandates sent by the
// hub, payouts refused around it.
func NewTeamBackend(p *config.Profile, svc hubclient.ServiceReader, warn io.Writer) (*hubclient.TeamBackend, error) {
	hc, err := HubClient(p, "")
	if err != nil {
		return nil, err
	}
	return hubclient.NewTeamBackend(hc, svc, warn), nil
}
