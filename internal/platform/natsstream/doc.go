// Package natsstream holds what paydash's JetStream stores share: a
// stream kept whole and created with its first message, reads retried
// through leader elections, and appends that are a compare-and-swap on
// the stream's last sequence. The relay's clustered store, the hub's
// approvals and the hub's audit record each use it; none writes its own
// retry loop.
//
// It imports nothing of paydash outside internal/platform.
package natsstream
