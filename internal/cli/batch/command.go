package batch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/cli/cmdutil"
	"github.com/paydash/paydash/internal/cli/headless"
	"github.com/paydash/paydash/webhookrelay/relayclient"
)

// CommandOptions are the flags of `paydash payout batch`.
type CommandOptions struct {
	DryRun   bool
	Yes      bool
	JSON     bool
	Journal  string
	Rate     float64
	RelayURL string
	Wait     time.Duration
}

// Bind registers the flags.
func (o *CommandOptions) Bind(fs *pflag.FlagSet) {
	fs.BoolVar(&o.DryRun, "dry-run", false, "check the file and show what would be sent; send nothing")
	fs.BoolVarP(&o.Yes, "yes", "y", false, "send without asking for confirmation")
	fs.BoolVar(&o.JSON, "json", false, "print the summary (or the file's problems) as JSON")
	fs.StringVar(&o.Journal, "journal", "", "journal file that makes re-runs safe (default FILE.journal beside the CSV)")
	fs.Float64Var(&o.Rate, "rate", 0, "send at most this many payouts per second (0 = as fast as the service answers)")
	fs.StringVar(&o.RelayURL, "relay", "", "relay websocket URL to follow payout states (default: the profile's relay_url)")
	fs.DurationVar(&o.Wait, "wait", 30*time.Second, "after sending, wait up to this long for every payout's final state from the relay (0 = don't wait)")
}

// Command runs `paydash payout batch FILE`.
func Command(ctx context.Context, s *cmdutil.Streams, g *cmdutil.Global, path string, o *CommandOptions) error {
	f, err := Load(path)
	var bad *InvalidFileError
	if errors.As(err, &bad) {
		if o.JSON {
			_ = cmdutil.WriteJSON(s.Out, struct {
				File     string        `json:"file"`
				Sent     int           `json:"sent"`
				Lines    []int         `json:"bad_lines"`
				Problems []LineProblem `json:"problems"`
			}{bad.Path, 0, bad.Lines(), bad.Problems})
		}
		return cmdutil.Exit(cmdutil.ExitUsage, err)
	}
	if err != nil {
		return cmdutil.Exit(cmdutil.ExitUsage, err)
	}
	opts := Options{JournalPath: o.Journal, DryRun: o.DryRun, Rate: o.Rate, Wait: o.Wait}
	if o.DryRun {
		sum, err := Run(ctx, f, nil, opts)
		if err != nil {
			return err
		}
		return report(s, sum, o.JSON)
	}

	p, client, err := cmdutil.Setup(s, g)
	if err != nil {
		return err
	}
	if err := confirm(s, f, p.Name, p.Production, o.Yes); err != nil {
		return err
	}

	relayURL := o.RelayURL
	if relayURL == "" {
		relayURL = p.RelayURL
	}
	if relayURL != "" && o.Wait > 0 {
		subCtx, stop := context.WithCancel(ctx)
		defer stop()
		if events, ok := follow(subCtx, s, relayURL, p.RelayToken.Reveal(), awaitingEarlier(f, o.Journal)); ok {
			opts.Events = events
		}
	}

	prog := cmdutil.NewProgress(s, "sending payouts", int64(len(f.Rows)))
	opts.Progress = func(done, total int) { prog.Set(int64(done)) }
	sum, runErr := Run(ctx, f, client, opts)
	prog.Done()
	if sum.Rows == nil {
		// Nothing ran (the journal could not be opened).
		return runErr
	}
	if err := report(s, sum, o.JSON); err != nil {
		return err
	}
	if runErr != nil {
		return cmdutil.Exit(cmdutil.ExitFailure, runErr)
	}
	if !sum.OK() {
		return cmdutil.SilentExit(cmdutil.ExitNotAccepted)
	}
	return nil
}

// follow subscribes to the relay. A fresh batch's events all come later,
// so it starts at the relay's current end; when an earlier run left
// accepted payouts without a final state, it replays the relay's store so
// their states are found too. It returns false when the relay cannot be
// reached, so the batch does not wait for webhooks that will never come.
// (Connection states are not shown here; the subscriber never blocks on
// them.)
func follow(ctx context.Context, s *cmdutil.Streams, relayURL, token string, replay bool) (<-chan relayclient.Event, bool) {
	h, err := headless.RelayHealth(ctx, relayURL)
	if err != nil {
		fmt.Fprintf(s.Err, "note: %v; the summary shows what the service accepted, not final states (check later with paydash transactions)\n", err)
		return nil, false
	}
	since := h.LastSeq
	if replay {
		since = 0
	}
	sub := relayclient.NewSubscriber(relayclient.SubscriberConfig{URL: relayURL, Token: token, Since: since})
	go func() { _ = sub.Run(ctx) }()
	return sub.Events(), true
}

