package natsstream_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/paydash/paydash/internal/platform/natsstream"
	"github.com/paydash/paydash/internal/platform/natstest"
)

func TestCheckName(t *testing.T) {
	for name, ok := range map[string]bool{
		"PAYDASH_RELAY":         true,
		"team-1":                true,
		strings.Repeat("a", 48): true,
		strings.Repeat("a", 49): false, // past the limit asked
		"":                      false,
		"has.dot":               false, // a subject separator
		"has space":             false,
		"wild*":                 false,
		"wild>":                 false,
		"naïve":                 false,
		"PAYDASH\nRELAY":        false,
	} {
		err := natsstream.CheckName("approvals store name", name, natsstream.MaxRecordName)
		if (err == nil) != ok {
			t.Errorf("CheckName(%q) = %v, want ok=%v", name, err, ok)
		}
		if err != nil && !strings.Contains(err.Error(), "approvals store name") {
			t.Errorf("CheckName(%q): %v does not name the setting", name, err)
		}
	}
	if err := natsstream.CheckName("NATS stream name", strings.Repeat("a", 64), natsstream.MaxName); err != nil {
		t.Errorf("a 64-letter relay stream name: %v", err)
	}
}

func TestRecordDefaults(t *testing.T) {
	if r, w := natsstream.RecordDefaults(0, 0); r != 1 || w != 20*time.Second {
		t.Errorf("defaults: %d replicas, %v; want 1 and 20s", r, w)
	}
	if r, w := natsstream.RecordDefaults(3, time.Second); r != 3 || w != time.Second {
		t.Errorf("given values replaced: %d replicas, %v", r, w)
	}
}

// TestRecordStreamIsKeptWhole opens a record stream as the hub does and
// checks the cluster holds it to its promise: it has a leader once
// opened, holds its one first message after two opens, and refuses to
// delete or purge a line.
func TestRecordStreamIsKeptWhole(t *testing.T) {
	natstest.Each(t, func(t *testing.T, nodes natstest.Nodes) {
		nc, js := natstest.Client(t, nodes.URLs())
		defer nc.Close()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		sc := natsstream.RecordConfig("REC_AUDIT", []string{"rec.audit", "rec.audit.init"}, 3)
		for range 2 {
			if _, err := natsstream.Create(ctx, js, sc, untilDone, "a test", "rec.audit.init"); err != nil {
				t.Fatal(err)
			}
		}
		st, info, err := natsstream.Open(ctx, js, sc, untilDone, "a test")
		if err != nil {
			t.Fatal(err)
		}
		if info.Cluster == nil || info.Cluster.Leader == "" {
			t.Errorf("opened without a leader: %+v", info.Cluster)
		}
		if info.State.Msgs != 1 {
			t.Errorf("the stream holds %d messages, want its one first message", info.State.Msgs)
		}
		if err := st.DeleteMsg(ctx, info.State.LastSeq); err == nil {
			t.Error("a record stream let a message be deleted")
		}
		if err := st.Purge(ctx); err == nil {
			t.Error("a record stream let itself be purged")
		}
	})
}

// A stream names its format; a stream of the previous format (no format
// in its description) is opened and stamped; a stream of a newer format
// is refused, naming it, not misread.
func TestStreamFormat(t *testing.T) {
	if natsstream.FormatOf("") != 1 || natsstream.FormatOf("paydash relay events; format 3") != 3 || natsstream.FormatOf("something else") != 1 {
		t.Fatal("FormatOf reads descriptions wrong")
	}
	natstest.Each(t, func(t *testing.T, nodes natstest.Nodes) {
		nc, js := natstest.Client(t, nodes.URLs())
		defer nc.Close()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		// Retried as the relay retries, but a newer format is final.
		wait := func(ctx context.Context, _ string, step func(context.Context) error) error {
			for {
				actx, cancel := context.WithTimeout(ctx, natsstream.Attempt)
				err := step(actx)
				cancel()
				if err == nil || errors.Is(err, natsstream.ErrNewerFormat) || ctx.Err() != nil {
					return err
				}
				time.Sleep(100 * time.Millisecond)
			}
		}
		sc := natsstream.RecordConfig("FMT_REC", []string{"fmt.rec"}, 3)
		// Format 1: a stream made before formats, no description.
		if _, _, err := natsstream.Open(ctx, js, sc, wait, "a test"); err != nil {
			t.Fatal(err)
		}
		_, info, err := natsstream.Open(ctx, js, natsstream.WithFormat(sc, "a test", 2), wait, "a test")
		if err != nil {
			t.Fatalf("a format 1 stream opened at format 2: %v", err)
		}
		if natsstream.FormatOf(info.Config.Description) != 2 {
			t.Fatalf("the stream was not stamped with its format: %q", info.Config.Description)
		}
		// An older paydash (format 1) meets it: refused, naming format 2.
		_, _, err = natsstream.Open(ctx, js, natsstream.WithFormat(sc, "a test", 1), wait, "a test")
		if !errors.Is(err, natsstream.ErrNewerFormat) || !strings.Contains(err.Error(), "format 2") {
			t.Fatalf("format 2 opened at format 1: %v", err)
		}
	})
}
