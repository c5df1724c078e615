package devtools

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/paydash/paydash/internal/cli/cmdutil"
	"github.com/paydash/paydash/internal/platform/termtext"
	"github.com/paydash/paydash/webhookrelay/relayclient"
)

// ResendOptions are the flags of `paydash events resend`.
type ResendOptions struct {
	relay       relayFlags
	To          string
	AllowRemote bool
	JSON        bool
	History     bool
	Timeout     time.Duration

	// transport carries the resend; nil is the default transport. Tests
	// set it to reach a "remote" host on loopback.
	transport http.RoundTripper
}

// ResendCommand is `paydash events resend EVENT_ID [--to URL]`.
func ResendCommand(s *cmdutil.Streams, g *cmdutil.Global) *cobra.Command {
	o := &ResendOptions{}
	c := &cobra.Command{
		Use:               "resend EVENT_ID",
		ValidArgsFunction: o.relay.completeEventIDs(s, g),
		Short:             "Post a stored webhook again, byte for byte with its signature, to your handler",
		Long: `Post a stored webhook again, byte for byte with its original headers
(signature included), to the URL the relay forwarded it to or to --to.
This command sends it, from the bytes it reads from the relay; the relay
never posts to a URL named at run time. The handler's answer is printed
and kept in the history of resends (--history lists it).

The signature covers the original path and timestamp: a handler that
verifies it refuses a resend to another path, or one older than its
tolerance (usually 5 minutes). Both are said before sending.`,
		Example: `  paydash events resend 4f1c2d9e-...
  paydash events resend 4f1c2d9e-... --to http://127.0.0.1:3000/webhooks --json
  paydash events resend --history`,
		Args: func(cmd *cobra.Command, args []string) error {
			if o.History {
				return usage(cobra.NoArgs(cmd, args))
			}
			return usage(cobra.ExactArgs(1)(cmd, args))
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			log := relayclient.ResendLog{Path: filepath.Join(stateDir(s), relayclient.ResendLogFile)}
			if o.History {
				return printResendHistory(s, log, o.JSON)
			}
			h, _, err := o.relay.history(s, g)
			if err != nil {
				return err
			}
			return Resend(cmd.Context(), s, h, log, args[0], o)
		},
	}
	fs := c.Flags()
	o.relay.bind(fs)
	fs.StringVar(&o.To, "to", "", "send here instead of the forward target, e.g. http://127.0.0.1:3000/webhooks")
	fs.BoolVar(&o.AllowRemote, "allow-remote", false, "allow a --to beyond this machine (not loopback)")
	fs.BoolVar(&o.JSON, "json", false, "print the attempt with the handler's whole answer as JSON")
	fs.BoolVar(&o.History, "history", false, "list the resends made from this machine, with their answers")
	fs.DurationVar(&o.Timeout, "timeout", 10*time.Second, "how long to wait for the handler's answer")
	return c
}

func usage(err error) error {
	if err == nil {
		return nil
	}
	return cmdutil.Exit(cmdutil.ExitUsage, err)
}

// Resend fetches the event from the relay, posts it to the target and
// prints and records the answer. A handler answering non-2xx (or not at
// all) ends with exit status 1 after the answer is printed.
func Resend(ctx context.Context, s *cmdutil.Streams, h relayclient.History, log relayclient.ResendLog, eventID string, o *ResendOptions) error {
	ev, err := h.Event(ctx, eventID)
	if err != nil {
		return err
	}
	target, err := relayclient.ResendTarget(ev, o.To, o.AllowRemote)
	if err != nil {
		return cmdutil.Exit(cmdutil.ExitUsage, err)
	}
	for _, w := range relayclient.ResendWarnings(ev, target, time.Now()) {
		fmt.Fprintf(s.Err, "warning: %s\n", termtext.Safe(w))
	}
	a := relayclient.Resend(ctx, &http.Client{Timeout: o.Timeout, Transport: o.transport}, ev, target, nil)
	if err := log.Append(a); err != nil {
		fmt.Fprintf(s.Err, "warning: the resend was sent but not kept in the history (%s): %s\n", log.Path, termtext.Safe(err.Error()))
	}
	// The relay keeps it with the event's forwards, for every reader.
	if err := h.RecordResend(ctx, eventID, a.Answer); err != nil && !errors.Is(err, relayclient.ErrNoAttempts) {
		fmt.Fprintf(s.Err, "warning: the resend was sent but the relay did not keep its answer: %s\n", termtext.Safe(err.Error()))
	}
	var failed error
	if !a.OK() {
		failed = cmdutil.Exit(cmdutil.ExitFailure, fmt.Errorf("the handler did not take the resend (%s)", answerWord(a.Answer)))
	}
	switch {
	case o.JSON && failed != nil:
		// Every --json failure has the one error shape; the attempt (whose
		// own "error" is the handler's missing answer) goes beside it.
		j := cmdutil.NewErrorJSON(failed)
		if err := cmdutil.WriteJSON(s.Out, struct {
			Error    cmdutil.ErrorDetail `json:"error"`
			ExitCode int                 `json:"exit_code"`
			Resend   relayclient.Attempt `json:"resend"`
		}{j.Error, j.ExitCode, a}); err != nil {
			return err
		}
	case o.JSON:
		if err := cmdutil.WriteJSON(s.Out, a); err != nil {
			return err
		}
	default:
		fmt.Fprintln(s.Out, strings.TrimPrefix(relayclient.AttemptLine(a), "  -> "))
	}
	return failed
}

func answerWord(a relayclient.Answer) string {
	if a.Status > 0 {
		return fmt.Sprintf("HTTP %d", a.Status)
	}
	return "no answer: " + termtext.Safe(a.Error)
}

func printResendHistory(s *cmdutil.Streams, log relayclient.ResendLog, asJSON bool) error {
	list, err := log.List()
	if err != nil {
		return err
	}
	if asJSON {
		if list == nil {
			list = []relayclient.Attempt{}
		}
		return cmdutil.WriteJSON(s.Out, list)
	}
	if len(list) == 0 {
		fmt.Fprintln(s.Err, "no resends yet: paydash events resend EVENT_ID")
		return nil
	}
	for _, a := range list {
		fmt.Fprintln(s.Out, a.At.UTC().Format(time.RFC3339)+"  "+strings.TrimPrefix(relayclient.AttemptLine(a), "  -> "))
	}
	return nil
}
