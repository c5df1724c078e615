package factory

import (
	"context"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/config"
	"github.com/paydash/paydash/internal/cli/cmdutil"
	"github.com/paydash/paydash/internal/payout"
	"github.com/paydash/paydash/webhookrelay/hub/hubclient"
)

// BalanceReader reads the payout accounts' balances: the service's own
// (*api.Client), or on a team profile the service's less what the hub
// holds back (*hubclient.HeldBalances).
type BalanceReader interface {
	Balances(ctx context.Context) ([]api.Balance, error)
}

// PaymentCreator creates a single payment: *api.Client, signed with the
// profile's key, or *hubclient.Client, signed and sent by the hub.
type PaymentCreator interface {
	CreatePayment(ctx context.Context, req *api.PaymentRequest, idempotencyKey string) (*api.PaymentResponse, error)
}

// MandateCreator creates a VRP mandate, as PaymentCreator a payment.
type MandateCreator interface {
	CreateMandate(ctx context.Context, req *api.MandateRequest, idempotencyKey string) (*api.MandateResponse, error)
}

// AuditRecord is a record of payouts sent, as `payouts log` prints it:
// the profile's own (*payout.Log), or the hub's, which keeps the record
// of every payout the team sent through it (*hubclient.AuditRecord).
type AuditRecord interface {
	Entries() ([]payout.Entry, error)
	Profile() string
	Path() string
}

// Balances is what `balances` reads.
func (f *Factory) Balances() (BalanceReader, error) {
	p, client, err := f.Setup()
	if err != nil {
		return nil, err
	}
	if SendsDirectly(p) {
		return client, nil
	}
	// What awaits approval on the hub is not available.
	held, err := HeldBalances(p, client, f.streams.Err)
	if err != nil {
		return nil, err // not a typed nil in the interface
	}
	return held, nil
}

// PaymentCreator is what `payment create` sends with.
func (f *Factory) PaymentCreator() (PaymentCreator, error) {
	return creator(f)
}

// MandateCreator is what `mandate create` sends with.
func (f *Factory) MandateCreator() (MandateCreator, error) {
	return creator(f)
}

// sender is both creators: the service's client and the hub's.
type sender interface {
	PaymentCreator
	MandateCreator
}

// creator is the profile's client, or the hub when it sends through one
// (the hub signs with its key; the profile holds none).
func creator(f *Factory) (sender, error) {
	if err := f.mustSend(); err != nil {
		return nil, err
	}
	p, client, err := f.Setup()
	if err != nil {
		return nil, err
	}
	if SendsDirectly(p) {
		return client, nil
	}
	hc, err := HubClient(p, "")
	if err != nil {
		return nil, err
	}
	return hc, nil
}

// AuditRecord is the record `payouts log` prints. Only the profile is
// needed for it (not its client): the record of a profile whose service
// credentials are broken still prints.
func (f *Factory) AuditRecord(ctx context.Context) (AuditRecord, error) {
	p, err := f.Profile()
	if err != nil {
		return nil, err
	}
	if SendsDirectly(p) {
		log, err := cmdutil.AuditLog(f.streams, p)
		if err != nil {
			return nil, err
		}
		return log, nil
	}
	hc, err := HubClient(p, "")
	if err != nil {
		return nil, err
	}
	r, err := hc.AuditRecord(ctx)
	if err != nil {
		return nil, HubError(err)
	}
	return r, nil
}

// Hub is the team's hub the profile sends through, for the dashboard's
// Approvals view; nil (and no error) when the profile sends directly.
func (f *Factory) Hub() (*hubclient.Client, error) {
	p, err := f.Profile()
	if err != nil {
		return nil, err
	}
	if SendsDirectly(p) {
		return nil, nil
	}
	return HubClient(p, "")
}

// PayoutSender is how the profile sends a payout, as the factory decided:
// *DirectPayouts or *HubPayouts. A command says what it does on each
// route (PayoutRoutes) and Send calls the one that applies, so no command
// decides the route itself, and a new route is a compile error in every
// command until it handles it.
type PayoutSender interface {
	Send(r PayoutRoutes) error
}

// PayoutRoutes are a command's ways of sending one payout and saying
// what became of it.
type PayoutRoutes interface {
	// Direct sends through the payout pipeline with the profile's key.
	Direct(d *DirectPayouts) error
	// ThroughHub hands the payout to the team's hub, which checks it,
	// applies the team's policy and sends it with its key, at once or
	// after approval.
	ThroughHub(h *HubPayouts) error
}

// DirectPayouts is a profile sending payouts itself.
type DirectPayouts struct {
	Profile *config.Profile
	// Service is the client the payout pipeline sends with and reads
	// the report and balances from.
	Service *api.Client
	// Audit is the profile's audit record: every attempt and its
	// outcome, read first by the duplicate check.
	Audit *payout.Log
}

// Send calls r.Direct.
func (d *DirectPayouts) Send(r PayoutRoutes) error { return r.Direct(d) }

// HubPayouts is a profile sending payouts through its team's hub.
type HubPayouts struct {
	Profile *config.Profile
	Hub     *hubclient.Client
}

// Send calls r.ThroughHub.
func (h *HubPayouts) Send(r PayoutRoutes) error { return r.ThroughHub(h) }

// PayoutSender is what `payout create` sends a payout with.
func (f *Factory) PayoutSender() (PayoutSender, error) {
	if err := f.mustSend(); err != nil {
		return nil, err
	}
	p, client, err := f.Setup()
	if err != nil {
		return nil, err
	}
	if !SendsDirectly(p) {
		hc, err := HubClient(p, "")
		if err != nil {
			return nil, err
		}
		return &HubPayouts{Profile: p, Hub: hc}, nil
	}
	audit, err := cmdutil.AuditLog(f.streams, p)
	if err != nil {
		return nil, err
	}
	return &DirectPayouts{Profile: p, Service: client, Audit: audit}, nil
}
