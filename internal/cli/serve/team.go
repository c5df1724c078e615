package serve

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/paydash/paydash/config"
	"github.com/paydash/paydash/hub"
	"github.com/paydash/paydash/hub/policy"
	"github.com/paydash/paydash/hub/store"
	"github.com/paydash/paydash/hub/users"
	"github.com/paydash/paydash/internal/cli/cmdutil"
)

// TeamOptions are the flags that make `paydash relay` the team's hub.
type TeamOptions struct {
	Users          string
	ApproveOver    string
	Approvers      int
	ApprovalTTL    time.Duration
	SendProfile    string
	NotifyURL      string
	ApprovalsStore string
}

// Bind registers the flags.
func (o *TeamOptions) Bind(fs *pflag.FlagSet) {
	fs.StringVar(&o.Users, "users", "", "team mode: users file (TOML; paydash relay user add makes it); the relay becomes the team's hub, sending payouts with --send-profile's key after the approvals its policy asks for")
	fs.StringVar(&o.ApproveOver, "approve-over", "", "team mode: payouts above these amounts need approval, e.g. GBP=1000.00,EUR=1000.00 (GBP=0: every GBP payout; a currency not listed, or no --approve-over at all: every payout)")
	fs.IntVar(&o.Approvers, "approvers", policy.DefaultApprovers, "team mode: distinct people who must approve (never the requester)")
	fs.DurationVar(&o.ApprovalTTL, "approval-ttl", policy.DefaultTTL, "team mode: a request not approved within this lapses")
	fs.StringVar(&o.SendProfile, "send-profile", "", "team mode: config profile whose credentials and signing key the hub sends with (default: --profile's)")
	fs.StringVar(&o.NotifyURL, "notify-url", "", `team mode: POST {"text": ...} here on each new request and each lapse (a chat incoming webhook)`)
	fs.StringVar(&o.ApprovalsStore, "approvals-store", "", "team mode: approvals store file (default $XDG_STATE_HOME/paydash/relay/approvals.db)")
}

// enabled reports whether team mode was asked for; without --users every
// team flag given is refused, so none is silently ignored.
func (o *TeamOptions) enabled(fs *pflag.FlagSet) (bool, error) {
	if o.Users != "" {
		return true, nil
	}
	for _, f := range []string{"approve-over", "approvers", "approval-ttl", "send-profile", "notify-url", "approvals-store"} {
		if fs != nil && fs.Changed(f) {
			return false, cmdutil.Exit(cmdutil.ExitUsage, fmt.Errorf("--%s is a team-mode flag: give the relay its users with --users FILE", f))
		}
	}
	return false, nil
}

// teamHub is a started hub and what it holds open.
type teamHub struct {
	hub         *hub.Hub
	live        *users.Live
	store       *store.Store
	info        string
	pipe        *hub.PayoutPipeline
	followToken string
}

func (t *teamHub) close() {
	t.hub.Close()
	t.store.Close()
}

// openHub builds the hub from the flags: users file, policy, store, and
// the send profile's client and audit record.
func openHub(s *cmdutil.Streams, g *cmdutil.Global, o *TeamOptions, sharedToken string, logger *slog.Logger) (*teamHub, error) {
	over, err := policy.ParseThresholds(o.ApproveOver)
	if err != nil {
		return nil, cmdutil.Exit(cmdutil.ExitUsage, err)
	}
	pol := policy.Policy{Over: over, Approvers: o.Approvers, TTL: o.ApprovalTTL}
	if err := pol.Validate(); err != nil {
		return nil, cmdutil.Exit(cmdutil.ExitUsage, err)
	}
	live, err := users.Open(o.Users, hub.CheckUsers(pol))
	if err != nil {
		return nil, cmdutil.Exit(cmdutil.ExitUsage, err)
	}
	sendGlobal := cmdutil.Global{}
	if g != nil {
		sendGlobal = *g
	}
	if o.SendProfile != "" {
		sendGlobal.Profile = o.SendProfile
	}
	p, err := cmdutil.LoadProfile(s, &sendGlobal)
	if err != nil {
		return nil, err
	}
	if p.PayoutsViaRelay {
		return nil, cmdutil.Exit(cmdutil.ExitUsage, fmt.Errorf("send profile %q has payouts_via_relay = true: it sends through a hub, so the hub cannot send with it; give --send-profile the profile that holds the signing key", p.Name))
	}
	if p.SigningKeyFile == "" {
		return nil, cmdutil.Exit(cmdutil.ExitUsage, fmt.Errorf("send profile %q has no signing key (signing_key_file): the hub signs every payout with it; give --send-profile the profile that holds it", p.Name))
	}
	client, err := cmdutil.Client(p)
	if err != nil {
		return nil, err
	}
	audit, err := cmdutil.AuditLog(s, p)
	if err != nil {
		return nil, err
	}
	path := o.ApprovalsStore
	if path == "" {
		path = filepath.Join(config.StateDir(s.Getenv), "relay", "approvals.db")
	}
	st, err := store.Open(path)
	if err != nil {
		return nil, cmdutil.Exit(cmdutil.ExitUsage, err)
	}
	followToken, err := users.NewToken()
	if err != nil {
		st.Close()
		return nil, err
	}
	pipe := hub.NewPayoutPipeline(client, audit)
	h, err := hub.New(hub.Config{Users: live, Store: st, Policy: pol, SharedToken: sharedToken, NotifyURL: o.NotifyURL, Logger: logger,
		Pipeline: pipe, FollowToken: followToken, Direct: client})
	if err != nil {
		st.Close()
		return nil, cmdutil.Exit(cmdutil.ExitUsage, err)
	}
	d := live.Current()
	info := fmt.Sprintf("%d users (%s approve); %s; %d approver(s), lapse after %s; sends with profile %s; store %s",
		d.Len(), strings.Join(d.Holding(users.RoleApprove), ", "), pol.Describe(), pol.Approvers, pol.TTL, p.Name, path)
	return &teamHub{hub: h, live: live, store: st, info: info, pipe: pipe, followToken: followToken}, nil
}

// followFor is how long the hub follows each payout it sent to its final
// state, on its own relay's stream (the report polled beside it).
const followFor = 2 * time.Minute

// follow points the pipeline's follower at this relay's own stream, once
// its address is known.
func (t *teamHub) follow(streamURL string) {
	t.pipe.P.RelayURL, t.pipe.P.RelayToken = streamURL, t.followToken
	t.pipe.FollowFor = followFor
}

// runHub runs the hub's background work and SIGHUP reload until ctx is
// done.
func (t *teamHub) run(ctx context.Context, logger *slog.Logger) {
	go func() {
		if err := t.hub.Run(ctx); err != nil && !errors.Is(err, context.Canceled) {
			logger.Error("approvals hub stopped", "err", err)
		}
	}()
	go hub.ReloadOnSIGHUP(ctx, t.live, logger, nil)
}
