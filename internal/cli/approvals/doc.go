// Package approvals holds team mode's commands: `paydash relay user`
// (the hub's users file), `paydash approvals` (the approvers' side) and
// `payout create` through the hub (the operators' side).
//
// A client: it may import api, config, cmdutil, internal/payout and the
// hub's client packages (hubapi, hubclient); never the hub server or its
// store. Administering the hub's users file (`relay user`) is a server
// command's business.
package approvals
