// Package natsstream holds what paydash's JetStream stores share: one
// way to open a stream (its name checked, created or updated, waited on
// until it has a leader; open.go), a stream kept whole and created with
// its first message, reads retried through leader elections, and appends
// that are a compare-and-swap on the stream's last sequence. The relay's
// clustered store, the hub's approvals and the hub's audit record each
// use it; none opens its stream or writes a retry loop its own way.
//
// It imports nothing of paydash outside internal/platform.
package natsstream
