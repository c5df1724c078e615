package demo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/spf13/pflag"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/api/sandbox"
	"github.com/paydash/paydash/config"
	"github.com/paydash/paydash/internal/cli/cmdutil"
	"github.com/paydash/paydash/internal/cli/dashboard"
	"github.com/paydash/paydash/internal/cli/factory"
	"github.com/paydash/paydash/internal/cli/serve"
	"github.com/paydash/paydash/internal/payout"
	"github.com/paydash/paydash/ui"
	"github.com/paydash/paydash/webhookrelay"
)

// Options are the flags of `paydash demo`.
type Options struct {
	Headless    bool
	History     int
	Seed        int64
	HistoryDays int
	StepDelay   time.Duration
	Activity    bool
	Listen      string
	RelayListen string
	PortsFile   string
	// ReadOnly and ConfigPath are the global --readonly and --config:
	// the dashboard hides its forms and sends nothing, and takes the
	// config file's [keys] and [theme].
	ReadOnly   bool
	ConfigPath string
}

// Bind registers the flags.
func (o *Options) Bind(fs *pflag.FlagSet) {
	fs.BoolVar(&o.Headless, "headless", false, "run only the sandbox and the relay, and print how to attach a dashboard from another terminal")
	fs.IntVar(&o.History, "history", 5000, "number of past transactions to seed")
	fs.Int64Var(&o.Seed, "seed", 1, "seed of the history: the same seed gives the same report")
	fs.IntVar(&o.HistoryDays, "history-days", sandbox.DefaultHistoryDays, "how many days back the history goes")
	fs.DurationVar(&o.StepDelay, "step-delay", 2*time.Second, "wait between payout states, so you can watch them move")
	fs.BoolVar(&o.Activity, "activity", true, "background activity: fundings, other operators' payouts, an occasional failure")
	fs.StringVar(&o.Listen, "listen", "127.0.0.1:0", "sandbox address; port 0 picks a free one")
	fs.StringVar(&o.RelayListen, "relay-listen", "127.0.0.1:0", "relay address; port 0 picks a free one")
	fs.StringVar(&o.PortsFile, "ports-file", "", "write the sandbox's and the relay's addresses to this file as JSON (for scripts and tests)")
}

// Demo profile constants.
const (
	ProfileName = "demo"
	ClientID    = "paydash-demo"
	KeyID       = "paydash-demo"
	// DemoWebhookLate is the demo profile's webhook_late: its payouts
	// settle in seconds.
	DemoWebhookLate = 20 * time.Second
)

// Files of the demo under config.StateDir()/demo.
const (
	SigningKeyFile = "signing-key.pem"
	SecretFile     = "client-secret"
	ConfigFile     = cmdutil.DemoConfigFile
	RelayStoreFile = "relay.db"
	// LockFile is held (an OS lock) for as long as a demo runs.
	LockFile = cmdutil.DemoLockFile
)

// Ports is what --ports-file receives.
type Ports struct {
	Sandbox string `json:"sandbox"`
	Relay   string `json:"relay"`
	PID     int    `json:"pid"`
}

// Env is a running demo: the sandbox, the relay and a client.
type Env struct {
	Dir      string
	Sandbox  *sandbox.Server
	Client   *api.Client
	RelayURL string // websocket stream
	Ports    Ports

	relay       *webhookrelay.Relay
	relayCancel context.CancelFunc
	relayDone   chan error
	lock        *payout.Lock
	closeOnce   sync.Once
	closeErr    error
}

