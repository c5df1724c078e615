package dashboard

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/paydash/paydash/config"
	"github.com/paydash/paydash/internal/cli/cmdutil"
	"github.com/paydash/paydash/internal/cli/factory"
	"github.com/paydash/paydash/internal/report"
	"github.com/paydash/paydash/internal/report/cache"
	"github.com/paydash/paydash/ui"
	"github.com/paydash/paydash/webhookrelay/relayclient"
)

// ErrNoTerminal is returned when the dashboard is asked for without a
// terminal to draw on.
var ErrNoTerminal = cmdutil.Exit(cmdutil.ExitUsage, errors.New("the dashboard needs a terminal; in scripts use the headless commands (paydash balances, paydash transactions, paydash payout create; see paydash --help)"))

// Params say what to show.
type Params struct {
	UI ui.Options
	// RelayURL is the relay's websocket URL; "" shows no live events.
	RelayURL   string
	RelayToken string
}

// Show runs the dashboard until the person quits or ctx is done. The
// relay subscriber, if any, is stopped before Show returns.
func Show(ctx context.Context, s *cmdutil.Streams, p Params) error {
	if !s.InTerminal || !s.OutTerminal {
		return ErrNoTerminal
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	if p.RelayURL != "" {
		sub := relayclient.NewSubscriber(relayclient.SubscriberConfig{URL: p.RelayURL, Token: p.RelayToken, MaxBackoff: 10 * time.Second})
		p.UI.Events, p.UI.States = sub.Events(), sub.States()
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = sub.Run(ctx)
		}()
	}
	stopProfiles, err := startDevProfiles(os.Getenv)
	if err != nil {
		return err
	}
	err = ui.Run(ctx, p.UI)
	stopProfiles()
	cancel()
	wg.Wait()
	return err
}

// runProfile opens the dashboard on the configured profile. With none
// configured it prints the friendly pointer to `paydash demo` and
// `paydash config init`.
func runProfile(ctx context.Context, s *cmdutil.Streams, g *cmdutil.Global) error {
	d, err := factory.New(s, g).Dashboard()
	if err != nil {
		return err
	}
	prof := d.Profile
	// [keys] and [theme] are the dashboard's: refused here, naming the
	// line, before the screen is taken (config check says the same).
	if err := ui.CheckCustom(prof.Custom); err != nil {
		return cmdutil.Exit(cmdutil.ExitUsage, err)
	}
	var team ui.ApprovalsHub
	if d.Approvals != nil { // a nil *hubclient.Client would read as team mode
		team = d.Approvals
	}
	// Attached to a running demo: its sandbox takes triggers (T).
	sandboxURL := ""
	if cfg, _, ok := cmdutil.RunningDemo(s.Env); ok && prof.File == cfg {
		sandboxURL = prof.BaseURL
	}
	return Show(ctx, s, Params{
		UI: ui.Options{
			Profile: prof.Name, Production: prof.Production, Regulated: prof.Regulated,
			Backend: d.Backend, Guard: d.Guard, BalanceRefresh: prof.BalanceRefresh, ReportRefresh: prof.ReportRefresh, TrackerKeepFinal: prof.TrackerKeepFinal, LowBalance: prof.LowBalance, ExportDir: ".",
			Location: prof.Location, MerchantAccounts: MerchantAccounts(prof.MerchantAccounts), Approvals: team,
			CheckProfile: profileChecker(s, g),
			ReportCache:  cache.ForProfile(config.StateDir(s.Env), prof.Name, prof.PayoutsURL, prof.ReportCache),
			Workbench:    Workbench(s, prof, d.Audit, sandboxURL),
			ReadOnly:     d.ReadOnly,
			Custom:       prof.Custom,
			Views:        prof.Views, StartView: prof.StartView, StartTab: prof.StartTab,
			SaveView: ViewSaver(prof),
		},
		RelayURL: prof.RelayURL, RelayToken: prof.RelayToken.Reveal(),
	})
}

// MerchantAccounts lists a profile's merchant_accounts (currency -> id)
// for the forms, in currency order.
func MerchantAccounts(byCurrency map[string]string) []ui.MerchantAccount {
	out := make([]ui.MerchantAccount, 0, len(byCurrency))
	for cur, id := range byCurrency {
		out = append(out, ui.MerchantAccount{ID: id, Currency: cur})
	}
	slices.SortFunc(out, func(a, b ui.MerchantAccount) int { return strings.Compare(a.Currency, b.Currency) })
	return out
}

// ViewSaver saves a view from the dashboard (:save NAME) into the
// profile's config file, checked by the report's parser; nil for a
// profile built from the environment alone (no file to save into).
func ViewSaver(prof *config.Profile) func(config.View) error {
	if prof.File == "" {
		return nil
	}
	file, name := prof.File, prof.Name
	return func(v config.View) error { return config.AppendView(file, name, v, report.CheckFilter) }
}
