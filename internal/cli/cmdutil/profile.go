package cmdutil

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/config"
	"github.com/paydash/paydash/internal/payout"
	"github.com/paydash/paydash/internal/platform/httptrace"
	"github.com/paydash/paydash/internal/report"
)

// UserAgent identifies paydash to the service.
const UserAgent = "paydash/1"

// Global holds the flags every command shares: which config file and
// profile to use, and per-key overrides.
type Global struct {
	ConfigPath string
	Profile    string
	// Debug (--debug, or PAYDASH_DEBUG=api) prints every HTTP exchange
	// to stderr, secrets redacted (Streams.Trace).
	Debug bool
	// Set holds --set key=value overrides (config keys as in the file,
	// e.g. base_url=https://..., low_balance.GBP=500.00).
	Set []string
	// ReadOnly (--readonly, as k9s's) makes the profile read-only for
	// this run, as read_only = true in it would: nothing can be sent.
	ReadOnly bool
}

// Bind registers the global flags (as persistent flags of the root).
func (g *Global) Bind(fs *pflag.FlagSet) {
	fs.StringVar(&g.ConfigPath, "config", "", "config file (default $PAYDASH_CONFIG or $XDG_CONFIG_HOME/paydash/config.toml)")
	fs.StringVar(&g.Profile, "profile", "", "profile to use (default $PAYDASH_PROFILE or the file's default_profile)")
	fs.StringArrayVar(&g.Set, "set", nil, "override a config key for this run, e.g. --set base_url=https://api.example.com (repeatable)")
	fs.BoolVar(&g.ReadOnly, "readonly", false, "make the profile read-only for this run: no forms, and nothing can be sent (as read_only = true)")
	fs.BoolVar(&g.Debug, "debug", false, "print every HTTP request and answer to stderr, secrets redacted (or PAYDASH_DEBUG=api)")
}

// StartTrace sets s.Trace to stderr when --debug or PAYDASH_DEBUG=api
// asks for the HTTP trace.
func (g *Global) StartTrace(s *Streams) {
	if g.Debug || slices.Contains(strings.Split(s.Env("PAYDASH_DEBUG"), ","), "api") {
		s.Trace = s.Err
	}
}

// Overrides turns --set flags into config.LoadOptions.Overrides.
func (g *Global) Overrides() (map[string]string, error) {
	if len(g.Set) == 0 && !g.ReadOnly {
		return nil, nil
	}
	out := make(map[string]string, len(g.Set)+1)
	for _, kv := range g.Set {
		k, v, ok := strings.Cut(kv, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, Exit(ExitUsage, fmt.Errorf("--set %q: want key=value, e.g. --set base_url=https://api.example.com", kv))
		}
		out[k] = v
	}
	if g.ReadOnly {
		// --readonly wins over --set read_only=false: it can only take
		// sending away.
		out["read_only"] = "true"
	}
	return out, nil
}

// NoProfileMessage is what a person sees when nothing is configured yet.
const NoProfileMessage = `paydash has no profile configured yet.

  Try it now against a built-in sandbox, nothing to set up:
      paydash demo

  Or connect to a real service: write a config file, then edit it:
      paydash config init
`

// ErrNoProfile is returned (exit 2) when no profile is configured; main
// prints NoProfileMessage instead of an error.
var ErrNoProfile = &ExitError{Code: ExitUsage, Err: errors.New("no paydash profile is configured"), Silent: true}

// LoadProfile resolves the profile, printing config warnings on Err.
// When nothing is configured it prints NoProfileMessage and returns
// ErrNoProfile.
func LoadProfile(s *Streams, g *Global) (*config.Profile, error) {
	p, err := LoadProfileIfAny(s, g)
	if err == nil && p == nil {
		msg := NoProfileMessage
		if cfg, who, ok := RunningDemo(s.Env); ok {
			// "paydash demo" would refuse: one demo runs per state
			// directory, and this terminal can use it as it is.
			msg = strings.Replace(msg, "  Try it now against a built-in sandbox, nothing to set up:\n      paydash demo\n",
				"  A paydash demo is running ("+who+"); use it from this terminal with:\n      paydash --config "+cfg+" <command>\n", 1)
		}
		fmt.Fprint(s.Err, msg)
		return nil, ErrNoProfile
	}
	return p, err
}

