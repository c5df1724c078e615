package batch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/cli/approvals"
	"github.com/paydash/paydash/internal/cli/cmdutil"
	"github.com/paydash/paydash/internal/cli/factory"
	"github.com/paydash/paydash/internal/cli/headless"
	"github.com/paydash/paydash/internal/payout"
	"github.com/paydash/paydash/internal/payout/batch"
	"github.com/paydash/paydash/internal/platform/termtext"
	"github.com/paydash/paydash/webhookrelay/hub/hubapi"
	"github.com/paydash/paydash/webhookrelay/relayclient"
)

// CommandOptions are the flags of `paydash payout batch`.
type CommandOptions struct {
	DryRun          bool
	Yes             bool
	JSON            bool
	Journal         string
	Rate            float64
	RelayURL        string
	Wait            time.Duration
	AllowDuplicate  bool
	DuplicateWindow time.Duration
}

// Bind registers the flags.
func (o *CommandOptions) Bind(fs *pflag.FlagSet) {
	fs.BoolVar(&o.DryRun, "dry-run", false, "check the file, the balances and earlier payouts, and list what would be sent; send nothing")
	fs.BoolVarP(&o.Yes, "yes", "y", false, "send without asking for confirmation (required when not at a terminal)")
	fs.BoolVar(&o.JSON, "json", false, "print the summary (or the file's problems) as JSON")
	fs.StringVar(&o.Journal, "journal", "", "journal file that makes re-runs safe (default FILE.journal beside the CSV)")
	fs.Float64Var(&o.Rate, "rate", 0, "send at most this many payouts per second (0 = as fast as the service answers)")
	fs.StringVar(&o.RelayURL, "relay", "", "relay websocket URL to follow payout states (default: the profile's relay_url)")
	fs.DurationVar(&o.Wait, "wait", 30*time.Second, "after sending, wait up to this long for every payout's final state from the relay (0 = don't wait)")
	fs.BoolVar(&o.AllowDuplicate, "allow-duplicate", false, "send rows that repeat another row, match a payout already made (same IBAN, amount, currency and reference), or are CHANGED (edited after they were paid) as new payouts")
	fs.DurationVar(&o.DuplicateWindow, "duplicate-window", payout.DefaultWindow, "how far back a payout with the same IBAN, amount, currency and reference counts as a duplicate")
}

