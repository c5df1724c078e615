package approvals

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/spf13/cobra"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/config"
	"github.com/paydash/paydash/internal/cli/cmdutil"
	"github.com/paydash/paydash/internal/cli/factory"
	"github.com/paydash/paydash/internal/platform/termtext"
	"github.com/paydash/paydash/webhookrelay/hub/hubapi"
	"github.com/paydash/paydash/webhookrelay/hub/hubclient"
)

// Conn says which hub to talk to and as whom.
type Conn struct {
	// HubURL overrides the address derived from the profile's relay_url.
	HubURL string
}

// Client is the hub client of profile p: the hub at --hub, or at
// relay_url, with relay_token, the person's own token (factory.HubClient).
func (c *Conn) Client(p *config.Profile) (*hubclient.Client, error) {
	return factory.HubClient(p, c.HubURL)
}

func (c *Conn) setup(s *cmdutil.Streams, g *cmdutil.Global) (*config.Profile, *hubclient.Client, error) {
	p, err := cmdutil.LoadProfile(s, g)
	if err != nil {
		return nil, nil, err
	}
	hc, err := c.Client(p)
	return p, hc, err
}

// hubError turns a hub refusal into the exit code scripts read
// (factory.HubError).
func hubError(err error) error { return factory.HubError(err) }

// Command is `paydash approvals`: the approvers' side of team mode.
func Command(s *cmdutil.Streams, g *cmdutil.Global) *cobra.Command {
	conn := &Conn{}
	c := &cobra.Command{
		Use:   "approvals",
		Short: "Team mode: list, show, approve and reject payouts awaiting approval on the hub",
		Long: `Payouts requested through the team's hub (a profile with
payouts_via_relay = true) above the hub's thresholds wait here for
another person's approval. The hub is the relay at the profile's
relay_url; relay_token is your own token.

The requester never approves their own request; a lapsed, rejected or
sent request cannot be approved; the approval that completes a request
sends it, once, under the transaction id fixed when it was requested.`,
		Example: `  paydash approvals list
  paydash approvals show apr-abcdefghij
  paydash approvals approve apr-abcdefghij
  paydash approvals reject apr-abcdefghij --reason "wrong IBAN, see ticket 42"`,
		Args: cmdutil.NoArgs,
	}
	c.PersistentFlags().StringVar(&conn.HubURL, "hub", "", "hub address, http://host:port (default: from the profile's relay_url)")
	c.AddCommand(listCmd(s, g, conn), showCmd(s, g, conn), approveCmd(s, g, conn), rejectCmd(s, g, conn), logCmd(s, g, conn))
	return c
}

func listCmd(s *cmdutil.Streams, g *cmdutil.Global, conn *Conn) *cobra.Command {
	var all, asJSON bool
	c := &cobra.Command{
		Use:   "list",
		Short: "Requests awaiting approval or being sent (--all: every request)",
		Args:  cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, hc, err := conn.setup(s, g)
			if err != nil {
				return err
			}
			rs, err := hc.List(cmd.Context(), all)
			if err != nil {
				return hubError(err)
			}
			if asJSON {
				return cmdutil.WriteJSON(s.Out, rs)
			}
			if err := writeList(s, rs, time.Now(), all); err != nil {
				return err
			}
			if me, err := hc.Me(cmd.Context()); err == nil {
				if n := hubapi.AwaitingYou(rs, me.Name, me.Has(hubapi.RoleApprove)); n > 0 {
					fmt.Fprintf(s.Err, "%d await your approval: paydash approvals approve ID\n", n)
				}
			}
			return nil
		},
	}
	c.Flags().BoolVar(&all, "all", false, "every request, decided ones too")
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON objects")
	return c
}

// writeList prints requests as a table; every text from outside (names,
// references, the requester) goes through termtext.Safe.
func writeList(s *cmdutil.Streams, rs []hubapi.Request, now time.Time, all bool) error {
	if len(rs) == 0 {
		if all {
			fmt.Fprintln(s.Out, "No approval requests on the hub.")
		} else {
			fmt.Fprintln(s.Out, "Nothing awaits approval. (--all lists decided requests too.)")
		}
		return nil
	}
	rows := make([][]string, 0, len(rs))
	for _, r := range rs {
		batch := ""
		if r.Batch != "" {
			batch = fmt.Sprintf("%s:%d", r.Batch, r.Line)
		}
		rows = append(rows, []string{r.ID, batch, r.Status, humanize.RelTime(r.RequestedAt, now, "ago", "from now"), termtext.Safe(r.RequestedBy),
			api.FormatAmount(r.Shown(), r.Currency), termtext.Safe(payeeOf(r)), termtext.Safe(r.BeneficiaryReference),
			termtext.Safe(strings.Join(r.ApprovedBy, ","))})
	}
	return cmdutil.WriteTable(s.Out, []string{"ID", "BATCH:LINE", "STATUS", "AGE", "REQUESTED BY", "AMOUNT", "PAYEE", "REFERENCE", "APPROVED BY"}, rows, 5)
}

