package ui

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paydash/paydash/webhookrelay/hub/hubapi"
)

// fakeHub is the team hub as the view sees it, keeping the rules the
// real hub enforces that the view must show: the requester never
// decides their own request, only pending ones are decided, a rejection
// has a reason.
type fakeHub struct {
	mu       sync.Mutex
	me       hubapi.Me
	reqs     []hubapi.Request
	warnings map[string][]hubapi.Warning
	approves []string
	rejects  map[string]string
	checks   int
	listErr  error
}

func (f *fakeHub) Me(context.Context) (hubapi.Me, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.me, nil
}

func (f *fakeHub) List(context.Context, bool) ([]hubapi.Request, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.listErr != nil {
		return nil, f.listErr
	}
	var out []hubapi.Request
	for _, r := range f.reqs {
		if r.Status == hubapi.StatusPending || r.Status == hubapi.StatusSending {
			out = append(out, r)
		}
	}
	return out, nil
}

func (f *fakeHub) Check(_ context.Context, id string) ([]hubapi.Warning, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.checks++
	return f.warnings[id], nil
}

func (f *fakeHub) find(id string) (*hubapi.Request, error) {
	for i := range f.reqs {
		if f.reqs[i].ID == id {
			r := &f.reqs[i]
			if r.RequestedBy == f.me.Name {
				return nil, errors.New("hub: the requester cannot approve or reject their own request (403)")
			}
			if r.Status != hubapi.StatusPending {
				return nil, errors.New("hub: the request is no longer pending (409)")
			}
			return r, nil
		}
	}
	return nil, errors.New("hub: no such approval request (404)")
}

func (f *fakeHub) Approve(_ context.Context, id string) (hubapi.Request, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	r, err := f.find(id)
	if err != nil {
		return hubapi.Request{}, err
	}
	f.approves = append(f.approves, id)
	r.ApprovedBy = append(r.ApprovedBy, f.me.Name)
	r.Status, r.PayoutState = hubapi.StatusSent, "accepted"
	return *r, nil
}

func (f *fakeHub) Reject(_ context.Context, id, reason string) (hubapi.Request, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	r, err := f.find(id)
	if err != nil {
		return hubapi.Request{}, err
	}
	if f.rejects == nil {
		f.rejects = map[string]string{}
	}
	f.rejects[id] = reason
	r.Status, r.RejectedBy, r.Reason = hubapi.StatusRejected, f.me.Name, reason
	return *r, nil
}

func (f *fakeHub) ApproveBatch(_ context.Context, id string) (hubapi.BatchResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	res := hubapi.BatchResult{BatchID: id, Totals: map[string]int64{}}
	for i := range f.reqs {
		if r := &f.reqs[i]; r.Batch == id {
			r.Status = hubapi.StatusSent
			res.Rows = append(res.Rows, *r)
			res.Totals[r.Currency] += r.AmountInMinor
		}
	}
	f.approves = append(f.approves, id)
	res.Status = hubapi.StatusSent
	return res, nil
}

func (f *fakeHub) RejectBatch(_ context.Context, id, reason string) (hubapi.BatchResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.rejects == nil {
		f.rejects = map[string]string{}
	}
	f.rejects[id] = reason
	return hubapi.BatchResult{BatchID: id, Status: hubapi.StatusRejected}, nil
}

// Submit holds every payout for approval by the others who may
// approve, as a hub whose threshold is 0 does (the goldens' screen; the
// rules themselves are the real hub's, in form_hub_test.go).
func (f *fakeHub) Submit(_ context.Context, s hubapi.Submission) (hubapi.Result, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	r := pendingReq("apr-ffffffffff", f.me.Name, s.BeneficiaryName, s.BeneficiaryReference, s.BeneficiaryIBAN, s.AmountInMinor, s.Currency, 0)
	r.TransactionID = s.TransactionID
	f.reqs = append(f.reqs, r)
	return hubapi.Result{Status: hubapi.StatusAwaitingApproval, ApprovalID: r.ID, Approvers: []string{"bob", "cy"}, ApprovalsNeeded: 1,
		Reason: r.Policy, Request: r}, nil
}

