// Package hubclient is the operator's and approver's side of team mode:
// an HTTP client of the hub's API, with the person's own token.
//
// It is what clients (ui, the commands) import of the hub, with
// hub/hubapi: it may import api and hub/hubapi, never the hub server or
// its store, which a client would otherwise link.
package hubclient
