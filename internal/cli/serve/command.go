package serve

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/paydash/paydash/api/sandbox"
	"github.com/paydash/paydash/internal/cli/cmdutil"
)

// SandboxCommand is `paydash sandbox`.
func SandboxCommand(s *cmdutil.Streams) *cobra.Command {
	o := &SandboxOptions{}
	c := &cobra.Command{
		Use:   "sandbox",
		Short: "Run the built-in implementation of the service for your own code to talk to",
		Long: "Run the built-in implementation of the service for your own code to talk to.\n\n" +
			"What happens to a payout is chosen by its details:\n  " + strings.Join(sandbox.ScriptedOutcomes, "\n  ") +
			"\n\nFund an account: POST /sandbox/fund {currency, amount_in_minor, payer_name}.\n" +
			"GET /sandbox lists these, every control endpoint and the merchant accounts.",
		Example: `  paydash sandbox
  paydash sandbox --listen 127.0.0.1:0 --json
  paydash sandbox --merchant-key merchant-pub.pem --webhook-uri http://127.0.0.1:8787/webhooks --history 5000`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return Sandbox(cmd.Context(), s, o) },
	}
	o.Bind(c.Flags())
	return c
}

// RelayCommand is `paydash relay`.
func RelayCommand(s *cmdutil.Streams, g *cmdutil.Global) *cobra.Command {
	o := &RelayOptions{}
	c := &cobra.Command{
		Use:   "relay",
		Short: "Receive, verify and store webhooks, and stream them live to dashboards",
		Long: `Receive, verify and store webhooks, and stream them live to dashboards.

The relay listens on the profile's relay_listen and requires its
relay_token (or relay_token_env, or PAYDASH_RELAY_TOKEN) from readers of
/ws, /events and /metrics (a Prometheus scrape sends it as a bearer token:
authorization.credentials_file); --listen, --token and --token-env
override them. A token
has at least 16 characters and no whitespace. With no profile configured
the flags alone apply.

Signatures are verified with --verify-key, or with the JWKS each
signature names in its jku when that URL is allowed by --jku-allow. With
--nats, any number of relays share one NATS JetStream stream (clustered
mode) instead of the --store file.

--forward-to re-posts new events to your webhook handler, by route: a
bare URL takes every type not routed before it, 'TYPES=URL' those types
(globs: payout_*); the first match wins, and each route keeps its own
order and retries. Every attempt and your handler's answer is kept (GET
/attempts, paydash events tail, events show). Not in clustered mode.

With --users FILE the relay is also the team's hub (team mode): people
send payouts through it with their own tokens, payouts above
--approve-over wait for --approvers other people's approval, and the hub
sends with --send-profile's signing key (see paydash relay user,
paydash approvals and docs/operators.md, "Team mode"). With --nats too, the
approvals and the hub's audit record are JetStream streams: every relay
given the same servers and --nats-stream is one hub.`,
		Example: `  paydash relay --jku-allow http://127.0.0.1:8080/.well-known/jwks -v
  paydash --profile staging relay    # relay_listen and relay_token from the profile
  paydash relay --listen 0.0.0.0:8787 --token-env PAYDASH_RELAY_TOKEN --verify-key service-pub.pem \
      --forward-to http://127.0.0.1:3000/webhooks
  paydash relay --jku-allow http://127.0.0.1:8080/.well-known/jwks \
      --forward-to 'payout_failed,payout_rejected=http://127.0.0.1:3000/webhooks/failures' --forward-to http://127.0.0.1:3000/webhooks
  paydash relay --listen 0.0.0.0:8787 --allowed-host relay.example.com --jku-allow https://svc.example/.well-known/jwks \
      --nats nats://n1:4222,nats://n2:4222,nats://n3:4222 --nats-creds relay.creds --nats-replicas 3
  paydash --profile treasury relay --listen 0.0.0.0:8787 --token-env PAYDASH_RELAY_TOKEN \
      --users team.toml --approve-over GBP=1000.00,EUR=1000.00 --notify-url https://chat.example/hooks/x`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return Relay(cmd.Context(), s, g, o) },
	}
	o.Bind(c.Flags())
	return c
}