// Start brings up the sandbox and the relay and wires them together.
func Start(ctx context.Context, getenv func(string) string, o *Options) (*Env, error) {
	dir := cmdutil.DemoDir(getenv)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create the demo directory %s: %w", dir, err)
	}
	// One demo at a time per state directory: a second would rewrite the
	// first's profile with its own ports, rotate the audit record the
	// first still appends to and delete its relay store. The OS drops the
	// lock when the demo exits, kill -9 included.
	lock, err := payout.TryLock(filepath.Join(dir, LockFile), "paydash demo")
	if err != nil {
		var le *payout.LockedError
		if errors.As(err, &le) {
			who := "another process"
			if le.Holder != nil {
				who = le.Holder.String()
			}
			return nil, cmdutil.Exit(cmdutil.ExitUsage, fmt.Errorf("a paydash demo is already running (%s) and this one would break it, so it did not start. "+
				"Use the running demo from this terminal with: paydash --config %s  (or stop it first, then run paydash demo again)",
				who, filepath.Join(dir, ConfigFile)))
		}
		return nil, err
	}
	started := false
	defer func() {
		if !started {
			_ = lock.Unlock()
		}
	}()
	// The demo's sandbox is new each run, so is its audit record: payouts
	// of an earlier demo are not duplicates of anything in this one. The
	// old record is kept beside it, never deleted.
	if rec := payout.DefaultPath(config.StateDir(getenv), ProfileName); fileExists(rec) {
		if err := os.Rename(rec, rec+"."+time.Now().UTC().Format("20060102T150405.000000000Z")); err != nil {
			return nil, fmt.Errorf("start a new audit record for the demo: %w", err)
		}
	}
	key, _, err := serve.LoadOrCreateKey(filepath.Join(dir, SigningKeyFile))
	if err != nil {
		return nil, err
	}
	secret, err := serve.LoadOrCreateSecret(filepath.Join(dir, SecretFile), "demo_secret_")
	if err != nil {
		return nil, err
	}
	srv, err := sandbox.Listen(ctx, o.Listen, sandbox.Options{
		ClientID: ClientID, ClientSecret: secret, MerchantKey: &key.PublicKey, MerchantKeyID: KeyID,
		StepDelay: o.StepDelay, History: o.History, HistorySeed: o.Seed, HistoryDays: o.HistoryDays,
		// Short retries: the relay is in-process, a failure is transient.
		WebhookRetry: []time.Duration{250 * time.Millisecond, 500 * time.Millisecond, time.Second, 2 * time.Second},
		Logger:       slog.New(slog.DiscardHandler),
	})
	if err != nil {
		return nil, fmt.Errorf("start the demo sandbox: %w", err)
	}
	env := &Env{Dir: dir, Sandbox: srv, lock: lock}
	if err := env.startRelay(ctx, o.RelayListen, srv.Info().JWKSURL); err != nil {
		srv.Close()
		return nil, err
	}
	started = true // env.Close releases the lock from here on
	info := srv.Info()
	env.Client, err = api.NewClient(api.Config{
		AuthURL: info.AuthURL, BaseURL: info.BaseURL, PayoutsURL: info.PayoutsURL,
		ClientID: info.ClientID, ClientSecret: info.ClientSecret,
		SigningKeyID: KeyID, SigningKey: key, UserAgent: cmdutil.UserAgent + " (demo)",
	})
	if err != nil {
		env.Close()
		return nil, err
	}
	env.Ports = Ports{Sandbox: hostPort(info.BaseURL), Relay: env.Ports.Relay, PID: os.Getpid()}
	if err := env.writeProfile(); err != nil {
		env.Close()
		return nil, err
	}
	if o.PortsFile != "" {
		b, _ := json.Marshal(env.Ports)
		if err := serve.WritePrivate(o.PortsFile, append(b, '\n')); err != nil {
			env.Close()
			return nil, err
		}
	}
	return env, nil
}

func hostPort(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	return u.Host
}

