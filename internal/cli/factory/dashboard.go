package factory

import (
	"context"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/config"
	"github.com/paydash/paydash/internal/cli/cmdutil"
	"github.com/paydash/paydash/internal/payout"
	"github.com/paydash/paydash/webhookrelay/hub/hubclient"
)

// Service is the service as the dashboard reads it and sends to: the
// profile's client (*api.Client), or on a team profile the service's
// report and held balances with payments and mandates sent by the hub
// and payouts refused around it (*hubclient.TeamBackend).
type Service interface {
	payout.Service
	PaymentCreator
	MandateCreator
	StreamTransactions(ctx context.Context, q api.TransactionQuery, fn func(api.Transaction) error) error
}

// Dashboard is what the dashboard opens a profile with.
type Dashboard struct {
	Profile *config.Profile
	// Audit is the profile's own audit record (the form's sends on a
	// direct profile, and what the workbench shows).
	Audit *payout.Log
	// Backend is the service the views read and the forms send to.
	Backend Service
	// Guard is the payout pipeline the form sends through; with the
	// relay it learns what became of payouts the record shows only
	// accepted, so a rejected one does not block its re-send.
	Guard *payout.Pipeline
	// Approvals is the team's hub for the Approvals view (and the
	// form's payouts, which go to it); nil when the profile sends
	// directly.
	Approvals *hubclient.Client
	// ReadOnly is why the profile may send nothing (ReadOnly), "" when
	// it may: the dashboard then offers no form and no send action.
	ReadOnly string
}

// Dashboard is what the dashboard opens the profile with.
func (f *Factory) Dashboard() (*Dashboard, error) {
	p, client, err := f.Setup()
	if err != nil {
		return nil, err
	}
	audit, err := cmdutil.AuditLog(f.streams, p)
	if err != nil {
		return nil, err
	}
	d := &Dashboard{Profile: p, Audit: audit, Backend: client, ReadOnly: ReadOnly(p)}
	if !SendsDirectly(p) { // the hub holds the key
		// The Approvals view reaches the same hub with the same token.
		if d.Approvals, err = HubClient(p, ""); err != nil {
			return nil, err
		}
		d.Backend = hubclient.NewTeamBackend(d.Approvals, client, f.streams.Err)
	}
	d.Guard = payout.New(d.Backend, audit, payout.SourceForm)
	d.Guard.RelayURL, d.Guard.RelayToken = p.RelayURL, p.RelayToken.Reveal()
	return d, nil
}