func showCmd(s *cmdutil.Streams, g *cmdutil.Global, conn *Conn) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:               "show ID",
		Short:             "One request and its record",
		Args:              cmdutil.ExactArgs(1),
		ValidArgsFunction: completeIDs(s, g, conn, false),
		RunE: func(cmd *cobra.Command, args []string) error {
			_, hc, err := conn.setup(s, g)
			if err != nil {
				return err
			}
			if isBatch(args[0]) {
				b, err := hc.GetBatch(cmd.Context(), args[0])
				if err != nil {
					return hubError(err)
				}
				if asJSON {
					return cmdutil.WriteJSON(s.Out, b)
				}
				writeBatch(s, b)
				return nil
			}
			r, err := hc.Get(cmd.Context(), args[0])
			if err != nil {
				return hubError(err)
			}
			if asJSON {
				return cmdutil.WriteJSON(s.Out, r)
			}
			writeRequest(s, r)
			log, err := hc.Log(cmd.Context(), 0, r.ID)
			if err != nil {
				return hubError(err)
			}
			fmt.Fprintln(s.Out)
			return writeLog(s, log)
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print the request as JSON")
	return c
}

func writeRequest(s *cmdutil.Streams, r hubapi.Request) {
	pairs := [][2]string{
		{"id", r.ID},
		{"status", r.Status},
		{"amount", api.FormatAmount(r.Shown(), r.Currency)},
		{"payee", termtext.Safe(r.BeneficiaryName) + " (" + termtext.Safe(r.BeneficiaryIBAN) + ")"},
		{"reference", termtext.Safe(r.BeneficiaryReference)},
		{"transaction id", termtext.Safe(r.TransactionID)},
	}
	if r.Kind != "" {
		// A payment or mandate: what it is, the key it is created
		// under, and (once created) its id at the service.
		pairs = [][2]string{{"id", r.ID}, {"status", r.Status}, {"what", termtext.Safe(r.What())},
			{"reference", termtext.Safe(r.BeneficiaryReference)}, {"idempotency key", termtext.Safe(r.IdempotencyKey)}}
		if r.CreatedID != "" {
			pairs = append(pairs, [2]string{"created", termtext.Safe(r.CreatedID)})
		}
	}
	pairs = append(pairs, [][2]string{
		{"requested by", termtext.Safe(r.RequestedBy) + " at " + r.RequestedAt.UTC().Format(time.RFC3339)},
		{"policy", termtext.Safe(r.Policy)},
	}...)
	if r.NeedsApproval {
		pairs = append(pairs, [2]string{"approvals", fmt.Sprintf("%d of %d (%s)", len(r.ApprovedBy), r.ApprovalsNeeded, termtext.Safe(strings.Join(r.ApprovedBy, ", ")))})
		if r.Status == hubapi.StatusPending {
			pairs = append(pairs, [2]string{"lapses", r.ExpiresAt.UTC().Format(time.RFC3339)})
		}
	}
	if r.RejectedBy != "" {
		pairs = append(pairs, [2]string{"rejected by", termtext.Safe(r.RejectedBy) + ": " + termtext.Safe(r.Reason)})
	}
	if r.PayoutState != "" {
		pairs = append(pairs, [2]string{"payout state", termtext.Safe(r.PayoutState)})
	}
	if r.Detail != "" {
		pairs = append(pairs, [2]string{"detail", termtext.Safe(r.Detail)})
	}
	_ = cmdutil.KeyValues(s.Out, pairs)
}

func writeLog(s *cmdutil.Streams, es []hubapi.LogEntry) error {
	rows := make([][]string, 0, len(es))
	for _, e := range es {
		rows = append(rows, []string{e.At.UTC().Format(time.RFC3339), e.RequestID, e.Action, termtext.Safe(e.By), e.Status, termtext.Safe(e.Detail)})
	}
	return cmdutil.WriteTable(s.Out, []string{"AT", "REQUEST", "ACTION", "BY", "STATUS", "DETAIL"}, rows)
}

