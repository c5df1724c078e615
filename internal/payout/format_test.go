package payout

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A record written before store versions (format 1: no header) is read
// as it is, and its payouts still count as duplicates.
func TestAuditRecordOfFormat1IsRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit", "p.jsonl")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	v1 := `{"at":"2026-11-27T09:00:00Z","event":"attempt","profile":"p","source":"cli","transaction_id":"5b0f3a52-7d1e-4c7a-9a57-0d6c2b1e0001","beneficiary_name":"Ada Lovelace","beneficiary_iban":"GB33BUKB20201555555555","beneficiary_reference":"INV-1","amount_in_minor":12550,"currency":"GBP"}
{"at":"2026-11-27T09:00:01Z","event":"outcome","profile":"p","transaction_id":"5b0f3a52-7d1e-4c7a-9a57-0d6c2b1e0001","outcome":"accepted"}
`
	if err := os.WriteFile(path, []byte(v1), 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := Open(path, "p", func() time.Time { return at.Add(time.Minute) })
	if err != nil {
		t.Fatal(err)
	}
	es, err := l.Entries()
	if err != nil || len(es) != 2 || es[0].AmountInMinor != 12550 || es[1].Outcome != "accepted" {
		t.Fatalf("format 1 read as %v, %v", es, err)
	}
	// The same payout again is held as a duplicate, as before.
	e := es[0]
	e.TransactionID = "5b0f3a52-7d1e-4c7a-9a57-0d6c2b1e0002"
	dups, err := l.Reserve(context.Background(), e, 24*time.Hour, false)
	if err != nil || len(dups) != 1 || dups[0].TransactionID != es[0].TransactionID {
		t.Fatalf("a format-1 payout did not hold its twin: %v %v", dups, err)
	}
}

// A new record starts with its format; the header is no entry.
func TestAuditRecordStartsWithItsFormat(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit", "p.jsonl")
	l, err := Open(path, "p", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Outcome("5b0f3a52-7d1e-4c7a-9a57-0d6c2b1e0003", "accepted", ""); err != nil {
		t.Fatal(err)
	}
	if err := l.Outcome("5b0f3a52-7d1e-4c7a-9a57-0d6c2b1e0004", "accepted", ""); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 3 || lines[0] != `{"paydash_audit_format":2}` {
		t.Fatalf("record:\n%s", b)
	}
	if es, err := l.Entries(); err != nil || len(es) != 2 {
		t.Fatalf("entries %v, %v", es, err)
	}
}

// A record from a newer paydash is refused, naming its format, rather
// than misread: the duplicate check depends on reading it right.
func TestAuditRecordOfANewerFormatIsRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.jsonl")
	if err := os.WriteFile(path, []byte("{\"paydash_audit_format\":3}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := Open(path, "p", nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = l.Entries()
	if err == nil || !strings.Contains(err.Error(), "format 3") || !strings.Contains(err.Error(), "newer paydash") {
		t.Fatalf("Entries = %v, want a refusal naming format 3", err)
	}
}
