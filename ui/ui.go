package ui

import (
	"context"
	"errors"
	"fmt"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/config"
	"github.com/paydash/paydash/internal/platform/clock"
	"github.com/paydash/paydash/internal/report/cache"
	"github.com/paydash/paydash/webhookrelay/relayclient"
)

// Backend is what the dashboard needs from the service; *api.Client
// satisfies it.
type Backend interface {
	Balances(ctx context.Context) ([]api.Balance, error)
	StreamTransactions(ctx context.Context, q api.TransactionQuery, fn func(api.Transaction) error) error
	CreatePayout(ctx context.Context, req *api.PayoutRequest) error
	CreatePayment(ctx context.Context, req *api.PaymentRequest, idempotencyKey string) (*api.PaymentResponse, error)
	CreateMandate(ctx context.Context, req *api.MandateRequest, idempotencyKey string) (*api.MandateResponse, error)
}

// MerchantAccount is one of the merchant's accounts: its id and the
// currency it holds.
type MerchantAccount struct {
	ID       string
	Currency string
}

// Options configure the dashboard.
type Options struct {
	Profile    string
	Production bool
	// Regulated relaxes the payment/mandate user-detail rules and allows
	// mandate.reference (passed to api.ValidateOptions).
	Regulated bool
	Backend   Backend
	// Guard, when set, checks every payout from the form for duplicates
	// and records it in the profile's audit record.
	Guard PayoutGuard
	// Events is the relay subscriber's stream (backlog first, then live);
	// nil when no relay is configured.
	Events <-chan relayclient.Event
	// States is the subscriber's connection state; nil when no relay.
	States <-chan relayclient.ConnState
	// BalanceRefresh is the balance polling interval (default 10s).
	BalanceRefresh time.Duration
	// ReportRefresh is how often the transaction report is reloaded in the
	// background (default 60s), keeping the filter and sort; payouts made
	// in the session then show in the report without pressing r.
	ReportRefresh time.Duration
	// TrackerKeepFinal is how many finished payouts of others the
	// Payouts tracker keeps (default DefaultTrackerKeepFinal); this
	// profile's own, those followed from the report and those in flight
	// are always kept.
	TrackerKeepFinal int
	// LowBalance is the warning threshold per currency, in minor units.
	LowBalance map[string]int64
	// ExportDir is where ctrl+s writes report exports (default ".").
	ExportDir string
	// Clock is the time source of the header clock, countdowns, ticks and
	// relative dates (nil = the system clock); tests use a fake.
	Clock clock.Clock
	// MerchantAccounts are the merchant's own accounts from the profile
	// (nil when it lists none): the payment and mandate forms check that
	// a merchant-account beneficiary holds the payment's currency, and
	// offer these accounts instead of a free-text id.
	MerchantAccounts []MerchantAccount
	// Approvals is the team's hub on a payouts_via_relay profile (nil
	// otherwise): the Approvals view (8) lists what awaits approval there
	// and approves or rejects it.
	Approvals ApprovalsHub
	// Location is the time zone every time on screen is shown in and
	// date:today means (nil = the local zone); the header names it.
	Location *time.Location
	// CheckProfile, when set, lets :profile NAME switch profile: it
	// answers whether the profile exists and moves real money (it may
	// read the config file; it runs off the Update path). Run then
	// returns *SwitchProfile for the command to open the dashboard on it.
	CheckProfile func(name string) (ProfileInfo, error)
	// ReportCache, when set, is the profile's report cache: the
	// transaction report opens from it at once, then fetches only what
	// changed, and is saved back (nil = no cache: every start reads the
	// whole report from the service).
	ReportCache *cache.Cache
	// Workbench, when set, gives the Events view the webhook workbench
	// (handler answers, resend, late webhooks, triggers on the demo).
	Workbench *Workbench
	// ReadOnly, when not empty, is why the profile may send nothing (the
	// CLI's factory decides it: read_only, --readonly, or no signing key
	// and no hub). The forms are then not offered and the actions that
	// send are hidden (readonly.go).
	ReadOnly string
	// Custom is the config file's [keys] and [theme] (checked with
	// CheckCustom when the profile is loaded): the keymap and the
	// colours take them.
	Custom config.Custom
	// Views are the profile's saved views (:view NAME, :view lists
	// them); StartView and StartTab are where the dashboard opens.
	Views     []config.View
	StartView string
	StartTab  string
	// SaveView, when set, saves a view in the profile's config file
	// (:save NAME); it runs off the Update path.
	SaveView func(config.View) error
}

// maxFPS is the frame rate the dashboard draws at, at most.
const maxFPS = 120

// Run shows the dashboard on the alternate screen until the user quits or
// ctx is done (which is not an error), or switches profile (a
// *SwitchProfile).
func Run(ctx context.Context, opts Options, teaOpts ...tea.ProgramOption) error {
	if opts.Backend == nil {
		return errors.New("ui: no backend: configure a profile (paydash config init) or run paydash demo")
	}
	// Ask the terminal for its background before Bubble Tea owns stdin, so
	// the adaptive colours pick light or dark without racing the input
	// reader.
	lipgloss.HasDarkBackground()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // stops loads and requests still running after quit
	m := newModel(ctx, opts)
	// 120 frames a second (Bubble Tea's most; 60 by default): a key's
	// effect waits for the next frame, 4 ms on average rather than 8.
	// A frame with nothing changed costs a string compare.
	all := append([]tea.ProgramOption{tea.WithAltScreen(), tea.WithContext(ctx), tea.WithFPS(maxFPS)}, teaOpts...)
	p := tea.NewProgram(m, all...)
	if f, ok := opts.Approvals.(ApprovalsFeed); ok {
		go followApprovals(ctx, f, p.Send)
	}
	final, err := p.Run()
	if err == nil {
		return switchedTo(final)
	}
	if err != nil && errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		return nil
	}
	if err != nil {
		return fmt.Errorf("ui: %w", err)
	}
	return nil
}
