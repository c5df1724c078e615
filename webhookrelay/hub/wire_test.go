package hub

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/paydash/paydash/internal/payout"
	"github.com/paydash/paydash/webhookrelay/hub/hubapi"
	"github.com/paydash/paydash/webhookrelay/hub/store"
)

// fill sets every exported field of the struct v points to, recursively,
// to a value that is not its zero (so omitempty leaves none out): a field
// added to a stored record and not to the wire shows as a difference.
func fill(t *testing.T, v reflect.Value, n *int) {
	t.Helper()
	*n++
	switch v.Kind() {
	case reflect.String:
		v.SetString("s" + string(rune('a'+*n%26)))
	case reflect.Int, reflect.Int64:
		if v.Type() == reflect.TypeFor[time.Duration]() {
			v.SetInt(int64(*n) * int64(time.Second))
			return
		}
		v.SetInt(int64(*n))
	case reflect.Uint64:
		v.SetUint(uint64(*n))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			v.SetBytes([]byte(`{"raw":1}`)) // raw JSON must be JSON
			return
		}
		s := reflect.MakeSlice(v.Type(), 2, 2)
		for i := range 2 {
			fill(t, s.Index(i), n)
		}
		v.Set(s)
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		fill(t, p.Elem(), n)
		v.Set(p)
	case reflect.Map:
		// Left nil (omitted): a map's values may be raw JSON, which
		// made-up bytes are not.
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			v.Set(reflect.ValueOf(time.Date(2026, 3, 1, 9, 30, *n, 0, time.UTC)))
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(t, v.Field(i), n)
			}
		}
	default:
		t.Fatalf("fill: no value for a %s", v.Type())
	}
}

func filled[T any](t *testing.T) T {
	var v T
	n := 0
	fill(t, reflect.ValueOf(&v).Elem(), &n)
	return v
}

func sameJSON(t *testing.T, what string, stored, wire any) {
	t.Helper()
	a, err := json.Marshal(stored)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(wire)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Errorf("%s on the wire differs from the stored record's JSON (what the hub answered before hubapi):\nstored %s\nwire   %s", what, a, b)
	}
}

// The hub answered with its stored records until hubapi: the wire types,
// converted at the edge, keep that JSON byte for byte, every field set or
// left empty.
func TestWireKeepsTheStoredRecordsJSON(t *testing.T) {
	r := filled[store.Request](t)
	sameJSON(t, "a request", r, wireRequest(r))
	sameJSON(t, "an empty request", store.Request{}, wireRequest(store.Request{}))
	rs := []store.Request{r, {}}
	sameJSON(t, "requests", rs, wireRequests(rs))
	sameJSON(t, "no requests", []store.Request(nil), wireRequests(nil))
	sameJSON(t, "an empty list", []store.Request{}, wireRequests([]store.Request{}))

	es := []store.Entry{filled[store.Entry](t), {}}
	sameJSON(t, "record lines", es, wireLog(es))
	sameJSON(t, "no record lines", []store.Entry(nil), wireLog(nil))

	c := filled[store.Change](t)
	sameJSON(t, "a change", c, wireChange(c))
	sameJSON(t, "an empty change", store.Change{}, wireChange(store.Change{}))

	as := []payout.Entry{filled[payout.Entry](t), {}}
	sameJSON(t, "audit lines", as, wireAudit(as))
	sameJSON(t, "no audit lines", []payout.Entry(nil), wireAudit(nil))
}

// The wire's values are the pipeline's: a refusal's reason and a
// warning's class are payout's ErrorClass, which clients compare with
// hubapi's constants.
func TestWireClassesArePayoutsClasses(t *testing.T) {
	for wire, own := range map[string]string{
		hubapi.ClassRefused: ClassRefused, hubapi.ClassUnknown: ClassUnknown, hubapi.ClassFunds: ClassFunds,
		hubapi.ClassDuplicate: ClassDuplicate, hubapi.ClassNoAccount: ClassNoAccount, hubapi.ClassInvalid: ClassInvalid,
	} {
		if wire != own {
			t.Errorf("hubapi says %q where the pipeline says %q", wire, own)
		}
	}
}

// A batch's answer says its totals per currency over the rows sent on the
// wire.
func TestBatchResultTotalsItsRows(t *testing.T) {
	rows := []store.Request{
		{ID: "apr-1", Status: store.StatusPending, Currency: "GBP", AmountInMinor: 150_00, Policy: "line 1: over", ApprovalsNeeded: 2},
		{ID: "apr-2", Status: store.StatusPending, Currency: "EUR", AmountInMinor: 20_00},
		{ID: "apr-3", Status: store.StatusPending, Currency: "GBP", AmountInMinor: 1_00},
	}
	res := batchResult("bat-1", rows)
	if !reflect.DeepEqual(res.Totals, map[string]int64{"GBP": 151_00, "EUR": 20_00}) || res.Status != hubapi.StatusAwaitingApproval ||
		len(res.Rows) != 3 || res.Rows[1].ID != "apr-2" || res.Reason != "line 1: over" || res.ApprovalsNeeded != 2 {
		t.Fatalf("batchResult = %+v", res)
	}
}