func (f *fakeHub) Get(_ context.Context, id string) (hubapi.Request, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, r := range f.reqs {
		if r.ID == id {
			return r, nil
		}
	}
	return hubapi.Request{}, errors.New("hub: no such approval request (404)")
}

func (f *fakeHub) add(r hubapi.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reqs = append(f.reqs, r)
}

func (f *fakeHub) decided() ([]string, map[string]string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.approves), f.rejects
}

func pendingReq(id, by, name, ref, iban string, amount int64, cur string, ago time.Duration) hubapi.Request {
	return hubapi.Request{ID: id, Status: hubapi.StatusPending, RequestedBy: by, RequestedAt: fixedNow.Add(-ago),
		NeedsApproval: true, Policy: "above GBP 1,000.00", ApprovalsNeeded: 1, ExpiresAt: fixedNow.Add(48*time.Hour - ago),
		AmountInMinor: amount, Currency: cur, BeneficiaryName: name, BeneficiaryIBAN: iban, BeneficiaryReference: ref,
		TransactionID: "7d1f8f5e-4a43-4c1e-9a51-" + strings.Repeat("0", 12-len(id[4:])) + id[4:], ApprovedBy: []string{}}
}

// teamHub is bob (request, approve) looking at what ada and he asked.
func teamHub() *fakeHub {
	f := &fakeHub{me: hubapi.Me{Name: "bob", Roles: []string{hubapi.RoleRequest, hubapi.RoleApprove}, Policy: "above GBP 1,000.00"},
		warnings: map[string][]hubapi.Warning{}}
	f.add(pendingReq("apr-aaaaaaaaaa", "ada", "Harbour Supplies Ltd", "INV-7", "GB33BUKB20201555555555", 2500_00, "GBP", 12*time.Minute))
	f.add(pendingReq("apr-bbbbbbbbbb", "ada", "Grace Hopper", "RENT-11", "GB94BARC10201530093459", 1200_00, "GBP", 3*time.Hour))
	f.warnings["apr-bbbbbbbbbb"] = []hubapi.Warning{{Class: hubapi.ClassDuplicate, Detail: "possible duplicate: £1,200.00 to GB94BARC10201530093459 ref RENT-11 paid 2025-03-13 (the requester sent it anyway: --allow-duplicate)"}}
	f.add(pendingReq("apr-cccccccccc", "bob", "Ada Lovelace", "EXP-3", "GB33BUKB20201555555555", 4000_00, "GBP", 40*time.Second))
	f.add(pendingReq("apr-dddddddddd", "ada", "Müller GmbH", "RE-2025-42", "DE89370400440532013000", 9000_00, "EUR", 26*time.Hour))
	f.warnings["apr-dddddddddd"] = []hubapi.Warning{{Class: hubapi.ClassFunds, Detail: "EUR payout of €9,000.00 exceeds the available €8,000.00 (after €1,000.00 held by payouts awaiting approval or being sent on the hub)"}}
	b1 := pendingReq("apr-eeeeeeeee1", "ada", "Payroll One", "PAY-1", "GB33BUKB20201555555555", 700_00, "GBP", 5*time.Minute)
	b2 := pendingReq("apr-eeeeeeeee2", "ada", "Payroll Two", "PAY-2", "DE89370400440532013000", 300_00, "EUR", 5*time.Minute)
	b1.Batch, b1.BatchFile, b1.Line = "bat-pppppppppp", "payroll.csv", 2
	b2.Batch, b2.BatchFile, b2.Line = "bat-pppppppppp", "payroll.csv", 3
	f.add(b1)
	f.add(b2)
	return f
}

func teamHarness(t *testing.T, f *fakeHub, production bool, w, h int) *harness {
	t.Helper()
	return newHarness(t, Options{Backend: newFake(50), Approvals: f, Production: production, Profile: "bob"}, w, h)
}

