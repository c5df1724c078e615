package approvals

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/config"
	"github.com/paydash/paydash/webhookrelay/hub/hubclient"
)

// BalanceReader is the service's balances; *api.Client is one.
type BalanceReader interface {
	Balances(ctx context.Context) ([]api.Balance, error)
}

// heldBalances are the service's balances less what the team's hub holds
// back for payouts awaiting approval or being sent: money a team member
// has asked to pay is not available to the next payout.
type heldBalances struct {
	svc  BalanceReader
	hub  *hubclient.Client
	warn io.Writer
}

// HeldBalances wraps svc for a payouts_via_relay profile p; warn hears
// when the hub does not answer (the service's balances are shown as they
// are, and it says so).
func HeldBalances(p *config.Profile, svc BalanceReader, warn io.Writer) (BalanceReader, error) {
	hc, err := (&Conn{}).Client(p)
	if err != nil {
		return nil, err
	}
	return &heldBalances{svc: svc, hub: hc, warn: warn}, nil
}

func (h *heldBalances) Balances(ctx context.Context) ([]api.Balance, error) {
	bs, err := h.svc.Balances(ctx)
	if err != nil {
		return nil, err
	}
	held, err := h.hub.Outflows(ctx)
	if err != nil {
		fmt.Fprintf(h.warn, "warning: %v; available balances do not count payouts awaiting approval on the hub\n", err)
		return bs, nil
	}
	for i := range bs {
		for cur, amt := range held {
			if strings.EqualFold(cur, bs[i].Currency) {
				bs[i].AvailableBalanceInMinor -= amt
			}
		}
	}
	return bs, nil
}
