package dashboard

import (
	"path/filepath"
	"time"

	"github.com/paydash/paydash/config"
	"github.com/paydash/paydash/internal/cli/cmdutil"
	"github.com/paydash/paydash/internal/payout"
	"github.com/paydash/paydash/ui"
	"github.com/paydash/paydash/webhookrelay/relayclient"
	"github.com/paydash/paydash/webhookrelay/webhooklate"
)

// sentWindow is how far back the dashboard looks in the audit record for
// payouts whose final webhook it expects.
const sentWindow = 7 * 24 * time.Hour

// Workbench is the Events view's webhook workbench for a profile: the
// relay it reads answers and events from (with the profile's token), the
// history of resends, webhook_late, and the payouts the audit record
// holds as sent. sandboxURL is set on the demo only.
func Workbench(s *cmdutil.Streams, p *config.Profile, audit *payout.Log, sandboxURL string) *ui.Workbench {
	wb := &ui.Workbench{
		Relay:       relayclient.History{URL: p.RelayURL, Token: p.RelayToken.Reveal()},
		ResendLog:   relayclient.ResendLog{Path: filepath.Join(config.StateDir(s.Env), relayclient.ResendLogFile)},
		SandboxURL:  sandboxURL,
		WebhookLate: p.WebhookLate.For,
	}
	if audit != nil {
		if entries, err := audit.Entries(); err == nil {
			cutoff := time.Now().Add(-sentWindow)
			for _, a := range payout.AwaitingWebhook(payout.Attempts(entries), cutoff) {
				wb.Sent = append(wb.Sent, webhooklate.Payout{ID: a.TransactionID, Currency: a.Currency, Amount: a.AmountInMinor, Since: a.At})
			}
		}
	}
	return wb
}
