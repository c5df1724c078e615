package hubclient

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/paydash/paydash/api"
)

// This file is the service as a team profile (payouts_via_relay) sees it
// through its hub: balances less what the hub holds back, and payments
// and mandates signed by the hub. Which profile gets it is decided by
// the command factory (internal/cli/factory), not here.

// BalanceReader is the service's balances; *api.Client is one.
type BalanceReader interface {
	Balances(ctx context.Context) ([]api.Balance, error)
}

// ServiceReader is what a team profile still reads from the service
// itself, with its own client credentials; *api.Client is one.
type ServiceReader interface {
	BalanceReader
	StreamTransactions(ctx context.Context, q api.TransactionQuery, fn func(api.Transaction) error) error
}

// HeldBalances are the service's balances less what the team's hub holds
// back for payouts awaiting approval or being sent: money a team member
// has asked to pay is not available to the next payout.
type HeldBalances struct {
	Service BalanceReader
	Hub     *Client
	// Warn hears when the hub does not answer: the service's balances
	// are then returned as they are, and it says so.
	Warn io.Writer
}

// Balances are the service's, less what the hub holds back.
func (h *HeldBalances) Balances(ctx context.Context) ([]api.Balance, error) {
	bs, err := h.Service.Balances(ctx)
	if err != nil {
		return nil, err
	}
	held, err := h.Hub.Outflows(ctx)
	if err != nil {
		fmt.Fprintf(h.Warn, "warning: %v; available balances do not count payouts awaiting approval on the hub\n", err)
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

// TeamBackend is the dashboard's service on a team profile: balances and
// the report from the service (balances less what the hub holds),
// payments and mandates signed and sent by the hub. The dashboard's
// payout form sends its payouts to the hub itself (sent at once or
// awaiting approval), never through this backend, whose CreatePayout
// refuses before anything is sent.
type TeamBackend struct {
	svc  ServiceReader
	held *HeldBalances
	hub  *Client
}

// NewTeamBackend is the backend reading with svc and sending through
// hub; warn hears when the hub does not answer about its holds.
func NewTeamBackend(hub *Client, svc ServiceReader, warn io.Writer) *TeamBackend {
	return &TeamBackend{svc: svc, held: &HeldBalances{Service: svc, Hub: hub, Warn: warn}, hub: hub}
}

// ErrFormNotThroughHub is a payout sent around the hub on a team
// profile: the profile holds no signing key, and the hub's approvals
// apply to every payout.
var ErrFormNotThroughHub = errors.New("this profile sends payouts through the team's hub (payouts_via_relay): nothing was sent around it. Send it from the dashboard's payout form or with paydash payout create, which both go through the hub")

// Balances are the service's, less what the hub holds back.
func (b *TeamBackend) Balances(ctx context.Context) ([]api.Balance, error) {
	return b.held.Balances(ctx)
}

// StreamTransactions reads the service's report.
func (b *TeamBackend) StreamTransactions(ctx context.Context, q api.TransactionQuery, fn func(api.Transaction) error) error {
	return b.svc.StreamTransactions(ctx, q, fn)
}

// CreatePayout refuses before sending (api.ErrNotSent): a payout on a
// team profile goes through the hub (ErrFormNotThroughHub).
func (b *TeamBackend) CreatePayout(context.Context, *api.PayoutRequest) error {
	return fmt.Errorf("%w: %w", api.ErrNotSent, ErrFormNotThroughHub)
}

// CreatePayment has the hub sign and send it.
func (b *TeamBackend) CreatePayment(ctx context.Context, req *api.PaymentRequest, key string) (*api.PaymentResponse, error) {
	return b.hub.CreatePayment(ctx, req, key)
}

// CreateMandate has the hub sign and send it.
func (b *TeamBackend) CreateMandate(ctx context.Context, req *api.MandateRequest, key string) (*api.MandateResponse, error) {
	return b.hub.CreateMandate(ctx, req, key)
}
