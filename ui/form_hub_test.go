package ui

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/payout"
	"github.com/paydash/paydash/webhookrelay/hub/hubapi"
	"github.com/paydash/paydash/webhookrelay/hub/hubclient"
	"github.com/paydash/paydash/webhookrelay/hub/hubtest"
)

// These tests run the payout form of ada's dashboard on a team profile
// against a real hub over loopback (hub/hubtest: the sandbox, the hub
// in process with the only signing key, a threshold of GBP 1,000.00),
// with bob, who may approve, at his own hubclient. Payouts are counted
// in the sandbox's own report.

// serviceOnly is the team profile's service: balances and the report,
// and never a payout of its own (the profile holds no key). A payout the
// form sent around the hub fails the test.
type serviceOnly struct {
	*api.Client
	t testing.TB
}

func (s serviceOnly) CreatePayout(context.Context, *api.PayoutRequest) error {
	s.t.Error("the form sent a payout around the team's hub")
	return api.ErrNotSent
}

type hubForm struct {
	*harness
	team *hubtest.Team
	bob  *hubclient.Client
}

// startHubForm opens ada's dashboard on the team's hub; hubURL, when
// set, is where ada's dashboard finds the hub (a proxy in front of it).
func startHubForm(t *testing.T, proxy func(hubURL string) string) *hubForm {
	t.Helper()
	tm := hubtest.New(t, hubtest.Options{People: []hubtest.Person{
		{Name: "ada", Roles: []string{hubapi.RoleRequest}}, {Name: "bob", Roles: []string{hubapi.RoleRequest, hubapi.RoleApprove}}}})
	hubURL := tm.StartHub(t, "GBP=1000.00")
	adaURL := hubURL
	if proxy != nil {
		adaURL = proxy(hubURL)
	}
	ada := &hubclient.Client{BaseURL: adaURL, Token: tm.Tokens["ada"]}
	h := newHarness(t, Options{Backend: serviceOnly{Client: tm.Service, t: t}, Approvals: ada, Profile: "ada"}, 120, 40)
	return &hubForm{harness: h, team: tm, bob: &hubclient.Client{BaseURL: hubURL, Token: tm.Tokens["bob"]}}
}

// fillGBP fills the payout form from the GBP account up to the
// confirmation.
func (h *hubForm) fillGBP(name, ref, amount string) {
	h.key("5")
	for _, b := range h.m.c().accounts {
		if b.Currency == "GBP" {
			break
		}
		h.key("down")
	}
	for _, field := range []string{"", name, "GB33 BUKB 2020 1555 5555 55", ref, amount, ""} {
		h.typeText(field)
		h.key("enter")
	}
}

// enterTo moves through the form with enter to the field keyed field.
func (h *hubForm) enterTo(t *testing.T, field string) {
	t.Helper()
	for range 10 {
		if focused(h.harness) == field {
			return
		}
		h.key("enter")
	}
	t.Fatalf("the form never reached %q:\n%s", field, ansi.Strip(h.view()))
}

// backTo moves back through the form with shift+tab to the field keyed
// field.
func (h *hubForm) backTo(t *testing.T, field string) {
	t.Helper()
	for range 10 {
		if focused(h.harness) == field {
			return
		}
		h.key("shift+tab")
	}
	t.Fatalf("the form never reached %q:\n%s", field, ansi.Strip(h.view()))
}

// tracked is the tracker's row of the form's payout.
func (h *hubForm) tracked(t *testing.T) *trackedPayout {
	t.Helper()
	id := h.m.payout.doneID()
	if id == "" {
		t.Fatalf("the form shows no sent payout:\n%s", ansi.Strip(h.view()))
	}
	p := h.m.tracker.snapshot(id)
	if p == nil {
		t.Fatalf("payout %s is not in the tracker", id)
	}
	return p
}