func approveCmd(s *cmdutil.Streams, g *cmdutil.Global, conn *Conn) *cobra.Command {
	var yes, asJSON bool
	c := &cobra.Command{
		Use:               "approve ID",
		ValidArgsFunction: completeIDs(s, g, conn, true),
		Short:             "Approve a request; the approval that completes it sends the payout",
		Long: `Approve a request; the approval that completes it sends the payout.

Without a terminal --yes is required. ` + factory.ReadOnlyHelp,
		Args: cmdutil.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := factory.New(s, g).RefuseDecisions(conn.HubURL); err != nil {
				return err
			}
			p, hc, err := conn.setup(s, g)
			if err != nil {
				return err
			}
			return Approve(cmd.Context(), s, hc, p.Production, args[0], yes, asJSON)
		},
	}
	c.Flags().BoolVarP(&yes, "yes", "y", false, "approve without asking (required when not at a terminal)")
	c.Flags().BoolVar(&asJSON, "json", false, "print the request after the approval as JSON")
	return c
}

// Approve shows the request, asks (on a production profile: the amount
// typed), approves, and says what became of it.
func Approve(ctx context.Context, s *cmdutil.Streams, hc *hubclient.Client, production bool, id string, yes, asJSON bool) error {
	if isBatch(id) {
		return approveBatch(ctx, s, hc, production, id, yes, asJSON)
	}
	r, err := hc.Get(ctx, id)
	if err != nil {
		return hubError(err)
	}
	if !yes {
		if !s.Interactive() {
			return cmdutil.Exit(cmdutil.ExitUsage, fmt.Errorf("no terminal to confirm on: nothing was approved. Pass --yes to approve %s", id))
		}
		writeRequest(s, r)
		amount := api.FormatAmountPlain(r.Shown(), r.Currency)
		var ok bool
		if production {
			ok, err = cmdutil.ConfirmTyped(s, fmt.Sprintf("PRODUCTION: type the amount (%s) to approve:", amount), amount)
		} else {
			ok, err = cmdutil.Confirm(s, "Approve "+whatOf(r)+"?")
		}
		if err != nil {
			return err
		}
		if !ok {
			return cmdutil.Exit(cmdutil.ExitCancelled, errors.New("not approved"))
		}
	}
	r, err = hc.Approve(ctx, id)
	if err != nil {
		return hubError(err)
	}
	if asJSON {
		if err := cmdutil.WriteJSON(s.Out, r); err != nil {
			return err
		}
	} else {
		fmt.Fprintln(s.Out, describe(r))
	}
	switch r.Status {
	case hubapi.StatusRefused:
		return cmdutil.SilentExit(cmdutil.ExitNotAccepted)
	case hubapi.StatusUnknown:
		return cmdutil.SilentExit(cmdutil.ExitFailure)
	}
	return nil
}

// describe says where a request stands after an action, in one line.
func describe(r hubapi.Request) string {
	what := whatOf(r)
	switch r.Status {
	case hubapi.StatusPending:
		return fmt.Sprintf("Approved by you; %s still needs %d more approval(s) (%s).", r.ID, r.ApprovalsNeeded-len(r.ApprovedBy), what)
	case hubapi.StatusSent:
		if r.Kind != "" {
			return fmt.Sprintf("Created: %s, %s id %s (%s).", what, r.Kind, termtext.Safe(r.CreatedID), r.ID)
		}
		return fmt.Sprintf("Sent: %s, transaction id %s (%s).", what, r.TransactionID, r.ID)
	case hubapi.StatusSending, hubapi.StatusApproved:
		return fmt.Sprintf("Approved; %s is being sent (%s). Follow it with: paydash approvals show %s", what, r.ID, r.ID)
	case hubapi.StatusRefused:
		return fmt.Sprintf("Approved, but not sent: %s. Nothing was paid (%s).", termtext.Safe(r.Detail), r.ID)
	case hubapi.StatusUnknown:
		return fmt.Sprintf("Sent, but the service's answer was lost: %s may or may not exist. At its next start the hub looks it up by transaction id %s and, if the service does not hold it, sends it again under that id, never another. %s",
			what, r.TransactionID, termtext.Safe(r.Detail))
	case hubapi.StatusRejected:
		return fmt.Sprintf("Rejected by %s: %s (%s).", termtext.Safe(r.RejectedBy), termtext.Safe(r.Reason), r.ID)
	}
	return fmt.Sprintf("%s is %s (%s).", r.ID, r.Status, what)
}

