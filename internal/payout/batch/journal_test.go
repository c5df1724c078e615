package batch

import (
	"errors"
	"github.com/paydash/paydash/internal/payout"
	"os"
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

func TestJournalFixesIDsBeforeSending(t *testing.T) {
	f, path := writeBatch(t, 5)
	jp := DefaultJournalPath(path)
	j, err := OpenJournal(jp, f, t0, nil)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, r := range f.Rows {
		id := j.TransactionID(r.Line)
		if id == "" || ids[id] {
			t.Fatalf("line %d: id %q missing or repeated", r.Line, id)
		}
		ids[id] = true
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(jp)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("journal mode = %v, want 0600 (it names beneficiaries)", st.Mode().Perm())
	}
	again, err := OpenJournal(jp, f, t0.Add(time.Hour), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	for _, r := range f.Rows {
		if !ids[again.TransactionID(r.Line)] {
			t.Errorf("line %d got a new id on reopen", r.Line)
		}
	}
}

func TestJournalSurvivesTornWriteAndRefusesDamage(t *testing.T) {
	tests := []struct {
		name    string
		mangle  func(b []byte) []byte
		wantErr string
		// wantAccepted is how many accepted rows survive.
		wantAccepted int
	}{
		{name: "intact", mangle: func(b []byte) []byte { return b }, wantAccepted: 2},
		{name: "half a line at the end", mangle: func(b []byte) []byte { return append(b, `{"kind":"sent","line":4,"outc`...) }, wantAccepted: 2},
		{name: "garbage last line with newline", mangle: func(b []byte) []byte { return append(b, "{\"kind\n"...) }, wantAccepted: 2},
		{name: "damaged middle line", mangle: func(b []byte) []byte {
			lines := strings.SplitAfter(string(b), "\n")
			lines[2] = "#### not json\n"
			return []byte(strings.Join(lines, ""))
		}, wantErr: "damaged"},
		{name: "no header", mangle: func([]byte) []byte { return nil }, wantErr: "no header"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, path := writeBatch(t, 3)
			jp := DefaultJournalPath(path)
			j, err := OpenJournal(jp, f, t0, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, line := range []int{2, 3} {
				if err := j.RecordSent(line, Sent{Outcome: payout.OutcomeAccepted, At: t0}); err != nil {
					t.Fatal(err)
				}
			}
			j.Close()
			b, _ := os.ReadFile(jp)
			if err := os.WriteFile(jp, tc.mangle(b), 0o600); err != nil {
				t.Fatal(err)
			}
			j, err = OpenJournal(jp, f, t0, nil)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			n := len(accepted(f, j))
			// Appending after a repaired tear must give a readable journal.
			if err := j.RecordSent(4, Sent{Outcome: payout.OutcomeRefused, HTTPStatus: 400, At: t0}); err != nil {
				t.Fatal(err)
			}
			j.Close()
			if n != tc.wantAccepted {
				t.Errorf("accepted rows = %d, want %d", n, tc.wantAccepted)
			}
			j, err = ReadJournal(jp, f)
			if err != nil {
				t.Fatalf("journal unreadable after append: %v", err)
			}
			if s, ok := j.LastSent(4); !ok || s.Outcome != payout.OutcomeRefused {
				t.Errorf("line 4 = %+v, %v", s, ok)
			}
		})
	}
}

func TestJournalRefusesChangedFile(t *testing.T) {
	f, path := writeBatch(t, 2)
	jp := DefaultJournalPath(path)
	j, err := OpenJournal(jp, f, t0, nil)
	if err != nil {
		t.Fatal(err)
	}
	j.RecordSent(2, Sent{Outcome: payout.OutcomeAccepted, At: t0})
	j.Close()
	edited := "name,iban,reference,amount,currency\nPerson 0,GB82WEST12345698765432,inv-0,9.99,GBP\n"
	if err := os.WriteFile(path, []byte(edited), 0o600); err != nil {
		t.Fatal(err)
	}
	f2, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = OpenJournal(jp, f2, t0, nil)
	if !errors.Is(err, ErrJournalMismatch) || !strings.Contains(err.Error(), "1 payout(s) accepted") {
		t.Fatalf("err = %v", err)
	}
}

// A journal of another version (a newer paydash started the batch) is
// refused before anything is sent, saying which paydash can finish it.
func TestJournalOfAnotherVersionIsRefused(t *testing.T) {
	f, path := writeBatch(t, 2)
	jp := DefaultJournalPath(path)
	j, err := OpenJournal(jp, f, t0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(jp)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"v":1`) {
		t.Fatalf("the journal does not name its version:\n%s", b)
	}
	if err := os.WriteFile(jp, []byte(strings.Replace(string(b), `"v":1`, `"v":2`, 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = OpenJournal(jp, f, t0.Add(time.Hour), nil)
	if err == nil || !strings.Contains(err.Error(), "has version 2") || !strings.Contains(err.Error(), "paydash that started it") {
		t.Fatalf("OpenJournal = %v, want a refusal naming version 2 and what to do", err)
	}
}