// Command runs `paydash payout batch FILE`.
func Command(ctx context.Context, s *cmdutil.Streams, g *cmdutil.Global, path string, o *CommandOptions) error {
	// A read-only profile refuses before the file is read; a dry run
	// sends nothing, so it still checks the file there.
	if !o.DryRun {
		if err := factory.New(s, g).RefuseReadOnly(); err != nil {
			return err
		}
	}
	f, err := batch.Load(path)
	var bad *batch.InvalidFileError
	if err == nil && !o.AllowDuplicate {
		if dups := f.DuplicateRows(); len(dups) > 0 {
			de := &duplicateRowsError{batch.InvalidFileError{Path: f.Path, Problems: dups}}
			err, bad = de, &de.InvalidFileError
		}
	}
	if bad != nil || errors.As(err, &bad) {
		err = cmdutil.Exit(cmdutil.ExitUsage, err)
		if o.JSON {
			// The file's problems, with the error in the one shape of
			// every --json failure.
			j := cmdutil.NewErrorJSON(err)
			_ = cmdutil.WriteJSON(s.Out, struct {
				File     string               `json:"file"`
				Sent     int                  `json:"sent"`
				Lines    []int                `json:"bad_lines"`
				Problems []batch.LineProblem  `json:"problems"`
				Error    *cmdutil.ErrorDetail `json:"error"`
				ExitCode int                  `json:"exit_code"`
			}{bad.Path, 0, bad.Lines(), bad.Problems, &j.Error, j.ExitCode})
		}
		return err
	}
	if err != nil {
		return cmdutil.Exit(cmdutil.ExitUsage, err)
	}
	// Nothing is sent unconfirmed: off a terminal, every profile needs
	// --yes, and that is known before anything else is done.
	if !o.DryRun && !o.Yes && !s.Interactive() {
		return cmdutil.Exit(cmdutil.ExitUsage, errors.New("no terminal to confirm on: nothing was sent. Check the batch with --dry-run, then pass --yes to send it"))
	}

	p, client, err := cmdutil.Setup(s, g)
	if err != nil && o.DryRun {
		// The file can still be checked; what it would meet at the
		// service cannot, and the dry run says so and fails.
		return dryRunUnchecked(ctx, s, f, o, err)
	}
	if err != nil {
		return err
	}
	if !factory.SendsDirectly(p) && !o.DryRun {
		// Team mode: the file goes to the hub as one request, approved
		// or rejected whole; the hub fixes each row's transaction id.
		in := approvals.BatchInput{File: f.Path, SHA256: f.SHA256}
		for _, r := range f.Rows {
			in.Rows = append(in.Rows, hubapi.BatchRow{Line: r.Line, PayoutRequest: r.Request})
		}
		return approvals.SubmitBatch(ctx, s, p, in, approvals.ViaHubOptions{Yes: o.Yes, JSON: o.JSON, AllowDuplicate: o.AllowDuplicate, Wait: o.Wait})
	}
	audit, err := cmdutil.AuditLog(s, p)
	if err != nil {
		return err
	}
	opts := batch.Options{JournalPath: o.Journal, DryRun: o.DryRun, Rate: o.Rate, Wait: o.Wait,
		Guard: &batch.Guard{Log: audit, Report: client, Window: o.DuplicateWindow, AllowDuplicate: o.AllowDuplicate}}
	if relayURL := firstNonEmpty(o.RelayURL, p.RelayURL); relayURL != "" {
		opts.Guard.States = relayclient.History{URL: relayURL, Token: p.RelayToken.Reveal()}
	}
	prep, err := batch.Prepare(ctx, f, opts)
	if errors.As(err, &bad) {
		return cmdutil.Exit(cmdutil.ExitUsage, err)
	}
	if err != nil {
		return err
	}
	defer prep.Close()
	if o.DryRun {
		sum := prep.Summary()
		bals, err := client.Balances(ctx)
		if err != nil {
			return fmt.Errorf("dry run: reading balances to check the batch can be paid: %w", err)
		}
		sum.Funds = batch.CheckFunds(sum.ToSend, bals)
		var failed error
		if !sum.Payable() {
			failed = cmdutil.Exit(cmdutil.ExitNotAccepted, errors.New("dry run: the batch could not be paid in full (see each row and the funds check); nothing was sent"))
		}
		return report(s, sum, o.JSON, failed)
	}
	if err := checkFundsBeforeSending(ctx, prep, client); err != nil {
		prep.Discard()
		return err
	}
	if err := confirm(s, prep, p.Name, p.Production, o.Yes); err != nil {
		prep.Discard()
		return err
	}

	relayURL := o.RelayURL
	if relayURL == "" {
		relayURL = p.RelayURL
	}
	if relayURL != "" && o.Wait > 0 {
		subCtx, stop := context.WithCancel(ctx)
		defer stop()
		if events, ok := follow(subCtx, s, relayURL, p.RelayToken.Reveal(), batch.AwaitingEarlier(f, o.Journal)); ok {
			prep.Watch(events)
		}
	}

	prog := cmdutil.NewProgress(s, "sending payouts", int64(len(f.Rows)))
	prep.OnProgress(func(done, total int) { prog.Set(int64(done)) })
	sum, runErr := prep.Send(ctx, client)
	prog.Done()
	var failed error
	switch {
	case runErr != nil:
		failed = cmdutil.Exit(cmdutil.ExitFailure, runErr)
	case !sum.OK():
		failed = cmdutil.Exit(cmdutil.ExitNotAccepted, errors.New("some rows were not paid (see each row): "+unpaidAdvice))
	}
	return report(s, sum, o.JSON, failed)
}

// checkFundsBeforeSending refuses a run whose rows to send one account
// cannot pay, or that has no account for, before anything is sent or
// asked, as payout create does: sent anyway, the service pays the rows in
// file order until the money runs out and rejects the rest, leaving a
// batch half paid.
func checkFundsBeforeSending(ctx context.Context, prep *batch.Prepared, client *api.Client) error {
	toSend := prep.Summary().ToSend
	if len(toSend) == 0 {
		return nil
	}
	bals, err := client.Balances(ctx)
	if err != nil {
		return fmt.Errorf("reading balances to check the batch can be paid (nothing was sent): %w", err)
	}
	funds := batch.CheckFunds(toSend, bals)
	for _, f := range funds {
		if !f.OK {
			var b strings.Builder
			b.WriteString("the batch cannot be paid in full, so nothing was sent:\n")
			writeFunds(&b, funds)
			b.WriteString(fundsAdvice)
			return cmdutil.Exit(cmdutil.ExitNotAccepted, errors.New(b.String()))
		}
	}
	return nil
}

