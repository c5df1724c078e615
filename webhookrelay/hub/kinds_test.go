package hub_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/platform/natstest"
	"github.com/paydash/paydash/webhookrelay/hub"
	"github.com/paydash/paydash/webhookrelay/hub/hubapi"
	"github.com/paydash/paydash/webhookrelay/hub/store"
)

// gbpAccount is the sandbox's GBP merchant account, which payments and
// mandates pay into.
func (e *env) gbpAccount() string {
	e.t.Helper()
	for _, a := range e.sb.MerchantAccounts() {
		if a.Currency == "GBP" {
			return a.ID
		}
	}
	e.t.Fatal("the sandbox has no GBP merchant account")
	return ""
}

func (e *env) payment(tag string, amount int64) *api.PaymentRequest {
	return &api.PaymentRequest{AmountInMinor: amount, Currency: "GBP", Metadata: map[string]string{"case": tag},
		PaymentMethod: api.PaymentMethod{Type: api.PaymentMethodBankTransfer, ProviderSelection: &api.ProviderSelection{Type: api.ProviderUserSelected},
			Beneficiary: api.Beneficiary{Type: "merchant_account", MerchantAccountID: e.gbpAccount(), Reference: tag}},
		User: &api.User{Name: "Ada Lovelace", Email: "ada@example.com"}}
}

func (e *env) mandate(tag string, maxIndividual, month int64) *api.MandateRequest {
	m := &api.MandateRequest{Currency: "GBP", Metadata: map[string]string{"case": tag},
		Mandate: api.Mandate{Type: "sweeping", ProviderSelection: api.ProviderSelection{Type: api.ProviderUserSelected},
			Beneficiary: api.Beneficiary{Type: "merchant_account", MerchantAccountID: e.gbpAccount()}},
		User:        &api.User{Name: "Ada Lovelace", Email: "ada@example.com"},
		Constraints: api.Constraints{MaximumIndividualAmount: maxIndividual}}
	if month > 0 {
		m.Constraints.PeriodicLimits = &api.PeriodicLimits{Month: &api.PeriodicLimit{MaximumAmount: month, PeriodAlignment: "calendar"}}
	}
	return m
}

func awaiting(t *testing.T, err error) hubapi.Result {
	t.Helper()
	var aw *hubapi.AwaitingApprovalError
	if !errors.As(err, &aw) || aw.Result.ApprovalID == "" {
		t.Fatalf("got %v, want the request held for approval", err)
	}
	return aw.Result
}

