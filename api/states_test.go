package api

import "testing"

// TestStateOrderAndFinality: a later state outranks an earlier one, so a
// replayed webhook never moves a payout back; a return after execution
// (failed) outranks it; the four final states are final and only settled
// and executed paid.
func TestStateOrderAndFinality(t *testing.T) {
	order := []string{"", StateAuthorised, StateSubmitted, StateSettled, StateFailed}
	for i := 1; i < len(order); i++ {
		if !Later(order[i], order[i-1]) || Later(order[i-1], order[i]) {
			t.Errorf("%q should come after %q", order[i], order[i-1])
		}
	}
	if !Later(StateFailed, StateExecuted) {
		t.Error("a return (failed) after executed is hidden")
	}
	for _, s := range PayoutStates {
		final := s == StateSettled || s == StateExecuted || s == StateRejected || s == StateFailed
		if IsFinalState(s) != final {
			t.Errorf("IsFinalState(%q) = %v", s, !final)
		}
		if StatePaid(s) != (s == StateSettled || s == StateExecuted) || StateUnpaid(s) != (s == StateRejected || s == StateFailed) {
			t.Errorf("%q: paid %v unpaid %v", s, StatePaid(s), StateUnpaid(s))
		}
	}
	if IsFinalState("sent") || IsFinalState("") || StateRank("bogus") != 0 {
		t.Error("a non-state is ranked or final")
	}
}
