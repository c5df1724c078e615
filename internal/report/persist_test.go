package report

import (
	"bytes"
	"context"
	"testing"
)

// A decoded store gaining rows (a sync after a warm start) files a payee
// it already holds under the same dictionary entry and a new payee under
// a new one: its lookup maps, built only then, see every entry decoded.
func TestDecodedStoreInternsPayeesItHolds(t *testing.T) {
	rows := genTxs(3000)
	st := load(t, rows)
	var buf bytes.Buffer
	if err := st.Snapshot().Encode(&buf); err != nil {
		t.Fatal(err)
	}
	data := make([]int64, (buf.Len()+7)/8) // 8-byte aligned, as a mapping is
	raw := asBytes(data)[:buf.Len()]
	copy(raw, buf.Bytes())
	d, err := Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	names, ibans := len(d.Store.names.vals), len(d.Store.ibans.vals)

	more := genTxs(3010)[3000:] // new rows, payees the report holds
	stranger := genTx(3010)
	stranger.TransactionID, stranger.BeneficiaryName, stranger.BeneficiaryIBAN = "tx-new-payee", "Nobody Before", "GB00NEWP00000000000001"
	more = append(more, stranger)
	next, ms, err := d.Store.Merge(context.Background(), &fakeSource{rows: more}, apiQuery{}, nil)
	if err != nil || ms.Added != len(more) {
		t.Fatalf("merge: %+v %v", ms, err)
	}
	if got := len(next.names.vals); got != names+1 {
		t.Errorf("%d names after adding one new payee to %d", got, names)
	}
	if got := len(next.ibans.vals); got != ibans+1 {
		t.Errorf("%d IBANs after adding one new payee to %d", got, ibans)
	}
	for i := range more {
		row := int32(3000 + i) //nolint:gosec // small
		if next.Name(row) != more[i].BeneficiaryName || next.IBAN(row) != more[i].BeneficiaryIBAN {
			t.Errorf("row %d: %s %s, want %s %s", row, next.Name(row), next.IBAN(row), more[i].BeneficiaryName, more[i].BeneficiaryIBAN)
		}
	}
}
