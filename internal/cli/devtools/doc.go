// Package devtools holds the webhook workbench commands for developers
// writing a webhook handler: `events resend`, `events show`, `events
// missing` and `sandbox trigger`. Each is exported as a cobra command.
//
// A client: it may import api, config, cmdutil, internal/payout, the
// relay's client packages (relayclient, webhooklate) and
// api/sandbox/sandboxapi; never the sandbox server or the relay.
package devtools