// Where `paydash demo` keeps its state: DemoDir(getenv) holds its
// profile (DemoConfigFile) and the lock it holds while it runs
// (DemoLockFile).
const (
	DemoConfigFile = "config.toml"
	DemoLockFile   = "demo.lock"
)

// DemoDir is the demo's directory under the state directory.
func DemoDir(getenv func(string) string) string {
	return filepath.Join(config.StateDir(getenv), "demo")
}

// RunningDemo reports whether a demo runs for this state directory: its
// profile's path and who holds it.
func RunningDemo(getenv func(string) string) (configPath, who string, ok bool) {
	dir := DemoDir(getenv)
	h, held := payout.Holding(filepath.Join(dir, DemoLockFile))
	if !held {
		return "", "", false
	}
	who = "another process"
	if h != nil {
		who = h.String()
	}
	return filepath.Join(dir, DemoConfigFile), who, true
}

// LoadProfileIfAny resolves the profile like LoadProfile, but nothing
// configured is (nil, nil), for commands that also run without one.
func LoadProfileIfAny(s *Streams, g *Global) (*config.Profile, error) {
	ov, err := g.Overrides()
	if err != nil {
		return nil, err
	}
	// Saved views are checked with the report's own parser: a filter
	// the report cannot read is refused at load, naming its line.
	p, warns, err := config.Load(config.LoadOptions{Path: g.ConfigPath, Profile: g.Profile, Getenv: s.Getenv, Overrides: ov,
		CheckFilter: report.CheckFilter})
	for _, w := range warns {
		fmt.Fprintf(s.Err, "warning: %s\n", w)
	}
	var cerr *config.Error
	if errors.Is(err, config.ErrNoConfig) && !errors.As(err, &cerr) {
		return nil, nil
	}
	if err != nil {
		return nil, Exit(ExitUsage, err)
	}
	return p, nil
}

// Client builds the api client of a profile. With trace set (--debug),
// every exchange with the service is printed there, secrets redacted.
func Client(p *config.Profile, trace io.Writer) (*api.Client, error) {
	cfg, err := p.APIConfig()
	if err != nil {
		return nil, Exit(ExitUsage, err)
	}
	cfg.UserAgent = UserAgent
	if trace != nil {
		cfg.HTTPClient = httptrace.Wrap(api.DefaultHTTPClient(), trace)
	}
	c, err := api.NewClient(cfg)
	if err != nil {
		return nil, Exit(ExitUsage, fmt.Errorf("profile %q: %w", p.Name, err))
	}
	return c, nil
}

// Setup loads the profile and builds its client: what most commands need.
func Setup(s *Streams, g *Global) (*config.Profile, *api.Client, error) {
	p, err := LoadProfile(s, g)
	if err != nil {
		return nil, nil, err
	}
	c, err := Client(p, s.Trace)
	if err != nil {
		return nil, nil, err
	}
	return p, c, nil
}

// Validation is how requests are checked before sending under profile p:
// its regulated flag, and the currency of each merchant account it lists,
// so a payment or mandate into an account of another currency is refused
// here, as the dashboard's forms refuse it, not by the service.
func Validation(p *config.Profile) api.ValidateOptions {
	v := api.ValidateOptions{Regulated: p.Regulated}
	if len(p.MerchantAccounts) > 0 {
		v.AccountCurrency = func(id string) (string, bool) {
			for cur, acct := range p.MerchantAccounts {
				if strings.EqualFold(acct, strings.TrimSpace(id)) {
					return cur, true
				}
			}
			return "", false
		}
	}
	return v
}
