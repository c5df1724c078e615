package natsstream

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Stream names.
const (
	// MaxName is the longest stream name paydash takes (the relay's).
	MaxName = 64
	// MaxRecordName is the longest name of a record stream's owner: the
	// stream is <name>_<SUFFIX> (_APPROVALS, _AUDIT), within MaxName.
	MaxRecordName = 48
)

// A name is used in stream names and subjects alike: no dots, spaces or
// wildcards.
var nameRE = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// CheckName refuses a name that is not letters, digits, _ and -, or is
// longer than maxLen; what names the setting for the operator ("NATS
// stream name").
func CheckName(what, name string, maxLen int) error {
	if name == "" || len(name) > maxLen || !nameRE.MatchString(name) {
		return fmt.Errorf("%s %q: use letters, digits, _ and - (at most %d)", what, name, maxLen)
	}
	return nil
}

// Defaults of a record stream (the hub's approvals and audit record).
const (
	// RecordReplicas is the replica count when none is given: one, a
	// single server (the hub passes the relay's own count).
	RecordReplicas = 1
	// RecordWriteTimeout bounds one read or write across leader
	// elections: past it the change is refused and may be asked again.
	RecordWriteTimeout = 20 * time.Second
	// recordDuplicates is the dedupe window of a record's writes: a
	// retried write carries its Nats-Msg-Id, and one that landed before
	// its answer was lost is answered as a duplicate within it.
	recordDuplicates = 2 * time.Minute
)

// RecordDefaults fills a record stream's replicas and write timeout left
// zero.
func RecordDefaults(replicas int, writeTimeout time.Duration) (int, time.Duration) {
	if replicas == 0 {
		replicas = RecordReplicas
	}
	if writeTimeout <= 0 {
		writeTimeout = RecordWriteTimeout
	}
	return replicas, writeTimeout
}

// RecordConfig is the configuration of a stream kept whole, on file: no
// age, count, size or per-subject limit, no message deleted or purged,
// new writes refused rather than old ones dropped. Read in order it is a
// record.
func RecordConfig(name string, subjects []string, replicas int) jetstream.StreamConfig {
	return jetstream.StreamConfig{
		Name:              name,
		Subjects:          subjects,
		Storage:           jetstream.FileStorage,
		Replicas:          replicas,
		MaxMsgs:           -1,
		MaxBytes:          -1,
		MaxAge:            0,
		MaxMsgsPerSubject: -1,
		Discard:           jetstream.DiscardNew,
		DenyDelete:        true,
		DenyPurge:         true,
		Duplicates:        recordDuplicates,
	}
}

// A stream names its format in its description ("paydash <use>; format
// N"), which nats-server has kept since 2.2 (stream metadata needs 2.10):
// a stream with no format in it is format 1, from before store
// versions. Open refuses a stream of a newer format than the caller's
// rather than misread it, and otherwise stamps the caller's format on it.

// ErrNewerFormat matches (errors.Is) a stream written by a newer paydash.
var ErrNewerFormat = errors.New("written by a newer paydash")

// WithFormat is sc described as the stream for use at format.
func WithFormat(sc jetstream.StreamConfig, use string, format int) jetstream.StreamConfig {
	sc.Description = fmt.Sprintf("paydash %s; format %d", use, format)
	return sc
}

// FormatOf reads the format from a stream's description (1 when it names
// none).
func FormatOf(description string) int {
	_, after, ok := strings.Cut(description, "; format ")
	if !ok {
		return 1
	}
	n, err := strconv.Atoi(strings.TrimSpace(after))
	if err != nil || n < 1 {
		return 1
	}
	return n
}

// Wait runs a set-up step until it succeeds, saying what it waits for
// (the relay's backoff with its log); nil runs it once.
type Wait func(ctx context.Context, what string, step func(context.Context) error) error

// once is the nil Wait: the step, run once.
func once(ctx context.Context, _ string, step func(context.Context) error) error { return step(ctx) }

// Open creates the stream, or updates it to sc, and waits until it has a
// leader, each step run through wait; what names the stream's use for the
// operator while it waits. It returns the stream and its info as of
// having a leader.
func Open(ctx context.Context, js jetstream.JetStream, sc jetstream.StreamConfig, wait Wait, what string) (jetstream.Stream, *jetstream.StreamInfo, error) {
	if wait == nil {
		wait = once
	}
	var stream jetstream.Stream
	if err := wait(ctx, fmt.Sprintf("JetStream stream %s (%d replicas) for %s to be created or updated", sc.Name, sc.Replicas, what), func(ctx context.Context) error {
		if cur, err := js.Stream(ctx, sc.Name); err == nil {
			if have, want := FormatOf(cur.CachedInfo().Config.Description), FormatOf(sc.Description); have > want {
				return fmt.Errorf("JetStream stream %s for %s is format %d, %w; this one reads formats 1 to %d: run the paydash that wrote it, or a newer one", sc.Name, what, have, ErrNewerFormat, want)
			}
		} else if !errors.Is(err, jetstream.ErrStreamNotFound) {
			return err
		}
		var err error
		stream, err = js.CreateOrUpdateStream(ctx, sc)
		return err
	}); err != nil {
		return nil, nil, fmt.Errorf("create or update JetStream stream %s: %w", sc.Name, err)
	}
	var info *jetstream.StreamInfo
	if err := wait(ctx, "JetStream stream "+sc.Name+" to have a leader", func(ctx context.Context) error {
		var err error
		if info, err = stream.Info(ctx); err != nil {
			return err
		}
		if info.Cluster != nil && info.Cluster.Leader == "" && sc.Replicas > 1 {
			return errors.New("no stream leader elected yet")
		}
		return nil
	}); err != nil {
		return nil, nil, fmt.Errorf("JetStream stream %s: %w", sc.Name, err)
	}
	return stream, info, nil
}

// Create opens the stream (Open) and writes its first message on
// firstSubject once: every compare-and-swap then expects a sequence of
// at least 1, because a clustered nats-server before 2.10 checks an
// expected 0 only when applying, not in order
// (nats-io/nats-server#5794). The first message's fixed Nats-Msg-Id
// makes two hubs starting at once write it once.
func Create(ctx context.Context, js jetstream.JetStream, sc jetstream.StreamConfig, wait Wait, what, firstSubject string) (jetstream.Stream, error) {
	if wait == nil {
		wait = once
	}
	stream, _, err := Open(ctx, js, sc, wait, what)
	if err != nil {
		return nil, err
	}
	if err := wait(ctx, "the first message of "+sc.Name, func(ctx context.Context) error {
		info, err := stream.Info(ctx)
		if err != nil || info.State.LastSeq > 0 {
			return err
		}
		msg := nats.NewMsg(firstSubject)
		msg.Data = []byte("{}")
		msg.Header.Set(jetstream.MsgIDHeader, "paydash-init-"+sc.Name)
		_, err = js.PublishMsg(ctx, msg)
		return err
	}); err != nil {
		return nil, fmt.Errorf("first message of JetStream stream %s: %w", sc.Name, err)
	}
	return stream, nil
}
