package payout

import (
	"path/filepath"
	"testing"

	"github.com/paydash/paydash/api"
)

// The dashboard passes on every payout that finishes; the record takes
// the final state of its own payouts once, ignores other operators'
// payouts, and sees payouts another process appended meanwhile.
func TestFinalOutcomeOnlyForOwnOpenPayouts(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	dash, err := Open(path, "p", nil)
	if err != nil {
		t.Fatal(err)
	}
	other, err := Open(path, "p", nil) // another paydash on the profile
	if err != nil {
		t.Fatal(err)
	}
	if wrote, err := dash.FinalOutcome("someone-elses", api.StateSettled, ""); err != nil || wrote {
		t.Fatalf("FinalOutcome of a payout the record lacks = %v, %v; want nothing written", wrote, err)
	}
	e := Entry{TransactionID: "mine", Name: "Ada", IBAN: "GB33BUKB20201555555555", AmountInMinor: 100, Currency: "GBP"}
	if _, err := other.Reserve(t.Context(), e, 0, true); err != nil {
		t.Fatal(err)
	}
	if err := other.Outcome("mine", OutcomeAccepted, ""); err != nil {
		t.Fatal(err)
	}
	for i, want := range []bool{true, false} {
		wrote, err := dash.FinalOutcome("mine", api.StateRejected, "insufficient funds")
		if err != nil || wrote != want {
			t.Fatalf("FinalOutcome #%d = %v, %v; want %v", i+1, wrote, err, want)
		}
	}
	entries, err := other.Entries()
	if err != nil {
		t.Fatal(err)
	}
	var finals int
	for _, e := range entries {
		if e.TransactionID == "mine" && e.Outcome == api.StateRejected {
			finals++
		}
		if e.TransactionID == "someone-elses" {
			t.Fatalf("the record has a line for another operator's payout: %+v", e)
		}
	}
	if finals != 1 {
		t.Fatalf("%d rejected lines for the payout, want 1:\n%+v", finals, entries)
	}
}

// Attempted answers from the latest attempt of each id, including one
// appended by another process after the first read.
func TestAttemptedIsTheLatestAttempt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	dash, err := Open(path, "p", nil)
	if err != nil {
		t.Fatal(err)
	}
	other, err := Open(path, "p", nil)
	if err != nil {
		t.Fatal(err)
	}
	reserve := func(id, name string) {
		t.Helper()
		e := Entry{TransactionID: id, Name: name, IBAN: "GB33BUKB20201555555555", AmountInMinor: 100, Currency: "GBP"}
		if _, err := other.Reserve(t.Context(), e, 0, true); err != nil {
			t.Fatal(err)
		}
	}
	reserve("a", "Ada")
	if got, err := dash.Attempted(map[string]bool{"a": true, "b": true}); err != nil || len(got) != 1 || got["a"].BeneficiaryName != "Ada" {
		t.Fatalf("Attempted = %+v, %v; want only a (Ada)", got, err)
	}
	reserve("a", "Ada Lovelace") // a resumed batch sends the same id again
	reserve("b", "Bea")
	got, err := dash.Attempted(map[string]bool{"a": true, "b": true})
	if err != nil || len(got) != 2 || got["a"].BeneficiaryName != "Ada Lovelace" || got["b"].BeneficiaryName != "Bea" {
		t.Fatalf("Attempted = %+v, %v; want a as Ada Lovelace and b as Bea", got, err)
	}
}
