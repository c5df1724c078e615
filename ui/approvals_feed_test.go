package ui

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/webhookrelay/hub/hubapi"
	"github.com/paydash/paydash/webhookrelay/hub/hubclient"
	"github.com/paydash/paydash/webhookrelay/hub/hubtest"
)

// These tests run bob's Approvals view on a real hub over loopback
// (hub/hubtest) with its real approvals websocket, fed to the view by
// followApprovals as ui.Run feeds it (its messages handed to the program),
// and the harness's fake clock never advanced unless a test says so.

// feedWait bounds how long a pushed change may take to reach the view.
const feedWait = 5 * time.Second

// countingHub counts the lists the view asks for.
type countingHub struct {
	*hubclient.Client
	lists atomic.Int32
}

func (c *countingHub) List(ctx context.Context, all bool) ([]hubapi.Request, error) {
	c.lists.Add(1)
	return c.Client.List(ctx, all)
}

type feedHarness struct {
	*harness
	team *hubtest.Team
	ada  *hubclient.Client
	bob  *countingHub
	msgs chan tea.Msg
}

// startFeedHarness opens bob's dashboard on the Approvals view; bobURL,
// when set, puts something in front of the hub for bob.
func startFeedHarness(t *testing.T, bobURL func(hubURL string) string) *feedHarness {
	t.Helper()
	tm := hubtest.New(t, hubtest.Options{People: []hubtest.Person{
		{Name: "ada", Roles: []string{hubapi.RoleRequest}}, {Name: "bob", Roles: []string{hubapi.RoleRequest, hubapi.RoleApprove}}}})
	hubURL := tm.StartHub(t, "GBP=1000.00")
	u := hubURL
	if bobURL != nil {
		u = bobURL(hubURL)
	}
	bob := &countingHub{Client: &hubclient.Client{BaseURL: u, Token: tm.Tokens["bob"]}}
	h := newHarness(t, Options{Backend: serviceOnly{Client: tm.Service, t: t}, Approvals: bob, Profile: "bob"}, 120, 40)
	f := &feedHarness{harness: h, team: tm, bob: bob, ada: &hubclient.Client{BaseURL: hubURL, Token: tm.Tokens["ada"]},
		msgs: feedTo(t, bob)}
	h.key("8")
	return f
}

// feedTo runs followApprovals on hub for the test's life, its messages
// (what ui.Run hands to the program) put on the channel returned.
func feedTo(t *testing.T, hub ApprovalsFeed) chan tea.Msg {
	msgs := make(chan tea.Msg, 256)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		followApprovals(ctx, hub, func(m tea.Msg) {
			select {
			case msgs <- m:
			case <-ctx.Done():
			}
		})
	}()
	t.Cleanup(func() { cancel(); <-done })
	return msgs
}

// deliverUntil hands the feed's messages to the dashboard until ok holds.
func deliverUntil(h *harness, msgs <-chan tea.Msg, what string, ok func() bool) {
	h.t.Helper()
	deadline := time.After(feedWait)
	for !ok() {
		select {
		case m := <-msgs:
			h.send(m)
		case <-deadline:
			h.t.Fatalf("%s: not within %s; the view shows:\n%s", what, feedWait, h.view())
		}
	}
}

func (f *feedHarness) deliverUntil(what string, ok func() bool) {
	f.t.Helper()
	deliverUntil(f.harness, f.msgs, what, ok)
}

func (f *feedHarness) submitAbove(t *testing.T, name, ref string) string {
	t.Helper()
	res, err := f.ada.Submit(context.Background(), hubapi.Submission{PayoutRequest: api.PayoutRequest{BeneficiaryName: name,
		BeneficiaryIBAN: "GB33BUKB20201555555555", BeneficiaryReference: ref, Currency: "GBP", AmountInMinor: 2500_00,
		ContextCode: api.ContextCodeWithdrawal}})
	if err != nil || res.Status != hubapi.StatusAwaitingApproval {
		t.Fatalf("ada's request: %+v %v", res, err)
	}
	return res.ApprovalID
}

// A request made at the hub shows in bob's Approvals view as soon as the
// hub pushes it, with the fake clock standing still: it is the push, not
// the 2-second poll, that brought it; and the view says it is live.
func TestApprovalsViewUpdatesOnAPushWithoutPolling(t *testing.T) {
	f := startFeedHarness(t, nil)
	f.deliverUntil("the feed up", func() bool { return f.m.approvals.feed == feedUp })
	mustContain(t, f.view(), "as of 09:30:00 · live")
	if strings.Contains(f.view(), "polling") {
		t.Fatalf("the view says it polls with the feed up:\n%s", f.view())
	}
	start := f.clock.Now()
	f.submitAbove(t, "Pushed Payee Ltd", "PUSH-1")
	f.deliverUntil("ada's request shown", func() bool { return strings.Contains(f.view(), "Pushed Payee Ltd") })
	mustContain(t, f.view(), "1 request awaits your approval")
	if !f.clock.Now().Equal(start) {
		t.Fatal("the clock moved: the poll, not the push, may have shown it")
	}
}

