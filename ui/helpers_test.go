package ui

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/platform/clock"
	"github.com/paydash/paydash/webhookrelay/relayclient"
)

func TestMain(m *testing.M) {
	// Goldens are plain text whatever the terminal running the tests.
	lipgloss.SetColorProfile(termenv.Ascii)
	lipgloss.SetHasDarkBackground(true)
	os.Exit(m.Run())
}

// fixedNow is where the fake clock of every test screen starts.
var fixedNow = time.Date(2025, 3, 14, 9, 30, 0, 0, time.UTC)

// fakeBackend records calls; a test sets what it answers.
type fakeBackend struct {
	mu           sync.Mutex
	balances     []api.Balance
	balanceCalls int
	txs          func(i int) api.Transaction
	nTxs         int
	streams      int
	streamErr    error // the report and balances fail with it when set
	queries      []api.TransactionQuery
	served       int // rows sent
	payouts      []api.PayoutRequest
	payoutErrs   []error // answer for call i; nil or missing = accepted
	payments     []string
	paymentReqs  []api.PaymentRequest
	paymentErr   error
	// paymentKeys makes CreatePayment keep Idempotency-Keys like the
	// service: the same key with the same request answers the first
	// result, with another request 422 idempotency_key_reused. Payments
	// created while paymentLoseAnswers > 0 lose their answer (a timeout
	// after the service created them).
	paymentKeys        map[string]string
	paymentsCreated    int
	paymentLoseAnswers int
	mandates           []string
	mandateReqs        []api.MandateRequest
}

func (f *fakeBackend) Balances(context.Context) ([]api.Balance, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.balanceCalls++
	if f.streamErr != nil {
		return nil, f.streamErr
	}
	return append([]api.Balance(nil), f.balances...), nil
}

// StreamTransactions serves rows 0..nTxs-1, leaving out those before
// q.From and after q.To as the service does.
func (f *fakeBackend) StreamTransactions(ctx context.Context, q api.TransactionQuery, fn func(api.Transaction) error) error {
	f.mu.Lock()
	f.streams++
	f.queries = append(f.queries, q)
	n, err := f.nTxs, f.streamErr
	f.mu.Unlock()
	if err != nil {
		return err
	}
	for i := range n {
		t := f.txs(i)
		if !q.From.IsZero() && txAt(t).Before(q.From) || !q.To.IsZero() && txAt(t).After(q.To) {
			continue
		}
		f.mu.Lock()
		f.served++
		f.mu.Unlock()
		if err := fn(t); err != nil {
			return err
		}
	}
	return ctx.Err()
}

func (f *fakeBackend) CreatePayout(_ context.Context, req *api.PayoutRequest) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.payouts = append(f.payouts, *req)
	if n := len(f.payouts) - 1; n < len(f.payoutErrs) {
		return f.payoutErrs[n]
	}
	return nil
}

func (f *fakeBackend) CreatePayment(_ context.Context, req *api.PaymentRequest, key string) (*api.PaymentResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.payments = append(f.payments, key)
	f.paymentReqs = append(f.paymentReqs, *req)
	if f.paymentErr != nil {
		return nil, f.paymentErr
	}
	if f.paymentKeys != nil {
		body, _ := json.Marshal(req)
		switch first, seen := f.paymentKeys[key]; {
		case seen && first != string(body):
			return nil, &api.Error{StatusCode: 422, Method: "POST", URL: "https://payments.example/v1/payments",
				Problem: &api.ProblemDetails{Type: "https://docs.example/errors/idempotency_key_reused", Title: "Idempotency-Key reused",
					Detail: "This Idempotency-Key was used with a different request."}}
		case !seen:
			f.paymentKeys[key] = string(body)
			f.paymentsCreated++
		}
		if f.paymentLoseAnswers > 0 {
			f.paymentLoseAnswers--
			return nil, fmt.Errorf("create payment: %w", context.DeadlineExceeded)
		}
	}
	return &api.PaymentResponse{ID: "pay_" + strconv.Itoa(len(f.payments)), User: api.IDRef{ID: "6f1d3c2a-1111-4a4a-9b9b-000000000001"},
		ResourceToken: "rt_" + strings.Repeat("x", 40), Status: api.PaymentStatusAuthorizationRequired}, nil
}