// waitState advances the dashboard's clock (its polls of the hub and the
// report) until the form's payout is in a state ok accepts, for up to
// 20 s of real time.
func (h *hubForm) waitState(t *testing.T, what string, ok func(string) bool) *trackedPayout {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		p := h.tracked(t)
		if ok(p.state) {
			return p
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: the tracker still shows %q (%s)\n%s", what, p.state, p.reason, ansi.Strip(h.view()))
		}
		h.advance(pollEvery)
	}
}

// Below the threshold the hub sends at once: the form says what it says
// of any accepted payout, and the tracker follows it to its final state.
func TestHubFormBelowThresholdIsSentAtOnce(t *testing.T) {
	h := startHubForm(t, nil)
	h.fillGBP("Harbour Supplies Ltd", "HUB-SMALL", "10.00")
	h.key("y")
	mustContain(t, ansi.Strip(h.view()), "✓ Payout accepted (202)", "approval id", "apr-")
	if p := h.tracked(t); !p.mine || p.approvalID == "" {
		t.Fatalf("tracker: %+v", p)
	}
	if n := h.team.CountPayouts(t, "HUB-SMALL"); n != 1 {
		t.Fatalf("%d payouts in the sandbox's report, want 1", n)
	}
	h.waitState(t, "a payout sent at once", api.IsFinalState)
}

// Above it the form shows what payout create shows: awaiting approval,
// the approval id, who may approve. The tracker and the Approvals view
// show it pending; nothing is sent. Approved by bob, it is sent once and
// the requester's tracker (and the form's result) follow it to its final
// state.
func TestHubFormAboveThresholdAwaitsApprovalThenIsSentOnce(t *testing.T) {
	h := startHubForm(t, nil)
	h.fillGBP("Harbour Supplies Ltd", "HUB-BIG", "2,500.00")
	h.key("y")
	screen := flat(h.view())
	mustContain(t, screen, "Awaiting approval: apr-", "above the £1,000.00 threshold", "Nothing is sent until 1 of bob approve", "approval id")
	p := h.tracked(t)
	if p.state != stateAwaiting || p.approvalID == "" {
		t.Fatalf("tracker: state %q, approval %q", p.state, p.approvalID)
	}
	if n := h.team.CountPayouts(t, "HUB-BIG"); n != 0 {
		t.Fatalf("%d payouts sent before approval", n)
	}
	h.key("3")
	mustContain(t, ansi.Strip(h.view()), "awaiting approval", "through the team's hub as "+p.approvalID)
	h.key("8")
	h.advance(approvalsPollEvery)
	mustContain(t, flat(h.view()), "1 pending: £2,500.00", "Harbour Supplies Ltd", "pending 0/1", p.approvalID)

	if _, err := h.bob.Approve(context.Background(), p.approvalID); err != nil {
		t.Fatal(err)
	}
	h.advance(approvalsPollEvery) // the hub's list, then its request
	p = h.tracked(t)
	if p.state != stateSent && !api.IsFinalState(p.state) {
		t.Fatalf("after bob's approval the tracker shows %q (%s)", p.state, p.reason)
	}
	if !strings.Contains(timeline(p, h.clock.Now()), "awaiting approval") {
		t.Fatalf("timeline lost the wait: %s", timeline(p, h.clock.Now()))
	}
	p = h.waitState(t, "an approved payout", api.IsFinalState)
	if n := h.team.CountPayouts(t, "HUB-BIG"); n != 1 {
		t.Fatalf("%d payouts in the sandbox's report, want 1", n)
	}
	h.key("5")
	mustContain(t, flat(h.view()), "Payout accepted (202) and "+p.state)
}

