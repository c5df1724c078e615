package webhookrelay

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/paydash/paydash/internal/platform/backoff"
	"github.com/paydash/paydash/internal/platform/clock"
	"github.com/paydash/paydash/internal/platform/natsstream"
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
	// ReadWait bounds how long a backlog or history read waits out a
	// stream without a leader (an election after a node died) before it
	// gives up with 503 (default 30s); requests in between are retried.
	ReadWait time.Duration
}

// DefaultNATSStream is the stream clustered relays share by default.
const DefaultNATSStream = "PAYDASH_RELAY"

func (n NATSConfig) withDefaults() (NATSConfig, error) {
	if len(n.URLs) == 0 {
		return n, errors.New("clustered mode needs at least one NATS server URL (--nats nats://host:4222[,nats://...])")
	}
	if n.Stream == "" {
		n.Stream = DefaultNATSStream
	}
	if err := natsstream.CheckName("NATS stream name", n.Stream, natsstream.MaxName); err != nil {
		return n, err
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
	if n.ReadWait <= 0 {
		n.ReadWait = 30 * time.Second
	}
	return n, nil
}

// natsBackend keeps events in a JetStream stream. Each event is one
// message on the subject <prefix>.<hash of event_id>, so the stream's
// per-subject index finds a stored event by its id; the message data is
// the same record bbolt stores. An ordered consumer feeds this instance's
// fan-out with every event any instance stored, in stream order.
type natsBackend struct {
	cfg    NATSConfig
	log    *slog.Logger
	conn   *JetStreamConn
	nc     *nats.Conn
	js     jetstream.JetStream
	stream jetstream.Stream
	prefix string
	fan    *fanout
	m      *metrics
	natsFeed
	// last is the highest seq this instance has seen assigned (by its own
	// publishes or from the consumer).
	last atomic.Uint64
	// id is the stream's name and creation time: every instance on the
	// stream gives the same, and a stream deleted and made again another.
	id string
}

// Setting up clustered mode waits, retrying with backoff, for whatever the
// cluster cannot give yet (a reachable server, a JetStream meta leader, a
// stream placed on enough nodes, a stream leader), logging what it waits
// for and which servers it cannot reach, until ctx ends: a node down or an
// election in progress is something to wait out, not a reason to exit.
const (
	natsSetupMinBackoff = 250 * time.Millisecond
	natsSetupMaxBackoff = 5 * time.Second
	// natsSetupAttempt bounds one request of the set-up; the loop retries
	// (each step is idempotent). A request no meta leader is there to
	// answer goes unanswered, so this is also how soon a wait is reported.
	natsSetupAttempt = 3 * time.Second
	// natsProbeTimeout bounds telling whether one server answers.
	natsProbeTimeout = 2 * time.Second
)

// JetStreamConn is a connection to the NATS servers of clustered mode,
// made the one way the relay makes its own: unreachable servers named at
// once, reconnecting for ever, set-up steps retried with backoff while
// the cluster cannot answer. The team hub keeps its approvals on the same
// servers through one.
type JetStreamConn struct {
	NC   *nats.Conn
	JS   jetstream.JetStream
	urls []string
	log  *slog.Logger
}

// DialJetStream connects to nc's servers and waits for a JetStream meta
// leader, retrying until ctx ends. name names the client to the servers.
func DialJetStream(ctx context.Context, nc NATSConfig, name string, log *slog.Logger) (*JetStreamConn, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	// Say at once which servers cannot be reached: the client connects to
	// any one that answers and would not name the others.
	for _, p := range probeNATSServers(nc.URLs) {
		if p.err != nil {
			log.Warn("NATS server unreachable; using the others", "server", p.url, "err", p.err)
		}
	}
	opts := []nats.Option{
		nats.Name(name),
		nats.MaxReconnects(-1),
		nats.ReconnectWait(250 * time.Millisecond),
		nats.Timeout(5 * time.Second),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
			if err != nil {
				log.Warn("NATS disconnected; reconnecting", "err", err)
			}
		}),
		nats.ReconnectHandler(func(c *nats.Conn) { log.Info("NATS reconnected", "server", c.ConnectedUrlRedacted()) }),
	}
	if nc.CredsFile != "" {
		opts = append(opts, nats.UserCredentials(nc.CredsFile))
	}
	c := &JetStreamConn{urls: nc.URLs, log: log}
	servers := strings.Join(nc.URLs, ",")
	err := c.WaitFor(ctx, "a NATS server to connect to ("+servers+")", func(context.Context) error {
		conn, err := nats.Connect(servers, opts...)
		if err != nil {
			return err
		}
		c.NC = conn
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("connect to NATS at %s: %w", servers, err)
	}
	if c.JS, err = jetstream.New(c.NC); err != nil {
		c.NC.Close()
		return nil, fmt.Errorf("NATS JetStream: %w", err)
	}
	// Without a meta leader, stream and consumer requests go unanswered:
	// wait for one first, so each wait is reported by what it is for.
	if err := c.WaitFor(ctx, "a JetStream meta leader (a majority of the cluster's nodes up)", func(ctx context.Context) error {
		_, err := c.JS.AccountInfo(ctx)
		return err
	}); err != nil {
		c.NC.Close()
		return nil, fmt.Errorf("NATS JetStream: %w", err)
	}
	return c, nil
}