func (f *fakeBackend) CreateMandate(_ context.Context, req *api.MandateRequest, key string) (*api.MandateResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.mandates = append(f.mandates, key)
	f.mandateReqs = append(f.mandateReqs, *req)
	return &api.MandateResponse{ID: "mandate_1", User: api.IDRef{ID: "6f1d3c2a-1111-4a4a-9b9b-000000000002"}, ResourceToken: "mt_token"}, nil
}

// reportCalls counts StreamTransactions calls.
func (f *fakeBackend) reportCalls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.streams
}

// setRows changes how many rows the next report has.
func (f *fakeBackend) setRows(n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.nTxs = n
}

func (f *fakeBackend) payoutCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.payouts)
}

// testBalances is in the order the service lists them (the dashboard
// keeps it).
var testBalances = []api.Balance{
	{Currency: "EUR", IBAN: "DE89370400440532013000", Status: api.AccountEnabled, CurrentBalanceInMinor: 8_000_00, AvailableBalanceInMinor: 7_500_50},
	{Currency: "GBP", IBAN: "GB33BUKB20201555555555", Status: api.AccountEnabled, CurrentBalanceInMinor: 125_000_00, AvailableBalanceInMinor: 120_000_00},
}

var (
	testNames = []string{"Ada Lovelace", "Alan Turing", "Grace Hopper", "Edsger Dijkstra", "Barbara Liskov", "Donald Knuth", "Margaret Hamilton", "Ken Thompson"}
	testIBANs = []string{"GB33BUKB20201555555555", "GB94BARC10201530093459", "DE89370400440532013000", "FR1420041010050500013M02606",
		"NL91ABNA0417164300", "IE29AIBK93115212345678", "ES9121000418450200051332", "IT60X0542811101000000123456"}
)

// genTx is the i-th generated report row: deterministic, varied enough to
// filter and sort on, and cheap (no fmt) so a million of them load fast.
func genTx(i int) api.Transaction {
	k := i % len(testIBANs)
	iban := testIBANs[k]
	cur := "EUR"
	if strings.HasPrefix(iban, "GB") {
		cur = "GBP"
	}
	at := fixedNow.Add(-time.Duration(i) * 37 * time.Second)
	t := api.Transaction{
		TransactionID:        testUUID(i),
		Type:                 api.TransactionPayout,
		AuthorisedAt:         api.NewReportTime(at),
		BeneficiaryName:      testNames[(i/3)%len(testNames)],
		BeneficiaryIBAN:      iban,
		BeneficiaryReference: "INV-" + strconv.Itoa(100000+i),
		AmountInMinor:        int64(100 + (i*7919)%500000),
		Currency:             cur,
		ContextCode:          api.ContextCodeWithdrawal,
		Status:               api.StateSettled,
	}
	switch {
	case i%10 == 9:
		t.Type = api.TransactionFunding
		t.AuthorisedAt = api.ReportTime{}
		t.SettledAt = api.NewReportTime(at)
	case i%13 == 5:
		t.Status = api.StateFailed
	case i%7 == 3:
		t.Status = api.StateSubmitted
		t.SubmittedAt = api.NewReportTime(at.Add(2 * time.Second))
	default:
		t.SubmittedAt = api.NewReportTime(at.Add(2 * time.Second))
		t.SettledAt = api.NewReportTime(at.Add(9 * time.Second))
	}
	return t
}

func testUUID(i int) string {
	h := uint64(i)*0x9E3779B97F4A7C15 + 0x1234567
	hexN := func(v uint64, n int) string {
		const digits = "0123456789abcdef"
		b := make([]byte, n)
		for j := n - 1; j >= 0; j-- {
			b[j] = digits[v&15]
			v >>= 4
		}
		return string(b)
	}
	// The last twelve digits are i itself, so ids are unique.
	return hexN(h>>32, 8) + "-" + hexN(h>>16, 4) + "-4" + hexN(h, 3) + "-8" + hexN(uint64(i)>>12, 3) + "-" + hexN(uint64(i), 12)
}

func newFake(n int) *fakeBackend {
	return &fakeBackend{balances: append([]api.Balance(nil), testBalances...), txs: genTx, nTxs: n}
}

// harness drives the root model the way Bubble Tea would, synchronously:
// every command runs in order and its message goes back through Update.
// Time is a fake clock: a command that waits on it (a tick) is parked
// until the test advances the clock, so nothing depends on wall time.
type harness struct {
	t        testing.TB
	m        *model
	be       *fakeBackend
	clip     *bytes.Buffer
	clock    *clock.Fake
	parked   []chan tea.Msg
	held     []tea.Msg
	holdSent bool
}