// Rejected by bob: the tracker and the form say so with his reason, and
// nothing is paid.
func TestHubFormRejectedRequestIsNotPaid(t *testing.T) {
	h := startHubForm(t, nil)
	h.fillGBP("Harbour Supplies Ltd", "HUB-NO", "1,500.00")
	h.key("y")
	id := h.tracked(t).approvalID
	if _, err := h.bob.Reject(context.Background(), id, "wrong IBAN, see ticket 42"); err != nil {
		t.Fatal(err)
	}
	h.advance(approvalsPollEvery)
	p := h.tracked(t)
	if p.state != stateNotApproved || p.reason != "rejected by bob: wrong IBAN, see ticket 42" {
		t.Fatalf("tracker: %q (%s)", p.state, p.reason)
	}
	mustContain(t, flat(h.view()), "✗ Not paid: not approved: rejected by bob: wrong IBAN, see ticket 42",
		"Nothing was paid. e fills this payout in again under a new transaction id")
	if n := h.team.CountPayouts(t, "HUB-NO"); n != 0 {
		t.Fatalf("%d payouts sent after a rejection", n)
	}
	// As it says: e fills it in again under a new transaction id, and the
	// corrected payout is a new request on the hub.
	first := h.m.payout.key
	h.key("e")
	if h.m.payout.key == first {
		t.Fatal("the correction kept the rejected request's transaction id")
	}
	for range 6 { // source, name, IBAN, reference, amount, context code: kept
		h.key("enter")
	}
	h.key("y")
	mustContain(t, flat(h.view()), "Awaiting approval: apr-")
	if again := h.tracked(t).approvalID; again == id || again == "" {
		t.Fatalf("the correction's request is %q, the rejected one %q", again, id)
	}
	if n := h.team.CountPayouts(t, "HUB-NO"); n != 0 {
		t.Fatalf("%d payouts sent before the correction's approval", n)
	}
}

// The hub's duplicate check stops a payout like one already made; the
// form asks as it does for its own check, and a sends it through the
// hub with allow_duplicate (payout create's --allow-duplicate).
func TestHubFormDuplicateIsConfirmedThroughTheHub(t *testing.T) {
	h := startHubForm(t, nil)
	h.fillGBP("Harbour Supplies Ltd", "HUB-DUP", "12.00")
	h.key("y")
	h.key("n") // a new form
	h.fillGBP("Harbour Supplies Ltd", "HUB-DUP", "12.00")
	h.key("y")
	screen := flat(h.view())
	mustContain(t, screen, "Possible duplicate: nothing was sent", "a asks the hub again to send it as a second payment")
	if n := h.team.CountPayouts(t, "HUB-DUP"); n != 1 {
		t.Fatalf("%d payouts after the duplicate warning, want 1", n)
	}
	h.key("a")
	mustContain(t, flat(h.view()), "✓ Payout accepted (202)")
	if n := h.team.CountPayouts(t, "HUB-DUP"); n != 2 {
		t.Fatalf("%d payouts after the second confirmation, want 2", n)
	}
}

// More than the account holds: the hub refuses before anything is
// requested; the form keeps the payout and e goes to the amount.
func TestHubFormFundsRefusalKeepsTheForm(t *testing.T) {
	h := startHubForm(t, nil)
	h.fillGBP("Harbour Supplies Ltd", "HUB-FUNDS", "200,000.00")
	h.key("y")
	screen := flat(h.view())
	mustContain(t, screen, "Payout not sent", "the team's hub:", "exceeds the available", "Nothing was sent. e goes to Amount")
	h.key("e")
	if f := focused(h.harness); f != "amount" {
		t.Fatalf("e went to %q, want the amount", f)
	}
	if n := h.team.CountPayouts(t, "HUB-FUNDS"); n != 0 {
		t.Fatalf("%d payouts sent", n)
	}
}

