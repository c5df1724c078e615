// Package store keeps the team hub's approval requests: each request, and
// a record of every step of it (request, approval, rejection, lapse,
// send, outcome) with who and when. One hub keeps them in a bbolt file
// (Open); the hubs of a cluster share them in a JetStream stream
// (OpenJetStream, jetstream.go). Every change of a request's status reads
// the status it starts from and writes the next one with its record line
// as one compare-and-swap (a bbolt transaction; a publish expecting the
// request's revision), so two approvals at the same moment, at one hub or
// two, or an approve repeated after a lost answer, move a request once.
// Each change is fsynced (bbolt) or held by a majority of the replicas
// (JetStream) before it is answered, so the record survives kill -9.
//
// Approval records never go through the webhook relay's store: its
// retention, forwarding and event stream never see them.
//
// It may import api and internal/platform (natsstream). The hub and the
// server commands import it; a client never does, and a stored Request
// never goes on the wire as it is.
package store