// A payment over --approve-over is a pending request another person
// approves; approved, the hub creates it once under the requester's
// idempotency key. Counted in the sandbox's own records.
func TestAPaymentOverTheRuleWaitsForApprovalAndIsCreatedOnce(t *testing.T) {
	e := startEnv(t, opts{})
	ctx := context.Background()
	const key = "9c1d7a0e-2f0b-4d4c-9f61-000000000001"
	// Below the rule: created at once, as before.
	if resp, err := e.as("ada").CreatePayment(ctx, e.payment("PAY-SMALL", 999_99), "9c1d7a0e-2f0b-4d4c-9f61-000000000000"); err != nil || resp.ID == "" {
		t.Fatalf("a payment within the rule: %+v %v", resp, err)
	}
	if n := e.sb.CountPayments("case", "PAY-SMALL"); n != 1 {
		t.Fatalf("%d small payments, want 1", n)
	}
	_, err := e.as("ada").CreatePayment(ctx, e.payment("PAY-BIG", 2000_00), key)
	res := awaiting(t, err)
	if res.Request.Kind != hubapi.KindPayment || res.Request.Shown() != 2000_00 || !strings.Contains(res.Reason, "above the") ||
		strings.Join(res.Approvers, ",") != "bob,cy" {
		t.Fatalf("held payment: %+v", res)
	}
	// The same key again (an answer lost) is the same request.
	_, err = e.as("ada").CreatePayment(ctx, e.payment("PAY-BIG", 2000_00), key)
	if again := awaiting(t, err); again.ApprovalID != res.ApprovalID {
		t.Fatalf("the same key made request %s, then %s", res.ApprovalID, again.ApprovalID)
	}
	// The key on another request is refused, naming the request.
	_, err = e.as("ada").CreatePayment(ctx, e.payment("PAY-OTHER", 3000_00), key)
	wantReason(t, err, hubapi.ClassDuplicate)
	if n := e.sb.CountPayments("case", "PAY-BIG"); n != 0 {
		t.Fatalf("%d payments created before approval", n)
	}
	// The Approvals list shows it, with what it is.
	list, err := e.as("vic").List(ctx, false)
	if err != nil || len(list) != 1 || list[0].ID != res.ApprovalID || list[0].What() != "payment of £2,000.00 into merchant account "+e.gbpAccount() {
		t.Fatalf("list: %+v %v", list, err)
	}
	if ws, err := e.as("vic").Check(ctx, res.ApprovalID); err != nil || len(ws) != 0 {
		t.Fatalf("check of a payment: %+v %v", ws, err)
	}
	_, err = e.as("vic").Approve(ctx, res.ApprovalID)
	wantReason(t, err, "role_missing")
	// Two approvers at once: one creates it.
	var wg sync.WaitGroup
	for _, who := range []string{"bob", "cy"} {
		wg.Go(func() { _, _ = e.as(who).Approve(ctx, res.ApprovalID) })
	}
	wg.Wait()
	r, err := e.as("vic").Get(ctx, res.ApprovalID)
	if err != nil || r.Status != store.StatusSent || r.CreatedID == "" {
		t.Fatalf("after approval: %+v %v", r, err)
	}
	if n := e.sb.CountPayments("case", "PAY-BIG"); n != 1 {
		t.Fatalf("%d payments created after approval, want 1", n)
	}
	// Asked again under its key after it was created: its id, nothing new.
	if resp, err := e.as("ada").CreatePayment(ctx, e.payment("PAY-BIG", 2000_00), key); err != nil || resp.ID != r.CreatedID {
		t.Fatalf("the key after creation: %+v %v, want %s", resp, err, r.CreatedID)
	}
	if n := e.sb.CountPayments("case", "PAY-BIG"); n != 1 {
		t.Fatalf("%d payments, want 1", n)
	}
	log, err := e.as("vic").Log(ctx, 0, res.ApprovalID)
	if err != nil {
		t.Fatal(err)
	}
	var acts []string
	for _, l := range log {
		acts = append(acts, l.Action)
	}
	if strings.Join(acts, " ") != "requested approved sending outcome" || !strings.Contains(log[3].Detail, "created "+r.CreatedID) {
		t.Fatalf("record: %v %+v", acts, log)
	}
	// Held payments hold no payout funds back.
	if out, err := e.as("vic").Outflows(ctx); err != nil || out["GBP"] != 0 {
		t.Fatalf("outflows %v %v", out, err)
	}
}

// A mandate is held by its maximum individual amount or any periodic
// limit over the rule, and created once approved; rejected, never.
func TestAMandateOverTheRuleWaitsForApproval(t *testing.T) {
	e := startEnv(t, opts{})
	ctx := context.Background()
	if resp, err := e.as("ada").CreateMandate(ctx, e.mandate("MAN-SMALL", 100_00, 900_00), "7b1d7a0e-2f0b-4d4c-9f61-000000000000"); err != nil || resp.ID == "" {
		t.Fatalf("a mandate within the rule: %+v %v", resp, err)
	}
	_, err := e.as("ada").CreateMandate(ctx, e.mandate("MAN-MONTH", 100_00, 5000_00), "7b1d7a0e-2f0b-4d4c-9f61-000000000001")
	month := awaiting(t, err)
	if !strings.Contains(month.Reason, "month limit") {
		t.Fatalf("held by its month limit: %+v", month)
	}
	_, err = e.as("ada").CreateMandate(ctx, e.mandate("MAN-ONE", 1500_00, 0), "7b1d7a0e-2f0b-4d4c-9f61-000000000002")
	one := awaiting(t, err)
	if !strings.Contains(one.Reason, "maximum individual amount") || one.Request.Shown() != 1500_00 {
		t.Fatalf("held by its maximum individual amount: %+v", one)
	}
	if _, err := e.as("cy").Reject(ctx, one.ApprovalID, "too much"); err != nil {
		t.Fatal(err)
	}
	if r, err := e.as("cy").Approve(ctx, month.ApprovalID); err != nil || r.Status != store.StatusSent || r.CreatedID == "" {
		t.Fatalf("approved mandate: %+v %v", r, err)
	}
	for tag, want := range map[string]int{"MAN-SMALL": 1, "MAN-MONTH": 1, "MAN-ONE": 0} {
		if n := e.sb.CountMandates("case", tag); n != want {
			t.Errorf("%s: %d mandates, want %d", tag, n, want)
		}
	}
}