// The hub took the payout and sent it, but its answer never reached the
// dashboard: the form says what the pipeline's classifier says of an
// answer lost, keeps the transaction id, and enter (its advice) asks the
// hub again under it: the hub returns the payout it sent, never a
// second one.
func TestHubFormLostAnswerRetriesUnderTheSameID(t *testing.T) {
	var dropped atomic.Bool
	h := startHubForm(t, func(hubURL string) string { return dropFirstAnswer(t, hubURL, &dropped) })
	h.fillGBP("Harbour Supplies Ltd", "HUB-LOST", "20.00")
	h.key("y")
	screen := flat(h.view())
	mustContain(t, screen, "Payout not created", capitalised(payout.AdviceUnknown))
	if !dropped.Load() {
		t.Fatal("the proxy did not drop the hub's answer")
	}
	if n := h.team.CountPayouts(t, "HUB-LOST"); n != 1 {
		t.Fatalf("%d payouts after the lost answer, want 1 (the hub sent it)", n)
	}
	key := h.m.payout.key
	h.key("enter")
	mustContain(t, flat(h.view()), "✓ Payout accepted (202)", key)
	if n := h.team.CountPayouts(t, "HUB-LOST"); n != 1 {
		t.Fatalf("%d payouts after the retry, want 1", n)
	}
}

// After a lost answer the form keeps its transaction id through an
// edit, as it advises: the hub holds that id for the payout first sent,
// so it refuses the edited one, and the form says the first may exist.
// e then gives the edit a fresh id; each payout is sent once.
func TestHubFormEditAfterALostAnswerKeepsTheFirstOnce(t *testing.T) {
	var dropped atomic.Bool
	h := startHubForm(t, func(hubURL string) string { return dropFirstAnswer(t, hubURL, &dropped) })
	h.fillGBP("Harbour Supplies Ltd", "HUB-EDIT", "20.00")
	h.key("y")
	first := h.m.payout.key
	h.key("e")
	h.backTo(t, "reference")
	h.typeText("B") // HUB-EDITB
	h.enterTo(t, confirmKey)
	h.key("y")
	if h.m.payout.key != first {
		t.Fatalf("the edit after a lost answer went under a new id")
	}
	mustContain(t, flat(h.view()), "This edited payout was not created, but an earlier attempt of this form reached the service under the same transaction_id")
	if a, b := h.team.CountPayouts(t, "HUB-EDIT"), h.team.CountPayouts(t, "HUB-EDITB"); a != 1 || b != 0 {
		t.Fatalf("payouts: %d first, %d edited; want 1 and 0", a, b)
	}
	h.key("e")
	h.enterTo(t, confirmKey)
	h.key("y")
	mustContain(t, flat(h.view()), "✓ Payout accepted (202)")
	if h.m.payout.key == first {
		t.Fatal("the edited payout was sent under the first one's id")
	}
	if a, b := h.team.CountPayouts(t, "HUB-EDIT"), h.team.CountPayouts(t, "HUB-EDITB"); a != 1 || b != 1 {
		t.Fatalf("payouts: %d first, %d edited; want 1 and 1", a, b)
	}
}

// dropFirstAnswer is a proxy in front of the hub that passes the first
// payout submission on, lets the hub act on it, and closes the
// connection instead of answering; everything else passes both ways.
func dropFirstAnswer(t *testing.T, hubURL string, dropped *atomic.Bool) string {
	t.Helper()
	target, err := url.Parse(hubURL)
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(target)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/payouts") || !dropped.CompareAndSwap(false, true) {
			rp.ServeHTTP(w, r)
			return
		}
		req, _ := http.NewRequestWithContext(r.Context(), r.Method, hubURL+r.URL.Path, r.Body)
		req.Header = r.Header.Clone()
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// A token that may only view: the hub refuses the payout, the form says
// so in the hub's words and that nothing was sent.
func TestHubFormViewOnlyTokenSendsNothing(t *testing.T) {
	tm := hubtest.New(t, hubtest.Options{People: []hubtest.Person{
		{Name: "vic", Roles: []string{hubapi.RoleView}}, {Name: "bob", Roles: []string{hubapi.RoleRequest, hubapi.RoleApprove}}}})
	hubURL := tm.StartHub(t, "GBP=1000.00")
	vic := &hubclient.Client{BaseURL: hubURL, Token: tm.Tokens["vic"]}
	h := &hubForm{harness: newHarness(t, Options{Backend: serviceOnly{Client: tm.Service, t: t}, Approvals: vic, Profile: "vic"}, 120, 40), team: tm}
	h.fillGBP("Harbour Supplies Ltd", "HUB-VIEW", "10.00")
	h.key("y")
	view := flat(h.view())
	mustContain(t, view, "the team's hub refused it: user vic does not hold the request role", "Nothing was sent: the team's hub does not take payouts from this token")
	// Not the advice for a service out of reach: sending again cannot help.
	if strings.Contains(view, capitalised(payout.AdviceNotSent)) {
		t.Errorf("a role refusal advises sending again:\n%s", view)
	}
	if n := tm.CountPayouts(t, "HUB-VIEW"); n != 0 {
		t.Fatalf("%d payouts sent with a view-only token", n)
	}
}

