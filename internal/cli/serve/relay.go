package serve

import (
	"context"
	"crypto/ecdsa"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/config"
	"github.com/paydash/paydash/internal/cli/cmdutil"
	"github.com/paydash/paydash/webhookrelay"
	"github.com/paydash/paydash/webhookrelay/hub"
)

// RelayOptions are the flags of `paydash relay`.
type RelayOptions struct {
	Listen         string
	Path           string
	Store          string
	Token          string
	TokenEnv       string
	Tolerance      time.Duration
	VerifyKeyFile  string
	JWKSURL        string
	ForwardTo      []string
	RetainCount    int
	RetainAge      time.Duration
	AllowedOrigins []string
	AllowedHosts   []string
	DedupeWindow   time.Duration
	JKUAllow       []string
	NATSURLs       []string
	NATSCreds      string
	NATSStream     string
	NATSReplicas   int
	JSON           bool
	Verbose        bool
	LogFormat      string
	// Team makes the relay the team's hub (team.go).
	Team TeamOptions

	// flags tells which flags were given, so the profile's relay_listen
	// and relay_token apply unless a flag overrides them.
	flags *pflag.FlagSet
}

// Bind registers the flags.
func (o *RelayOptions) Bind(fs *pflag.FlagSet) {
	o.flags = fs
	fs.StringVar(&o.Listen, "listen", webhookrelay.DefaultListen, "address to listen on; overrides the profile's relay_listen, and this default applies only without one; beyond loopback a token is required")
	fs.StringVar(&o.Path, "path", webhookrelay.DefaultPath, "path webhooks are POSTed to")
	fs.StringVar(&o.Store, "store", "", "event store file (default $XDG_STATE_HOME/paydash/relay/events.db)")
	fs.StringVar(&o.Token, "token", "", "bearer token readers (/ws, /events) must send, at least 16 characters, no spaces (prefer --token-env or the profile's relay_token: flags show in ps)")
	fs.StringVar(&o.TokenEnv, "token-env", "PAYDASH_RELAY_TOKEN", "environment variable holding the token, used when --token is not given; left at its default it is read only if the profile has no relay_token")
	fs.DurationVar(&o.Tolerance, "tolerance", webhookrelay.DefaultTolerance, "how far a webhook's timestamp may be from now, either way")
	fs.StringVar(&o.VerifyKeyFile, "verify-key", "", "PEM public key that verifies webhook signatures")
	fs.StringVar(&o.JWKSURL, "jwks-url", "", "JWKS URL with the keys that verify webhook signatures (e.g. the sandbox's /.well-known/jwks)")
	fs.StringArrayVar(&o.ForwardTo, "forward-to", nil, "re-post new events to a URL (like stripe listen --forward-to): a bare URL takes every type not routed before it; 'payout_failed,payout_*=URL' takes those types (globs allowed); repeatable, first match wins, each route retried on its own")
	fs.IntVar(&o.RetainCount, "retain-count", 100000, "keep at most this many events (0 = unlimited)")
	fs.DurationVar(&o.RetainAge, "retain-age", 30*24*time.Hour, "drop events older than this (0 = unlimited)")
	fs.StringSliceVar(&o.AllowedOrigins, "allowed-origin", nil, "browser Origin allowed besides the relay's own host (repeatable)")
	fs.StringSliceVar(&o.AllowedHosts, "allowed-host", nil, "host name accepted in the Host header besides loopback names and the listen address, e.g. a tunnel's public name (repeatable)")
	fs.DurationVar(&o.DedupeWindow, "dedupe-window", webhookrelay.DefaultDedupeWindow, "an event_id seen within this window is a duplicate, even after retention dropped its body")
	fs.StringArrayVar(&o.JKUAllow, "jku-allow", nil, "JWKS URL a webhook signature's jku may name; keys are fetched from it and cached (repeatable)")
	fs.StringSliceVar(&o.NATSURLs, "nats", nil, "clustered mode: NATS server URLs (nats://host:4222,...); relays given the same servers and stream share one JetStream stream instead of --store")
	fs.StringVar(&o.NATSCreds, "nats-creds", "", "NATS credentials file (user JWT and NKey seed), if the servers require one")
	fs.StringVar(&o.NATSStream, "nats-stream", webhookrelay.DefaultNATSStream, "JetStream stream the clustered relays share")
	fs.IntVar(&o.NATSReplicas, "nats-replicas", 3, "replicas of the JetStream stream (1 for a single NATS server)")
	fs.BoolVar(&o.JSON, "json", false, "print the addresses as one JSON object")
	fs.BoolVarP(&o.Verbose, "verbose", "v", false, "print a line per webhook (--> type event_id; refused ones with the reason) and per forward (<-- [status] POST url ms) on stderr")
	fs.StringVar(&o.LogFormat, "log-format", LogFormatText, "log format on stderr: text (one line per webhook with -v) or json (structured records)")
	o.Team.Bind(fs)
}