// fundsAdvice follows a refusal for funds; a test follows it literally.
const fundsAdvice = "fund the account, or take those rows out of the file, then run the same command again (--dry-run shows this check without sending)"

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

func dryRunUnchecked(ctx context.Context, s *cmdutil.Streams, f *batch.File, o *CommandOptions, why error) error {
	prep, err := batch.Prepare(ctx, f, batch.Options{JournalPath: o.Journal, DryRun: true})
	if err != nil {
		return err
	}
	defer prep.Close()
	sum := prep.Summary()
	sum.Unchecked = fmt.Sprintf("balances and earlier payouts were NOT checked (%v)", why)
	return report(s, sum, o.JSON, cmdutil.Exit(cmdutil.ExitNotAccepted, errors.New("dry run: "+sum.Unchecked)))
}

// duplicateRowsError refuses a file with repeated rows; --allow-duplicate
// sends it anyway.
type duplicateRowsError struct{ batch.InvalidFileError }

func (e *duplicateRowsError) Error() string {
	return e.InvalidFileError.Error() + "\nIf every row is meant to be paid, pass --allow-duplicate."
}

// ErrorClass: rows repeated inside the file are held back as duplicates.
func (e *duplicateRowsError) ErrorClass() string { return payout.ClassDuplicate }

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
		fmt.Fprintf(s.Err, "note: %s; the summary shows what the service accepted, not final states (check later with paydash transactions)\n", termtext.Safe(err.Error()))
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

// confirm lists the rows about to be sent (and those skipped, and why)
// and asks: production needs the row count typed; elsewhere a person
// answers y. --yes skips the question, never the list. Off a terminal
// Command already required --yes.
func confirm(s *cmdutil.Streams, prep *batch.Prepared, profile string, production, yes bool) error {
	f := prep.File()
	send := prep.ToSend()
	if production {
		fmt.Fprintf(s.Err, "*** PRODUCTION profile %q: this moves real money ***\n", profile)
	}
	toSend := map[string]int64{}
	for _, pl := range send {
		toSend[pl.Row.Request.Currency] += pl.Row.Request.AmountInMinor
	}
	sends := fmt.Sprintf("this run sends %d payout(s)", len(send))
	if len(send) > 0 {
		sends += ", " + formatTotals(toSend)
	}
	fmt.Fprintf(s.Err, "Batch %s (profile %s): %d row(s); %s\n", f.Path, profile, len(f.Rows), sends)
	_ = writePlan(s.Err, prep.Plan, f.Repeats())
	if len(send) == 0 || yes {
		return nil
	}
	if !s.Interactive() {
		return cmdutil.Exit(cmdutil.ExitUsage, errors.New("no terminal to confirm on: nothing was sent. Pass --yes to send the rows listed above"))
	}
	if production {
		want := fmt.Sprint(len(send))
		ok, err := cmdutil.ConfirmTyped(s, fmt.Sprintf("PRODUCTION: type the number of payouts (%s) to send them, anything else cancels:", want), want)
		if err != nil {
			return err
		}
		if !ok {
			return cmdutil.ErrCancelled
		}
		return nil
	}
	ok, err := cmdutil.Confirm(s, fmt.Sprintf("Send these %d payout(s)?", len(send)))
	if err != nil {
		return err
	}
	if !ok {
		return cmdutil.ErrCancelled
	}
	return nil
}

