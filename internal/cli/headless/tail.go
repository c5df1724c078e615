package headless

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/cli/cmdutil"
	"github.com/paydash/paydash/internal/platform/termtext"
	"github.com/paydash/paydash/webhookrelay/relayclient"
)

// TailOptions are the flags of `paydash events tail`.
type TailOptions struct {
	RelayURL string
	Types    []string
	Since    string
	PayoutID string
	JSON     bool
	// Failed shows only forward attempts the handler did not take (non-2xx).
	Failed bool
}

// Bind registers the flags.
func (o *TailOptions) Bind(fs *pflag.FlagSet) {
	fs.StringVar(&o.RelayURL, "relay", "", "relay websocket URL (default: the profile's relay_url)")
	fs.StringSliceVar(&o.Types, "type", nil, "only these event types, e.g. payout_settled,payout_failed")
	fs.StringVar(&o.Since, "since", "now", "start after this relay sequence number (each line's first field; 0 replays everything stored), "+
		"or at a time as every --since takes it (7d, 24h, \"7 days\", today, 2026-11-01); now shows only new events")
	fs.StringVar(&o.PayoutID, "payout", "", "only this payout's events (its transaction id); with --since 0, its whole history")
	fs.BoolVar(&o.JSON, "json", false, "print each whole event, and each forward attempt with the handler's answer, as one JSON line")
	fs.BoolVar(&o.Failed, "failed", false, "show only forward attempts the handler answered non-2xx (or did not answer)")
}

// Tail prints the relay's events live until ctx is done: one line each
// (seq, time, type, event id, payout id, state: a stopped tail resumes
// with --since <the last seq>), or one JSON object per line.
// Connection changes go to stderr so stdout stays pipeable.
func Tail(ctx context.Context, s *cmdutil.Streams, relayURL, token string, o *TailOptions) error {
	if relayURL == "" {
		return cmdutil.Exit(cmdutil.ExitUsage, errors.New("no relay to follow: pass --relay ws://127.0.0.1:8787/ws or set relay_url in the profile"))
	}
	since, from, err := readTailSince(ctx, s, relayURL, o.Since, time.Now())
	if err != nil {
		return err
	}
	warnUnknownTypes(s, o.Types)
	sub := relayclient.NewSubscriber(relayclient.SubscriberConfig{URL: relayURL, Token: token, Since: since, Types: o.Types, PayoutID: o.PayoutID})
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	var fatal error
	runErr := make(chan error, 1)
	go func() { runErr <- sub.Run(ctx) }()
	enc := json.NewEncoder(s.Out)
	enc.SetEscapeHTML(false)
	events, states := sub.Events(), sub.States()
	fromNow := strings.TrimSpace(o.Since) == "now" || strings.TrimSpace(o.Since) == ""
	minSeq := since
	if fromNow {
		minSeq = 0 // an older event retried from now on is news too
	}
	attempts := followAttempts(ctx, relayclient.History{URL: relayURL, Token: token}, fromNow, minSeq)
	printed := map[string]bool{}
	last := ""
	// Column names only for a person: a pipe or --json gets events only.
	if s.OutTerminal && !o.JSON {
		fmt.Fprintln(s.Out, tailHeader())
	}
	for events != nil {
		select {
		case a, ok := <-attempts:
			if !ok {
				attempts = nil
				continue
			}
			if !keepAttempt(o, a, printed) {
				continue
			}
			var err error
			if o.JSON {
				err = enc.Encode(a)
			} else {
				_, err = fmt.Fprintln(s.Out, relayclient.AttemptLine(a))
			}
			if err != nil {
				return fmt.Errorf("write attempt: %w", err)
			}
		case ev, ok := <-events:
			if !ok {
				events = nil
				continue
			}
			if ev.ReceivedAt.Before(from) {
				continue
			}
			if o.PayoutID != "" && len(printed) < 100000 {
				printed[ev.EventID] = true
			}
			if o.Failed {
				continue
			}
			var err error
			if o.JSON {
				err = enc.Encode(ev)
			} else {
				line := relayclient.TailLine(ev)
				if s.OutTerminal {
					// Under the header the sequence column has a width.
					seq, rest, _ := strings.Cut(line, "  ")
					line = fmt.Sprintf("%-*s  %s", tailSeqWidth, seq, rest)
				}
				_, err = fmt.Fprintln(s.Out, line)
			}
			if err != nil {
				return fmt.Errorf("write event: %w", err)
			}
		case st, ok := <-states:
			if !ok {
				states = nil
				continue
			}
			if errors.Is(st.Err, relayclient.ErrRefused) || errors.Is(st.Err, relayclient.ErrNotARelay) {
				// Retrying will not fix a refused token or a URL that is
				// not a relay: say so and stop, instead of waiting forever.
				if fatal == nil {
					fatal = fmt.Errorf("%s: %w", relayURL, st.Err)
					stop()
				}
				continue
			}
			// The relay's close text is the relay's to choose.
			if line := termtext.Safe(describeState(st, relayURL)); line != last {
				last = line
				fmt.Fprintln(s.Err, line)
			}
		}
	}
	if err := <-runErr; fatal == nil {
		return err
	}
	return cmdutil.Exit(cmdutil.ExitFailure, fatal)
}