func rejectCmd(s *cmdutil.Streams, g *cmdutil.Global, conn *Conn) *cobra.Command {
	var reason string
	var asJSON bool
	c := &cobra.Command{
		Use:               "reject ID --reason TEXT",
		ValidArgsFunction: completeIDs(s, g, conn, true),
		Short:             "Reject a request, saying why",
		Long: `Reject a request, saying why (--reason): the requester reads it.

` + factory.ReadOnlyHelp,
		Args: cmdutil.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := factory.New(s, g).RefuseDecisions(conn.HubURL); err != nil {
				return err
			}
			if strings.TrimSpace(reason) == "" {
				return cmdutil.Exit(cmdutil.ExitUsage, errors.New("--reason TEXT is required: the requester reads it to know what to correct"))
			}
			_, hc, err := conn.setup(s, g)
			if err != nil {
				return err
			}
			if isBatch(args[0]) {
				b, err := hc.RejectBatch(cmd.Context(), args[0], reason)
				if err != nil {
					return hubError(err)
				}
				if asJSON {
					return cmdutil.WriteJSON(s.Out, b)
				}
				fmt.Fprintf(s.Out, "Rejected batch %s (%d payouts, %s): %s.\n", b.BatchID, len(b.Rows), totalsLine(b.Totals), termtext.Safe(reason))
				return nil
			}
			r, err := hc.Reject(cmd.Context(), args[0], reason)
			if err != nil {
				return hubError(err)
			}
			if asJSON {
				return cmdutil.WriteJSON(s.Out, r)
			}
			fmt.Fprintln(s.Out, describe(r))
			return nil
		},
	}
	c.Flags().StringVar(&reason, "reason", "", "why (required)")
	c.Flags().BoolVar(&asJSON, "json", false, "print the request after the rejection as JSON")
	return c
}

func logCmd(s *cmdutil.Streams, g *cmdutil.Global, conn *Conn) *cobra.Command {
	var asJSON bool
	var id string
	var after uint64
	c := &cobra.Command{
		Use:   "log",
		Short: "The hub's record: every request, approval, rejection, lapse, send and outcome, with who and when",
		Args:  cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, hc, err := conn.setup(s, g)
			if err != nil {
				return err
			}
			es, err := hc.Log(cmd.Context(), after, id)
			if err != nil {
				return hubError(err)
			}
			if asJSON {
				return cmdutil.WriteJSON(s.Out, es)
			}
			if len(es) == 0 {
				fmt.Fprintln(s.Out, "The hub's record is empty.")
				return nil
			}
			return writeLog(s, es)
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON objects (each with its seq)")
	c.Flags().StringVar(&id, "id", "", "only this request's lines")
	c.Flags().Uint64Var(&after, "since", 0, "only lines after this seq")
	return c
}

// approveBatch shows a batch's totals (and rows), asks, and approves it
// whole; on a production profile the totals are typed.
func approveBatch(ctx context.Context, s *cmdutil.Streams, hc *hubclient.Client, production bool, id string, yes, asJSON bool) error {
	b, err := hc.GetBatch(ctx, id)
	if err != nil {
		return hubError(err)
	}
	if !yes {
		if !s.Interactive() {
			return cmdutil.Exit(cmdutil.ExitUsage, fmt.Errorf("no terminal to confirm on: nothing was approved. Pass --yes to approve %s", id))
		}
		writeBatch(s, b)
		var ok bool
		if production {
			want := totalsLine(b.Totals)
			ok, err = cmdutil.ConfirmTyped(s, fmt.Sprintf("PRODUCTION: type the totals (%s) to approve:", want), want)
		} else {
			ok, err = cmdutil.Confirm(s, fmt.Sprintf("Approve batch %s: %d payouts, %s?", id, len(b.Rows), totalsLine(b.Totals)))
		}
		if err != nil {
			return err
		}
		if !ok {
			return cmdutil.Exit(cmdutil.ExitCancelled, errors.New("not approved"))
		}
	}
	b, err = hc.ApproveBatch(ctx, id)
	if err != nil {
		return hubError(err)
	}
	if asJSON {
		if err := cmdutil.WriteJSON(s.Out, b); err != nil {
			return err
		}
	} else {
		writeBatch(s, b)
	}
	if b.Status == hubapi.StatusAwaitingApproval || b.Status == hubapi.StatusSending {
		return nil // approved by you: more approvals needed, or being sent
	}
	return batchExit(b.Status)
}

// whatOf says what a request sends: a payout's amount and payee, or a
// payment's or mandate's own words (hubapi.Request.What).
func whatOf(r hubapi.Request) string {
	if r.Kind != "" {
		return termtext.Safe(r.What())
	}
	return api.FormatAmount(r.AmountInMinor, r.Currency) + " to " + termtext.Safe(r.BeneficiaryName)
}

// payeeOf is the list's PAYEE column: a payment's or mandate's kind
// before its beneficiary, so neither reads as a payout.
func payeeOf(r hubapi.Request) string {
	if r.Kind != "" {
		return r.Kind + " into " + r.BeneficiaryName
	}
	return r.BeneficiaryName
}