// Close closes the connection.
func (c *JetStreamConn) Close() { c.NC.Close() }

func openNATS(ctx context.Context, cfg Config, f *fanout, m *metrics) (*natsBackend, error) {
	nc := cfg.NATS
	log := cfg.Logger
	b := &natsBackend{cfg: *nc, log: log, fan: f, m: m, prefix: "paydash.relay." + nc.Stream}
	conn, err := DialJetStream(ctx, *nc, "paydash relay", log)
	if err != nil {
		return nil, err
	}
	b.conn, b.nc, b.js = conn, conn.NC, conn.JS
	ok := false
	defer func() {
		if !ok {
			b.nc.Close()
		}
	}()
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
	sc = natsstream.WithFormat(sc, "relay events", StreamFormat)
	var info *jetstream.StreamInfo
	if b.stream, info, err = natsstream.Open(ctx, b.js, sc, b.waitFor, "the relay's events"); err != nil {
		return nil, err
	}
	b.logReplicas(info)
	b.last.Store(info.State.LastSeq)
	b.id = nc.Stream + "@" + info.Created.UTC().Format(time.RFC3339Nano)
	// The fan-out gets everything stored from now on, by any instance; older
	// events reach websocket clients from their backlog reads.
	b.delivered.Store(info.State.LastSeq)
	if err := b.waitFor(ctx, "a JetStream consumer on "+nc.Stream, b.startFeed); err != nil {
		return nil, fmt.Errorf("JetStream consumer on %s: %w", nc.Stream, err)
	}
	// The watchdog lives as long as the relay, not the set-up: close
	// stops it.
	feedCtx, stop := context.WithCancel(context.WithoutCancel(ctx))
	b.stopWatch = stop
	b.feedStopped = make(chan struct{})
	go b.watchFeed(feedCtx)
	ok = true
	return b, nil
}

// WaitFor runs attempt until it succeeds or ctx ends, each try bounded by
// natsSetupAttempt, with doubling backoff between; every failure is logged
// with what is waited for, the cluster's answer and the servers that
// cannot be reached. A setting to fix (permanentNATSError) ends it at once.
func (c *JetStreamConn) WaitFor(ctx context.Context, what string, attempt func(context.Context) error) error {
	// On the real clock: this waits out a real cluster.
	clk := clock.Real()
	retry := backoff.New(backoff.Policy{Base: natsSetupMinBackoff, Max: natsSetupMaxBackoff}, clk)
	for {
		actx, cancel := context.WithTimeout(ctx, natsSetupAttempt)
		err := attempt(actx)
		cancel()
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return fmt.Errorf("gave up waiting for %s: %w (%w)", what, err, ctx.Err())
		}
		if permanentNATSError(err) {
			return err
		}
		var down []string
		for _, p := range probeNATSServers(c.urls) {
			if p.err != nil {
				down = append(down, p.url)
			}
		}
		delay := retry.Next()
		args := []any{"for", what, "err", err, "retry_in", delay}
		if len(down) > 0 {
			args = append(args, "unreachable", strings.Join(down, ","))
		}
		c.log.Warn("waiting for JetStream", args...)
		if backoff.Sleep(ctx, clk, delay) != nil {
			return fmt.Errorf("gave up waiting for %s: %w (%w)", what, err, ctx.Err())
		}
	}
}

func (b *natsBackend) waitFor(ctx context.Context, what string, attempt func(context.Context) error) error {
	return b.conn.WaitFor(ctx, what, attempt)
}