func describeState(st relayclient.ConnState, url string) string {
	switch st.Status {
	case relayclient.StateLive:
		if st.Missed[1] > 0 {
			return fmt.Sprintf("note: events %d–%d are no longer stored by the relay (its retention dropped them); continuing from %d", st.Missed[0], st.Missed[1], st.Missed[1]+1)
		}
		return "live: following " + url + " (ctrl+c to stop)"
	case relayclient.StateReconnecting:
		msg := fmt.Sprintf("reconnecting in %s", st.RetryIn.Round(100_000_000))
		if st.Err != nil {
			msg += ": " + st.Err.Error()
		}
		return msg
	case relayclient.StateConnecting:
		return "connecting to " + url
	}
	if st.Err != nil {
		return st.Status + ": " + st.Err.Error()
	}
	return st.Status
}

// knownEventTypes are the webhook types the interface names.
var knownEventTypes = []string{api.EventPayoutAuthorised, api.EventPayoutSubmitted, api.EventPayoutSettled, api.EventPayoutRejected,
	api.EventPayoutFailed, api.EventPayoutExecuted, api.EventExternalPaymentReceived}

// warnUnknownTypes notes a --type that no webhook of the interface has (a
// typo would otherwise print nothing for ever). It is not refused: the
// relay stores events of types it does not know too.
func warnUnknownTypes(s *cmdutil.Streams, types []string) {
	for _, item := range types {
		for _, t := range strings.Split(item, ",") {
			if t = strings.TrimSpace(t); t != "" && !slices.Contains(knownEventTypes, t) {
				fmt.Fprintf(s.Err, "note: --type %s is not an event type of the interface (%s); following it anyway\n", t, strings.Join(knownEventTypes, ", "))
			}
		}
	}
}

// readTailSince reads --since: "now" (the relay's last sequence number),
// a sequence number, or a time in any form --since takes elsewhere (the
// whole stored history is replayed and events received before it are
// skipped). Which reading it took goes to stderr, since "7" and "7d"
// mean different things.
func readTailSince(ctx context.Context, s *cmdutil.Streams, relayURL, v string, now time.Time) (uint64, time.Time, error) {
	v = strings.TrimSpace(v)
	if v == "" || v == "now" {
		h, err := RelayHealth(ctx, relayURL)
		if errors.Is(err, relayclient.ErrNotARelay) {
			return 0, time.Time{}, cmdutil.Exit(cmdutil.ExitFailure, err)
		}
		if err != nil {
			return 0, time.Time{}, fmt.Errorf("%w; start one with: paydash relay", err)
		}
		return h.LastSeq, time.Time{}, nil
	}
	if n, err := strconv.ParseUint(v, 10, 64); err == nil {
		fmt.Fprintf(s.Err, "--since %s: read as a relay sequence number: events after %d\n", v, n)
		return n, time.Time{}, nil
	}
	from, err := cmdutil.ParseSince(v, now)
	if err != nil {
		return 0, time.Time{}, cmdutil.Exit(cmdutil.ExitUsage, fmt.Errorf("%w; or a relay sequence number (0 = everything stored), or now", err))
	}
	fmt.Fprintf(s.Err, "--since %s: read as a time: events received since %s\n", v, from.UTC().Format("2006-01-02 15:04:05 UTC"))
	return 0, from, nil
}

// tailSeqWidth is the sequence column's width on a terminal: wide enough
// for a relay's first million events; longer numbers push their line.
const tailSeqWidth = 6

// tailHeader names the columns of relayclient.TailLine.
func tailHeader() string {
	width := 0
	for _, t := range knownEventTypes {
		width = max(width, len(t))
	}
	return strings.Join([]string{fmt.Sprintf("%-*s", tailSeqWidth, "SEQ"), fmt.Sprintf("%-20s", "RECEIVED (UTC)"), fmt.Sprintf("%-*s", width, "TYPE"), "EVENT ID", "PAYOUT ID", "STATE"}, "  ")
}
