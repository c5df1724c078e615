// Package cmdutil holds what every paydash command shares: the standard
// streams with terminal detection, JSON and table output, confirmation
// prompts, a progress indicator on stderr, and exit codes.
//
// Output discipline: results go to Out (so `paydash balances --json | jq`
// works), everything meant for the person (prompts, progress, warnings)
// goes to Err, and progress is drawn only when Err is a terminal so logs of
// cron jobs stay clean.
//
// It may import api, config, internal/payout and internal/platform
// leaves; never ui, another command or a server. Every command imports
// it.
package cmdutil
