package hubapi

import (
	"reflect"
	"testing"
)

func TestAwaitingYouCountsWhatYouCouldDecideABatchOnce(t *testing.T) {
	rs := []Request{
		{ID: "apr-1", Status: StatusPending, RequestedBy: "ada"},                             // counts
		{ID: "apr-2", Status: StatusPending, RequestedBy: "cy"},                              // cy's own
		{ID: "apr-3", Status: StatusPending, RequestedBy: "ada", ApprovedBy: []string{"cy"}}, // approved by cy already
		{ID: "apr-4", Status: StatusSent, RequestedBy: "ada"},                                // decided
		{ID: "apr-5", Status: StatusPending, RequestedBy: "ada", Batch: "bat-1"},             // a batch counts once
		{ID: "apr-6", Status: StatusPending, RequestedBy: "ada", Batch: "bat-1"},
		{ID: "apr-7", Status: StatusPending, RequestedBy: "bob", Batch: "bat-2"},
	}
	if n := AwaitingYou(rs, "cy", true); n != 3 {
		t.Fatalf("AwaitingYou = %d, want 3 (apr-1, bat-1, bat-2)", n)
	}
	if n := AwaitingYou(rs, "cy", false); n != 0 {
		t.Fatalf("without the approve role: %d, want 0", n)
	}
	if Decidable(&rs[1], "cy") || !Decidable(&rs[1], "ada") {
		t.Fatal("a requester decides their own request, or another cannot")
	}
}

func TestRolesRequestAndApproveIncludeView(t *testing.T) {
	for _, c := range []struct {
		roles []string
		role  string
		want  bool
	}{
		{[]string{RoleApprove}, RoleView, true},
		{[]string{RoleRequest}, RoleView, true},
		{[]string{RoleView}, RoleView, true},
		{[]string{RoleView}, RoleApprove, false},
		{[]string{RoleRequest}, RoleApprove, false},
		{[]string{RoleApprove}, RoleRequest, false},
		{nil, RoleView, false},
	} {
		if got := (Me{Roles: c.roles}).Has(c.role); got != c.want {
			t.Errorf("%v has %s = %v, want %v", c.roles, c.role, got, c.want)
		}
	}
}

func TestOpenRequestsAreThoseHoldingMoneyBack(t *testing.T) {
	for st, want := range map[string]bool{
		StatusPending: true, StatusApproved: true, StatusSending: true,
		StatusSent: false, StatusRefused: false, StatusRejected: false, StatusLapsed: false, StatusUnknown: false,
	} {
		if (&Request{Status: st}).Open() != want {
			t.Errorf("a %s request open = %v", st, !want)
		}
	}
}

func TestTotalsSumPerCurrency(t *testing.T) {
	got := Totals([]Request{{Currency: "GBP", AmountInMinor: 5_00}, {Currency: "EUR", AmountInMinor: 1_00}, {Currency: "GBP", AmountInMinor: 2_50}})
	if !reflect.DeepEqual(got, map[string]int64{"GBP": 7_50, "EUR": 1_00}) {
		t.Fatalf("Totals = %v", got)
	}
}
