package approvals

import (
	"context"

	"github.com/paydash/paydash/config"
	"github.com/paydash/paydash/internal/payout"
	"github.com/paydash/paydash/webhookrelay/hub/hubapi"
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
	return &HubRecord{profile: r.Profile, where: "the team's hub at " + hc.BaseURL, entries: auditLines(r.Results)}, nil
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