// RelayInfo is what `paydash relay --json` prints.
type RelayInfo struct {
	Listen     string   `json:"listen"`
	WebhookURL string   `json:"webhook_url"`
	StreamURL  string   `json:"stream_url"`
	EventsURL  string   `json:"events_url"`
	Store      string   `json:"store"`
	HubURL     string   `json:"hub_url,omitempty"`
	Warnings   []string `json:"warnings"`
}

// changed reports whether a flag was given on the command line.
func (o *RelayOptions) changed(name string) bool {
	return o.flags != nil && o.flags.Changed(name)
}

// relayProfile loads the profile for its relay settings; nil without an
// error when nothing is configured, since the relay runs on flags alone.
func relayProfile(s *cmdutil.Streams, g *cmdutil.Global) (*config.Profile, error) {
	if g == nil {
		return nil, nil
	}
	return cmdutil.LoadProfileIfAny(s, g)
}

// relaySettings resolves where the relay listens and its token: a flag
// given on the command line, else the profile (relay_listen; relay_token,
// relay_token_env or PAYDASH_RELAY_TOKEN), else the flag defaults. A token
// is checked by config.CheckToken whatever its source.
func relaySettings(s *cmdutil.Streams, p *config.Profile, o *RelayOptions) (listen, token string, err error) {
	listen = o.Listen
	if !o.changed("listen") && p != nil && p.RelayListen != "" {
		listen = p.RelayListen
	}
	source := ""
	switch {
	case o.Token != "":
		token, source = o.Token, "--token"
	case o.changed("token-env") && o.TokenEnv != "":
		token, source = s.Env(o.TokenEnv), "$"+o.TokenEnv
		if token == "" {
			// Asked for by name: an unset variable (a typo, or not
			// exported to this shell) must not turn authentication off.
			return "", "", cmdutil.Exit(cmdutil.ExitUsage, fmt.Errorf("--token-env %s: $%s is not set (or empty) in this shell, so the relay did not start; export it, or name the variable that holds the token", o.TokenEnv, o.TokenEnv))
		}
	case p != nil && p.RelayToken != "":
		token, source = p.RelayToken.Reveal(), "relay_token of profile "+p.Name
	case o.TokenEnv != "":
		token, source = s.Env(o.TokenEnv), "$"+o.TokenEnv
	}
	if token != "" {
		if err := config.CheckToken(token); err != nil {
			return "", "", cmdutil.Exit(cmdutil.ExitUsage, fmt.Errorf("relay token from %s: %w", source, err))
		}
	}
	return listen, token, nil
}

