package approvals

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/cli/cmdutil"
	"github.com/paydash/paydash/internal/platform/termtext"
	"github.com/paydash/paydash/webhookrelay/hub/hubapi"
	"github.com/paydash/paydash/webhookrelay/hub/hubclient"
)

// ViaHubResult is what `payout create --json` prints on a
// payouts_via_relay profile.
type ViaHubResult struct {
	// Status is awaiting_approval, or the request's status (sent,
	// refused, unknown, and with --wait rejected or lapsed).
	Status          string   `json:"status"`
	ApprovalID      string   `json:"approval_id"`
	TransactionID   string   `json:"transaction_id"`
	Accepted        bool     `json:"accepted"`
	PayoutState     string   `json:"payout_state,omitempty"`
	Approvers       []string `json:"approvers,omitempty"`
	ApprovalsNeeded int      `json:"approvals_needed,omitempty"`
	Reason          string   `json:"reason,omitempty"`
	Detail          string   `json:"detail,omitempty"`
}

// ViaHubOptions are payout create's flags that apply through the hub.
type ViaHubOptions struct {
	Yes, JSON, AllowDuplicate bool
	// Wait follows a request awaiting approval up to this long.
	Wait time.Duration
}

// waitPoll is how often --wait asks the hub about a request.
const waitPoll = time.Second

// CreateViaHub is `payout create` on a payouts_via_relay profile: the
// payout goes to the hub, which checks it with the pipeline, applies the
// policy and sends it with its own key, at once or after approval. Exit
// 0 sent, 5 awaiting approval, 3 refused (or, with --wait, rejected or
// lapsed), 1 unknown.
func CreateViaHub(ctx context.Context, s *cmdutil.Streams, hc *hubclient.Client, profile string, req *api.PayoutRequest, usage []string, o ViaHubOptions) error {
	if len(usage) > 0 {
		return cmdutil.Exit(cmdutil.ExitUsage, errors.New("payout: "+strings.Join(usage, "; ")))
	}
	if probs := api.ValidatePayout(req); len(probs) > 0 {
		return cmdutil.Exit(cmdutil.ExitUsage, fmt.Errorf("payout: %w; nothing was sent", probs))
	}
	if !o.Yes {
		if !s.Interactive() {
			return cmdutil.Exit(cmdutil.ExitUsage, fmt.Errorf("no terminal to confirm on: nothing was sent. Pass --yes to send this payout through the hub (profile %q)", profile))
		}
		ok, err := cmdutil.Confirm(s, fmt.Sprintf("Send %s to %s (%s), ref %q, through the team's hub?",
			api.FormatAmount(req.AmountInMinor, req.Currency), termtext.Safe(req.BeneficiaryName), req.BeneficiaryIBAN, termtext.Safe(req.BeneficiaryReference)))
		if err != nil {
			return err
		}
		if !ok {
			return cmdutil.Exit(cmdutil.ExitCancelled, errors.New("nothing was sent"))
		}
	}
	res, err := hc.Submit(ctx, hubapi.Submission{PayoutRequest: *req, AllowDuplicate: o.AllowDuplicate})
	if err != nil {
		return hubError(err)
	}
	r := res.Request
	if o.Wait > 0 && (res.Status == hubapi.StatusAwaitingApproval || waiting(r)) {
		if !o.JSON && res.Status == hubapi.StatusAwaitingApproval {
			fmt.Fprintf(s.Err, "%s awaits approval (%s); waiting up to %s.\n", res.ApprovalID, termtext.Safe(res.Reason), o.Wait)
		}
		if r, err = waitFinal(ctx, hc, res.ApprovalID, o.Wait); err != nil {
			return err
		}
		res.Status = r.Status
		if r.Status == hubapi.StatusPending {
			res.Status = hubapi.StatusAwaitingApproval
		}
	}
	out := ViaHubResult{Status: res.Status, ApprovalID: res.ApprovalID, TransactionID: r.TransactionID, Accepted: r.Status == hubapi.StatusSent,
		PayoutState: r.PayoutState, Reason: res.Reason, Detail: r.Detail}
	if r.Status == hubapi.StatusRejected {
		out.Detail = "rejected by " + r.RejectedBy + ": " + r.Reason
	}
	if res.Status == hubapi.StatusAwaitingApproval {
		out.Approvers, out.ApprovalsNeeded = res.Approvers, res.ApprovalsNeeded
	}
	if o.JSON {
		if err := cmdutil.WriteJSON(s.Out, out); err != nil {
			return err
		}
	} else {
		writeOutcome(s, out)
	}
	switch out.Status {
	case hubapi.StatusSent:
		switch {
		case o.Wait <= 0, api.StateRank(r.PayoutState) == api.StateRank(api.StateSettled):
			return nil
		case api.IsFinalState(r.PayoutState):
			return cmdutil.SilentExit(cmdutil.ExitNotAccepted) // rejected or failed
		}
		return cmdutil.SilentExit(cmdutil.ExitFailure) // no final state seen in time
	case hubapi.StatusAwaitingApproval, hubapi.StatusPending:
		return cmdutil.SilentExit(cmdutil.ExitAwaitingApproval)
	case hubapi.StatusRefused, hubapi.StatusRejected, hubapi.StatusLapsed:
		return cmdutil.SilentExit(cmdutil.ExitNotAccepted)
	}
	return cmdutil.SilentExit(cmdutil.ExitFailure)
}

