package sandbox

// A live payout's money moves the same way whether the sandbox's own
// clock advances it (advance) or a developer triggers its event (move):
// defined once here. The caller holds the ledger's mu.

// settlePayout marks t settled at now: the reservation made at authorisation
// becomes the debit of the account's current balance.
func settlePayout(t *txn, a *account, now int64) {
	t.status, t.settled = stSettled, now
	a.current -= t.amount
}

// failPayout marks t failed: the reservation is released, so the amount is
// available again (a return after submission brings the money back).
func failPayout(t *txn, a *account) {
	t.status = stFailed
	a.available += t.amount
}
