package approvals

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/config"
	"github.com/paydash/paydash/webhookrelay/hub/hubclient"
)

// ServiceReader is what a team profile still reads from the service
// itself, with its own client credentials; *api.Client is one.
type ServiceReader interface {
	BalanceReader
	StreamTransactions(ctx context.Context, q api.TransactionQuery, fn func(api.Transaction) error) error
}

// TeamBackend is the dashboard's service on a payouts_via_relay profile:
// balances and the report from the service (balances less what the hub
// holds), payments and mandates signed and sent by the hub. The
// dashboard's payout form sends its payouts to the hub itself (its
// Approvals hub: sent at once or awaiting approval), never through this
// backend, whose CreatePayout refuses before anything is sent.
type TeamBackend struct {
	svc  ServiceReader
	held BalanceReader
	hub  *hubclient.Client
}

// NewTeamBackend is the backend of profile p, reading with svc.
func NewTeamBackend(p *config.Profile, svc ServiceReader, warn io.Writer) (*TeamBackend, error) {
	hc, err := (&Conn{}).Client(p)
	if err != nil {
		return nil, err
	}
	return &TeamBackend{svc: svc, held: &heldBalances{svc: svc, hub: hc, warn: warn}, hub: hc}, nil
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
