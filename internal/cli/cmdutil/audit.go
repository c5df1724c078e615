package cmdutil

import (
	"github.com/paydash/paydash/config"
	"github.com/paydash/paydash/internal/payout"
)

// AuditLog opens the profile's audit record of payouts, under paydash's
// state directory; every command that sends payouts writes to it and
// checks it for duplicates first.
func AuditLog(s *Streams, p *config.Profile) (*payout.Log, error) {
	return payout.Open(payout.DefaultPath(config.StateDir(s.Env), p.Name), p.Name, nil)
}
