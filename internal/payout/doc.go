// Package payout owns the whole path of one payout, so that the
// never-pay-twice rule lives in one place for every caller: the
// dashboard's form, `payout create`, `payout batch` and the approvals
// hub. They differ only in how they ask the operator and show progress.
//
// A Pipeline (an api client, the profile's audit record, the relay's
// history, a clock) runs a payout through these stages, in order:
//
//  1. Validate: api.ValidatePayout; an *InvalidError stops it.
//  2. Check: the audit record and the service's report. A transaction id
//     already used for another payout is refused (*IDUsedError: the
//     service would answer 202 and create nothing); a payout matching
//     one made within the window is held (*DuplicateError) unless the
//     operator allowed it; an account that is missing, disabled or short
//     of funds stops it (*AccountError, *FundsError). Nothing is written.
//  3. Reserve: the attempt is appended to the audit record (fsynced,
//     under the record's OS lock, checking once more for a payout sent
//     meanwhile by another paydash) before anything leaves.
//  4. Send: one POST under the payout's fixed transaction id.
//  5. Classify: the answer becomes accepted, refused (nothing was
//     created: correct it and send anew) or unknown (it may have been
//     created: re-send only under the same id). One function, Classify,
//     reading the status and the problem's type.
//  6. Record: the outcome is appended to the audit record.
//  7. Follow: to a final state, from the relay when one answers, else the
//     service's report (Pipeline.Follow); the final state is recorded.
//
// Run does all of them, calling back (Hooks) to ask the operator, to
// show progress and, for a batch (package batch below this one), to take
// each row's plan and journal its answer; a caller that asks on its own
// schedule calls the stages one by one. Every error that stops a payout implements Classed
// (ErrorClass: refused, unknown, funds, duplicate, no_account, invalid)
// and, when it is about one field, ErrorField. A caller such as the
// approvals hub sends an approved payout with:
//
//	pl := payout.New(client, auditLog, payout.SourceHub)
//	res, err := pl.Run(ctx, req, payout.Options{}, payout.Hooks{
//		Confirm: func(ctx context.Context, c *payout.Checked) error { return nil }, // already approved
//	})
//	// err: *payout.DuplicateError, *payout.FundsError, ... (nothing sent),
//	// or *payout.SendError (res.Answer: refused or unknown; Advice says what it means).
//
// The audit record is a local, append-only JSON-lines file per profile.
// It is written before a payout is sent (an "attempt" line, fsynced) and
// again when its outcome is known (an "outcome" line), so even a process
// killed between the two leaves a trace that a later run finds. Lines
// are appended under an OS file lock, so two paydash processes of one
// profile (two terminals, a batch and the dashboard) see each other's
// payouts before sending their own.
//
// Payout states, their order and finality are api's (api.StateRank,
// api.IsFinalState).
//
// It may import api, internal/platform leaves and relayclient (to follow
// a payout from the relay's events); never ui, config, a command or a
// server, since the hub's server imports it in turn.
package payout
