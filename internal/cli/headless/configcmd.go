package headless

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/config"
	"github.com/paydash/paydash/internal/cli/cmdutil"
	"github.com/paydash/paydash/internal/cli/factory"
	"github.com/paydash/paydash/internal/platform/termtext"
	"github.com/paydash/paydash/ui"
	"github.com/paydash/paydash/webhookrelay/hub/hubapi"
	"github.com/paydash/paydash/webhookrelay/relayclient"
)

// ConfigPath is the config file a command reads or writes: --config, then
// $PAYDASH_CONFIG, then the default location.
func ConfigPath(s *cmdutil.Streams, g *cmdutil.Global) string { return g.File(s) }

// ConfigInit writes the commented template (0600), never overwriting.
func ConfigInit(s *cmdutil.Streams, g *cmdutil.Global) error {
	path := ConfigPath(s, g)
	if err := config.WriteTemplate(path); err != nil {
		return err
	}
	fmt.Fprintf(s.Out, "wrote %s (mode 0600)\n", path)
	fmt.Fprintln(s.Out, "Edit it with your service URLs, client id, secret and signing key, then run: paydash config check")
	return nil
}

// ConfigShow prints the resolved profile with secrets redacted.
func ConfigShow(s *cmdutil.Streams, g *cmdutil.Global, asJSON bool) error {
	p, err := cmdutil.LoadProfile(s, g)
	if err != nil {
		return err
	}
	if asJSON {
		return cmdutil.WriteJSON(s.Out, p)
	}
	_, err = fmt.Fprint(s.Out, termtext.Lines(p.Redacted()))
	return err
}

// Check is one line of `config check`.
type Check struct {
	Name   string `json:"check"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail,omitempty"`
	// Optional checks do not fail the command.
	Optional bool `json:"optional,omitempty"`
}

// tokenSource is the part of the api client `config check` uses.
type tokenSource interface {
	Token(ctx context.Context, scopes ...string) (string, error)
}

// ConfigCheck validates the profile and asks the service for a token with
// each scope paydash uses, reporting exactly what failed.
func ConfigCheck(ctx context.Context, s *cmdutil.Streams, g *cmdutil.Global, asJSON bool) error {
	var checks []Check
	add := func(c Check) { checks = append(checks, c) }
	p, err := cmdutil.LoadProfile(s, g)
	if err != nil {
		return err
	}
	add(Check{Name: "config " + describeSource(p), OK: true})
	var client *api.Client
	cfg, err := p.APIConfig()
	if err != nil {
		add(Check{Name: "service settings", Detail: err.Error()})
	} else {
		add(Check{Name: "service settings", OK: true, Detail: "auth " + cfg.AuthURL + ", base " + cfg.BaseURL + ", payouts " + cfg.PayoutsURL})
		switch {
		case p.PayoutsViaRelay:
			// A hub profile holds no key: the hub signs. Who the hub
			// says this token is tells whether anything can be sent.
			add(checkHub(ctx, p))
		case cfg.SigningKey == nil:
			add(Check{Name: "signing key", Optional: true, Detail: "not configured: balances and reports work, payouts, payments and mandates cannot be sent (set signing_key_id and signing_key_file)"})
		default:
			add(Check{Name: "signing key", OK: true, Detail: "key id " + cfg.SigningKeyID + " (P-521)"})
		}
		cfg.UserAgent = cmdutil.UserAgent
		if client, err = api.NewClient(cfg); err != nil {
			add(Check{Name: "api client", Detail: err.Error()})
		}
	}
	if !p.Custom.IsZero() {
		// The dashboard refuses a bad [keys] or [theme] when it opens;
		// here each problem is reported with its line.
		if err := ui.CheckCustom(p.Custom); err != nil {
			add(Check{Name: "dashboard [keys] and [theme]", Detail: strings.ReplaceAll(err.Error(), "\n", "; ")})
		} else {
			add(Check{Name: "dashboard [keys] and [theme]", OK: true, Detail: fmt.Sprintf("%d key(s) remapped, %d style(s) themed", len(p.Custom.Keys), len(p.Custom.Theme.Styles))})
		}
	}
	if client != nil {
		checks = append(checks, checkScopes(ctx, client)...)
	}
	if p.RelayURL != "" {
		add(checkRelay(ctx, p.RelayURL, p.RelayToken.Reveal()))
	}
	failed := 0
	for _, c := range checks {
		if !c.OK && !c.Optional {
			failed++
		}
	}
	var failure error
	if failed > 0 {
		failure = cmdutil.Exit(cmdutil.ExitFailure, fmt.Errorf("%d check(s) failed; fix them in %s and run paydash config check again", failed, describeSource(p)))
	}
	if asJSON {
		// A failed check is a --json failure: the one error shape
		// (error, exit_code) beside the checks.
		var detail *cmdutil.ErrorDetail
		var code int
		if failure != nil {
			j := cmdutil.NewErrorJSON(failure)
			detail, code = &j.Error, j.ExitCode
		}
		if err := cmdutil.WriteJSON(s.Out, struct {
			Profile  string               `json:"profile"`
			OK       bool                 `json:"ok"`
			Checks   []Check              `json:"checks"`
			Error    *cmdutil.ErrorDetail `json:"error,omitempty"`
			ExitCode int                  `json:"exit_code,omitempty"`
		}{p.Name, failed == 0, checks, detail, code}); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(s.Out, "profile %q\n", p.Name)
		for _, c := range checks {
			mark := "ok  "
			switch {
			case !c.OK && c.Optional:
				mark = "warn"
			case !c.OK:
				mark = "FAIL"
			}
			line := fmt.Sprintf("  %s  %s", mark, c.Name)
			if c.Detail != "" {
				line += ": " + c.Detail
			}
			fmt.Fprintln(s.Out, termtext.Safe(line))
		}
	}
	if failure != nil && asJSON {
		return cmdutil.SilentExit(cmdutil.ExitFailure)
	}
	return failure
}

