package payout

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkReserve is the duplicate check and attempt record a batch does
// before each row, on a record that already holds 50,000 payouts: the
// cost is the lock, the new lines and one key lookup, not the record's
// size. Run: go test -run=NONE -bench=Reserve -benchmem ./internal/payout
func BenchmarkReserve(b *testing.B) {
	path := filepath.Join(b.TempDir(), "audit.jsonl")
	var buf bytes.Buffer
	now := time.Now().UTC()
	for i := range 50_000 {
		e := Entry{At: now, Event: EventAttempt, Profile: "p", Source: SourceBatch, TransactionID: fmt.Sprintf("old-%d", i),
			Name: "Payee", IBAN: "GB33BUKB20201555555555", Reference: fmt.Sprintf("OLD-%d", i), AmountInMinor: int64(i + 1), Currency: "GBP"}
		j, _ := json.Marshal(e)
		buf.Write(j)
		buf.WriteByte('\n')
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		b.Fatal(err)
	}
	l, _ := Open(path, "p", nil)
	if _, err := l.Entries(); err != nil { // the first read, once per process
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ResetTimer()
	i := 0
	for b.Loop() {
		i++
		m, err := l.Reserve(ctx, entry(fmt.Sprintf("new-%d", i), fmt.Sprintf("NEW-%d", i), 100), DefaultWindow, false)
		if err != nil || len(m) != 0 {
			b.Fatal(err, m)
		}
	}
}

// BenchmarkAppendFsyncAnchor is the floor Reserve stands on: one line
// appended and fsynced on the same disk.
func BenchmarkAppendFsyncAnchor(b *testing.B) {
	f, err := os.OpenFile(filepath.Join(b.TempDir(), "anchor"), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	line := []byte(`{"event":"attempt","transaction_id":"x"}` + "\n")
	for b.Loop() {
		if _, err := f.Write(line); err != nil {
			b.Fatal(err)
		}
		if err := f.Sync(); err != nil {
			b.Fatal(err)
		}
	}
}
