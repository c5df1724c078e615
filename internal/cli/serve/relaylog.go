package serve

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/paydash/paydash/internal/platform/termtext"
)

// Log formats of `paydash relay`.
const (
	LogFormatText = "text" // one line per webhook and per forward, Stripe-style, with -v
	LogFormatJSON = "json" // slog's JSON records, for a log pipeline
)

// relayLogger is the relay's logger: with --log-format json, slog's
// structured records; otherwise the webhook and forward records become
// one line each, as `stripe listen` prints them,
//
//	--> payout_settled 6f1c…
//	<-- [200] POST http://127.0.0.1:3000/hooks 12 ms [6f1c…]
//
// and every other record (warnings, errors) stays slog's text form.
// verbose turns on the per-webhook records (slog's debug level).
func relayLogger(w io.Writer, format string, verbose bool) (*slog.Logger, error) {
	level := slog.LevelInfo
	if verbose {
		level = slog.LevelDebug
	}
	opts := &slog.HandlerOptions{Level: level}
	switch format {
	case LogFormatJSON:
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	case LogFormatText, "":
		return slog.New(&lineHandler{w: w, mu: &sync.Mutex{}, level: level, rest: slog.NewTextHandler(w, opts)}), nil
	}
	return nil, fmt.Errorf("--log-format %q: want text or json", format)
}

// lineHandler writes the relay's per-webhook records as single lines and
// hands the rest to a text handler.
type lineHandler struct {
	w     io.Writer
	mu    *sync.Mutex
	level slog.Level
	attrs []slog.Attr
	rest  slog.Handler
}

func (h *lineHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= h.level }

func (h *lineHandler) WithAttrs(as []slog.Attr) slog.Handler {
	c := *h
	c.attrs = append(append([]slog.Attr(nil), h.attrs...), as...)
	c.rest = h.rest.WithAttrs(as)
	return &c
}

func (h *lineHandler) WithGroup(name string) slog.Handler {
	c := *h
	c.rest = h.rest.WithGroup(name)
	return &c
}

func (h *lineHandler) Handle(ctx context.Context, r slog.Record) error {
	a := map[string]slog.Value{}
	for _, at := range h.attrs {
		a[at.Key] = at.Value
	}
	r.Attrs(func(at slog.Attr) bool {
		a[at.Key] = at.Value
		return true
	})
	// Every field may come from whoever posted the webhook: shown escaped.
	str := func(k string) string {
		v, ok := a[k]
		if !ok || v.String() == "" {
			return "-"
		}
		return termtext.Safe(v.String())
	}
	var line string
	switch r.Message {
	case "webhook accepted":
		line = fmt.Sprintf("--> %s %s", str("type"), str("event_id"))
	case "webhook duplicate":
		line = fmt.Sprintf("--> %s %s (duplicate of seq %s: answered, not stored again)", str("type"), str("event_id"), str("seq"))
	case "webhook rejected":
		line = fmt.Sprintf("x-- [%s] webhook refused: %s: %s", str("status"), str("reason"), str("detail"))
	case "webhook forwarded":
		ms := int64(0)
		if v, ok := a["elapsed"]; ok && v.Kind() == slog.KindDuration {
			ms = v.Duration().Round(time.Millisecond).Milliseconds()
		}
		line = fmt.Sprintf("<-- [%s] POST %s %d ms [%s]", str("status"), str("url"), ms, str("event_id"))
	case "forwarding refused by the endpoint", "forwarding failing; retrying until the endpoint answers, in order":
		// A forward that did not get a 2xx: the same line, with why.
		line = fmt.Sprintf("<-- [%s] POST %s: %s (seq %s, attempt %s)", "failed", str("url"), str("err"), str("seq"), str("attempts"))
	default:
		return h.rest.Handle(ctx, r)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	_, err := io.WriteString(h.w, strings.TrimRight(line, " ")+"\n")
	return err
}
