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

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/config"
	"github.com/paydash/paydash/internal/cli/cmdutil"
	"github.com/paydash/paydash/internal/cli/factory"
	"github.com/paydash/paydash/webhookrelay"
	"github.com/paydash/paydash/webhookrelay/hub"
	"github.com/paydash/paydash/webhookrelay/hub/auditlog"
	"github.com/paydash/paydash/webhookrelay/hub/policy"
	"github.com/paydash/paydash/webhookrelay/hub/store"
	"github.com/paydash/paydash/webhookrelay/hub/users"
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
	fs.StringVar(&o.ApproveOver, "approve-over", "", "team mode: payouts above these amounts need approval, e.g. GBP=1000.00,EUR=1000.00 (GBP=0: every GBP payout; a currency not listed, or no --approve-over at all: every payout); so do single payments above them and mandates whose maximum individual amount or any periodic limit is")
	fs.IntVar(&o.Approvers, "approvers", policy.DefaultApprovers, "team mode: distinct people who must approve (never the requester)")
	fs.DurationVar(&o.ApprovalTTL, "approval-ttl", policy.DefaultTTL, "team mode: a request not approved within this lapses")
	fs.StringVar(&o.SendProfile, "send-profile", "", "team mode: config profile whose credentials and signing key the hub sends with (default: --profile's)")
	fs.StringVar(&o.NotifyURL, "notify-url", "", `team mode: POST {"text": ...} here on each new request and each lapse (a chat incoming webhook)`)
	fs.StringVar(&o.ApprovalsStore, "approvals-store", "", "team mode: approvals store file (default $XDG_STATE_HOME/paydash/relay/approvals.db); with --nats the approvals and the hub's audit record are JetStream streams shared by every hub of the cluster instead")
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
	hub   *hub.Hub
	live  *users.Live
	store *store.Store
	info  string
	pipe  *hub.PayoutPipeline
	// nats is the hub's own connection in clustered mode.
	nats *webhookrelay.JetStreamConn
}

func (t *teamHub) close() {
	t.hub.Close()
	t.closeStores()
}

// openHub builds the hub from the flags: users file, policy, store, and
// the send profile's client and audit record. With nc (--nats) the store
// and the audit record are JetStream streams on those servers, shared by
// every hub given the same servers and --nats-stream.
func openHub(ctx context.Context, s *cmdutil.Streams, g *cmdutil.Global, o *TeamOptions, nc *webhookrelay.NATSConfig, sharedToken string, logger *slog.Logger) (*teamHub, error) {
	if nc != nil && o.ApprovalsStore != "" {
		return nil, cmdutil.Exit(cmdutil.ExitUsage, errors.New("--approvals-store is one hub's bbolt file; with --nats the hubs of the cluster keep approvals in JetStream (--nats-stream names them): leave --approvals-store out"))
	}
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
	if w := live.Warning(); w != "" {
		fmt.Fprintln(s.Err, "warning: "+w)
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
	if !factory.SendsDirectly(p) {
		return nil, cmdutil.Exit(cmdutil.ExitUsage, fmt.Errorf("send profile %q has payouts_via_relay = true: it sends through a hub, so the hub cannot send with it; give --send-profile the profile that holds the signing key", p.Name))
	}
	if p.SigningKeyFile == "" {
		return nil, cmdutil.Exit(cmdutil.ExitUsage, fmt.Errorf("send profile %q has no signing key (signing_key_file): the hub signs every payout with it; give --send-profile the profile that holds it", p.Name))
	}
	client, err := cmdutil.Client(p, s.Trace)
	if err != nil {
		return nil, err
	}
	t := &teamHub{live: live}
	var where string
	if nc != nil {
		where, err = t.openClustered(ctx, client, p.Name, nc, logger)
	} else {
		where, err = t.openFile(s, client, p, o.ApprovalsStore)
	}
	if err != nil {
		return nil, err
	}
	// Each payout sent is followed until its final state or its
	// currency's late-webhook threshold, as the tracker would mark it.
	t.pipe.FollowUntil = p.WebhookLate.For
	t.hub, err = hub.New(hub.Config{Users: live, Store: t.store, Policy: pol, SharedToken: sharedToken, NotifyURL: o.NotifyURL, Logger: logger,
		Pipeline: t.pipe, Direct: client})
	if err != nil {
		t.closeStores()
		return nil, cmdutil.Exit(cmdutil.ExitUsage, err)
	}
	d := live.Current()
	t.info = fmt.Sprintf("%d users (%s approve); %s; %d approver(s), lapse after %s; sends with profile %s; store %s",
		d.Len(), strings.Join(d.Holding(users.RoleApprove), ", "), pol.Describe(), pol.Approvers, pol.TTL, p.Name, where)
	return t, nil
}

// openFile keeps the approvals in a bbolt file and the audit record in
// the send profile's file: one hub.
func (t *teamHub) openFile(s *cmdutil.Streams, client *api.Client, p *config.Profile, path string) (string, error) {
	audit, err := cmdutil.AuditLog(s, p)
	if err != nil {
		return "", err
	}
	if path == "" {
		path = filepath.Join(config.StateDir(s.Getenv), "relay", "approvals.db")
	}
	if t.store, err = store.Open(path); err != nil {
		return "", cmdutil.Exit(cmdutil.ExitUsage, err)
	}
	t.pipe = hub.NewPayoutPipeline(client, audit)
	return path, nil
}

// openClustered keeps the approvals and the audit record in JetStream
// streams named after nc.Stream, connected to as the relay connects.
func (t *teamHub) openClustered(ctx context.Context, client *api.Client, profile string, nc *webhookrelay.NATSConfig, logger *slog.Logger) (string, error) {
	conn, err := webhookrelay.DialJetStream(ctx, *nc, "paydash hub", logger)
	if err != nil {
		return "", err
	}
	t.nats = conn
	if t.store, err = store.OpenJetStream(ctx, conn.JS, store.JetStreamConfig{Name: nc.Stream, Replicas: nc.Replicas, Wait: conn.WaitFor}); err != nil {
		conn.Close()
		return "", err
	}
	rec, err := auditlog.Open(ctx, conn.JS, auditlog.Config{Name: nc.Stream, Profile: profile, Replicas: nc.Replicas, Wait: conn.WaitFor})
	if err != nil {
		conn.Close()
		return "", err
	}
	t.pipe = hub.NewSharedPayoutPipeline(client, rec)
	return fmt.Sprintf("JetStream streams %s_APPROVALS and %s_AUDIT (%d replicas), shared by every hub on %s", nc.Stream, nc.Stream, nc.Replicas, strings.Join(nc.URLs, ",")), nil
}

func (t *teamHub) closeStores() {
	if t.store != nil {
		t.store.Close()
	}
	if t.nats != nil {
		t.nats.Close()
	}
}

// followFor is how long the hub follows each payout it sent to its final
// state at least, from its own relay's store (the report polled beside
// it); up to the send profile's webhook_late for its currency
// (PayoutPipeline.FollowUntil).
const followFor = 2 * time.Minute

// follow points the pipeline at this relay's own store and fan-out, read
// in-process once the relay is open: the hub runs inside the relay, so it
// follows what it sends (and asks what became of earlier payouts) with no
// connection, token or health probe.
func (t *teamHub) follow(feed webhookrelay.LocalFeed) {
	t.pipe.P.Relay = feed
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
