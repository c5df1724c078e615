package report

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/paydash/paydash/api"
)

// FindIDs answers the same before a refresh (a scan) and after (through
// the id index): rows the store holds, by id, each snapshot seeing its
// own version of a row and not rows added after it.
func TestFindIDsByIndexEqualsScan(t *testing.T) {
	rows := genTxs(3000)
	src := &fakeSource{rows: rows}
	st, err := Load(context.Background(), src, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	ask := map[string]bool{rows[0].TransactionID: true, rows[1500].TransactionID: true, rows[2999].TransactionID: true, "not-there": true, "new-1": true}
	before := st.FindIDs(ask)
	if len(before) != 3 || !reflect.DeepEqual(before[rows[1500].TransactionID], st.Tx(1500)) {
		t.Fatalf("scan found %d of 3: %+v", len(before), before)
	}
	src.mu.Lock()
	src.rows = append(src.rows, api.Transaction{TransactionID: "new-1", Type: api.TransactionPayout, Status: api.StateSettled,
		SettledAt: api.NewReportTime(tBase.Add(time.Duration(len(rows)+5) * time.Minute)), AmountInMinor: 1, Currency: "GBP"})
	src.mu.Unlock()
	st2, _, err := st.Refresh(context.Background(), src)
	if err != nil {
		t.Fatal(err)
	}
	if got := st.FindIDs(ask); !reflect.DeepEqual(got, before) {
		t.Errorf("the older snapshot through the index: %d rows, want the %d it held", len(got), len(before))
	}
	after := st2.FindIDs(ask)
	if len(after) != 4 || after["new-1"].AmountInMinor != 1 || !reflect.DeepEqual(after[rows[0].TransactionID], st2.Tx(0)) {
		t.Errorf("the refreshed store through the index found %d of 4: %+v", len(after), after)
	}
}
