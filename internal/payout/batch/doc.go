// Package batch sends a CSV file of payouts so that no row is ever paid
// twice, even when the run is killed half-way and started again.
//
// The file is checked whole before anything is sent: every bad row is
// reported with its line number and the file is refused if any row is bad.
// A journal (JSON lines, appended and fsynced) then fixes every row's
// transaction_id before the first payout is sent and records each row's
// outcome as it goes. A re-run reads the journal, skips the rows the
// service accepted, and re-sends the others with the same transaction_id;
// the service treats a repeated transaction_id as the same payout (202,
// nothing new created), so even a row whose answer was lost in the crash
// is paid once.
//
// Every row is planned first, over one read of the profile's audit
// record and the service's report (already sent, a duplicate, an edited
// row, or to send), so the operator confirms the whole list. Each row to
// send then goes through the payout pipeline's Run (package payout), as
// the form's and payout create's payouts do: Run reserves it in the
// audit record, sends it, classifies the answer and records it; the
// batch hands Run the row's plan (Hooks.Check) and writes the classified
// answer to its journal before Run records it (Hooks.Answered).
//
// What it owns: the file's format (File, Load, Parse), the journal
// (Journal), the plan and the run (Prepare, Prepared.Send, Run), and
// following the rows' webhooks to their final states. It may import api,
// internal/payout, internal/platform and the relay client
// (webhookrelay/relayclient); never cobra nor internal/cli: the command
// `paydash payout batch` (internal/cli/batch) asks, prints and maps
// errors to exit codes around it.
package batch