// writePlan lists every row to send in full (nothing cut short: this is
// what the operator checks), then the rows not sent and why.
func writePlan(w io.Writer, plan []batch.Planned, repeats map[int]int) error {
	var b strings.Builder
	var skipped, dups, changed []batch.Planned
	for _, pl := range plan {
		switch pl.Action {
		case batch.ActionSend:
			r := pl.Row.Request
			fmt.Fprintf(&b, "  send  line %d  %s  %s  %s  ref %q\n", pl.Row.Line, api.FormatAmount(r.AmountInMinor, r.Currency), termtext.Safe(r.BeneficiaryName), termtext.Safe(r.BeneficiaryIBAN), r.BeneficiaryReference)
			if pl.Match != nil {
				fmt.Fprintf(&b, "        DUPLICATE of %s: sent anyway (--allow-duplicate)\n", pl.Match)
			}
			if pl.Before != nil {
				fmt.Fprintf(&b, "        CHANGED: already paid as %s; this is a second, new payout (--allow-duplicate)\n", pl.Before)
			}
			if line := repeats[pl.Row.Line]; line > 0 {
				fmt.Fprintf(&b, "        REPEAT of line %d of this file: a second payout (--allow-duplicate)\n", line)
			}
		case batch.ActionPrevious:
			skipped = append(skipped, pl)
		case batch.ActionDuplicate:
			dups = append(dups, pl)
		case batch.ActionChanged:
			changed = append(changed, pl)
		}
	}
	if len(skipped) > 0 {
		fmt.Fprintf(&b, "  %d row(s) already sent (found in the journal, audit record or service report): not sent again\n", len(skipped))
	}
	for _, pl := range dups {
		r := pl.Row.Request
		fmt.Fprintf(&b, "  DUPLICATE  line %d  %s  %s  %s  ref %q: matches payout %s; not sent\n", pl.Row.Line, api.FormatAmount(r.AmountInMinor, r.Currency), termtext.Safe(r.BeneficiaryName), termtext.Safe(r.BeneficiaryIBAN), r.BeneficiaryReference, pl.Match)
	}
	if len(dups) > 0 {
		b.WriteString("  (to pay a duplicate row again as a new payout, pass --allow-duplicate)\n")
	}
	for _, pl := range changed {
		r := pl.Row.Request
		fmt.Fprintf(&b, "  CHANGED  line %d  %s  %s  %s  ref %q: already paid as %s; not sent\n", pl.Row.Line, api.FormatAmount(r.AmountInMinor, r.Currency), termtext.Safe(r.BeneficiaryName), termtext.Safe(r.BeneficiaryIBAN), r.BeneficiaryReference, pl.Before)
	}
	if len(changed) > 0 {
		b.WriteString("  " + changedAdvice + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// changedAdvice is what a CHANGED row needs; tests follow it literally.
const changedAdvice = "CHANGED rows were edited after they were paid: sending one pays the payee a second time. " +
	"Check the payout already made (paydash payouts log); to pay a changed row as a second, new payout, run the same command with --allow-duplicate"

func formatTotals(t map[string]int64) string {
	return api.FormatTotals(t, " + ")
}

// unpaidAdvice is how to pay rows the service rejected or that failed:
// none of their money left (a returned payout's came back). Running this
// file again would not send them (its journal has them as done); sending
// the whole file again as a new one is safe but noisy (the rows paid are
// held as duplicates). Tests follow it literally.
const unpaidAdvice = "rejected and failed rows were not paid: to pay them, fix the cause shown and send only those rows in a new file; a row matching a payout already made is held as a duplicate, not paid twice"

// report prints the summary: JSON on stdout, or a few lines a person reads
// at a glance, with every row that needs attention; then it ends the
// command with failed (nil: success). The summary says everything, so a
// failure adds no message of its own; in JSON it is the one error shape
// of every --json failure, "error" and "exit_code" beside the summary.
func report(s *cmdutil.Streams, sum *batch.Summary, asJSON bool, failed error) error {
	if asJSON {
		out := struct {
			*batch.Summary
			Error    *cmdutil.ErrorDetail `json:"error,omitempty"`
			ExitCode int                  `json:"exit_code,omitempty"`
		}{Summary: sum}
		if failed != nil {
			j := cmdutil.NewErrorJSON(failed)
			out.Error, out.ExitCode = &j.Error, j.ExitCode
		}
		if err := cmdutil.WriteJSON(s.Out, out); err != nil {
			return err
		}
	} else if err := writeSummary(s.Out, sum); err != nil {
		return err
	}
	if failed == nil {
		return nil
	}
	if cmdutil.ExitCode(failed) == cmdutil.ExitFailure {
		return failed // an interrupted run: its cause is said once more
	}
	return cmdutil.SilentExit(cmdutil.ExitCode(failed))
}

func writeSummary(w io.Writer, sum *batch.Summary) error {
	c := sum.Counts
	var b strings.Builder
	if sum.DryRun {
		writeDryRun(&b, sum)
		_, err := io.WriteString(w, termtext.Lines(b.String()))
		return err
	}
	fmt.Fprintf(&b, "batch %s: %d payout(s), %s\n", sum.File, c.Rows, formatTotals(sum.Totals))
	fmt.Fprintf(&b, "  accepted by the service: %d", c.Accepted)
	if c.PreviousRun > 0 {
		fmt.Fprintf(&b, " (%d in an earlier run, not sent again)", c.PreviousRun)
	}
	b.WriteString("\n")
	fmt.Fprintf(&b, "  settled %d, pending %d, rejected %d, failed %d, not sent %d, duplicate (not sent) %d", c.Settled, c.Pending, c.Rejected, c.Failed, c.NotSent, c.Duplicate)
	if c.Changed > 0 {
		fmt.Fprintf(&b, ", changed (not sent) %d", c.Changed)
	}
	b.WriteString("\n")
	for _, r := range sum.Rows {
		var what string
		switch r.Result {
		case batch.ResultRejected, batch.ResultFailed:
			what = r.Result
			if r.Reason != "" {
				what += ": " + r.Reason
			} else if r.Detail != "" {
				what += ": " + r.Detail
			}
			if r.Advice != "" {
				what += " (" + r.Advice + ")"
			}
		case batch.ResultNotSent:
			what = "not sent"
			if r.Detail != "" {
				what += ": " + r.Detail
			}
			if r.Advice != "" {
				what += " (" + r.Advice + ")"
			}
		case batch.ResultDuplicate:
			what = "DUPLICATE, not sent: matches payout " + r.DuplicateOf.String()
		case batch.ResultChanged:
			what = "CHANGED, not sent: already paid as " + r.ChangedFrom.String()
		default:
			continue
		}
		fmt.Fprintf(&b, "  line %d  %s  %s  %s  %s\n", r.Line, termtext.Safe(r.Name), api.FormatAmount(r.AmountInMinor, r.Currency), termtext.Safe(r.TransactionID), termtext.Safe(what))
	}
	if c.Pending > 0 {
		if sum.Watched {
			b.WriteString("  pending payouts had no final state yet; follow each with: paydash events tail --since 0 --payout <id>\n")
		} else {
			b.WriteString("  no relay was followed, so final states are unknown; check each with: paydash events tail --since 0 --payout <id> (or paydash transactions --search <id>, which never lists a rejected one)\n")
		}
	}
	if c.Duplicate > 0 {
		b.WriteString("  duplicate rows match payouts already made and were not sent; to pay them again as new payouts, pass --allow-duplicate\n")
	}
	if c.Changed > 0 {
		b.WriteString("  " + changedAdvice + "\n")
	}
	if c.Rejected+c.Failed > 0 {
		b.WriteString("  " + unpaidAdvice + "\n")
	}
	if c.NotSent > 0 {
		b.WriteString("  run the same command again to send the rest: rows already accepted are skipped, the others keep their transaction_id\n")
	}
	fmt.Fprintf(&b, "  journal: %s\n", sum.Journal)
	if sum.AuditRecord != "" {
		fmt.Fprintf(&b, "  audit record: %s (paydash payouts log)\n", sum.AuditRecord)
	}
	// Names, references and the service's refusal texts are in it.
	_, err := io.WriteString(w, termtext.Lines(b.String()))
	return err
}

// writeDryRun tells the truth about a batch before it is sent: the rows it
// would send, each currency's total against the available balance, a
// currency with no account, and duplicates.
func writeDryRun(b *strings.Builder, sum *batch.Summary) {
	c := sum.Counts
	verdict := "can be paid in full"
	switch {
	case sum.Unchecked != "":
		verdict = "the file is valid, but " + sum.Unchecked
	case !sum.Funded():
		verdict = "can NOT be paid in full"
	case !sum.Payable():
		// Funds suffice; rows are held back because they repeat or
		// change payouts already made, and that is what needs a look.
		var held []string
		if c.Duplicate > 0 {
			held = append(held, fmt.Sprintf("%d DUPLICATE", c.Duplicate))
		}
		if c.Changed > 0 {
			held = append(held, fmt.Sprintf("%d CHANGED", c.Changed))
		}
		verdict = "funds suffice, but " + strings.Join(held, " and ") + " row(s) would NOT be sent (see below)"
	}
	fmt.Fprintf(b, "dry run: %s: %d row(s), %s; %s\n", sum.File, c.Rows, formatTotals(sum.Totals), verdict)
	for _, r := range sum.Rows {
		if r.PreviousRun {
			// What a re-run skips is listed too: after a lost answer or a
			// kill, which rows went is what the operator needs to know.
			fmt.Fprintf(b, "  would skip  line %d  %s  %s  %s  ref %q: sent in an earlier run as %s\n", r.Line, api.FormatAmount(r.AmountInMinor, r.Currency), termtext.Safe(r.Name), termtext.Safe(r.IBAN), r.Reference, termtext.Safe(r.TransactionID))
			continue
		}
		switch r.Result {
		case batch.ResultWouldPay:
			fmt.Fprintf(b, "  would send  line %d  %s  %s  %s  ref %q\n", r.Line, api.FormatAmount(r.AmountInMinor, r.Currency), termtext.Safe(r.Name), termtext.Safe(r.IBAN), r.Reference)
			switch r.Sent {
			case payout.OutcomeUnknown:
				fmt.Fprintf(b, "              sent before, no answer: the service does not hold it, so it goes again under the same id %s (never paid twice)\n", r.TransactionID)
			case payout.OutcomeRefused:
				fmt.Fprintf(b, "              refused before (%s): sent again under the same id %s\n", refusalShort(r), r.TransactionID)
			}
			if r.ChangedFrom != nil {
				fmt.Fprintf(b, "              CHANGED: already paid as %s; would be a second payout (--allow-duplicate)\n", r.ChangedFrom)
			}
			if r.DuplicateOf != nil {
				fmt.Fprintf(b, "              DUPLICATE of %s; would be a second payout (--allow-duplicate)\n", r.DuplicateOf)
			}
			if r.RepeatOf > 0 {
				fmt.Fprintf(b, "              REPEAT of line %d of this file; would be a second payout (--allow-duplicate)\n", r.RepeatOf)
			}
		case batch.ResultDuplicate:
			fmt.Fprintf(b, "  DUPLICATE   line %d  %s  %s  %s  ref %q: matches payout %s\n", r.Line, api.FormatAmount(r.AmountInMinor, r.Currency), termtext.Safe(r.Name), termtext.Safe(r.IBAN), r.Reference, r.DuplicateOf)
		case batch.ResultChanged:
			fmt.Fprintf(b, "  CHANGED     line %d  %s  %s  %s  ref %q: already paid as %s\n", r.Line, api.FormatAmount(r.AmountInMinor, r.Currency), termtext.Safe(r.Name), termtext.Safe(r.IBAN), r.Reference, r.ChangedFrom)
		}
	}
	writeFunds(b, sum.Funds)
	fmt.Fprintf(b, "  would send %d", c.WouldSend)
	if c.PreviousRun > 0 {
		fmt.Fprintf(b, "; %d already sent (journal %s) would be skipped", c.PreviousRun, sum.Journal)
	}
	if c.Duplicate > 0 {
		fmt.Fprintf(b, "; %d duplicate(s) would not be sent without --allow-duplicate", c.Duplicate)
	}
	if c.Changed > 0 {
		fmt.Fprintf(b, "; %d CHANGED row(s) would not be sent without --allow-duplicate", c.Changed)
	}
	b.WriteString("\n")
	if c.Changed > 0 {
		b.WriteString("  " + changedAdvice + "\n")
	}
	b.WriteString("  nothing was sent\n")
}

// refusalShort is the HTTP status of an earlier refusal, for the dry run.
func refusalShort(r batch.RowResult) string {
	if r.HTTPStatus != 0 {
		return fmt.Sprintf("HTTP %d", r.HTTPStatus)
	}
	return "by the service"
}

// writeFunds writes one line per currency: what the rows to send add up
// to against the account's available balance, or why it cannot pay.
func writeFunds(b *strings.Builder, funds []batch.FundsCheck) {
	for _, f := range funds {
		switch {
		case !f.Account:
			fmt.Fprintf(b, "  %s: %s to send, but the profile has NO %s payout account\n", f.Currency, api.FormatAmount(f.ToSendInMinor, f.Currency), f.Currency)
		case f.Status == api.AccountDisabled:
			fmt.Fprintf(b, "  %s: %s to send, but the %s account is disabled\n", f.Currency, api.FormatAmount(f.ToSendInMinor, f.Currency), f.Currency)
		case !f.OK:
			fmt.Fprintf(b, "  %s: %s to send EXCEEDS the available %s (short by %s)\n", f.Currency, api.FormatAmount(f.ToSendInMinor, f.Currency),
				api.FormatAmount(f.AvailableInMinor, f.Currency), api.FormatAmount(f.ToSendInMinor-f.AvailableInMinor, f.Currency))
		default:
			fmt.Fprintf(b, "  %s: %s to send, %s available\n", f.Currency, api.FormatAmount(f.ToSendInMinor, f.Currency), api.FormatAmount(f.AvailableInMinor, f.Currency))
		}
	}
}
