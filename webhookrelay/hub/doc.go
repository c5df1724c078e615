// Package hub is team mode: the relay, given users, becomes the team's
// hub. Operators send payouts through it with their own token; the hub
// decides by its policy whether a payout goes at once or waits for other
// people's approval, keeps every request and decision in its own store
// (hub/store, never the webhook store) and sends through the one payout
// pipeline with the signing key that only it holds. It answers in its
// wire types (hubapi), converting its stored records at its edge
// (wire.go): clients link hubapi and hubclient, never this package.
//
// The rules a person cannot get round from their own terminal live here:
// the requester never approves their own request, a view-only token can
// neither request nor approve, a lapsed, rejected or sent request is
// never approved, and each payout is sent once under the transaction id
// fixed when it was requested.
//
// It may import api, internal/payout (the one pipeline it sends
// through), its own store, users and policy, and internal/platform
// leaves. Only the commands that run or administer the relay
// (internal/cli/serve, the demo) and test helpers (hubtest) import it:
// clients talk to it over HTTP through hub/hubclient and the wire types
// of hub/hubapi, never through this package or its store.
package hub