func writeOutcome(s *cmdutil.Streams, r ViaHubResult) {
	switch r.Status {
	case hubapi.StatusAwaitingApproval, hubapi.StatusPending:
		who := "nobody yet: ask an administrator to add an approver"
		if len(r.Approvers) > 0 {
			who = strings.Join(r.Approvers, ", ")
		}
		fmt.Fprintf(s.Out, "Awaiting approval: %s (%s). Nothing is sent until %d of %s approve.\n", r.ApprovalID, termtext.Safe(r.Reason), max(r.ApprovalsNeeded, 1), who)
		fmt.Fprintf(s.Out, "Transaction id %s is fixed: follow it with paydash approvals show %s\n", r.TransactionID, r.ApprovalID)
	case hubapi.StatusSent:
		fmt.Fprintf(s.Out, "Sent through the hub: transaction id %s, %s (%s).\n", r.TransactionID, r.PayoutState, r.ApprovalID)
	case hubapi.StatusRefused:
		fmt.Fprintf(s.Out, "Not sent: %s. Nothing was paid (%s).\n", termtext.Safe(r.Detail), r.ApprovalID)
	case hubapi.StatusRejected:
		fmt.Fprintf(s.Out, "Rejected: %s. Nothing was paid (%s).\n", termtext.Safe(r.Detail), r.ApprovalID)
	case hubapi.StatusLapsed:
		fmt.Fprintf(s.Out, "Lapsed unapproved; nothing was paid (%s). Request it again if it is still due.\n", r.ApprovalID)
	default:
		fmt.Fprintf(s.Out, "%s is %s: %s. At its next start the hub looks it up by transaction id %s and sends it again under that id only if the service does not hold it.\n",
			r.ApprovalID, r.Status, termtext.Safe(r.Detail), r.TransactionID)
	}
}

// waiting says whether --wait still has something to wait for: a
// request not yet decided or sent, or sent without a final state yet.
func waiting(r hubapi.Request) bool {
	return r.Open() || r.Status == hubapi.StatusSent && !api.IsFinalState(r.PayoutState)
}

// waitFinal follows a request through approval and sending to the
// payout's final state, or until d passes (then it is returned as it
// stands).
func waitFinal(ctx context.Context, hc *hubclient.Client, id string, d time.Duration) (hubapi.Request, error) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	t := time.NewTicker(waitPoll)
	defer t.Stop()
	var last hubapi.Request
	for {
		r, err := hc.Get(ctx, id)
		if err == nil {
			last = r
			if !waiting(r) {
				return r, nil
			}
		} else if ctx.Err() == nil {
			return last, hubError(err)
		}
		select {
		case <-ctx.Done():
			if last.ID == "" {
				return last, fmt.Errorf("--wait: the hub did not answer about %s in time: %w", id, ctx.Err())
			}
			return last, nil
		case <-t.C:
		}
	}
}
