package approvals

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/config"
	"github.com/paydash/paydash/internal/cli/cmdutil"
	"github.com/paydash/paydash/internal/platform/termtext"
	"github.com/paydash/paydash/webhookrelay/hub/hubapi"
)

// BatchInput is a checked batch file, as `payout batch` read it.
type BatchInput struct {
	File   string
	SHA256 string
	Rows   []hubapi.BatchRow
}

// SubmitBatch is `payout batch` on a payouts_via_relay profile: the file
// goes to the hub as one request, approved or rejected whole. Exit 0 all
// sent, 5 awaiting approval, 3 some or all not sent, 1 unknown.
func SubmitBatch(ctx context.Context, s *cmdutil.Streams, p *config.Profile, in BatchInput, o ViaHubOptions) error {
	hc, err := (&Conn{}).Client(p)
	if err != nil {
		return err
	}
	if !o.Yes {
		if !s.Interactive() {
			return cmdutil.Exit(cmdutil.ExitUsage, errors.New("no terminal to confirm on: nothing was sent. Pass --yes to send the batch through the hub"))
		}
		totals := map[string]int64{}
		for _, r := range in.Rows {
			totals[r.Currency] += r.AmountInMinor
		}
		ok, err := cmdutil.Confirm(s, fmt.Sprintf("Send %d payouts (%s) from %s through the team's hub?", len(in.Rows), totalsLine(totals), termtext.Safe(in.File)))
		if err != nil {
			return err
		}
		if !ok {
			return cmdutil.Exit(cmdutil.ExitCancelled, errors.New("nothing was sent"))
		}
	}
	res, err := hc.SubmitBatch(ctx, hubapi.BatchSubmission{File: in.File, SHA256: in.SHA256, Rows: in.Rows, AllowDuplicate: o.AllowDuplicate})
	if err != nil {
		return hubError(err)
	}
	if o.Wait > 0 && (res.Status == hubapi.StatusAwaitingApproval || res.Status == hubapi.StatusSending) {
		if !o.JSON {
			fmt.Fprintf(s.Err, "batch %s is %s; waiting up to %s.\n", res.BatchID, res.Status, o.Wait)
		}
		if res, err = waitBatch(ctx, hc, res, o.Wait); err != nil {
			return err
		}
	}
	if o.JSON {
		if err := cmdutil.WriteJSON(s.Out, res); err != nil {
			return err
		}
	} else {
		writeBatch(s, res)
	}
	return batchExit(res.Status)
}

func batchExit(status string) error {
	switch status {
	case hubapi.StatusSent:
		return nil
	case hubapi.StatusAwaitingApproval:
		return cmdutil.SilentExit(cmdutil.ExitAwaitingApproval)
	case hubapi.StatusUnknown, hubapi.StatusSending:
		return cmdutil.SilentExit(cmdutil.ExitFailure)
	}
	return cmdutil.SilentExit(cmdutil.ExitNotAccepted)
}

// waitBatch follows a batch until it is decided and sent, or d passes.
func waitBatch(ctx context.Context, hc interface {
	GetBatch(context.Context, string) (hubapi.BatchResult, error)
}, res hubapi.BatchResult, d time.Duration) (hubapi.BatchResult, error) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	t := time.NewTicker(waitPoll)
	defer t.Stop()
	for res.Status == hubapi.StatusAwaitingApproval || res.Status == hubapi.StatusSending {
		select {
		case <-ctx.Done():
			return res, nil
		case <-t.C:
		}
		b, err := hc.GetBatch(ctx, res.BatchID)
		if err != nil {
			if ctx.Err() != nil {
				return res, nil
			}
			return res, hubError(err)
		}
		res = b
	}
	return res, nil
}

// totalsLine says a batch's totals, currencies in order.
func totalsLine(t map[string]int64) string {
	return api.FormatTotals(t, ", ")
}

func writeBatch(s *cmdutil.Streams, res hubapi.BatchResult) {
	file := ""
	if len(res.Rows) > 0 {
		file = termtext.Safe(res.Rows[0].BatchFile)
	}
	switch res.Status {
	case hubapi.StatusAwaitingApproval:
		who := "nobody yet: ask an administrator to add an approver"
		if len(res.Approvers) > 0 {
			who = strings.Join(res.Approvers, ", ")
		}
		fmt.Fprintf(s.Out, "Awaiting approval: batch %s, %d payouts from %s (%s); %s. Nothing is sent until %d of %s approve it whole.\n",
			res.BatchID, len(res.Rows), file, totalsLine(res.Totals), termtext.Safe(res.Reason), max(res.ApprovalsNeeded, 1), who)
		fmt.Fprintf(s.Out, "Follow it with: paydash approvals show %s\n", res.BatchID)
		return
	}
	fmt.Fprintf(s.Out, "Batch %s (%s, %s): %s.\n", res.BatchID, file, totalsLine(res.Totals), res.Status)
	if res.Status == hubapi.StatusSending {
		fmt.Fprintf(s.Out, "The hub goes on sending it, each row under its own transaction id; follow it with: paydash approvals show %s\n", res.BatchID)
	}
	rows := make([][]string, 0, len(res.Rows))
	for _, r := range res.Rows {
		rows = append(rows, []string{fmt.Sprint(r.Line), r.ID, r.Status, api.FormatAmount(r.AmountInMinor, r.Currency),
			termtext.Safe(r.BeneficiaryName), termtext.Safe(r.BeneficiaryReference), r.TransactionID, termtext.Safe(r.Detail)})
	}
	_ = cmdutil.WriteTable(s.Out, []string{"LINE", "ID", "STATUS", "AMOUNT", "PAYEE", "REFERENCE", "TRANSACTION ID", "DETAIL"}, rows, 3)
}

// isBatch says whether id names a batch (approvals show/approve/reject
// take either).
func isBatch(id string) bool { return strings.HasPrefix(id, "bat-") }
