// Package hubclient is the operator's and approver's side of team mode:
// an HTTP client of the hub's API, with the person's own token.
//
// It is what clients (ui, the commands) import of the hub, with
// hub/hubapi: it may import api, hub/hubapi, internal/payout (the audit
// record's line type) and internal/platform, never the hub server, its
// store or its users file, which a client would otherwise link.
package hubclient