// selectRow moves the cursor to the row showing text.
func selectRow(t *testing.T, hs *harness, text string) {
	t.Helper()
	hs.key("g")
	for range len(hs.m.approvals.rows) {
		if r := hs.m.approvals.selected(); r != nil && (r.ID == text || r.BeneficiaryName == text) {
			return
		}
		hs.key("down")
	}
	t.Fatalf("no row %q", text)
}

func TestApprovalsViewListsWhatAwaitsWithWarnings(t *testing.T) {
	f := teamHub()
	hs := teamHarness(t, f, false, 120, 40)
	hs.key("8")
	out := hs.view()
	mustContain(t, out, "[8 Approvals]", "Harbour Supplies Ltd", "£2,500.00", "12m", "ada", "€9,000.00", "26h",
		"⚠ duplicate", "⚠ funds", "none", "bat-pppppppppp",
		// The header counts what bob may approve: not his own, a batch once.
		"4 await your approval",
		// Totals per currency of what is pending.
		"6 pending: €9,300.00, £8,400.00")
	// :approvals reaches it too, from another view.
	hs.key("1")
	hs.key(":")
	hs.typeText("approvals")
	hs.key("enter")
	if hs.m.tab != tabApprovals {
		t.Fatalf(":approvals shows tab %d", hs.m.tab)
	}
}

func TestApprovalsOwnRequestIsNotOffered(t *testing.T) {
	f := teamHub()
	hs := teamHarness(t, f, false, 120, 40)
	hs.key("8")
	selectRow(t, hs, "apr-aaaaaaaaaa")
	bar := hs.m.helpLine()
	mustContain(t, bar, hint(hs.m.keys.Approve), hint(hs.m.keys.Reject))
	selectRow(t, hs, "apr-cccccccccc")
	if bar := hs.m.helpLine(); strings.Contains(bar, hint(hs.m.keys.Approve)) || strings.Contains(bar, hint(hs.m.keys.Reject)) {
		t.Fatalf("the bar offers a decision on bob's own request: %q", bar)
	}
	mustContain(t, hs.view(), "your own request: another person decides it")
	hs.key("a")
	hs.key("y")
	hs.key("x")
	if a, r := f.decided(); len(a) != 0 || len(r) != 0 {
		t.Fatalf("the view asked the hub to decide bob's own request: %v %v", a, r)
	}
	mustContain(t, hs.view(), "your own request")
}

func TestApprovalsApproveConfirmsThenSends(t *testing.T) {
	f := teamHub()
	hs := teamHarness(t, f, false, 120, 40)
	hs.key("8")
	selectRow(t, hs, "apr-aaaaaaaaaa")
	hs.key("a")
	mustContain(t, hs.view(), "Approve £2,500.00 to Harbour Supplies Ltd (ref INV-7)?")
	hs.key("n")
	if a, _ := f.decided(); len(a) != 0 {
		t.Fatalf("n approved: %v", a)
	}
	hs.key("a")
	hs.key("y")
	if a, _ := f.decided(); !slices.Equal(a, []string{"apr-aaaaaaaaaa"}) {
		t.Fatalf("approvals sent: %v", a)
	}
	out := hs.view()
	mustContain(t, out, "sent: £2,500.00 to Harbour Supplies Ltd")
	if strings.Contains(out, "INV-7 ") && strings.Contains(out, "Harbour Supplies Ltd  ") {
		t.Fatalf("the sent request is still listed:\n%s", out)
	}
	mustContain(t, hs.view(), "3 await your approval")
}

