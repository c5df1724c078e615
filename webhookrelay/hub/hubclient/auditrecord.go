package hubclient

import (
	"context"

	"github.com/paydash/paydash/internal/payout"
	"github.com/paydash/paydash/webhookrelay/hub/hubapi"
)

// AuditRecord is the hub's audit record, read once, in the shape `payouts
// log` reads a profile's own (*payout.Log): the record the hub's
// duplicate check reads, of every payout the team sent through it.
type AuditRecord struct {
	profile string
	where   string
	entries []payout.Entry
}

// Entries are the record's entries, as the hub answered them.
func (r *AuditRecord) Entries() ([]payout.Entry, error) { return r.entries, nil }

// Profile is the profile the hub sends with.
func (r *AuditRecord) Profile() string { return r.profile }

// Path says where the record is kept: the hub, at its address.
func (r *AuditRecord) Path() string { return r.where }

// AuditRecord reads the hub's audit record.
func (c *Client) AuditRecord(ctx context.Context) (*AuditRecord, error) {
	r, err := c.Audit(ctx)
	if err != nil {
		return nil, err
	}
	return &AuditRecord{profile: r.Profile, where: "the team's hub at " + c.BaseURL, entries: auditLines(r.Results)}, nil
}

// auditLines reads the hub's answer as audit record lines: the wire
// carries each line's fields as the record keeps them.
func auditLines(wire []hubapi.AuditEntry) []payout.Entry {
	if wire == nil {
		return nil
	}
	es := make([]payout.Entry, len(wire))
	for i, e := range wire {
		es[i] = payout.Entry{At: e.At, Event: e.Event, Profile: e.Profile, Source: e.Source, TransactionID: e.TransactionID,
			Name: e.Name, IBAN: e.IBAN, Reference: e.Reference, AmountInMinor: e.AmountInMinor, Currency: e.Currency,
			BatchFile: e.BatchFile, Line: e.Line, AllowedDuplicate: e.AllowedDuplicate, Outcome: e.Outcome, Detail: e.Detail}
	}
	return es
}