// hostileHub answers with escape sequences and bidi overrides in every
// text it names: the form and the tracker draw them escaped.
type hostileHub struct{ *fakeHub }

func (f hostileHub) Submit(ctx context.Context, s hubapi.Submission) (hubapi.Result, error) {
	res, err := f.fakeHub.Submit(ctx, s)
	res.ApprovalID, res.Reason, res.Approvers = "apr-\x1b[2Jffff", hostileText, []string{hostileName}
	return res, err
}

func TestHubFormDrawsTheHubsTextEscaped(t *testing.T) {
	f := teamHub()
	h := &hubForm{harness: newHarness(t, Options{Backend: newFake(5), Approvals: hostileHub{f}, Profile: "bob"}, 120, 40)}
	h.fillGBP("Harbour Supplies Ltd", "HUB-ESC", "2,500.00")
	h.key("y")
	view := h.view()
	mustContain(t, flat(view), `Awaiting approval: apr-\x1b[2Jffff`)
	mustBeSafe(t, "the form's awaiting-approval result", view)
	h.key("3")
	mustBeSafe(t, "the tracker", h.view())
}

// Approved after the GBP account was disabled: the hub checks again
// before sending and refuses; the requester's tracker and form say it
// was refused, with the hub's reason, and nothing is paid.
func TestHubFormApprovedButRefusedIsNotPaid(t *testing.T) {
	h := startHubForm(t, nil)
	h.fillGBP("Harbour Supplies Ltd", "HUB-OFF", "1,500.00")
	h.key("y")
	id := h.tracked(t).approvalID
	if err := h.team.Sandbox.SetAccountStatus("GBP", api.AccountDisabled); err != nil {
		t.Fatal(err)
	}
	if _, err := h.bob.Approve(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	h.advance(approvalsPollEvery)
	p := h.tracked(t)
	if p.state != stateHubRefused || !strings.Contains(p.reason, "disabled") {
		t.Fatalf("tracker: %q (%s)", p.state, p.reason)
	}
	mustContain(t, flat(h.view()), "✗ Not paid: refused:", "disabled", "Nothing was paid. e fills this payout in again")
	if n := h.team.CountPayouts(t, "HUB-OFF"); n != 0 {
		t.Fatalf("%d payouts sent from a disabled account", n)
	}
}

// A disabled account before asking: the hub refuses at once, nothing is
// requested, and e goes to the source account.
func TestHubFormDisabledAccountGoesToTheSource(t *testing.T) {
	h := startHubForm(t, nil)
	if err := h.team.Sandbox.SetAccountStatus("GBP", api.AccountDisabled); err != nil {
		t.Fatal(err)
	}
	h.fillGBP("Harbour Supplies Ltd", "HUB-OFF2", "15.00")
	h.key("y")
	mustContain(t, flat(h.view()), "Payout not sent", "disabled", "Nothing was sent. e goes to Source account")
	h.key("e")
	if f := focused(h.harness); f != "source" {
		t.Fatalf("e went to %q, want the source account", f)
	}
}
