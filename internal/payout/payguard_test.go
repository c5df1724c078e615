package payout

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paydash/paydash/api"
)

func entry(id, ref string, amount int64) Entry {
	return Entry{Source: SourceCreate, TransactionID: id, Name: "Ada", IBAN: "GB33 BUKB 2020 1555 5555 55", Reference: ref, AmountInMinor: amount, Currency: "GBP"}
}

func TestReserveLetsOnlyOneOfManyWritersSendTheSamePayout(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	// Each writer opens the record on its own, as separate paydash
	// processes do; the OS lock is what orders them.
	var wg sync.WaitGroup
	var mu sync.Mutex
	sent := 0
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l, err := Open(path, "p", nil)
			if err != nil {
				t.Error(err)
				return
			}
			m, err := l.Reserve(context.Background(), entry(fmt.Sprintf("id-%d", i), "INV-1", 1000), DefaultWindow, false)
			if err != nil {
				t.Error(err)
				return
			}
			if len(m) == 0 {
				mu.Lock()
				sent++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if sent != 1 {
		t.Fatalf("%d writers were cleared to send the same payout, want 1", sent)
	}
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("record mode %v (%v), want 0600", st.Mode().Perm(), err)
	}
}

func TestMatchingRulesAndWindow(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	ps := []Payment{
		{TransactionID: "a", At: now.Add(-time.Hour), IBAN: "GB33BUKB20201555555555", Reference: "INV-1", AmountInMinor: 1000, Currency: "GBP"},
		{TransactionID: "old", At: now.Add(-8 * 24 * time.Hour), IBAN: "GB33BUKB20201555555555", Reference: "INV-1", AmountInMinor: 1000, Currency: "GBP"},
		{TransactionID: "refused", At: now, IBAN: "GB33BUKB20201555555555", Reference: "INV-1", AmountInMinor: 1000, Currency: "GBP", Outcome: OutcomeRefused},
		{TransactionID: "returned", At: now, IBAN: "GB33BUKB20201555555555", Reference: "INV-1", AmountInMinor: 1000, Currency: "GBP", Outcome: OutcomeFailed, Where: FromReport},
		{TransactionID: "other-amount", At: now, IBAN: "GB33BUKB20201555555555", Reference: "INV-1", AmountInMinor: 1001, Currency: "GBP"},
	}
	req := &api.PayoutRequest{TransactionID: "new", BeneficiaryIBAN: "gb33 bukb 2020 1555 5555 55", BeneficiaryReference: " inv-1 ", AmountInMinor: 1000, Currency: "gbp"}
	m := Matching(ps, req, now, DefaultWindow)
	if len(m) != 1 || m[0].TransactionID != "a" {
		t.Fatalf("matches %+v, want only a (old is outside the window, refused and returned paid nothing, other-amount differs)", m)
	}
	if m := Matching(ps, req, now, 30*24*time.Hour); len(m) != 2 {
		t.Errorf("a 30-day window should find the 8-day-old payout too: %+v", m)
	}
	req.TransactionID = "a"
	if m := Matching(ps[:1], req, now, DefaultWindow); len(m) != 0 {
		t.Errorf("the same transaction id is the same payout, not a duplicate: %+v", m)
	}
}

func TestRecordSurvivesATornWriteButNotDamage(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	l, _ := Open(path, "p", nil)
	if _, err := l.Reserve(context.Background(), entry("id-1", "R", 1), DefaultWindow, false); err != nil {
		t.Fatal(err)
	}
	if err := l.Outcome("id-1", OutcomeAccepted, ""); err != nil {
		t.Fatal(err)
	}
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"event":"attempt","transaction_id":"id-2","amo`) // killed mid-write
	f.Close()
	es, err := l.Entries()
	if err != nil || len(es) != 2 {
		t.Fatalf("after a torn write: %d entries, %v", len(es), err)
	}
	a := Attempts(es)
	if len(a) != 1 || a[0].Outcome != OutcomeAccepted || a[0].Profile != "p" {
		t.Fatalf("attempts %+v", a)
	}
	// The next write cuts the torn line instead of gluing onto it.
	if err := l.Outcome("id-1", OutcomeSettled, ""); err != nil {
		t.Fatal(err)
	}
	if es, err := l.Entries(); err != nil || len(es) != 3 || es[2].Outcome != OutcomeSettled {
		t.Fatalf("after writing past a torn line: %d entries, %v", len(es), err)
	}
	b, _ := os.ReadFile(path)
	lines := strings.SplitAfter(string(b), "\n")
	os.WriteFile(path, []byte(lines[0]+"{damaged\n"+lines[1]), 0o600)
	if _, err := l.Entries(); err == nil || !strings.Contains(err.Error(), "line 2 is damaged") {
		t.Fatalf("damage in the middle: %v", err)
	}
}

func TestTryLockNamesTheHolder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j.lock")
	a, err := TryLock(path, "payout batch x.csv")
	if err != nil {
		t.Fatal(err)
	}
	_, err = TryLock(path, "second")
	var le *LockedError
	if !errors.As(err, &le) || le.Holder == nil || le.Holder.PID != os.Getpid() || !strings.Contains(err.Error(), "payout batch x.csv") {
		t.Fatalf("second lock: %v", err)
	}
	a.Unlock()
	b, err := TryLock(path, "third")
	if err != nil {
		t.Fatalf("after unlock: %v", err)
	}
	b.Unlock()
}

// Recorded gives the payouts the record holds among the ids asked for,
// as the latest attempt sent them, and nothing for ids it does not hold.
func TestPipelineRecorded(t *testing.T) {
	l, err := Open(filepath.Join(t.TempDir(), "audit.jsonl"), "p", nil)
	if err != nil {
		t.Fatal(err)
	}
	g := &Pipeline{Log: l, Source: SourceForm}
	for _, r := range []*api.PayoutRequest{
		{TransactionID: "a", BeneficiaryName: "Ada", BeneficiaryIBAN: "GB33BUKB20201555555555", Currency: "GBP", AmountInMinor: 100},
		{TransactionID: "b", BeneficiaryName: "Bea", BeneficiaryIBAN: "GB33BUKB20201555555555", Currency: "EUR", AmountInMinor: 250},
	} {
		if err := g.Reserve(t.Context(), r, Options{AllowDuplicate: true}, nil); err != nil {
			t.Fatal(err)
		}
	}
	got, err := g.Recorded(map[string]bool{"b": true, "zzz": true})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got["b"].BeneficiaryName != "Bea" || got["b"].AmountInMinor != 250 || got["b"].Currency != "EUR" {
		t.Fatalf("Recorded = %+v, want only b (Bea, 2.50 EUR)", got)
	}
}