// Relay runs the webhook relay until ctx is done. g selects the profile
// whose relay_listen and relay_token apply (nil: flags only).
func Relay(ctx context.Context, s *cmdutil.Streams, g *cmdutil.Global, o *RelayOptions) error {
	p, err := relayProfile(s, g)
	if err != nil {
		return err
	}
	listen, token, err := relaySettings(s, p, o)
	if err != nil {
		return err
	}
	var verify *ecdsa.PublicKey
	if o.VerifyKeyFile != "" {
		data, err := os.ReadFile(o.VerifyKeyFile)
		if err != nil {
			return cmdutil.Exit(cmdutil.ExitUsage, fmt.Errorf("--verify-key: %w", err))
		}
		if verify, err = api.ParsePublicKeyPEM(data); err != nil {
			return cmdutil.Exit(cmdutil.ExitUsage, fmt.Errorf("--verify-key %s: %w", o.VerifyKeyFile, err))
		}
	}
	store := o.Store
	if store == "" {
		store = filepath.Join(config.StateDir(s.Getenv), "relay", "events.db")
	}
	// Server errors (a failed commit, unreachable keys or NATS) always
	// show; -v adds a line per webhook and per forward.
	logger, err := relayLogger(s.Err, o.LogFormat, o.Verbose)
	if err != nil {
		return cmdutil.Exit(cmdutil.ExitUsage, err)
	}
	var natsCfg *webhookrelay.NATSConfig
	if len(o.NATSURLs) > 0 {
		natsCfg = &webhookrelay.NATSConfig{URLs: o.NATSURLs, CredsFile: o.NATSCreds, Stream: o.NATSStream, Replicas: o.NATSReplicas}
		store = ""
	}
	team, err := o.Team.enabled(o.flags)
	if err != nil {
		return err
	}
	var th *teamHub
	if team {
		if th, err = openHub(ctx, s, g, &o.Team, natsCfg, token, logger); err != nil {
			return err
		}
		defer th.close()
	}
	// Listen first, so ":0" works and the printed address is the real one.
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", listen)
	if err != nil {
		return fmt.Errorf("relay cannot listen on %s: %w", listen, err)
	}
	var routes []webhookrelay.Route
	for _, spec := range o.ForwardTo {
		rt, err := webhookrelay.ParseRoute(spec)
		if err != nil {
			ln.Close()
			return cmdutil.Exit(cmdutil.ExitUsage, fmt.Errorf("--forward-to: %w", err))
		}
		routes = append(routes, rt)
	}
	rcfg := webhookrelay.Config{
		Listen: ln.Addr().String(), Path: o.Path, StorePath: store, Token: token, Tolerance: o.Tolerance,
		VerifyKey: verify, JWKSURL: o.JWKSURL, Routes: routes,
		RetainCount: o.RetainCount, RetainAge: o.RetainAge, AllowedOrigins: o.AllowedOrigins, AllowedHosts: o.AllowedHosts,
		DedupeWindow: o.DedupeWindow, JKUAllow: o.JKUAllow, NATS: natsCfg, Logger: logger,
	}
	if th != nil {
		rcfg.Mounts = map[string]http.Handler{hub.Prefix: th.hub.Handler()}
		rcfg.ReaderAllowed = th.hub.ReaderAllowed
		rcfg.WriterAllowed = th.hub.WriterAllowed
	}
	r, err := webhookrelay.OpenContext(ctx, rcfg)
	if err != nil {
		ln.Close()
		return cmdutil.Exit(cmdutil.ExitUsage, err)
	}
	defer r.Close()
	addr := dialable(ln.Addr())
	if natsCfg != nil {
		store = fmt.Sprintf("JetStream stream %s on %s (clustered)", o.NATSStream, strings.Join(o.NATSURLs, ","))
	}
	info := RelayInfo{
		Listen: ln.Addr().String(), WebhookURL: "http://" + addr + o.Path, StreamURL: "ws://" + addr + "/ws",
		EventsURL: "http://" + addr + "/events", Store: store, Warnings: r.Warnings(),
	}
	if th != nil {
		th.follow(r.LocalFeed())
		info.HubURL = "http://" + addr + hub.Prefix
	}
	for _, w := range info.Warnings {
		if o.LogFormat == LogFormatJSON {
			logger.Warn(w) // a log pipeline reads records only
			continue
		}
		fmt.Fprintf(s.Err, "WARNING: %s\n", w)
	}
	if o.JSON {
		if err := cmdutil.WriteCompactJSON(s.Out, info); err != nil {
			ln.Close()
			return err
		}
	} else {
		fmt.Fprintf(s.Out, "paydash relay listening on %s\n", info.Listen)
		_ = cmdutil.KeyValues(s.Out, [][2]string{
			{"webhooks", "POST " + info.WebhookURL + " (register this, or a tunnel to it, as webhook_uri)"},
			{"live stream", info.StreamURL + " (relay_url for the dashboard and paydash events tail)"},
			{"history", info.EventsURL},
			{"store", info.Store},
		})
		if th != nil {
			_ = cmdutil.KeyValues(s.Out, [][2]string{{"team hub", info.HubURL + " (" + th.info + ")"}})
		}
		for _, rt := range routes {
			fmt.Fprintf(s.Out, "forwarding %s\n", describeRoute(rt, len(routes) == 1))
		}
		fmt.Fprintln(s.Out, "ctrl+c stops it.")
	}
	if th != nil {
		th.run(ctx, logger)
	}
	err = r.Serve(ctx, ln)
	if cerr := r.Close(); err == nil {
		err = cerr
	}
	return err
}

// dialable turns a listening address into one a client can dial.
func dialable(a net.Addr) string {
	tcp, ok := a.(*net.TCPAddr)
	if !ok || tcp.IP == nil || !tcp.IP.IsUnspecified() {
		return a.String()
	}
	return net.JoinHostPort("127.0.0.1", fmt.Sprint(tcp.Port))
}

// describeRoute says which events a route forwards where.
func describeRoute(rt webhookrelay.Route, alone bool) string {
	switch {
	case len(rt.Patterns) == 0 && alone:
		return "every event to " + rt.URL
	case len(rt.Patterns) == 0:
		return "every other event to " + rt.URL
	}
	return strings.Join(rt.Patterns, ", ") + " to " + rt.URL
}
