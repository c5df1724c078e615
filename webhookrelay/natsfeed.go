package webhookrelay

import (
	"context"
	"encoding/json"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// The live feed: an ordered JetStream consumer hands every event any
// instance stored to this instance's fan-out, in stream order. When the node
// serving it dies the library is meant to recreate it, but that can stall
// silently (seen on nats-server 2.9 after the stream leader was killed and
// the client reconnected elsewhere: no event for over 30 s). So a watchdog
// compares the stream's last seq with the last one delivered, and a feed
// that has not moved while the stream has more is replaced by a new
// consumer starting after the last event delivered: subscribers keep
// their connections and get every event once, in order.
const (
	// The feed's pull requests expire and are renewed this often, and the
	// server sends a heartbeat this often while one is open: two missed
	// heartbeats make the ordered consumer recreate itself.
	natsFeedExpiry    = 4 * time.Second
	natsFeedHeartbeat = time.Second
	// natsFeedCheck is how often the watchdog asks the stream for its last
	// seq; a feed behind it and not moving for natsFeedStalledChecks
	// checks in a row is restarted.
	natsFeedCheck         = time.Second
	natsFeedStalledChecks = 2
)

// natsFeed is natsBackend's live feed state.
type natsFeed struct {
	feedMu sync.Mutex
	// gen numbers the consumers started; a message from an older one (still
	// in flight while it is stopped) is dropped.
	gen     uint64
	consume jetstream.ConsumeContext
	// delivered is the last seq handed to the fan-out.
	delivered atomic.Uint64
	// restarts counts feeds replaced by the watchdog.
	restarts    atomic.Int64
	stopWatch   context.CancelFunc
	feedStopped chan struct{}
}

// startFeed starts a consumer delivering from the seq after the last one
// delivered, replacing the current one.
func (b *natsBackend) startFeed(ctx context.Context) error {
	b.stopFeed()
	b.feedMu.Lock()
	b.gen++
	gen, from := b.gen, b.delivered.Load()+1
	b.feedMu.Unlock()
	cons, err := b.stream.OrderedConsumer(ctx, jetstream.OrderedConsumerConfig{
		DeliverPolicy: jetstream.DeliverByStartSequencePolicy,
		OptStartSeq:   from,
	})
	if err != nil {
		return err
	}
	cc, err := cons.Consume(func(msg jetstream.Msg) { b.deliver(gen, msg) },
		jetstream.PullExpiry(natsFeedExpiry), jetstream.PullHeartbeat(natsFeedHeartbeat),
		jetstream.ConsumeErrHandler(func(_ jetstream.ConsumeContext, err error) {
			b.log.Warn("JetStream live feed interrupted; it resumes from the next event", "stream", b.cfg.Stream, "err", err)
		}))
	if err != nil {
		return err
	}
	b.feedMu.Lock()
	current := gen == b.gen
	if current {
		b.consume = cc
	}
	b.feedMu.Unlock()
	if !current {
		cc.Stop() // stopped meanwhile (close)
	}
	return nil
}

// stopFeed stops the current consumer; whatever it still hands over is
// dropped.
func (b *natsBackend) stopFeed() {
	b.feedMu.Lock()
	cc := b.consume
	b.consume = nil
	b.gen++
	b.feedMu.Unlock()
	if cc != nil {
		cc.Stop()
	}
}

// watchFeed restarts a feed that stalled behind the stream, until close.
func (b *natsBackend) watchFeed(ctx context.Context) {
	defer close(b.feedStopped)
	tick := time.NewTicker(natsFeedCheck)
	defer tick.Stop()
	var prev uint64
	stalled := 0
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		ictx, cancel := context.WithTimeout(ctx, natsFeedCheck)
		info, err := b.stream.Info(ictx)
		cancel()
		if err != nil {
			continue // no stream leader yet: nothing to compare with
		}
		b.noteSeq(info.State.LastSeq)
		d := b.delivered.Load()
		if info.State.LastSeq <= d || d != prev {
			prev, stalled = d, 0
			continue
		}
		if stalled++; stalled < natsFeedStalledChecks {
			continue
		}
		stalled = 0
		b.log.Warn("JetStream live feed stalled; restarting it after the last event delivered",
			"stream", b.cfg.Stream, "delivered", d, "stream_last", info.State.LastSeq)
		sctx, cancel := context.WithTimeout(ctx, natsSetupAttempt)
		if err := b.startFeed(sctx); err != nil {
			b.log.Warn("JetStream live feed not restarted yet; retrying", "stream", b.cfg.Stream, "err", err)
		} else {
			b.restarts.Add(1)
		}
		cancel()
	}
}

// deliver hands one stored event to this instance's websocket clients,
// unless an older consumer sent it or it was delivered already.
func (b *natsBackend) deliver(gen uint64, msg jetstream.Msg) {
	md, err := msg.Metadata()
	if err != nil {
		b.log.Error("JetStream message without metadata", "err", err)
		return
	}
	seq, rec := md.Sequence.Stream, msg.Data()
	b.feedMu.Lock()
	defer b.feedMu.Unlock()
	if gen != b.gen || seq <= b.delivered.Load() {
		return
	}
	b.delivered.Store(seq)
	b.noteSeq(seq)
	meta, _, err := splitRecord(rec)
	if err != nil {
		b.log.Error("JetStream message is not a relay record; clients skip it", "seq", seq, "err", err)
		return
	}
	var head struct {
		Type string `json:"type"`
	}
	_ = json.Unmarshal(meta, &head)
	frame, err := appendEventFrame(nil, seq, rec)
	if err != nil {
		b.log.Error("JetStream record cannot be streamed; clients skip it", "seq", seq, "err", err)
		return
	}
	b.fan.Publish(fanoutMsg{seq: seq, typ: head.Type, frame: frame})
}