func describeSource(p *config.Profile) string {
	if p.File == "" {
		return "(environment variables and flags)"
	}
	// --set and PAYDASH_* override the file, so a bad value may be there.
	return p.File + " (or the --set values and PAYDASH_* variables that override it)"
}

// checkScopes asks for a token per scope paydash uses. The commercial VRP
// scope needs a separate agreement, so its absence is only a warning.
func checkScopes(ctx context.Context, c tokenSource) []Check {
	scopes := []struct {
		scope, use string
		optional   bool
	}{
		{api.ScopePayouts, "balances, payouts, transaction report", false},
		{api.ScopePayments, "single payments", false},
		{api.ScopeSweeping, "sweeping VRP mandates", false},
		{api.ScopeCommercial, "commercial VRP mandates (needs a specific agreement)", true},
	}
	var out []Check
	for _, sc := range scopes {
		cctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		_, err := c.Token(cctx, sc.scope)
		cancel()
		ch := Check{Name: "token for scope " + sc.scope, OK: err == nil, Optional: sc.optional, Detail: sc.use}
		if err != nil {
			ch.Detail = sc.use + ": " + err.Error()
		}
		out = append(out, ch)
	}
	return out
}

// checkHub asks the hub of a payouts_via_relay profile who its token is
// (GET /hub/v1/me) and reports the user, their roles and the hub's
// policy: with no signing key of its own, the profile sends only what the
// hub accepts from that user.
func checkHub(ctx context.Context, p *config.Profile) Check {
	ch := Check{Name: "team hub"}
	hc, err := factory.HubClient(p, "")
	if err != nil {
		ch.Detail = err.Error()
		return ch
	}
	ch.Name = "team hub " + hc.BaseURL
	cctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	me, err := hc.Me(cctx)
	if err != nil {
		ch.Detail = err.Error()
		return ch
	}
	ch.OK = true
	ch.Detail = fmt.Sprintf("you are %s (roles: %s); the hub signs and sends: %s", me.Name, strings.Join(me.Roles, ", "), me.Policy)
	if !me.Has(hubapi.RoleRequest) {
		ch.Detail += "; without the request role this profile sends nothing"
	}
	return ch
}

// checkRelay asks the relay's /healthz whether it is up; the dashboard
// works without it (no live events), so a failure is a warning.
func checkRelay(ctx context.Context, wsURL, token string) Check {
	ch := Check{Name: "relay " + wsURL, Optional: true}
	h, err := RelayHealth(ctx, wsURL)
	if err != nil {
		ch.Detail = err.Error() + " (the dashboard runs without live events; start one with paydash relay)"
		return ch
	}
	// /healthz needs no token; the dashboard's stream and history do.
	if err := (relayclient.History{URL: wsURL, Token: token}).CheckReadable(ctx); err != nil {
		ch.Detail = "up, but " + err.Error()
		// A token the relay refuses is this profile's mistake, not a
		// relay that is merely down: the dashboard would retry it for
		// ever.
		ch.Optional = !errors.Is(err, relayclient.ErrRefused)
		return ch
	}
	ch.OK = true
	ch.Detail = fmt.Sprintf("up, %d event(s) stored", h.LastSeq)
	return ch
}

// RelayHealthInfo is the body of a relay's GET /healthz.
type RelayHealthInfo struct {
	Status   string `json:"status"`
	FirstSeq uint64 `json:"first_seq"`
	LastSeq  uint64 `json:"last_seq"`
}

// RelayHealth reads a relay's /healthz, given its websocket URL (see
// relayclient.Health: an answer that is not a relay's wraps
// relayclient.ErrNotARelay).
func RelayHealth(ctx context.Context, wsURL string) (*RelayHealthInfo, error) {
	h, err := relayclient.Health(ctx, wsURL)
	return (*RelayHealthInfo)(h), err
}
