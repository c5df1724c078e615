// Package ui is paydash's Bubble Tea dashboard: live balances, the
// transaction report (a million rows stay smooth), the payout tracker, the
// live webhook stream and the payout, payment and mandate forms.
//
// One small model per view; the root model routes messages, owns the
// frame (header, tabs, command line, help, status) and lays out. Every
// call to the service goes through Backend inside a tea.Cmd, never on the
// Update path.
//
// It may import api, config, internal/payout, internal/report,
// internal/platform leaves and the client packages of the relay
// (relayclient, webhooklate), the hub (hubapi, hubclient) and the sandbox
// (sandboxapi); never a server, a store or internal/cli. The commands
// (internal/cli) import it.
package ui