// permanentNATSError tells a setting to fix from a cluster to wait for:
// credentials refused, JetStream off, or a request JetStream refuses as
// such (400, except "no suitable peers", 10005, which a node coming back
// cures), or replicas asked of a server that is not in a cluster (10074).
// StreamFormat is the relay stream's format, named in its description
// (natsstream.WithFormat): one message per event, Nats-Msg-Id its
// event_id, since clustered mode began. A stream of a newer format is
// refused.
const StreamFormat = 1

func permanentNATSError(err error) bool {
	for _, e := range []error{nats.ErrAuthorization, nats.ErrAuthExpired, nats.ErrAuthRevoked, nats.ErrAccountAuthExpired,
		jetstream.ErrJetStreamNotEnabled, jetstream.ErrJetStreamNotEnabledForAccount, natsstream.ErrNewerFormat} {
		if errors.Is(err, e) {
			return true
		}
	}
	var js jetstream.JetStreamError
	if errors.As(err, &js) && js.APIError() != nil {
		api := js.APIError()
		return (api.Code == 400 && api.ErrorCode != 10005) || api.ErrorCode == 10074
	}
	return false
}

// logReplicas says which of the stream's replicas are offline or behind,
// by the cluster's own account.
func (b *natsBackend) logReplicas(info *jetstream.StreamInfo) {
	if info.Cluster == nil {
		return
	}
	for _, p := range info.Cluster.Replicas {
		if p == nil || (!p.Offline && p.Current) {
			continue
		}
		state := "behind"
		if p.Offline {
			state = "offline"
		}
		b.log.Warn("JetStream stream replica "+state+"; the stream runs on the others while they are a majority",
			"stream", info.Config.Name, "node", p.Name, "leader", info.Cluster.Leader)
	}
}

// natsProbe is whether one configured server answered.
type natsProbe struct {
	url string
	err error
}

// probeNATSServers connects to each server at once and reads its INFO
// greeting, so the relay can name the ones it cannot reach.
func probeNATSServers(urls []string) []natsProbe {
	out := make([]natsProbe, len(urls))
	var wg sync.WaitGroup
	for i, u := range urls {
		out[i].url = u
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i].err = probeNATSServer(u)
		}()
	}
	wg.Wait()
	return out
}

func probeNATSServer(raw string) error {
	host := raw
	if strings.Contains(raw, "://") {
		u, err := url.Parse(raw)
		if err != nil {
			return err
		}
		if u.Scheme != "nats" && u.Scheme != "tls" {
			return nil // a websocket URL greets otherwise: not probed
		}
		host = u.Host
	}
	if _, _, err := net.SplitHostPort(host); err != nil {
		host = net.JoinHostPort(host, "4222")
	}
	conn, err := net.DialTimeout("tcp", host, natsProbeTimeout)
	if err != nil {
		return err
	}
	defer conn.Close()
	_ = conn.SetReadDeadline(time.Now().Add(natsProbeTimeout))
	line, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil {
		return fmt.Errorf("no NATS greeting: %w", err)
	}
	if !strings.HasPrefix(line, "INFO ") {
		return fmt.Errorf("not a NATS server (it greets with %.20q)", line)
	}
	return nil
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
	retry := natsstream.PublishBackoff()
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
		if retry.Wait(ctx) != nil {
			return writeResult{err: unavailable("JetStream publish", err)}
		}
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
	ctx, cancel := context.WithTimeout(context.Background(), b.cfg.ReadWait)
	defer cancel()
	var info *jetstream.StreamInfo
	if err := natsstream.Retry(ctx, func(ctx context.Context) (err error) {
		info, err = b.stream.Info(ctx)
		return err
	}); err != nil {
		return after, unavailable("JetStream stream info", err)
	}
	first, last := info.State.FirstSeq, info.State.LastSeq
	b.noteSeq(last)
	lastSeen := after
	seq := max(after+1, first)
	for looked := 0; seq <= last && looked < natsScanPage; seq++ {
		looked++
		var m *jetstream.RawStreamMsg
		err := natsstream.Retry(ctx, func(ctx context.Context) (err error) {
			m, err = b.stream.GetMsg(ctx, seq)
			return err
		})
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
	b.stopWatch()
	<-b.feedStopped
	b.stopFeed()
	b.nc.Close()
	return nil
}
