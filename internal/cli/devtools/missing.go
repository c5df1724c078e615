package devtools

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/config"
	"github.com/paydash/paydash/internal/cli/cmdutil"
	"github.com/paydash/paydash/internal/payout"
	"github.com/paydash/paydash/internal/platform/termtext"
	"github.com/paydash/paydash/webhookrelay/relayclient"
	"github.com/paydash/paydash/webhookrelay/webhooklate"
)

// MissingOptions are the flags of `paydash events missing`.
type MissingOptions struct {
	relay relayFlags
	Since string
	Late  string
	JSON  bool
}

// MissingRow is one payout whose final webhook is late: --json prints a
// list of them.
type MissingRow struct {
	webhooklate.Status
	// LateBy, readable ("7m30s").
	LateByText string `json:"late_by"`
	// Report is what the transaction report says of the payout meanwhile
	// (its status), "" when the report has no row for it, or ReportUnread.
	Report string `json:"report"`
}

// ReportUnread is MissingRow.Report when the report could not be read.
const ReportUnread = "(report not read)"

// MissingCommand is `paydash events missing [--since 7d] [--json]`.
func MissingCommand(s *cmdutil.Streams, g *cmdutil.Global) *cobra.Command {
	o := &MissingOptions{}
	c := &cobra.Command{
		Use:   "missing",
		Short: "List payouts whose final webhook is late (exit 3 when any is)",
		Long: `List the payouts whose final webhook (settled, executed, failed,
rejected) has not come within webhook_late: every payout this profile
sent (its audit record) or the relay saw authorised, since --since. Each
row says which events would settle it, how late it is, the last state a
webhook reported and what the transaction report says meanwhile.
Exit status 3 when any is missing, 0 when none is.`,
		Example: `  paydash events missing
  paydash events missing --since 24h --json | jq '.[].payout_id'`,
		Args: func(cmd *cobra.Command, args []string) error { return usage(cobra.NoArgs(cmd, args)) },
		RunE: func(cmd *cobra.Command, _ []string) error {
			now := time.Now()
			from, err := cmdutil.ParseSince(o.Since, now)
			if err != nil {
				return cmdutil.Exit(cmdutil.ExitUsage, err)
			}
			h, p, err := o.relay.history(s, g)
			if err != nil {
				return err
			}
			if p == nil {
				// Without a profile: the relay's payouts only, no audit
				// record and no report.
				p = &config.Profile{}
			}
			if o.Late != "" {
				d, err := config.ParseDays(o.Late)
				if err != nil || d <= 0 {
					return cmdutil.Exit(cmdutil.ExitUsage, fmt.Errorf("--late %q: want a duration like 30s, 15m or 2d", o.Late))
				}
				p.WebhookLate = config.WebhookLate{All: d}
			}
			rows, arrivedLate, err := FindMissing(cmd.Context(), s, p, h, now, now.Sub(from))
			if err != nil {
				return err
			}
			return printMissing(s, rows, arrivedLate, o.JSON)
		},
	}
	o.relay.bind(c.Flags())
	c.Flags().StringVar(&o.Since, "since", "7d", "look at payouts sent or authorised since then: 24h, 7d, \"7 days\", today, 2026-11-01")
	c.Flags().StringVar(&o.Late, "late", "", "wait this long for every payout's final webhook, instead of the profile's webhook_late (e.g. 30s, 15m, 2d)")
	c.Flags().BoolVar(&o.JSON, "json", false, "print the missing payouts as a JSON list")
	return c
}

// FindMissing builds the book from the profile's audit record and the
// relay's events of the window and returns the late payouts, with what
// the report says of each, and the payouts whose final webhook came late.
func FindMissing(ctx context.Context, s *cmdutil.Streams, p *config.Profile, h relayclient.History, now time.Time, window time.Duration) ([]MissingRow, []webhooklate.Status, error) {
	cutoff := now.Add(-window)
	book := webhooklate.New(p.WebhookLate.For)
	// Without a profile there is no audit record: the relay's payouts alone.
	if log, err := auditLog(s, p); err == nil {
		entries, err := log.Entries()
		if err != nil {
			return nil, nil, fmt.Errorf("audit record: %w", err)
		}
		for _, a := range payout.AwaitingWebhook(payout.Attempts(entries), cutoff) {
			book.Sent(webhooklate.Payout{ID: a.TransactionID, Currency: a.Currency, Amount: a.AmountInMinor, Since: a.At})
		}
	}
	var arrivedLate []webhooklate.Status
	err := h.Scan(ctx, 0, 500, func(e relayclient.Event) bool {
		if !e.ReceivedAt.Before(cutoff) {
			if st, final := book.Observe(e); final && st.ArrivedLate {
				arrivedLate = append(arrivedLate, st)
			}
		}
		return true
	})
	if err != nil {
		return nil, nil, fmt.Errorf("%w; is the relay running? (paydash relay)", err)
	}
	late := book.Check(now)
	rows := make([]MissingRow, len(late))
	for i, st := range late {
		rows[i] = MissingRow{Status: st, LateByText: webhooklate.Round(st.LateBy).String()}
	}
	if len(rows) > 0 {
		reportStates(ctx, s, p, cutoff, rows)
	}
	return rows, arrivedLate, nil
}

