// Package approvals holds team mode's commands: `paydash relay user`
// (the hub's users file), `paydash approvals` (the approvers' side) and
// `payout create` through the hub (the operators' side).
//
// `approvals` and `payout create` are a client's commands: they may
// import api, config, cmdutil, internal/payout and the hub's client
// packages (hubapi, hubclient), never the hub server or its store.
// `relay user` administers the hub (it edits the users file, hub/users),
// which makes it a server command; internal/arch allows its import only
// until it moves beside them.
package approvals
