package devtools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/paydash/paydash/internal/cli/cmdutil"
	"github.com/paydash/paydash/internal/platform/termtext"
	"github.com/paydash/paydash/webhookrelay/relayclient"
)

// ShowOptions are the flags of `paydash events show`.
type ShowOptions struct {
	relay relayFlags
	Raw   bool
	JSON  bool
}

// ShowCommand is `paydash events show EVENT_ID [--raw|--json]`.
func ShowCommand(s *cmdutil.Streams, g *cmdutil.Global) *cobra.Command {
	o := &ShowOptions{}
	c := &cobra.Command{
		Use:               "show EVENT_ID",
		ValidArgsFunction: o.relay.completeEventIDs(s, g),
		Short:             "Print one stored webhook: headers, the handler's answer and the body (--raw: the body byte for byte)",
		Example: `  paydash events show 4f1c2d9e-...
  paydash events show 4f1c2d9e-... --raw > event.json`,
		Args: func(cmd *cobra.Command, args []string) error { return usage(cobra.ExactArgs(1)(cmd, args)) },
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.Raw && o.JSON {
				return cmdutil.Exit(cmdutil.ExitUsage, fmt.Errorf("give --raw or --json, not both"))
			}
			h, _, err := o.relay.history(s, g)
			if err != nil {
				return err
			}
			return Show(cmd.Context(), s, h, args[0], o)
		},
	}
	o.relay.bind(c.Flags())
	c.Flags().BoolVar(&o.Raw, "raw", false, "write only the body, byte for byte as it was delivered (to save it: > event.json; on a terminal it is shown made safe)")
	c.Flags().BoolVar(&o.JSON, "json", false, "print the stored event as JSON (raw holds the body in base64)")
	return c
}

// Show prints one stored event.
func Show(ctx context.Context, s *cmdutil.Streams, h relayclient.History, eventID string, o *ShowOptions) error {
	ev, err := h.Event(ctx, eventID)
	if err != nil {
		return err
	}
	switch {
	case o.Raw:
		if s.OutTerminal {
			// Bytes from outside go to a terminal only made safe.
			_, err = fmt.Fprintln(s.Out, termtext.Lines(string(ev.Raw)))
			return err
		}
		_, err = s.Out.Write(ev.Raw)
		return err
	case o.JSON:
		return cmdutil.WriteJSON(s.Out, ev)
	}
	_, err = fmt.Fprint(s.Out, DescribeEvent(ev))
	if err != nil {
		return err
	}
	// Every attempt at it: the relay's forwards and reported resends.
	attempts, err := h.EventAttempts(ctx, eventID)
	if err != nil || len(attempts) == 0 {
		return nil //nolint:nilerr // a relay without an attempt log has none to show
	}
	fmt.Fprintln(s.Out, "attempts")
	for _, a := range attempts {
		fmt.Fprintln(s.Out, a.At.UTC().Format(time.RFC3339)+strings.TrimPrefix(relayclient.AttemptLine(a), " "))
	}
	return nil
}

// DescribeEvent is the text form of an event: its fields, delivery
// headers, forwarding outcome with the handler's answer, and the body
// pretty-printed. Every outside value is made safe for a terminal.
func DescribeEvent(ev relayclient.StoredEvent) string {
	var b strings.Builder
	kv := func(k, v string) {
		if v != "" {
			fmt.Fprintf(&b, "%-12s %s\n", k, termtext.Safe(v))
		}
	}
	kv("event", ev.EventID)
	kv("type", ev.Type)
	kv("seq", fmt.Sprint(ev.Seq))
	kv("payout", ev.PayoutID)
	kv("state", ev.State)
	kv("reason", ev.Reason)
	kv("received", ev.ReceivedAt.UTC().Format(time.RFC3339))
	kv("path", ev.Path)
	if len(ev.Headers) > 0 {
		b.WriteString("headers\n")
		for _, k := range slices.Sorted(maps.Keys(ev.Headers)) {
			fmt.Fprintf(&b, "  %s: %s\n", termtext.Safe(k), termtext.Safe(ev.Headers[k]))
		}
	}
	if f := ev.Forward; f != nil {
		fmt.Fprintf(&b, "forward      %s, %d attempt(s)", termtext.Safe(f.URL), f.Attempts)
		switch {
		case f.Answer != nil && f.Answer.Status > 0 && f.Retrying():
			b.WriteString(": not taken, retried until the handler answers 2xx")
		case f.Answer == nil && f.Error != "":
			b.WriteString(": " + termtext.Safe(f.Error))
		}
		b.WriteByte('\n')
		if a := f.Answer; a != nil {
			b.WriteString(DescribeAnswer(*a))
		}
	}
	b.WriteString("body\n")
	b.WriteString(termtext.Lines(PrettyBody(ev.Raw)))
	b.WriteByte('\n')
	return b.String()
}

// DescribeAnswer is a handler's answer: status and latency, headers, body.
func DescribeAnswer(a relayclient.Answer) string {
	var b strings.Builder
	if a.Status > 0 {
		fmt.Fprintf(&b, "answer       %d in %s\n", a.Status, relayclient.FormatLatency(a.LatencyMS))
	} else {
		fmt.Fprintf(&b, "answer       none after %s: %s\n", relayclient.FormatLatency(a.LatencyMS), termtext.Safe(a.Error))
	}
	for _, k := range slices.Sorted(maps.Keys(a.Headers)) {
		fmt.Fprintf(&b, "  %s: %s\n", termtext.Safe(k), termtext.Safe(strings.Join(a.Headers[k], ", ")))
	}
	if a.Body != "" {
		b.WriteString("  " + strings.ReplaceAll(termtext.Lines(strings.TrimRight(a.Body, "\n")), "\n", "\n  "))
		if a.BodyTruncated {
			b.WriteString(" …(first 2 KiB)")
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// PrettyBody indents a JSON body; anything else is returned as it is.
func PrettyBody(raw []byte) string {
	var out bytes.Buffer
	if json.Indent(&out, raw, "", "  ") != nil {
		return string(raw)
	}
	return out.String()
}