// reportStates fills in what the report says of each late payout. The
// report is read from the window's start only; failing to read it is
// said in the rows, not fatal.
func reportStates(ctx context.Context, s *cmdutil.Streams, p *config.Profile, cutoff time.Time, rows []MissingRow) {
	want := map[string]int{}
	for i := range rows {
		want[strings.ToLower(rows[i].ID)] = i
		rows[i].Report = ReportUnread
	}
	if p.BaseURL == "" {
		for i := range rows {
			rows[i].Report = "(no profile: not read)"
		}
		return
	}
	client, err := cmdutil.Client(p, s.Trace)
	if err != nil {
		fmt.Fprintf(s.Err, "note: the report was not read: %s\n", termtext.Safe(err.Error()))
		return
	}
	found := map[int]bool{}
	err = client.StreamTransactions(ctx, api.TransactionQuery{From: cutoff.Add(-24 * time.Hour)}, func(t api.Transaction) error {
		if i, ok := want[strings.ToLower(t.TransactionID)]; ok {
			rows[i].Report, found[i] = t.Status, true
			if rows[i].Currency == "" {
				rows[i].Currency, rows[i].Amount = t.Currency, t.AmountInMinor
			}
		}
		return nil
	})
	if err != nil {
		fmt.Fprintf(s.Err, "note: the report was not read: %s\n", termtext.Safe(err.Error()))
		return
	}
	for i := range rows {
		if !found[i] {
			rows[i].Report = "" // read, and no row: rejected payouts never enter it
		}
	}
}

func printMissing(s *cmdutil.Streams, rows []MissingRow, arrivedLate []webhooklate.Status, asJSON bool) error {
	if asJSON {
		if rows == nil {
			rows = []MissingRow{}
		}
		if err := cmdutil.WriteJSON(s.Out, rows); err != nil {
			return err
		}
	} else if len(rows) > 0 {
		table := make([][]string, len(rows))
		for i, r := range rows {
			amount := "-"
			if r.Currency != "" {
				amount = api.FormatAmountPlain(r.Amount, r.Currency) + " " + r.Currency
			}
			report := r.Report
			if report == "" {
				report = "no row"
			}
			table[i] = []string{termtext.Safe(r.ID), amount, r.Source + " " + r.Since.UTC().Format(time.RFC3339),
				webhooklate.ExpectsText(r.Status), r.LateByText, orDash(termtext.Safe(r.LastSeen)), termtext.Safe(report)}
		}
		if err := cmdutil.WriteTable(s.Out, []string{"PAYOUT", "AMOUNT", "SINCE", "EXPECTS", "LATE BY", "LAST WEBHOOK", "REPORT"}, table, 1); err != nil {
			return err
		}
	}
	for _, st := range arrivedLate {
		fmt.Fprintf(s.Err, "note: payout %s: %s came %s late\n", termtext.Safe(st.ID), termtext.Safe(st.Final), webhooklate.Round(st.LateBy))
	}
	if len(rows) > 0 {
		if !asJSON {
			fmt.Fprintf(s.Err, "%d payout(s) without their final webhook past webhook_late\n", len(rows))
		}
		return cmdutil.SilentExit(cmdutil.ExitNotAccepted)
	}
	if !asJSON {
		fmt.Fprintln(s.Err, "no final webhook is missing")
	}
	return nil
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// auditLog is the profile's audit record; none without a profile.
func auditLog(s *cmdutil.Streams, p *config.Profile) (*payout.Log, error) {
	if p.Name == "" {
		return nil, errNoProfile
	}
	return cmdutil.AuditLog(s, p)
}

var errNoProfile = errors.New("no profile")