func TestApprovalsProductionTypesTheAmount(t *testing.T) {
	f := teamHub()
	hs := teamHarness(t, f, true, 120, 40)
	hs.key("8")
	selectRow(t, hs, "apr-aaaaaaaaaa")
	hs.key("a")
	mustContain(t, hs.view(), "PRODUCTION: type 2500.00 to approve")
	hs.typeText("250.00")
	hs.key("enter")
	if a, _ := f.decided(); len(a) != 0 {
		t.Fatalf("a wrong amount approved: %v", a)
	}
	mustContain(t, hs.view(), "that is not 2500.00: nothing was approved")
	hs.typeText("2,500.00")
	hs.key("enter")
	if a, _ := f.decided(); !slices.Equal(a, []string{"apr-aaaaaaaaaa"}) {
		t.Fatalf("approvals sent: %v", a)
	}
	// A batch: its totals, with their currencies, approve it whole.
	selectRow(t, hs, "apr-eeeeeeeee2")
	hs.key("a")
	mustContain(t, hs.view(), "type 300.00 EUR, 700.00 GBP to approve")
	hs.typeText("300.00 EUR, 700.00 GBP")
	hs.key("enter")
	if a, _ := f.decided(); !slices.Equal(a, []string{"apr-aaaaaaaaaa", "bat-pppppppppp"}) {
		t.Fatalf("approvals sent: %v", a)
	}
}

func TestApprovalsRejectNeedsAReason(t *testing.T) {
	f := teamHub()
	hs := teamHarness(t, f, false, 120, 40)
	hs.key("8")
	selectRow(t, hs, "apr-bbbbbbbbbb")
	hs.key("x")
	hs.key("enter")
	if _, r := f.decided(); len(r) != 0 {
		t.Fatalf("rejected without a reason: %v", r)
	}
	mustContain(t, hs.view(), "a rejection needs a reason")
	hs.typeText("paid already on the 13th")
	hs.key("enter")
	if _, r := f.decided(); r["apr-bbbbbbbbbb"] != "paid already on the 13th" {
		t.Fatalf("rejections: %v", r)
	}
	mustContain(t, hs.view(), "rejected: £1,200.00 to Grace Hopper: paid already on the 13th")
	// esc leaves a reason unsent.
	selectRow(t, hs, "apr-aaaaaaaaaa")
	hs.key("x")
	hs.typeText("typo")
	hs.key("esc")
	if _, r := f.decided(); len(r) != 1 {
		t.Fatalf("esc sent a rejection: %v", r)
	}
}

func TestApprovalsSelectionFollowsTheRowByID(t *testing.T) {
	f := teamHub()
	hs := teamHarness(t, f, false, 120, 40)
	hs.key("8")
	selectRow(t, hs, "apr-aaaaaaaaaa")
	before := hs.m.approvals.nav.cursor
	// An older request arrives: it sorts above the selected one.
	f.add(pendingReq("apr-ffffffffff", "ada", "Older Payee", "OLD-1", "GB33BUKB20201555555555", 5000_00, "GBP", 30*time.Hour))
	hs.advance(approvalsPollEvery)
	if r := hs.m.approvals.selected(); r == nil || r.ID != "apr-aaaaaaaaaa" {
		t.Fatalf("selection moved to %+v", r)
	}
	if hs.m.approvals.nav.cursor != before+1 {
		t.Fatalf("cursor %d, want %d", hs.m.approvals.nav.cursor, before+1)
	}
	mustContain(t, hs.view(), "Older Payee", "5 await your approval")
}

func TestApprovalsOutsideTextIsEscaped(t *testing.T) {
	f := teamHub()
	f.add(pendingReq("apr-gggggggggg", "eve\x1b[2J", "Evil\x1b]0;pwned\x07 Ltd", "REF\u202eX", "GB33BUKB20201555555555", 1500_00, "GBP", time.Minute))
	f.warnings["apr-gggggggggg"] = []hubapi.Warning{{Class: hubapi.ClassFunds, Detail: "no\x1b[31m money"}}
	hs := teamHarness(t, f, false, 200, 40)
	hs.key("8")
	selectRow(t, hs, "apr-gggggggggg")
	out := hs.view()
	if strings.ContainsAny(out, "\x1b\x07\u202e") {
		t.Fatalf("control text from the hub reached the screen: %q", out)
	}
	mustContain(t, out, "Evil")
}

