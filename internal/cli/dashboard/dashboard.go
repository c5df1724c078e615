package dashboard

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/paydash/paydash/internal/cli/approvals"
	"github.com/paydash/paydash/internal/cli/cmdutil"
	"github.com/paydash/paydash/internal/payout"
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
	prof, client, err := cmdutil.Setup(s, g)
	if err != nil {
		return err
	}
	audit, err := cmdutil.AuditLog(s, prof)
	if err != nil {
		return err
	}
	var backend ui.Backend = client
	var svc payout.Service = client
	var team ui.ApprovalsHub
	if prof.PayoutsViaRelay { // team mode: the hub holds the key
		tb, err := approvals.NewTeamBackend(prof, client, s.Err)
		if err != nil {
			return err
		}
		backend, svc = tb, tb
		// The Approvals view reaches the same hub with the same token.
		if team, err = approvals.HubFor(prof); err != nil {
			return err
		}
	}
	// The form sends through the payout pipeline; with the relay it
	// learns what became of payouts the record shows only accepted: a
	// rejected one must not block its re-send.
	guard := payout.New(svc, audit, payout.SourceForm)
	guard.RelayURL, guard.RelayToken = prof.RelayURL, prof.RelayToken.Reveal()
	// Attached to a running demo: its sandbox takes triggers (T).
	sandboxURL := ""
	if cfg, _, ok := cmdutil.RunningDemo(s.Env); ok && prof.File == cfg {
		sandboxURL = prof.BaseURL
	}
	return Show(ctx, s, Params{
		UI: ui.Options{
			Profile: prof.Name, Production: prof.Production, Regulated: prof.Regulated,
			Backend: backend, Guard: guard, BalanceRefresh: prof.BalanceRefresh, ReportRefresh: prof.ReportRefresh, TrackerKeepFinal: prof.TrackerKeepFinal, LowBalance: prof.LowBalance, ExportDir: ".",
			Location: prof.Location, MerchantAccounts: MerchantAccounts(prof.MerchantAccounts), Approvals: team,
			CheckProfile: profileChecker(s, g),
			Workbench:    Workbench(s, prof, audit, sandboxURL),
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
