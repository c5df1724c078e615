// Package auditlog is the hub's payout audit record in clustered mode: a
// JetStream stream every hub of the cluster appends to, so the duplicate
// check of each hub reads what the others reserved and sent. It is a
// payout.Record: the pipeline checks and records through it exactly as
// through a profile's file.
//
// The file's OS lock becomes the stream's expected last sequence
// (Nats-Expected-Last-Sequence, checked in order by the stream's leader
// even on nats-server 2.9): a
// reservation is published only if no line was appended since the hub
// read the record it checked against; if one was, the hub reads the new
// lines and checks again. So of two hubs reserving the same payout at the
// same moment, the second sees the first's attempt and stops.
//
// Each hub follows the stream (natsstream.Follower) and holds in memory
// only the lines the duplicate check reads: those within Config.Hold of
// the newest (replaying only those at its start). So its memory and each
// check follow the duplicate window, not the record's history; Entries
// (`payouts log`) reads the whole record in pulled batches, and a check
// over a longer window reads it too.
//
// It may import api, internal/payout (whose Record it implements) and
// internal/platform (natsstream). Only the server commands import it.
package auditlog
