package webhookrelay

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"strings"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// NATSConfig is clustered mode: every relay instance given the same
// servers and stream shares one JetStream stream. Each instance verifies
// the webhooks it receives, publishes them with Nats-Msg-Id set from the
// event_id (JetStream drops a second publish of the same id within the
// dedupe window and answers with the first one's seq), and answers the
// sender only once the stream acknowledged the write, that is once a
// majority of its replicas hold it. The stream sequence is the event seq,
// so /ws?since=N and /events give the same order on every instance.
type NATSConfig struct {
	// URLs are the NATS servers (nats://host:4222 ...); the client
	// reconnects among them.
	URLs []string
	// CredsFile is a NATS credentials file (user JWT and NKey seed), if the
	// servers require one.
	CredsFile string
	// Stream is the JetStream stream name (default PAYDASH_RELAY).
	Stream string
	// Replicas is the stream's replica count (default 3; 1 for a single
	// server). Created with it; an existing stream is updated to it.
	Replicas int
	// PublishTimeout bounds how long one webhook waits for the stream to
	// acknowledge it, across leader elections (default 10s); past it the
	// sender gets 503 and retries.
	PublishTimeout time.Duration
}

// DefaultNATSStream is the stream clustered relays share by default.
const DefaultNATSStream = "PAYDASH_RELAY"

var streamNameRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

func (n NATSConfig) withDefaults() (NATSConfig, error) {
	if len(n.URLs) == 0 {
		return n, errors.New("clustered mode needs at least one NATS server URL (--nats nats://host:4222[,nats://...])")
	}
	if n.Stream == "" {
		n.Stream = DefaultNATSStream
	}
	if !streamNameRE.MatchString(n.Stream) {
		return n, fmt.Errorf("NATS stream name %q: use letters, digits, _ and - (at most 64)", n.Stream)
	}
	if n.Replicas == 0 {
		n.Replicas = 3
	}
	if n.Replicas < 1 || n.Replicas > 5 {
		return n, fmt.Errorf("NATS stream replicas %d: JetStream allows 1 to 5", n.Replicas)
	}
	if n.PublishTimeout <= 0 {
		n.PublishTimeout = 10 * time.Second
	}
	return n, nil
}

// natsBackend keeps events in a JetStream stream. Each event is one
// message on the subject <prefix>.<hash of event_id>, so the stream's
// per-subject index finds a stored event by its id; the message data is
// the same record bbolt stores. An ordered consumer feeds this instance's
// hub with every event any instance stored, in stream order.
type natsBackend struct {
	cfg     NATSConfig
	log     *slog.Logger
	nc      *nats.Conn
	js      jetstream.JetStream
	stream  jetstream.Stream
	prefix  string
	hub     *hub
	m       *metrics
	consume jetstream.ConsumeContext
	// last is the highest seq this instance has seen assigned (by its own
	// publishes or from the consumer).
	last atomic.Uint64
	// id is the stream's name and creation time: every instance on the
	// stream gives the same, and a stream deleted and made again another.
	id string
}

func openNATS(cfg Config, h *hub, m *metrics) (*natsBackend, error) {
	nc := cfg.NATS
	opts := []nats.Option{
		nats.Name("paydash relay"),
		nats.MaxReconnects(-1),
		nats.ReconnectWait(250 * time.Millisecond),
		nats.Timeout(5 * time.Second),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
			if err != nil {
				cfg.Logger.Warn("NATS disconnected; reconnecting", "err", err)
			}
		}),
		nats.ReconnectHandler(func(c *nats.Conn) { cfg.Logger.Info("NATS reconnected", "server", c.ConnectedUrlRedacted()) }),
	}
	if nc.CredsFile != "" {
		opts = append(opts, nats.UserCredentials(nc.CredsFile))
	}
	conn, err := nats.Connect(strings.Join(nc.URLs, ","), opts...)
	if err != nil {
		return nil, fmt.Errorf("connect to NATS at %s: %w", strings.Join(nc.URLs, ","), err)
	}
	b := &natsBackend{cfg: *nc, log: cfg.Logger, nc: conn, hub: h, m: m, prefix: "paydash.relay." + nc.Stream}
	if b.js, err = jetstream.New(conn); err != nil {
		conn.Close()
		return nil, fmt.Errorf("NATS JetStream: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sc := jetstream.StreamConfig{
		Name:     nc.Stream,
		Subjects: []string{b.prefix + ".>"},
		Storage:  jetstream.FileStorage,
		Replicas: nc.Replicas,
		// The dedupe window is JetStream's duplicate window: a second
		// publish of an id within it is dropped even once retention has
		// removed the first message.
		Duplicates: cfg.DedupeWindow,
		MaxMsgs:    -1,
		Discard:    jetstream.DiscardOld,
		MaxMsgSize: -1,
	}
	if cfg.RetainCount > 0 {
		sc.MaxMsgs = int64(cfg.RetainCount)
	}
	if cfg.RetainAge > 0 {
		// JetStream needs the duplicate window to fit in the age limit.
		sc.MaxAge = max(cfg.RetainAge, cfg.DedupeWindow)
	}
	if b.stream, err = b.js.CreateOrUpdateStream(ctx, sc); err != nil {
		conn.Close()
		return nil, fmt.Errorf("create or update JetStream stream %s: %w", nc.Stream, err)
	}
	info, err := b.stream.Info(ctx)
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("JetStream stream %s: %w", nc.Stream, err)
	}
	b.last.Store(info.State.LastSeq)
	b.id = nc.Stream + "@" + info.Created.UTC().Format(time.RFC3339Nano)
	// The hub gets everything stored from now on, by any instance; older
	// events reach websocket clients from their backlog reads.
	cons, err := b.stream.OrderedConsumer(ctx, jetstream.OrderedConsumerConfig{
		DeliverPolicy: jetstream.DeliverByStartSequencePolicy,
		OptStartSeq:   info.State.LastSeq + 1,
	})
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("JetStream consumer on %s: %w", nc.Stream, err)
	}
	if b.consume, err = cons.Consume(b.deliver); err != nil {
		conn.Close()
		return nil, fmt.Errorf("JetStream consumer on %s: %w", nc.Stream, err)
	}
	return b, nil
}

