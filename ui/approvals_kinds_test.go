package ui

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/webhookrelay/hub/hubapi"
)

// A payment and a mandate held by the hub's rule are rows of the
// Approvals view like payouts: the Payee column names their kind before
// their beneficiary, the Amount column their amount (a mandate's largest
// single payment: their stored payout amount is 0, money comes in), the
// detail says what they are and the key they are created under, and a
// production approval types that amount.
func TestApprovalsListPaymentsAndMandatesForWhatTheyAre(t *testing.T) {
	f := teamHub()
	pay := pendingReq("apr-pppppppay1", "ada", "merchant account 6f2f", "ORDER-42", "", 0, "GBP", 2*time.Minute)
	pay.Kind, pay.IdempotencyKey = hubapi.KindPayment, "3f8e2a4c-5b6d-4e7f-8a9b-0c1d2e3f4a5b"
	pay.Payment = &api.PaymentRequest{AmountInMinor: 2000_00, Currency: "GBP"}
	man := pendingReq("apr-mmmmmmman1", "ada", "merchant account 6f2f", "", "", 0, "GBP", time.Minute)
	man.Kind, man.IdempotencyKey = hubapi.KindMandate, "4a9e2a4c-5b6d-4e7f-8a9b-0c1d2e3f4a5b"
	man.Mandate = &api.MandateRequest{Currency: "GBP", Mandate: api.Mandate{Type: "sweeping"}, Constraints: api.Constraints{MaximumIndividualAmount: 150_00}}
	f.add(pay)
	f.add(man)
	hs := teamHarness(t, f, true, 140, 40)
	hs.key("8")
	mustContain(t, hs.view(), "payment: merchant account", "£2,000.00", "mandate: merchant account", "£150.00")
	selectRow(t, hs, "apr-pppppppay1")
	mustContain(t, hs.view(), "payment of £2,000.00 into merchant account 6f2f", "idempotency key 3f8e2a4c-5b6d-4e7f-8a9b-0c1d2e3f4a5b")
	hs.key("a")
	mustContain(t, hs.view(), "PRODUCTION: type 2000.00 to approve")
	hs.typeText("2,000.00")
	hs.key("enter")
	if a, _ := f.decided(); !slices.Equal(a, []string{"apr-pppppppay1"}) {
		t.Fatalf("approvals sent: %v", a)
	}
	selectRow(t, hs, "apr-mmmmmmman1")
	mustContain(t, hs.view(), "sweeping mandate of up to £150.00 a payment into merchant account 6f2f")
}

// The payment form on a team profile whose payment the hub holds for
// approval: done, saying so, not a failure that may have created it.
func TestPaymentFormSaysTheHubHoldsItForApproval(t *testing.T) {
	fb := newFake(10)
	fb.paymentErr = &hubapi.AwaitingApprovalError{Kind: hubapi.KindPayment, Result: hubapi.Result{Status: hubapi.StatusAwaitingApproval,
		ApprovalID: "apr-pppppppay2", Reason: "£2,000.00 is above the £1,000.00 threshold", Approvers: []string{"bob"}, ApprovalsNeeded: 1}}
	h := newHarness(t, Options{Backend: fb}, 120, 40)
	fillPayment(h, "040004")
	h.key("y")
	out := h.view()
	mustContain(t, out, "Awaiting approval: apr-pppppppay2", "Nothing is created until 1 of bob", "creates the payment under this form")
	for _, wrong := range []string{"may have been created", "✗"} {
		if strings.Contains(out, wrong) {
			t.Fatalf("the held payment reads as a failure (%q):\n%s", wrong, out)
		}
	}
}
