package batch

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paydash/paydash/internal/payout/batch"
)

// The same small fixtures as package internal/payout/batch's tests: the
// command's tests write their files the same way.

const ibanGB = "GB82WEST12345698765432"

func writeFileIn(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "f.csv")
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func writeBatch(t *testing.T, rows int) (*batch.File, string) {
	t.Helper()
	var b strings.Builder
	b.WriteString("name,iban,reference,amount,currency\n")
	for i := range rows {
		fmt.Fprintf(&b, "Person %d,%s,inv-%d,%d.%02d,GBP\n", i, ibanGB, i, i+1, i)
	}
	path := filepath.Join(t.TempDir(), "payouts.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := batch.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return f, path
}
