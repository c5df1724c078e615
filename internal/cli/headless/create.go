package headless

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/paydash/paydash/config"
	"github.com/paydash/paydash/internal/cli/approvals"
	"github.com/paydash/paydash/internal/cli/cmdutil"
	"github.com/paydash/paydash/internal/cli/factory"
)

// createRunE is the RunE of every `X create` (payment, mandate, payout):
// check the flags that need no profile (check; nil: none), take from the
// factory the sender it decided for this profile (sender: directly, or
// through the team's hub), and send what the command builds with it
// (send). The commands differ only in check, sender and send.
func createRunE[S any](s *cmdutil.Streams, g *cmdutil.Global, check func() error,
	sender func(*factory.Factory) (S, error),
	send func(ctx context.Context, p *config.Profile, with S) error,
) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, _ []string) error {
		f := factory.New(s, g)
		// A read-only profile refuses first: nothing is checked, so
		// nothing can suggest that a corrected command would send.
		if err := f.RefuseReadOnly(); err != nil {
			return err
		}
		if check != nil {
			// A bad flag value is a usage error before the profile is used.
			if err := check(); err != nil {
				return err
			}
		}
		with, err := sender(f)
		if err != nil {
			return err
		}
		p, err := f.Profile() // loaded by sender: no second load, no second warning
		if err != nil {
			return err
		}
		return send(cmd.Context(), p, with)
	}
}

// payoutRoutes are `payout create`'s two ways of sending a payout and
// saying what became of it; the factory calls the one of the profile.
type payoutRoutes struct {
	ctx context.Context
	s   *cmdutil.Streams
	o   *PayoutOptions
}

// Direct runs the payout through the pipeline with the profile's key.
func (r payoutRoutes) Direct(d *factory.DirectPayouts) error {
	p := d.Profile
	return CreatePayout(r.ctx, r.s, d.Service, Target{Profile: p.Name, Production: p.Production,
		Audit: d.Audit, RelayURL: p.RelayURL, RelayToken: p.RelayToken.Reveal()}, r.o)
}

// ThroughHub hands it to the team's hub, which sends it after approval
// if its policy asks.
func (r payoutRoutes) ThroughHub(h *factory.HubPayouts) error {
	o := r.o
	req, usage := o.Request()
	return approvals.CreateViaHub(r.ctx, r.s, h.Hub, h.Profile.Name, req, usage,
		approvals.ViaHubOptions{Yes: o.Yes, JSON: o.JSON, AllowDuplicate: o.AllowDuplicate, Wait: o.Wait})
}
