package approvals

import (
	"context"

	"github.com/paydash/paydash/config"
	"github.com/paydash/paydash/internal/payout"
)

// HubRecord is the hub's audit record, read once, as `payouts log` reads
// a profile's own.
type HubRecord struct {
	profile string
	where   string
	entries []payout.Entry
}

func (h *HubRecord) Entries() ([]payout.Entry, error) { return h.entries, nil }
func (h *HubRecord) Profile() string                  { return h.profile }
func (h *HubRecord) Path() string                     { return h.where }

// HubAudit reads the audit record of the team's hub that profile p sends
// through: the record its duplicate check reads, of every payout the
// team sent through it.
func HubAudit(ctx context.Context, p *config.Profile) (*HubRecord, error) {
	hc, err := (&Conn{}).Client(p)
	if err != nil {
		return nil, err
	}
	r, err := hc.Audit(ctx)
	if err != nil {
		return nil, hubError(err)
	}
	return &HubRecord{profile: r.Profile, where: "the team's hub at " + hc.BaseURL, entries: r.Results}, nil
}
