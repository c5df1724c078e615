package hubclient

import (
	"context"

	"github.com/paydash/paydash/internal/payout"
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
	return &AuditRecord{profile: r.Profile, where: "the team's hub at " + c.BaseURL, entries: r.Results}, nil
}