// awaitingEarlier reports whether an earlier run's journal has accepted
// payouts whose final state it never saw.
func awaitingEarlier(f *File, journalPath string) bool {
	if journalPath == "" {
		journalPath = DefaultJournalPath(f.Path)
	}
	j, err := ReadJournal(journalPath, f)
	if err != nil {
		return false
	}
	for line := range accepted(f, j) {
		if st, _ := j.State(j.TransactionID(line)); !isFinal(st.State) {
			return true
		}
	}
	return false
}

// confirm asks before sending, as for a single payout: production needs
// --yes or the row count typed; a person at a terminal answers y; a
// script without a terminal goes ahead.
func confirm(s *cmdutil.Streams, f *File, profile string, production, yes bool) error {
	if yes {
		return nil
	}
	if !s.Interactive() {
		if production {
			return cmdutil.Exit(cmdutil.ExitUsage, fmt.Errorf("profile %q is production: pass --yes to send a batch without a terminal to confirm on", profile))
		}
		return nil
	}
	if production {
		fmt.Fprintf(s.Err, "*** PRODUCTION profile %q: this moves real money ***\n", profile)
	}
	fmt.Fprintf(s.Err, "Batch %s: %d payout(s), %s (profile %s)\n", f.Path, len(f.Rows), formatTotals(f.Totals()), profile)
	if production {
		want := fmt.Sprint(len(f.Rows))
		ok, err := cmdutil.ConfirmTyped(s, fmt.Sprintf("PRODUCTION: type the number of payouts (%s) to send them, anything else cancels:", want), want)
		if err != nil {
			return err
		}
		if !ok {
			return cmdutil.ErrCancelled
		}
		return nil
	}
	ok, err := cmdutil.Confirm(s, "Send them?")
	if err != nil {
		return err
	}
	if !ok {
		return cmdutil.ErrCancelled
	}
	return nil
}

func formatTotals(t map[string]int64) string {
	curs := make([]string, 0, len(t))
	for c := range t {
		curs = append(curs, c)
	}
	sort.Strings(curs)
	parts := make([]string, len(curs))
	for i, c := range curs {
		parts[i] = api.FormatAmount(t[c], c)
	}
	return strings.Join(parts, " + ")
}

// report prints the summary: JSON on stdout, or a few lines a person reads
// at a glance, with every row that needs attention.
func report(s *cmdutil.Streams, sum *Summary, asJSON bool) error {
	if asJSON {
		return cmdutil.WriteJSON(s.Out, sum)
	}
	return writeSummary(s.Out, sum)
}

func writeSummary(w io.Writer, sum *Summary) error {
	c := sum.Counts
	var b strings.Builder
	if sum.DryRun {
		fmt.Fprintf(&b, "dry run: %s is valid: %d payout(s), %s\n", sum.File, c.Rows, formatTotals(sum.Totals))
		fmt.Fprintf(&b, "  would send %d", c.WouldSend)
		if c.PreviousRun > 0 {
			fmt.Fprintf(&b, "; %d already accepted in an earlier run (journal %s) would be skipped", c.PreviousRun, sum.Journal)
		}
		b.WriteString("\n  nothing was sent\n")
		_, err := io.WriteString(w, b.String())
		return err
	}
	fmt.Fprintf(&b, "batch %s: %d payout(s), %s\n", sum.File, c.Rows, formatTotals(sum.Totals))
	fmt.Fprintf(&b, "  accepted by the service: %d", c.Accepted)
	if c.PreviousRun > 0 {
		fmt.Fprintf(&b, " (%d in an earlier run, not sent again)", c.PreviousRun)
	}
	b.WriteString("\n")
	fmt.Fprintf(&b, "  settled %d, pending %d, rejected %d, failed %d, not sent %d\n", c.Settled, c.Pending, c.Rejected, c.Failed, c.NotSent)
	for _, r := range sum.Rows {
		var what string
		switch r.Result {
		case ResultRejected, ResultFailed:
			what = r.Result
			if r.Reason != "" {
				what += ": " + r.Reason
			} else if r.Detail != "" {
				what += ": " + r.Detail
			}
		case ResultNotSent:
			what = "not sent"
			if r.Detail != "" {
				what += ": " + r.Detail
			}
		default:
			continue
		}
		fmt.Fprintf(&b, "  line %d  %s  %s  %s  %s\n", r.Line, r.Name, api.FormatAmount(r.AmountInMinor, r.Currency), r.TransactionID, what)
	}
	if c.Pending > 0 {
		if sum.Watched {
			b.WriteString("  pending payouts had no final state yet; follow them with: paydash events tail\n")
		} else {
			b.WriteString("  no relay was followed, so final states are unknown; check with: paydash transactions --search <id>\n")
		}
	}
	if c.NotSent > 0 {
		b.WriteString("  run the same command again to send the rest: rows already accepted are skipped, the others keep their transaction_id\n")
	}
	fmt.Fprintf(&b, "  journal: %s\n", sum.Journal)
	_, err := io.WriteString(w, b.String())
	return err
}
