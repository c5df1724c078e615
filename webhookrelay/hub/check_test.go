package hub_test

import (
	"context"
	"strings"
	"testing"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/webhookrelay/hub"
)

// The approver sees, before deciding, what the send after approval would
// run into: another open request for the same payment, and funds that
// other requests hold back (its own reservation not counted).
func TestCheckWarnsOfDuplicatesAndFundsBeforeApproval(t *testing.T) {
	e := startEnv(t, opts{funds: 2000_00, over: "GBP=0"})
	ctx := context.Background()
	first, err := e.as("ada").Submit(ctx, sub("CHK-1", payeeIBAN, 1500_00))
	if err != nil {
		t.Fatal(err)
	}
	// Alone, it fits: its own 1,500.00 held does not count against it.
	ws, err := e.as("vic").Check(ctx, first.ApprovalID)
	if err != nil || len(ws) != 0 {
		t.Fatalf("a request the account can pay: %+v %v", ws, err)
	}
	s := sub("CHK-1", payeeIBAN, 1500_00)
	s.AllowDuplicate = true
	second, err := e.as("bob").Submit(ctx, s)
	if err == nil {
		t.Fatalf("a second 1,500.00 was taken with 500.00 free: %+v", second)
	}
	// Hold less so the second fits at submission, then ask for the first.
	if _, err := e.as("cy").Reject(ctx, first.ApprovalID, "split it"); err != nil {
		t.Fatal(err)
	}
	a, err := e.as("ada").Submit(ctx, sub("CHK-2", payeeIBAN, 900_00))
	if err != nil {
		t.Fatal(err)
	}
	s = sub("CHK-2", payeeIBAN, 900_00)
	s.AllowDuplicate = true
	b, err := e.as("bob").Submit(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	// A payout made elsewhere takes 500: 1,500 left, 900 held by a, so b
	// no longer fits; and b repeats a.
	p := api.PayoutRequest{TransactionID: "0b6f6c1e-9d1a-4f55-8a3b-5c2d1e0f9a77", BeneficiaryName: "X", BeneficiaryIBAN: otherIBAN, BeneficiaryReference: "OUT-CHK",
		Currency: "GBP", AmountInMinor: 500_00, ContextCode: api.ContextCodeWithdrawal}
	if err := e.svc.CreatePayout(ctx, &p); err != nil {
		t.Fatal(err)
	}
	waitBalanceBelow(t, e.svc, 1500_01)
	ws, err = e.as("vic").Check(ctx, b.ApprovalID)
	if err != nil {
		t.Fatal(err)
	}
	classes := map[string]string{}
	for _, w := range ws {
		classes[w.Class] = w.Detail
	}
	if d := classes[hub.ClassDuplicate]; !strings.Contains(d, a.ApprovalID) || !strings.Contains(d, "--allow-duplicate") {
		t.Errorf("duplicate warning: %+v", ws)
	}
	if d := classes[hub.ClassFunds]; !strings.Contains(d, "held") {
		t.Errorf("funds warning: %+v", ws)
	}
	// Nothing was sent by looking.
	if n := e.reportCount("CHK-2"); n != 0 {
		t.Fatalf("%d payouts sent by a check", n)
	}
	if _, err := e.as("vic").Check(ctx, "apr-nosuchthing"); err == nil {
		t.Fatal("a check of no request answered")
	}
}