// lostAnswer creates at the service, then loses the service's answer
// the first time: the hub cannot know whether it was created.
type lostAnswer struct {
	hub.Direct
	lost atomic.Bool
}

func (l *lostAnswer) CreatePayment(ctx context.Context, req *api.PaymentRequest, key string) (*api.PaymentResponse, error) {
	resp, err := l.Direct.CreatePayment(ctx, req, key)
	if err == nil && l.lost.CompareAndSwap(false, true) {
		return nil, errors.New("reading the answer: connection reset by peer")
	}
	return resp, err
}

// An approved payment whose answer was lost is left unknown; the hub's
// next start sends it again under the same idempotency key, which the
// service answers with what it created: one payment in its records.
func TestAPaymentWhoseAnswerWasLostIsCreatedOnceAfterARestart(t *testing.T) {
	e := startEnv(t, opts{})
	ctx := context.Background()
	e.direct = &lostAnswer{Direct: e.svc}
	e.close()
	e.open("")
	_, err := e.as("ada").CreatePayment(ctx, e.payment("PAY-LOST", 5000_00), "9c1d7a0e-2f0b-4d4c-9f61-0000000000ff")
	res := awaiting(t, err)
	r, err := e.as("cy").Approve(ctx, res.ApprovalID)
	if err != nil || r.Status != store.StatusUnknown {
		t.Fatalf("approval with the answer lost: %+v %v, want unknown", r, err)
	}
	if n := e.sb.CountPayments("case", "PAY-LOST"); n != 1 {
		t.Fatalf("%d payments", n)
	}
	e.close()
	e.open("")
	e.hub.Recover(ctx)
	r, err = e.as("vic").Get(ctx, res.ApprovalID)
	if err != nil || r.Status != store.StatusSent || r.CreatedID == "" {
		t.Fatalf("after the restart: %+v %v", r, err)
	}
	if n := e.sb.CountPayments("case", "PAY-LOST"); n != 1 {
		t.Fatalf("%d payments after the restart, want 1", n)
	}
}

// A payment held at one hub of a cluster is approved at both at once and
// created once; its idempotency key sent again at the other hub finds
// the same request.
func TestTwoHubsAPaymentHeldAtOneIsCreatedOnce(t *testing.T) {
	natstest.Each(t, func(t *testing.T, nodes natstest.Nodes) {
		e := startEnv(t, opts{})
		name := fmt.Sprintf("HUB%d", clusterNames.Add(1))
		direct := func(c *hub.Config) { c.Direct = e.svc }
		a, b := e.openClusterHub(nodes.URLs(), name, direct), e.openClusterHub(nodes.URLs(), name, direct)
		ctx := context.Background()
		const key = "9c1d7a0e-2f0b-4d4c-9f61-0000000000c1"
		_, err := a.as("ada").CreatePayment(ctx, e.payment("PAY-CLUSTER", 4000_00), key)
		res := awaiting(t, err)
		_, err = b.as("ada").CreatePayment(ctx, e.payment("PAY-CLUSTER", 4000_00), key)
		if again := awaiting(t, err); again.ApprovalID != res.ApprovalID {
			t.Fatalf("the key at the other hub made request %s, then %s", res.ApprovalID, again.ApprovalID)
		}
		var wg sync.WaitGroup
		for i := range 6 {
			h := []*clusterHub{a, b}[i%2]
			who := []string{"bob", "cy"}[(i/2)%2]
			wg.Go(func() { _, _ = h.as(who).Approve(ctx, res.ApprovalID) })
		}
		wg.Wait()
		r, err := b.as("vic").Get(ctx, res.ApprovalID)
		if err != nil || r.Status != store.StatusSent || r.CreatedID == "" {
			t.Fatalf("after approvals at two hubs: %+v %v", r, err)
		}
		if n := e.sb.CountPayments("case", "PAY-CLUSTER"); n != 1 {
			t.Fatalf("%d payments created, want 1", n)
		}
	})
}