// A burst of pushes while a list is on its way asks for one more list
// after it, not one per push.
func TestApprovalsViewCoalescesABurstOfPushes(t *testing.T) {
	f := startFeedHarness(t, nil)
	f.deliverUntil("the feed up", func() bool { return f.m.approvals.feed == feedUp })
	before := f.bob.lists.Load()
	var cmds []tea.Cmd
	for range 20 {
		_, cmd := f.m.Update(apprPushMsg{change: hubapi.Change{ID: "apr-x", Status: hubapi.StatusPending}})
		cmds = append(cmds, cmd)
	}
	for _, c := range cmds {
		f.run(c)
	}
	if n := f.bob.lists.Load() - before; n != 2 {
		t.Fatalf("%d lists for a burst of 20 pushes, want 2 (the one on its way, one more after it)", n)
	}
}

// An older hub, without the feed (its /hub/v1/approvals/ws answers 404):
// the view says it polls every 2 s, and a request made at the hub shows
// at the next poll.
func TestApprovalsViewFallsBackToPollingWithoutTheFeed(t *testing.T) {
	f := startFeedHarness(t, func(hubURL string) string {
		target, _ := url.Parse(hubURL)
		proxy := httputil.NewSingleHostReverseProxy(target)
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == hubapi.PathApprovalsWS {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusNotFound)
				_, _ = w.Write([]byte(`{"status":404,"reason":"not_found","detail":"no such hub endpoint"}`))
				return
			}
			proxy.ServeHTTP(w, r)
		}))
		t.Cleanup(srv.Close)
		return srv.URL
	})
	f.deliverUntil("the feed reported down", func() bool { return f.m.approvals.feed == feedDown })
	mustContain(t, f.view(), "polling every 2 s: this hub has no live feed")
	f.submitAbove(t, "Polled Payee Ltd", "POLL-1")
	if strings.Contains(f.view(), "Polled Payee Ltd") {
		t.Fatal("shown before any poll")
	}
	f.advance(approvalsPollEvery)
	mustContain(t, f.view(), "Polled Payee Ltd", "polling every 2 s")
	// A narrow terminal still says it.
	f.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	mustContain(t, f.view(), "polling every 2 s: this hub has no live feed")
}

// cutProxy forwards TCP to a hub and can cut every connection through
// it, as a network failure does (an http proxy's hijacked websocket is
// out of its server's reach).
type cutProxy struct {
	ln    net.Listener
	mu    sync.Mutex
	conns []net.Conn
}

func newCutProxy(t *testing.T, target string) *cutProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &cutProxy{ln: ln}
	t.Cleanup(func() { ln.Close(); p.cut() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, up)
			p.mu.Unlock()
			go func() { _, _ = io.Copy(up, c); up.Close() }()
			go func() { _, _ = io.Copy(c, up); c.Close() }()
		}
	}()
	return p
}

func (p *cutProxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

// The feed up, then lost (the connection to the hub cut): the view says
// it polls every 2 s; when the feed is back, it says it is live.
func TestApprovalsViewSaysWhenTheFeedIsLost(t *testing.T) {
	var proxy *cutProxy
	f := startFeedHarness(t, func(hubURL string) string {
		proxy = newCutProxy(t, strings.TrimPrefix(hubURL, "http://"))
		return "http://" + proxy.ln.Addr().String()
	})
	f.deliverUntil("the feed up", func() bool { return f.m.approvals.feed == feedUp })
	proxy.cut()
	f.deliverUntil("the feed reported down", func() bool { return f.m.approvals.feed == feedDown })
	mustContain(t, f.view(), "polling every 2 s: hub's live feed unreachable")
	f.deliverUntil("the feed up again", func() bool { return f.m.approvals.feed == feedUp })
	mustContain(t, f.view(), "as of 09:30:00 · live")
}

// The requester's Payouts tracker is fed by the same list reads: ada's
// payout awaiting approval moves on in her tracker when bob approves it,
// on the hub's push, the clock standing still.
func TestHubFormTrackerMovesOnAPush(t *testing.T) {
	h := startHubForm(t, nil)
	msgs := feedTo(t, h.m.opts.Approvals.(ApprovalsFeed))
	deliverUntil(h.harness, msgs, "the feed up", func() bool { return h.m.approvals.feed == feedUp })
	h.fillGBP("Harbour Supplies Ltd", "HUB-PUSH", "2,500.00")
	h.key("y")
	p := h.tracked(t)
	if p.state != stateAwaiting {
		t.Fatalf("tracker: state %q", p.state)
	}
	start := h.clock.Now()
	if _, err := h.bob.Approve(context.Background(), p.approvalID); err != nil {
		t.Fatal(err)
	}
	deliverUntil(h.harness, msgs, "ada's tracker moved on", func() bool {
		s := h.tracked(t).state
		return s == stateSent || api.IsFinalState(s)
	})
	if !h.clock.Now().Equal(start) {
		t.Fatal("the clock moved: a poll, not the push, may have moved it")
	}
	if n := h.team.CountPayouts(t, "HUB-PUSH"); n != 1 {
		t.Fatalf("%d payouts in the sandbox's report, want 1", n)
	}
}
