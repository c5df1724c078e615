package api

// Payout states, their order and which of them are final: defined here
// once, for every view and command (the tracker, the batch's watcher,
// payout create --wait, the audit record). A late or replayed webhook
// never moves a payout back, because each reader keeps the state of the
// higher rank.

// StateRank orders payout states: authorised 1, submitted 2, settled or
// executed 3, rejected or failed 4, anything else (not a payout state,
// or none yet) 0. Failed ranks above settled because a payout can be
// returned after it was executed (payout_failed, reason returned): that
// news must not be hidden by the earlier success.
func StateRank(state string) int {
	switch state {
	case StateAuthorised:
		return 1
	case StateSubmitted:
		return 2
	case StateSettled, StateExecuted:
		return 3
	case StateRejected, StateFailed:
		return 4
	}
	return 0
}

// PayoutStates lists the payout states in StateRank order.
var PayoutStates = []string{StateAuthorised, StateSubmitted, StateSettled, StateExecuted, StateRejected, StateFailed}

// IsFinalState reports whether a payout in this state will not change
// again on its own: settled, executed, rejected or failed.
func IsFinalState(state string) bool { return StateRank(state) >= 3 }

// StatePaid reports whether a payout in this final state paid its payee
// (settled or executed). Rejected and failed ones moved no money, or it
// came back.
func StatePaid(state string) bool { return StateRank(state) == 3 }

// Later reports whether state next should replace cur: it ranks higher,
// or cur is not a payout state.
func Later(next, cur string) bool { return StateRank(next) > StateRank(cur) }

// StateUnpaid reports whether a payout in this final state paid nobody
// (rejected, or failed: the money never left or came back).
func StateUnpaid(state string) bool { return StateRank(state) == 4 }
