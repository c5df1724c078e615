package api

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

// TestDecodeRecordsAgreesWithResults: the in-place records, as Transient
// or owned Transactions, are the records decodeResults gives, on the fast
// path and the slow one (escapes), and an owned copy outlives the buffer.
func TestDecodeRecordsAgreesWithResults(t *testing.T) {
	at := NewReportTime(time.Date(2025, 3, 1, 10, 15, 30, 123456700, time.UTC))
	var txs []Transaction
	for i := range 3000 {
		txs = append(txs, Transaction{TransactionID: "id-" + string(rune('a'+i%26)) + "-" + time.Duration(i).String(), Type: TransactionPayout,
			AuthorisedAt: at, BeneficiaryName: "Ada \"Q\" Lovelace"[:3+i%14], BeneficiaryIBAN: "GB33BUKB20201555555555",
			BeneficiaryReference: "REF\u00e9" + time.Duration(i).String(), AmountInMinor: int64(i), Currency: "GBP", Status: StateSettled})
	}
	body, _ := json.Marshal(map[string]any{"results": txs})
	var want []Transaction
	if err := decodeResults(bytes.NewReader(body), func(t Transaction) error { want = append(want, t); return nil }); err != nil {
		t.Fatal(err)
	}
	var transient, owned []Transaction
	if err := decodeRecords(bytes.NewReader(body), func(r *Record) error {
		transient = append(transient, r.Transient())
		owned = append(owned, r.Transaction())
		if got := r.Transient(); !reflect.DeepEqual(got, want[len(owned)-1]) {
			t.Fatalf("record %d: %+v, want %+v", len(owned)-1, got, want[len(owned)-1])
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(owned, want) || !reflect.DeepEqual(want, txs) {
		t.Fatal("owned records differ from decodeResults or the input")
	}
	_ = transient // views of a buffer since reused: never compared
}