func newHarness(t testing.TB, opts Options, w, h int) *harness {
	t.Helper()
	fc, ok := opts.Clock.(*clock.Fake)
	if !ok {
		if opts.Clock != nil {
			t.Fatal("the harness needs a *clock.Fake")
		}
		fc = clock.NewFake(fixedNow)
		opts.Clock = fc
	}
	if opts.Location == nil {
		opts.Location = time.UTC
	}
	if opts.Profile == "" {
		opts.Profile = "demo"
	}
	hs := &harness{t: t, clip: &bytes.Buffer{}, clock: fc}
	if fb, ok := opts.Backend.(*fakeBackend); ok {
		hs.be = fb
	}
	hs.m = newModel(context.Background(), opts)
	hs.m.clip = hs.clip
	ids := 0
	hs.m.newID = func() string {
		ids++
		return testUUID(900000 + ids)
	}
	hs.send(tea.WindowSizeMsg{Width: w, Height: h})
	hs.run(hs.m.Init())
	return hs
}

func (h *harness) send(msg tea.Msg) {
	h.t.Helper()
	_, cmd := h.m.Update(msg)
	h.run(cmd)
}

// run executes cmd and everything it leads to, breadth first.
func (h *harness) run(cmd tea.Cmd) {
	h.t.Helper()
	queue := []tea.Cmd{cmd}
	for steps := 0; len(queue) > 0; steps++ {
		if steps > 100000 {
			h.t.Fatal("commands never settle")
		}
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		msg, ok := h.exec(c)
		if !ok {
			continue // waiting on the clock
		}
		switch msg := msg.(type) {
		case nil:
			continue
		case tea.BatchMsg:
			queue = append(queue, msg...)
			continue
		case tea.QuitMsg:
			h.held = append(h.held, msg)
			continue
		case sentMsg:
			if h.holdSent {
				h.held = append(h.held, msg)
				continue
			}
		}
		if v := reflect.ValueOf(msg); v.Kind() == reflect.Slice && v.Type().Elem() == cmdType {
			for i := range v.Len() {
				sub, _ := v.Index(i).Interface().(tea.Cmd)
				h.run(sub) // a sequence runs in order, each to completion
			}
			continue
		}
		_, next := h.m.Update(msg)
		queue = append(queue, next)
	}
}

// exec runs one command. One that waits on the fake clock instead of
// answering is parked, and answers when advance moves the clock past it.
func (h *harness) exec(c tea.Cmd) (tea.Msg, bool) {
	before := h.clock.Pending()
	done := make(chan tea.Msg, 1)
	go func() { done <- c() }()
	// Block between looks, as Bubble Tea's own loop does while a command
	// runs: a spin here would take a core from the command it waits for
	// (the report filter's workers) and skew every benchmark through it.
	poll := time.NewTicker(200 * time.Microsecond)
	defer poll.Stop()
	for {
		select {
		case msg := <-done:
			return msg, true
		case <-poll.C:
		}
		if h.clock.Pending() > before {
			h.parked = append(h.parked, done)
			return nil, false
		}
	}
}

// advance moves the fake clock on by d and delivers what the timers that
// fell due produce (the one-second redraw, balance and report polls).
func (h *harness) advance(d time.Duration) {
	h.t.Helper()
	before := h.clock.Pending()
	h.clock.Advance(d)
	fired := before - h.clock.Pending()
	var msgs []tea.Msg
	for len(msgs) < fired {
		for i := 0; i < len(h.parked); i++ {
			select {
			case msg := <-h.parked[i]:
				msgs = append(msgs, msg)
				h.parked = append(h.parked[:i], h.parked[i+1:]...)
				i--
			default:
			}
		}
		runtime.Gosched()
	}
	for _, msg := range msgs {
		h.send(msg)
	}
}

// key sends one key press: "enter", "ctrl+s", "alt+3" or a single rune.
func (h *harness) key(k string) {
	h.t.Helper()
	h.send(keyMsg(k))
}

// keysNoSettle delivers several keys before any of their commands run, as
// when a person presses enter twice faster than the program reacts.
func (h *harness) keysNoSettle(ks ...string) {
	h.t.Helper()
	var cmds []tea.Cmd
	for _, k := range ks {
		_, cmd := h.m.Update(keyMsg(k))
		cmds = append(cmds, cmd)
	}
	for _, c := range cmds {
		h.run(c)
	}
}

func (h *harness) typeText(s string) {
	h.t.Helper()
	for _, r := range s {
		h.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
	}
}

