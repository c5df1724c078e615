package headless

import (
	"context"
	"strings"
	"testing"
)

// TestTransactionsTableEscapesServiceText: a beneficiary name or
// reference from the service holding a terminal escape is printed
// escaped in the text table.
func TestTransactionsTableEscapesServiceText(t *testing.T) {
	txs := makeTxs(1)
	txs[0].BeneficiaryName = "Ada\x1b]0;pwned\x07"
	txs[0].BeneficiaryReference = "INV\u202e-1"
	s, out, _ := testStreams("")
	if err := Transactions(context.Background(), s, &fakeStreamer{txs: txs}, &TransactionsOptions{}); err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(out.String(), "\x1b\x07\u202e") || !strings.Contains(out.String(), "Ada") {
		t.Errorf("table: %q", out.String())
	}
}
