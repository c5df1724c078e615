// Package batch is the command `paydash payout batch FILE`: its flags,
// the list of rows the operator confirms, the progress bar, following the
// relay, the summary (text or --json) and the exit codes. What the batch
// does (the file, the journal, the plan, each row through the payout
// pipeline) is package internal/payout/batch; in team mode the file goes
// to the hub instead (package approvals).
package batch
