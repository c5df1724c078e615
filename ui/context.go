package ui

import (
	"context"
	"io"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/platform/clock"
)

// viewContext is everything a view may see of the program: the window
// size, the styles and the one keymap, the clock and time zone, the
// backend, the status-line message and the accounts the dashboard knows.
// Views never see the root model nor each other; what one view does to
// another travels as a message the root routes (payoutAcceptedMsg,
// payoutProgressMsg, trackPayoutMsg), as gh-dash's ProgramContext and
// soft-serve's common.Common do.
type viewContext struct {
	ctx           context.Context // cancels backend calls when the program ends
	width, height int
	st            styles
	keys          *keyMap
	clock         clock.Clock
	loc           *time.Location
	backend       Backend
	opts          Options // settings; read only
	clip          io.Writer
	newID         func() string // transaction ids and idempotency keys

	flash flash
	// relayLive is whether webhooks are arriving now; when not, payout
	// outcomes come from polling the report.
	relayLive bool

	// accounts are the payout accounts from the latest balances, shared
	// read only (the payout form offers them as source accounts, the
	// payment and mandate forms as merchant accounts).
	accounts []api.Balance

	// wb is the webhook workbench's shared state (events_workbench.go).
	wb *workbenchState
}

// flash is the status line's one-line message. It belongs to the view
// that was showing when it was set (owner; -1 = the whole program) and
// goes when the user leaves that view, or after flashFor.
type flash struct {
	text  string
	err   bool
	owner tab
	until time.Time
}

// flashFor is how long a status message stays.
const flashFor = 8 * time.Second

// now is the clock's time in the dashboard's time zone.
func (c *viewContext) now() time.Time { return c.clock.Now().In(c.loc) }

// setFlash shows a message in the status line; cur is the view showing.
func (c *viewContext) setFlash(text string, isErr bool) {
	c.flash = flash{text: text, err: isErr, owner: c.flash.owner, until: c.now().Add(flashFor)}
}

// zoneName is the time zone of t as a person reads it: its abbreviation
// (UTC, EST, CET), or its offset when the zone has none.
func zoneName(t time.Time) string {
	name, _ := t.Zone()
	if name == "" {
		return t.Format("-07:00")
	}
	return name
}

// after delivers msg once d has passed on the clock: the one way the
// dashboard waits (ticks, retries), so a test's fake clock drives them.
func after(clk clock.Clock, d time.Duration, msg tea.Msg) tea.Cmd {
	return func() tea.Msg {
		<-clk.After(d)
		return msg
	}
}

// stateStyle colours a payout or transaction state: done green, failed
// red, anything in between amber.
func (c *viewContext) stateStyle(status string) *lipgloss.Style {
	switch {
	case api.StatePaid(status):
		return &c.st.good
	case api.IsFinalState(status):
		return &c.st.bad
	}
	return &c.st.warn
}

// account is the payout account with this currency and IBAN, if known.
func (c *viewContext) account(cur, iban string) *api.Balance {
	for i := range c.accounts {
		if b := &c.accounts[i]; b.Currency == cur && b.IBAN == iban {
			return b
		}
	}
	return nil
}

// merchantCurrency is the currency of the merchant account with this id,
// when the profile lists it (api.ValidateOptions.AccountCurrency).
func (c *viewContext) merchantCurrency(id string) (string, bool) {
	for _, a := range c.opts.MerchantAccounts {
		if strings.EqualFold(a.ID, strings.TrimSpace(id)) {
			return a.Currency, true
		}
	}
	return "", false
}