func TestApprovalsViewOnlyWithoutTeamProfile(t *testing.T) {
	hs := newHarness(t, Options{Backend: newFake(10)}, 120, 40)
	hs.key("8")
	if hs.m.tab == tabApprovals || strings.Contains(hs.m.tabsLine(), "Approvals") {
		t.Fatal("the Approvals view shows on a profile without a hub")
	}
	hs.key(":")
	hs.typeText("approvals")
	hs.key("enter")
	if hs.m.tab == tabApprovals {
		t.Fatal(":approvals opened without a hub")
	}
	mustContain(t, hs.view(), "approvals need a team profile")
}

func TestApprovalsKeepTheListWhenTheHubStopsAnswering(t *testing.T) {
	f := teamHub()
	hs := teamHarness(t, f, false, 120, 40)
	hs.key("8")
	f.mu.Lock()
	f.listErr = errors.New("hub at http://127.0.0.1:8787 did not answer: connection refused")
	f.mu.Unlock()
	hs.advance(approvalsPollEvery)
	// What was listed stays, marked as of its time, with why it is stale.
	mustContain(t, hs.view(), "Harbour Supplies Ltd", "as of 09:30:00", "hub: hub at http://127.0.0.1:8787 did not answer")
	f.mu.Lock()
	f.listErr = nil
	f.mu.Unlock()
	hs.advance(approvalsPollEvery)
	if strings.Contains(hs.view(), "did not answer") {
		t.Fatalf("the error stays after the hub answered:\n%s", hs.view())
	}
}

// On a team profile the view keys pass through Approvals like any view.
func TestTabAndBracketsReachApprovalsOnATeamProfile(t *testing.T) {
	hs := teamHarness(t, teamHub(), false, 120, 40)
	for _, s := range []struct {
		key  string
		want tab
	}{{"[", tabApprovals}, {"]", tabBalances}, {"shift+tab", tabApprovals}, {"tab", tabBalances}} {
		hs.key(s.key)
		if hs.m.tab != s.want {
			t.Fatalf("%s went to %s, want %s", s.key, tabNames[hs.m.tab], tabNames[s.want])
		}
	}
}

// The view's hints name keys from the keymap: rebinding cancel changes
// what the production amount's refusal says to press.
func TestApprovalsHintsFollowTheKeymap(t *testing.T) {
	hs := teamHarness(t, teamHub(), true, 120, 40)
	hs.m.keys.CancelDecision = kb("ctrl+b", "cancel", "ctrl+b")
	hs.key("8")
	selectRow(t, hs, "apr-aaaaaaaaaa")
	hs.key("a")
	hs.typeText("1")
	hs.key("enter")
	mustContain(t, hs.view(), "type it exactly, or ctrl+b to cancel")
	hs.key("ctrl+b")
	if hs.m.approvals.mode != apprList {
		t.Fatal("the rebound cancel key did not cancel")
	}
}

// The selected request's warning is what an approver decides on: at 80
// columns it wraps under the list, every word of it there, and the
// screen keeps its height.
func TestApprovalsDetailWrapsItsWarning(t *testing.T) {
	f := teamHub()
	hs := teamHarness(t, f, false, 80, 24)
	hs.key("8")
	selectRow(t, hs, "apr-bbbbbbbbbb")
	out := hs.view()
	if strings.Contains(out, "…") && strings.Contains(out, "possible duplicate") && !strings.Contains(out, "--allow-duplicate)") {
		t.Fatalf("the warning is cut:\n%s", out)
	}
	flat := strings.Join(strings.Fields(out), " ")
	mustContain(t, flat, "possible duplicate: £1,200.00 to GB94BARC10201530093459 ref RENT-11 paid 2025-03-13 (the requester sent it anyway: --allow-duplicate)")
	if n := strings.Count(out, "\n") + 1; n > 24 {
		t.Fatalf("%d lines on a 24-line screen:\n%s", n, out)
	}
}