func keyMsg(k string) tea.KeyMsg {
	alt := false
	if strings.HasPrefix(k, "alt+") && len(k) == 5 {
		alt, k = true, k[4:]
	}
	names := map[string]tea.KeyType{
		"enter": tea.KeyEnter, "esc": tea.KeyEsc, "tab": tea.KeyTab, "shift+tab": tea.KeyShiftTab,
		"up": tea.KeyUp, "down": tea.KeyDown, "left": tea.KeyLeft, "right": tea.KeyRight,
		"backspace": tea.KeyBackspace, "ctrl+c": tea.KeyCtrlC, "ctrl+s": tea.KeyCtrlS, "ctrl+n": tea.KeyCtrlN,
		"pgdown": tea.KeyPgDown, "pgup": tea.KeyPgUp, "home": tea.KeyHome, "end": tea.KeyEnd, " ": tea.KeySpace,
		"ctrl+b": tea.KeyCtrlB, "ctrl+f": tea.KeyCtrlF, "ctrl+u": tea.KeyCtrlU, "ctrl+d": tea.KeyCtrlD,
	}
	if t, ok := names[k]; ok {
		return tea.KeyMsg{Type: t, Alt: alt}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k), Alt: alt}
}

func (h *harness) view() string { return h.m.View() }

// releaseHeld delivers held sentMsgs (answers of requests "in flight").
func (h *harness) releaseHeld() {
	h.t.Helper()
	held := h.held
	h.held = nil
	for _, msg := range held {
		if _, ok := msg.(tea.QuitMsg); ok {
			h.held = append(h.held, msg)
			continue
		}
		h.send(msg)
	}
}

func (h *harness) quit() bool {
	for _, msg := range h.held {
		if _, ok := msg.(tea.QuitMsg); ok {
			return true
		}
	}
	return false
}

func mustContain(t testing.TB, s string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(s, w) {
			t.Errorf("screen lacks %q:\n%s", w, s)
		}
	}
}

// testEvents is a small relay stream: one payout that settles, one that is
// rejected, and an unrelated event.
func testEvents() []relayclient.Event {
	at := func(s int) time.Time { return fixedNow.Add(time.Duration(s) * time.Second) }
	body := func(typ, id, extra string) []byte {
		return []byte(`{"event_type":"` + typ + `","event_id":"e-` + id + `","event_body":{"transaction_id":"` + id + `"` + extra + `}}`)
	}
	a, b := "11111111-2222-4333-8444-555555555555", "99999999-8888-4777-8666-555555555555"
	ev := func(seq uint64, typ, id, state, reason string, s int) relayclient.Event {
		return relayclient.Event{Seq: seq, EventID: "ev-" + strconv.Itoa(int(seq)), Family: relayclient.FamilyPayout, Type: typ,
			PayoutID: id, State: state, Reason: reason, OccurredAt: at(s), ReceivedAt: at(s),
			Headers: map[string]string{"X-Svc-Webhook-Timestamp": at(s).Format(api.WebhookTimeLayout), "Content-Type": "application/json"},
			Body:    body(typ, id, `,"`+state+`_at":"`+at(s).Format(api.WebhookTimeLayout)+`"`)}
	}
	return []relayclient.Event{
		ev(1, api.EventPayoutAuthorised, a, api.StateAuthorised, "", -60),
		ev(2, api.EventPayoutSubmitted, a, api.StateSubmitted, "", -55),
		ev(3, api.EventPayoutRejected, b, api.StateRejected, api.FailureInsufficientFunds, -50),
		ev(4, api.EventPayoutSettled, a, api.StateSettled, "", -40),
		{Seq: 5, EventID: "ev-5", Family: relayclient.FamilyPayments, Type: api.EventExternalPaymentReceived, ReceivedAt: at(-30),
			Body: []byte(`{"type":"external_payment_received","event_id":"ev-5","event_version":1,"amount_in_minor":50000,"ok":true,"n":null}`)},
	}
}

func liveState() <-chan relayclient.ConnState {
	ch := make(chan relayclient.ConnState, 1)
	ch <- relayclient.ConnState{Status: relayclient.StateLive, LastSeq: 5}
	close(ch)
	return ch
}

func closedEvents(evs []relayclient.Event) <-chan relayclient.Event {
	ch := make(chan relayclient.Event, len(evs))
	for _, e := range evs {
		ch <- e
	}
	close(ch)
	return ch
}