// deliver hands one stored event to this instance's websocket clients.
func (b *natsBackend) deliver(msg jetstream.Msg) {
	md, err := msg.Metadata()
	if err != nil {
		b.log.Error("JetStream message without metadata", "err", err)
		return
	}
	seq, rec := md.Sequence.Stream, msg.Data()
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
	b.hub.publish([]hubMsg{{seq: seq, typ: head.Type, frame: frame}})
}

func (b *natsBackend) noteSeq(seq uint64) {
	for {
		cur := b.last.Load()
		if seq <= cur || b.last.CompareAndSwap(cur, seq) {
			return
		}
	}
}

// subject is the event's subject: a hash keeps any event_id a valid token.
func (b *natsBackend) subject(eventID string) string {
	sum := sha256.Sum256([]byte(eventID))
	return b.prefix + "." + hex.EncodeToString(sum[:16])
}

// msgID is the Nats-Msg-Id for an event: the event_id itself when it is a
// plain header value, else a hash of it (same id, same hash).
func msgID(eventID string) string {
	for i := 0; i < len(eventID); i++ {
		if c := eventID[i]; c < 0x21 || c > 0x7e {
			sum := sha256.Sum256([]byte(eventID))
			return "sha256:" + hex.EncodeToString(sum[:])
		}
	}
	return eventID
}

func (b *natsBackend) submit(ctx context.Context, e *Event, _ bool) writeResult {
	rec, err := encodeRecord(e)
	if err != nil {
		return writeResult{err: fmt.Errorf("encode event: %w", err)}
	}
	msg := nats.NewMsg(b.subject(e.EventID))
	msg.Data = rec
	msg.Header.Set(jetstream.MsgIDHeader, msgID(e.EventID))
	// The sender's disconnect does not cut a publish short: once begun it
	// is seen through, so the counters and the stream agree.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), b.cfg.PublishTimeout)
	defer cancel()
	delay := 50 * time.Millisecond
	for {
		ack, err := b.js.PublishMsg(ctx, msg)
		if err == nil {
			b.noteSeq(ack.Sequence)
			if ack.Duplicate {
				b.m.duplicates.Add(1)
			} else {
				b.m.stored.Add(1)
			}
			e.Seq = ack.Sequence
			return writeResult{seq: ack.Sequence, dup: ack.Duplicate}
		}
		// During a leader election publishes fail or time out; the same
		// Nats-Msg-Id makes a retry safe even if the first one landed.
		select {
		case <-ctx.Done():
			return writeResult{err: unavailable("JetStream publish", err)}
		case <-time.After(delay):
		}
		delay = min(2*delay, 500*time.Millisecond)
	}
}

func (b *natsBackend) arriving(int64) {}

func (b *natsBackend) lookup(ctx context.Context, eventID string) (uint64, []byte, bool, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	m, err := b.stream.GetLastMsgForSubject(ctx, b.subject(eventID))
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return 0, nil, false, nil
	}
	if err != nil {
		return 0, nil, false, err
	}
	_, body, err := splitRecord(m.Data)
	if err != nil {
		return 0, nil, false, err
	}
	return m.Sequence, body, true, nil
}

// natsScanPage bounds the messages one scanRaw reads (one request each).
const natsScanPage = 256

func (b *natsBackend) scanRaw(after uint64, fn func(uint64, []byte) (bool, error)) (uint64, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	info, err := b.stream.Info(ctx)
	if err != nil {
		return after, unavailable("JetStream stream info", err)
	}
	first, last := info.State.FirstSeq, info.State.LastSeq
	b.noteSeq(last)
	lastSeen := after
	seq := max(after+1, first)
	for looked := 0; seq <= last && looked < natsScanPage; seq++ {
		looked++
		m, err := b.stream.GetMsg(ctx, seq)
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			lastSeen = seq // removed by retention meanwhile
			continue
		}
		if err != nil {
			return lastSeen, unavailable("JetStream get", err)
		}
		lastSeen = seq
		more, err := fn(seq, m.Data)
		if err != nil {
			return lastSeen, fmt.Errorf("relay stream message %d: %w", seq, err)
		}
		if !more {
			break
		}
	}
	if lastSeen < first-1 && first > 0 {
		// Everything up to first was removed by retention.
		lastSeen = first - 1
	}
	return lastSeen, nil
}

func (b *natsBackend) bounds() (uint64, uint64, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	info, err := b.stream.Info(ctx)
	if err != nil {
		return 0, 0, unavailable("JetStream stream info", err)
	}
	if info.State.Msgs == 0 {
		return 0, 0, nil
	}
	return info.State.FirstSeq, info.State.LastSeq, nil
}

func (b *natsBackend) lastSeq(ctx context.Context, fresh bool) (uint64, error) {
	if fresh {
		ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		info, err := b.stream.Info(ctx)
		if err != nil {
			return b.last.Load(), unavailable("JetStream stream info", err)
		}
		b.noteSeq(info.State.LastSeq)
	}
	return b.last.Load(), nil
}

func (b *natsBackend) storeID() string { return b.id }

func (b *natsBackend) close() error {
	b.consume.Stop()
	b.nc.Close()
	return nil
}