// startRelay runs the relay on a fresh store: the sandbox is new on every
// run, so events of an earlier run would name payouts that no longer
// exist.
func (e *Env) startRelay(ctx context.Context, listen, jwksURL string) error {
	store := filepath.Join(e.Dir, RelayStoreFile)
	if err := os.Remove(store); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("reset the demo relay store: %w", err)
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", listen)
	if err != nil {
		return fmt.Errorf("demo relay cannot listen on %s: %w", listen, err)
	}
	r, err := webhookrelay.Open(webhookrelay.Config{
		// The sandbox names its JWKS in every signature's jku, as the
		// service does; the demo relay trusts that one URL.
		Listen: ln.Addr().String(), StorePath: store, JKUAllow: []string{jwksURL}, RetainCount: 100_000,
		Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		ln.Close()
		return fmt.Errorf("start the demo relay: %w", err)
	}
	rctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	e.relay, e.relayCancel, e.relayDone = r, cancel, make(chan error, 1)
	go func() { e.relayDone <- r.Serve(rctx, ln) }()
	addr := ln.Addr().String()
	e.Ports.Relay = addr
	e.RelayURL = "ws://" + addr + "/ws"
	e.Sandbox.SetWebhookURI("http://" + addr + webhookrelay.DefaultPath)
	return nil
}

// writeProfile writes a config file for the running demo, so another
// terminal can attach with `paydash --config <dir>/config.toml`.
func (e *Env) writeProfile() error {
	info := e.Sandbox.Info()
	body := fmt.Sprintf(`# Written by paydash demo for the demo running now (pid %d); the ports
# change on every run. Attach from another terminal with:
#   paydash --config %s
default_profile = %q

[profiles.%s]
auth_url = %q
base_url = %q
payouts_url = %q
client_id = %q
client_secret_file = %q
signing_key_id = %q
signing_key_file = %q
relay_url = %q
balance_refresh = "5s"
# The demo's payouts settle in seconds, so their final webhooks are late
# after 20s (a real profile leaves the rails' defaults: 15m GBP, 2d EUR).
webhook_late = "20s"
`, os.Getpid(), filepath.Join(e.Dir, ConfigFile), ProfileName, ProfileName,
		info.AuthURL, info.BaseURL, info.PayoutsURL, info.ClientID, SecretFile, KeyID, SigningKeyFile, e.RelayURL)
	// The sandbox's own merchant accounts, so the payment and mandate
	// forms offer them in a list.
	body += "\n[profiles." + ProfileName + ".merchant_accounts]\n"
	for _, a := range e.MerchantAccounts() {
		body += fmt.Sprintf("%s = %q\n", a.Currency, a.ID)
	}
	return serve.WritePrivate(filepath.Join(e.Dir, ConfigFile), []byte(body))
}

// MerchantAccounts are the sandbox's merchant accounts, as the dashboard
// offers them.
func (e *Env) MerchantAccounts() []ui.MerchantAccount {
	var out []ui.MerchantAccount
	for _, a := range e.Sandbox.MerchantAccounts() {
		out = append(out, ui.MerchantAccount{ID: a.ID, Currency: a.Currency})
	}
	return out
}

// ConfigPath is the demo's profile file.
func (e *Env) ConfigPath() string { return filepath.Join(e.Dir, ConfigFile) }

// Close stops the sandbox (its payout timers and webhook deliveries
// first) and then the relay, and waits for both: afterwards nothing of the
// demo is running or listening.
func (e *Env) Close() error {
	e.closeOnce.Do(func() {
		var errs []error
		if e.Sandbox != nil {
			errs = append(errs, e.Sandbox.Close())
		}
		if e.relay != nil {
			e.relayCancel()
			errs = append(errs, <-e.relayDone, e.relay.Close())
		}
		if e.lock != nil {
			errs = append(errs, e.lock.Unlock())
		}
		e.closeErr = errors.Join(errs...)
	})
	return e.closeErr
}

// Run is `paydash demo`.
func Run(ctx context.Context, s *cmdutil.Streams, o *Options) error {
	// The config file's [keys] and [theme] are checked first (before the
	// terminal), naming the line, as on any profile; headless, there is
	// no dashboard to take them.
	var custom config.Custom
	if !o.Headless {
		var err error
		if custom, err = config.FileCustom(o.ConfigPath, s.Getenv); err != nil {
			return err
		}
		if err := ui.CheckCustom(custom); err != nil {
			return cmdutil.Exit(cmdutil.ExitUsage, err)
		}
	}
	if !o.Headless && (!s.InTerminal || !s.OutTerminal) {
		return cmdutil.Exit(cmdutil.ExitUsage, errors.New("paydash demo opens the dashboard and needs a terminal; use paydash demo --headless to run only the sandbox and relay"))
	}
	if o.Headless {
		fmt.Fprintln(s.Err, "starting the sandbox and the relay…")
	}
	readOnly := ""
	if o.ReadOnly {
		readOnly = factory.Declared(ProfileName)
	}
	env, err := Start(ctx, s.Getenv, o)
	if err != nil {
		return err
	}
	defer env.Close()

	actx, stopActivity := context.WithCancel(ctx)
	var wg sync.WaitGroup
	if o.Activity {
		wg.Add(1)
		go func() {
			defer wg.Done()
			newActivity(env, o.Seed).run(actx)
		}()
	}
	defer func() {
		stopActivity()
		wg.Wait()
	}()

	if o.Headless {
		printAttach(s, env)
		<-ctx.Done()
		fmt.Fprintln(s.Err, "stopping the demo…")
		stopActivity()
		wg.Wait()
		return env.Close()
	}
	audit, err := payout.Open(payout.DefaultPath(config.StateDir(s.Getenv), ProfileName), ProfileName, nil)
	if err != nil {
		return err
	}
	err = dashboard.Show(ctx, s, dashboard.Params{
		UI: ui.Options{
			Profile: ProfileName, Backend: env.Client, Guard: demoPipeline(env.Client, audit, env.RelayURL), BalanceRefresh: 5 * time.Second, ReportRefresh: 30 * time.Second,
			LowBalance: map[string]int64{"GBP": 100_000, "EUR": 100_000}, ExportDir: ".",
			MerchantAccounts: env.MerchantAccounts(),
			Workbench: dashboard.Workbench(s, &config.Profile{Name: ProfileName, RelayURL: env.RelayURL,
				WebhookLate: config.WebhookLate{All: DemoWebhookLate}}, audit, env.Sandbox.Info().BaseURL),
			ReadOnly: readOnly,
			Custom:   custom,
		},
		RelayURL: env.RelayURL,
	})
	stopActivity()
	wg.Wait()
	if cerr := env.Close(); err == nil {
		err = cerr
	}
	return err
}

func printAttach(s *cmdutil.Streams, env *Env) {
	info := env.Sandbox.Info()
	w := s.Out
	fmt.Fprintln(w, "paydash demo is running headless: the sandbox and the relay, no dashboard.")
	fmt.Fprintln(w)
	_ = cmdutil.KeyValues(w, [][2]string{
		{"sandbox", info.BaseURL + " (control: " + info.ControlURL + ")"},
		{"relay", "webhooks " + "http://" + env.Ports.Relay + webhookrelay.DefaultPath + ", stream " + env.RelayURL},
		{"client_id", info.ClientID},
		{"client_secret", filepath.Join(env.Dir, SecretFile)},
		{"signing key", filepath.Join(env.Dir, SigningKeyFile) + " (kid " + KeyID + ")"},
	})
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Attach a dashboard from another terminal:")
	fmt.Fprintf(w, "  paydash --config %s\n", env.ConfigPath())
	fmt.Fprintln(w, "or run any command against it, e.g.:")
	fmt.Fprintf(w, "  paydash --config %s balances\n", env.ConfigPath())
	fmt.Fprintf(w, "  paydash --config %s events tail\n", env.ConfigPath())
	fmt.Fprintln(w, "or set the profile in the environment:")
	fmt.Fprintf(w, "  export PAYDASH_CONFIG=%s\n", env.ConfigPath())
	fmt.Fprintln(w)
	fmt.Fprintln(w, "ctrl+c stops the demo.")
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// demoPipeline is the payout pipeline the demo's form sends through.
func demoPipeline(c *api.Client, audit *payout.Log, relayURL string) *payout.Pipeline {
	pl := payout.New(c, audit, payout.SourceForm)
	pl.RelayURL = relayURL
	return pl
}
