// Package webhookrelay receives the service's webhooks, verifies them,
// stores them durably and streams them live over a websocket to any number
// of viewers, each of which sees every event exactly once, in order, even
// across its own reconnects and relay restarts. Its client half (Event,
// Subscriber, tail formatting) is relayclient.
//
// # Flow
//
//	POST {Path} -> Host/Origin/JSON checks -> size/JSON/timestamp -> stored
//	byte for byte already? 200 duplicate : signature check -> backend
//	(bbolt group commit, or JetStream publish) -> 2xx -> fan-out -> /ws
//
// A webhook is acknowledged only after the transaction holding it has been
// committed and fsynced (or, clustered, acknowledged by the JetStream
// stream), so a sender's retries cover every crash; a redelivery of an
// event_id seen within the dedupe window (72 h) gets 200 and is neither
// stored nor streamed again. Signature checks are ~2 ms of CPU each, so at
// most GOMAXPROCS run at once, and a redelivery of the exact stored bytes
// skips them.
//
// # Backends
//
// The bbolt file (below) is the default. With Config.NATS, any number of
// relay instances share one JetStream stream (natsstore.go): each publishes
// with Nats-Msg-Id from the event_id, the stream sequence is the event
// seq, and an ordered consumer feeds every instance's fan-out (natsfeed.go),
// watched and restarted after the last event delivered if it stalls
// behind the stream. Setting up waits out a cluster without a majority or
// a leader, retrying with backoff and logging what it waits for and which
// servers are unreachable (OpenContext bounds the wait).
//
// # Why bbolt
//
// The store is go.etcd.io/bbolt: pure Go (no cgo, cross-compiles), a single
// file, ACID transactions with an fsync per commit, and a B+tree keyed by
// the big-endian sequence number, so "everything after seq N" is an ordered
// cursor range scan. A second bucket maps event_id to seq for dedupe, and a
// third lists those ids in seq order with their arrival time: ids outlive
// their events' retention until the dedupe window has passed, then are
// trimmed, so nothing per event is held in RAM. bbolt allows a
// single writer at a time and pays two fsyncs per commit, so one writer
// goroutine batches every webhook that is waiting into one transaction
// (group commit): concurrent senders share the fsync cost, which is what
// makes thousands of durable events per second possible on a small machine.
// Under load it holds a commit open (at most 2 ms) for webhooks still being
// checked, so more of them share each commit; light traffic never waits.
//
// # Stream
//
// GET /ws?since=N sends every stored event with seq > N, then live events.
// The connection subscribes to the fan-out before reading the backlog and
// skips live events already sent from the backlog, so there is neither a gap nor
// a repeat. Each connection has a bounded queue; a client that falls behind
// is closed with code 4000 and the reason "slow consumer: queue full,
// resume with since=N", and resumes from the store without losing anything.
//
// What runs inside the relay reads the same stream without the network:
// LocalFeed (localfeed.go) gives one payout's events from the current end,
// backlog then live, the same way and from either backend, and the last
// final state the store holds for a payout. The team hub the relay mounts
// follows the payouts it sends with it (as payout.EventSource), so it needs
// no token, health probe or websocket to its own relay, and imports none
// of this package.
//
// Each event's websocket frame is encoded once, straight from its stored
// record (the fields as JSON with the raw body spliced in, so the body
// arrives byte for byte), and shared by every client; a client's queued
// frames go out in one write. The Subscriber decodes with encoding/json: a
// hand-written decoder saved ~6 µs of CPU per event and subscriber, about
// 3% of what an event costs next to its ~1.8 ms signature check with ten
// subscribers in the same process, and less than the run-to-run noise
// (docs/performance.md).
//
// # Endpoints
//
//	POST {Path}    a webhook; 200 {"seq":N} once stored ({"duplicate":true} for a redelivery)
//	GET  /ws       ?since=N&type=a,b  the live stream, one JSON Event per message
//	GET  /events   ?since=&limit=&type=&payout_id=  history page (History)
//	GET  /events/{event_id}  one event, its body byte for byte in "raw" (base64)
//	GET  /attempts ?since=&limit=&event_id=  forward attempts and reported resends, with each handler's answer
//	POST /events/{event_id}/resends  a client reports a resend's answer (the relay never resends)
//	GET  /healthz  {"status":"ok","first_seq":..,"last_seq":..}
//	GET  /metrics  Prometheus text: received, rejected by reason, duplicates,
//	               stored, verify and publish seconds, subscribers, slow-client
//	               disconnects, Go and process (CPU) metrics
//
// /ws, /events, /attempts and /metrics need the bearer token when one is set; without
// one they only answer requests addressed to a loopback host name.
//
// Imports: api, relayclient (the wire types it shares with subscribers)
// and internal/platform leaves; never ui, config, a command or the hub.
// Only the server commands (internal/cli/serve, the demo) and relaytest
// link it; clients import relayclient and webhooklate.
package webhookrelay
