// Package natstest runs real three-node JetStream clusters for tests, on
// loopback ports with temporary store directories: in this process (the
// nats-server module at the version in go.mod) or as nats-server
// processes (the binary on PATH, the distribution's package in CI), so
// clustered behaviour is proven against two server versions. A test kills
// and restarts nodes through Nodes.
//
// It is for tests only and imports nothing of paydash.
package natstest
