package hubclient

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/paydash/paydash/internal/payout"
	"github.com/paydash/paydash/webhookrelay/hub/hubapi"
)

// `payouts log` on a team profile reads the hub's audit answer as the
// record's own lines: every field of a line the hub keeps comes back.
func TestHubAuditLinesReadBackEveryField(t *testing.T) {
	var e payout.Entry
	v := reflect.ValueOf(&e).Elem()
	for i := range v.NumField() {
		f := v.Field(i)
		switch f.Kind() {
		case reflect.String:
			f.SetString("v" + v.Type().Field(i).Name)
		case reflect.Int, reflect.Int64:
			f.SetInt(int64(i + 1))
		case reflect.Bool:
			f.SetBool(true)
		case reflect.Struct:
			f.Set(reflect.ValueOf(time.Date(2026, 3, 1, 9, 30, i, 0, time.UTC)))
		default:
			t.Fatalf("no value for field %s (%s)", v.Type().Field(i).Name, f.Type())
		}
	}
	data, err := json.Marshal([]payout.Entry{e, {}})
	if err != nil {
		t.Fatal(err)
	}
	var wire []hubapi.AuditEntry
	if err := json.Unmarshal(data, &wire); err != nil {
		t.Fatal(err)
	}
	got := auditLines(wire)
	if len(got) != 2 || !reflect.DeepEqual(got[0], e) || !reflect.DeepEqual(got[1], payout.Entry{}) {
		t.Fatalf("read back %+v\nwant %+v", got, e)
	}
	if auditLines(nil) != nil {
		t.Fatal("no lines read as some")
	}
}
