// Package approvals holds team mode's client commands: `paydash
// approvals` (the approvers' side) and what `payout create` and `payout
// batch` do on a profile that sends through the hub (the operators'
// side).
//
// A client's commands: they may import api, config, cmdutil, the factory,
// internal/payout and the hub's client packages (hubapi, hubclient),
// never the hub server, its store or its users file. `relay user`, which
// edits the users file, is a server command and lives in
// internal/cli/serve.
package approvals
