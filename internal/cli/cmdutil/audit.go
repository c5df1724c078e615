package cmdutil

import (
	"github.com/paydash/paydash/config"
	"github.com/paydash/paydash/internal/payguard"
)

// AuditLog opens the profile's audit record of payouts, under paydash's
// state directory; every command that sends payouts writes to it and
// checks it for duplicates first.
func AuditLog(s *Streams, p *config.Profile) (*payguard.Log, error) {
	return payguard.Open(payguard.DefaultPath(config.StateDir(s.Env), p.Name), p.Name, nil)
}
